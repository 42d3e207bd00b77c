#!/usr/bin/env python3
"""The cost of one snowflake_nextval(), in the tree and in a reference
build, on two private copies of one PostgreSQL installation (bench/perid.sh
prepares them).  Prints a markdown report.

callgrind counts instructions: the same for the same binary and input on
any machine, loaded or not.  The wall-clock part alternates the methods
round by round and reports medians of per-round ratios, which a loaded
machine moves less than the times themselves."""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

NODE_ID = 7


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Install:
    """One PostgreSQL copy with its snowflake build, a data directory, and
    (for the wall clock) a running server with one psql session."""

    def __init__(self, name, bindir, work, port):
        self.name, self.bindir, self.port = name, bindir, port
        self.dir = os.path.join(work, "run-" + name)
        self.data = os.path.join(self.dir, "data")
        self.proc = None

    def bin(self, program):
        return os.path.join(self.bindir, program)

    def initdb(self):
        os.makedirs(self.dir, exist_ok=True)
        subprocess.run([self.bin("initdb"), "-D", self.data, "-A", "trust",
                        "--no-sync", "-U", "postgres"], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("shared_preload_libraries = 'snowflake'\n"
                    "snowflake.node_id = %d\n"
                    "listen_addresses = ''\n"
                    "unix_socket_directories = '%s'\n"
                    "port = %d\n"
                    "fsync = off\n" % (NODE_ID, self.dir, self.port))
        self.single("CREATE EXTENSION snowflake;\n"
                    "CREATE SEQUENCE seq;\n")

    def create_floor(self):
        """The functions of bench/floor (built into this installation)."""
        self.single("".join(
            "CREATE FUNCTION %s() RETURNS bigint AS '$libdir/bench_floor' "
            "LANGUAGE C VOLATILE;\n" % f
            for f in ("bench_floor_nothing", "bench_floor_clock",
                      "bench_floor_clock_lock")))

    def single(self, sql, wrapper=()):
        """Runs sql in a single-user backend (the server must be stopped)."""
        r = subprocess.run(list(wrapper) + [self.bin("postgres"), "--single",
                                            "-D", self.data, "postgres"],
                           input=sql, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        bad = [l for l in (r.stdout + r.stderr).splitlines()
               if re.search(r"\b(ERROR|FATAL|PANIC)\b", l) and not l.startswith("==")]
        if r.returncode != 0 or bad:
            raise SystemExit("%s: single-user backend failed: %s" % (
                self.name, " / ".join(bad[-3:]) or r.stderr[-500:]))
        return r

    def callgrind(self, calls):
        """Instructions per call inside snowflake_nextval(), and calls of
        clock_gettime() per ID, over 'calls' calls."""
        out = os.path.join(self.dir, "callgrind.out")
        sql = "SELECT count(snowflake_nextval()) FROM generate_series(1, %d);\n" % calls
        # a first call outside the measurement: the reservation's first write
        self.single("SELECT snowflake_nextval();\n" + sql,
                    ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                     "--toggle-collect=snowflake_nextval"])
        total, clock_calls, entries = 0, 0, 0
        names = {}
        current = None
        with open(out) as f:
            for line in f:
                m = re.match(r"^totals: (\d+)", line)
                if m:
                    total = int(m.group(1))
                # compressed names: "(id) name" the first time an id is
                # used, by fn= or cfn=, and "(id)" alone after that
                m = re.match(r"^(c?)fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
                if m:
                    if m.group(3):
                        names[m.group(2)] = m.group(3)
                    current = names.get(m.group(2), "") if m.group(1) else None
                    continue
                m = re.match(r"^calls=(\d+)", line)
                if m and current is not None:
                    if current.startswith("clock_gettime") or current.startswith("__clock_gettime"):
                        clock_calls += int(m.group(1))
                    current = None
        # the toggled function's own entries: calls + 1 (the warm-up call
        # is collected too)
        entries = calls + 1
        return total / entries, clock_calls / entries

    def start(self):
        subprocess.run([self.bin("pg_ctl"), "-D", self.data, "-l",
                        os.path.join(self.dir, "server.log"), "-w", "start"],
                       check=True, stdout=subprocess.DEVNULL)
        self.proc = subprocess.Popen(
            [self.bin("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
             "-h", self.dir, "-p", str(self.port), "postgres"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.count = 0

    def timed(self, sql):
        """Milliseconds the statement took, as psql's \\timing reports it."""
        self.count += 1
        marker = "@@perid-%d@@" % self.count
        self.proc.stdin.write("\\timing on\n%s;\n\\timing off\n\\echo %s\n" % (sql, marker))
        self.proc.stdin.flush()
        ms = None
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise SystemExit("%s: psql ended" % self.name)
            line = line.rstrip("\n")
            if line == marker:
                break
            m = re.match(r"^Time: ([0-9.]+) ms", line)
            if m:
                ms = float(m.group(1))
        if ms is None:
            raise SystemExit("%s: no timing for %s" % (self.name, sql))
        return ms

    def stop(self):
        if self.proc:
            self.proc.stdin.close()
            self.proc.wait()
        subprocess.run([self.bin("pg_ctl"), "-D", self.data, "-m", "fast", "-w", "stop"],
                       stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--tree-bin", required=True)
    ap.add_argument("--ref-bin", required=True)
    ap.add_argument("--ref-name", default="reference")
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--ids", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()

    tree = Install("tree", a.tree_bin, a.work, 55910)
    ref = Install("ref", a.ref_bin, a.work, 55911)
    version = subprocess.run([tree.bin("postgres"), "--version"], stdout=subprocess.PIPE,
                             text=True).stdout.strip()

    cg = {}
    for inst in (tree, ref):
        log("%s: initdb, callgrind over %d calls" % (inst.name, a.calls))
        inst.initdb()
        cg[inst.name] = inst.callgrind(a.calls)
    tree.create_floor()

    log("wall clock: %d rounds of %d IDs" % (a.rounds, a.ids))
    tree.start()
    ref.start()
    series = "FROM generate_series(1, %d)" % a.ids
    methods = [
        ("tree", tree, "SELECT count(snowflake_nextval()) " + series),
        ("ref", ref, "SELECT count(snowflake_nextval()) " + series),
        ("clock_timestamp", tree, "SELECT count(clock_timestamp()) " + series),
        ("nextval", tree, "SELECT count(nextval('seq')) " + series),
        ("floor_nothing", tree, "SELECT count(bench_floor_nothing()) " + series),
        ("floor_clock", tree, "SELECT count(bench_floor_clock()) " + series),
        ("floor_lock", tree, "SELECT count(bench_floor_clock_lock()) " + series),
    ]
    times = {m[0]: [] for m in methods}
    try:
        for m in methods:          # warm-up, not counted
            m[1].timed(m[2])
        for r in range(a.rounds):
            # a different order every round, so that no method always runs
            # right after the same other one
            order = methods[r % len(methods):] + methods[:r % len(methods)]
            for name, inst, sql in order:
                times[name].append(inst.timed(sql))
    finally:
        tree.stop()
        ref.stop()

    def ratio(x, y):
        return statistics.median(a / b for a, b in zip(times[x], times[y]))

    print("# The cost of one snowflake_nextval()\n")
    print("%s; the tree against %s; %s.\n" % (version, a.ref_name,
                                             time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print("## callgrind, %d calls in a single-user backend\n" % a.calls)
    print("| build | instructions per call | clock reads per ID |")
    print("|---|---:|---:|")
    for name, label in (("tree", "tree"), ("ref", a.ref_name)):
        ir, clk = cg[name]
        print("| %s | %.0f | %.2f |" % (label, ir, clk))
    print("\nInside `snowflake_nextval()` and everything it calls "
          "(`--toggle-collect`); clock reads are its calls of `clock_gettime()`.\n")
    print("## wall clock, %d IDs in one backend, %d alternating rounds\n" % (a.ids, a.rounds))
    print("| method | median ms |")
    print("|---|---:|")
    for name, label in (("tree", "snowflake_nextval(), tree"),
                        ("ref", "snowflake_nextval(), " + a.ref_name),
                        ("clock_timestamp", "clock_timestamp()"),
                        ("nextval", "nextval() of a sequence"),
                        ("floor_nothing", "floor: a function that does nothing"),
                        ("floor_clock", "floor: one clock read"),
                        ("floor_lock", "floor: one clock read and a spinlock")):
        print("| %s | %.1f |" % (label, statistics.median(times[name])))
    print("\n| ratio (median of per-round ratios) | |")
    print("|---|---:|")
    print("| tree / %s | %.2f |" % (a.ref_name, ratio("tree", "ref")))
    print("| tree / clock_timestamp() | %.2f |" % ratio("tree", "clock_timestamp"))
    print("| tree / nextval() | %.2f |" % ratio("tree", "nextval"))
    print("| %s / clock_timestamp() | %.2f |" % (a.ref_name, ratio("ref", "clock_timestamp")))
    print("| %s / nextval() | %.2f |" % (a.ref_name, ratio("ref", "nextval")))
    print("| floor, nothing / clock_timestamp() | %.2f |" % ratio("floor_nothing", "clock_timestamp"))
    print("| floor, clock read / clock_timestamp() | %.2f |" % ratio("floor_clock", "clock_timestamp"))
    print("| floor, clock read and spinlock / clock_timestamp() | %.2f |"
          % ratio("floor_lock", "clock_timestamp"))
    print("| tree / floor, clock read and spinlock | %.2f |" % ratio("tree", "floor_lock"))
    print("\nThe floor (bench/floor): a row with a function that does nothing; what any "
          "generator of time-ordered IDs does per ID (one clock read); and what one "
          "shared by backends does at least (and a spinlock).")
    print()


if __name__ == "__main__":
    main()
