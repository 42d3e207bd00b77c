#!/usr/bin/env python3
"""bench/bench.py: benchmarks of the snowflake extension against other ways
of generating keys in PostgreSQL 15.

Starts a throwaway PostgreSQL 15 instance (Unix socket only), runs the
selected sections, prints a markdown report and saves it, then stops and
removes the instance, also on errors and Ctrl-C.  Python 3 standard library
only; it runs as an unprivileged user (initdb refuses root), normally
through bench/run.sh.  See bench/README.md.

    python3 bench/bench.py [--quick] [--only=bulk,pgbench,...]
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

PGBIN = os.environ.get("PGBIN", "/usr/lib/postgresql/15/bin")
EPOCH_MS = 1735689600000          # 2025-01-01 00:00:00 UTC, the default epoch
SEQ_PER_MS = 4096                 # 12 sequence bits
NODE_ID = 1

SECTIONS = ["bulk", "pgbench", "insert", "decode", "timerange", "scaling",
            "hwm", "profile"]

# name -> (SQL expression, column type for a keyed table, description)
METHODS = {
    "const": ("1::bigint", "bigint",
              "a constant: the cost of the query loop itself"),
    "clock_timestamp": ("clock_timestamp()", "timestamptz",
                        "one volatile call and one clock read: the cheapest generator"),
    "nextval": ("nextval('bench_seq')", "bigint",
                "native sequence, CACHE 1 (what bigserial uses): the reference"),
    "nextval_cache100": ("nextval('bench_seq_cache100')", "bigint",
                         "native sequence, CACHE 100"),
    "uuid_v4": ("gen_random_uuid()", "uuid", "random UUID, built in"),
    "uuid_v7_sql": ("bench_uuid_v7()", "uuid",
                    "UUIDv7 in one SQL function (inlined), see README"),
    "instagram_plpgsql": ("bench_instagram_id()", "bigint",
                          "Instagram-style ID in PL/pgSQL, see README"),
    "snowflake_bigint": ("snowflake_nextval()::bigint", "bigint",
                         "this extension, result cast to bigint"),
    "snowflake": ("snowflake_nextval()", "snowflake", "this extension"),
}
METHOD_ORDER = list(METHODS)

# Helper objects every section may use.  Written for this harness.
SETUP_SQL = r"""
CREATE EXTENSION snowflake;
CREATE SEQUENCE bench_seq CACHE 1;
CREATE SEQUENCE bench_seq_cache100 CACHE 100;
CREATE SEQUENCE bench_insta_seq CACHE 1;

-- UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then the 10 last bytes
-- of a random (version 4) UUID whose version nibble is turned from 0100
-- into 0111 by setting its two low bits; the variant bits (10) of the
-- random UUID stay as they are.  A single SELECT, so the planner inlines
-- it into the calling query.
CREATE FUNCTION bench_uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $fn$
  SELECT encode(
           substring(int8send(floor(date_part('epoch', clock_timestamp()) * 1000)::bigint) FROM 3)
           || set_bit(set_bit(substring(uuid_send(gen_random_uuid()) FROM 7), 4, 1), 5, 1),
           'hex')::uuid
$fn$;

-- Instagram-style ID: milliseconds since a custom epoch (2025-01-01 UTC)
-- in the top 41 bits, a 13-bit shard ID, and the low 10 bits of a
-- sequence, i.e. ms << 23 | shard << 10 | nextval % 1024.
CREATE FUNCTION bench_instagram_id(shard integer DEFAULT 1) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  custom_epoch_ms CONSTANT bigint := 1735689600000;
  now_ms bigint;
  seq_low bigint;
BEGIN
  seq_low := nextval('bench_insta_seq') % 1024;
  now_ms := floor(date_part('epoch', clock_timestamp()) * 1000)::bigint;
  RETURN ((now_ms - custom_epoch_ms) << 23) | (shard::bigint << 10) | seq_low;
END
$fn$;
"""


# Decoding all three fields of an ID in SQL, for the default layout
SQL_TS = "to_timestamp(((id::bigint >> 22) + %d)::float8 / 1000)" % EPOCH_MS
SQL_NODE = "((id::bigint >> 12) & 1023)::integer"
SQL_SEQ = "(id::bigint & 4095)::integer"


def decode_queries(table):
    """(name, description, query) of the decoding variants over a table of
    IDs; each reads every field of every ID and aggregates it."""
    return [
        ("sql", "SQL arithmetic (to_timestamp, shifts, masks)",
         "SELECT max(%s), sum(%s), sum(%s) FROM %s" % (SQL_TS, SQL_NODE, SQL_SEQ, table)),
        ("c_fields", "`(snowflake_decode(id)).ts`, `.node_id`, `.seq`",
         "SELECT max((snowflake_decode(id)).ts), sum((snowflake_decode(id)).node_id), "
         "sum((snowflake_decode(id)).seq) FROM %s" % table),
        ("c_from", "`snowflake_decode(id)` in FROM (LATERAL)",
         "SELECT max(d.ts), sum(d.node_id), sum(d.seq) FROM %s i, snowflake_decode(i.id) d"
         % table),
        ("c_record", "`snowflake_decode(id)` once per row as a record",
         "SELECT max((d).ts), sum((d).node_id), sum((d).seq) "
         "FROM (SELECT snowflake_decode(id) d FROM %s OFFSET 0) s" % table),
        ("c_scalar", "`snowflake_timestamp`, `snowflake_node_id`, `snowflake_seq`",
         "SELECT max(snowflake_timestamp(id)), sum(snowflake_node_id(id)), "
         "sum(snowflake_seq(id)) FROM %s" % table),
        ("scan", "scan and aggregate only, no decoding (floor)",
         "SELECT max(id::bigint), sum(0), sum(0) FROM %s" % table),
    ]


def bulk_query(expr, n):
    return "SELECT count(x) FROM (SELECT %s x FROM generate_series(1, %d)) s" % (expr, n)


# Below this many milliseconds a time net of the scan-and-aggregate floor is
# noise, not decoding work: net_ratio() treats smaller (or negative) values
# as this much.
NET_MIN_MS = 0.5


class BenchError(Exception):
    pass


def progress(msg):
    """Progress lines go to stderr; the report goes to stdout."""
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr,
          flush=True)


# --------------------------------------------------------------------------
# statistics and formatting

def median(xs):
    return statistics.median(xs)


def per_round(xs, refs):
    """Ratios of measurements taken in the same round: xs[i] / refs[i]."""
    return [a / b for a, b in zip(xs, refs)]


def net_ratio(ref, x, floor):
    """How many times faster x is than ref once the floor's time is taken
    off both.  Each net time is clamped to NET_MIN_MS, so a round where x
    is no slower than the floor counts as a very large speed-up instead of
    dividing by zero (or by a negative number) or being dropped; dropping
    such rounds would remove exactly those that favour x most."""
    return max(ref - floor, NET_MIN_MS) / max(x - floor, NET_MIN_MS)


def per_id(r, n):
    """Instructions per ID of a callgrind result over n IDs."""
    return r["total"] / n


def fmt_num(x, digits=1):
    if x is None:
        return "n/a"
    return "{:,.{d}f}".format(x, d=digits)


def fmt_span(xs, digits=1):
    return "%s..%s" % (fmt_num(min(xs), digits), fmt_num(max(xs), digits))


def fmt_ratio(x):
    return "n/a" if x is None else "%.2f" % x


def fmt_bytes(n):
    return "%.1f MiB" % (n / 1048576.0)


def md_table(headers, rows, right=None):
    """A markdown table; 'right' lists the columns to right-align."""
    right = set(range(1, len(headers))) if right is None else set(right)
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---:" if i in right else "---"
                          for i in range(len(headers))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return out


def rotated(items, k):
    k %= max(len(items), 1)
    return items[k:] + items[:k]


# --------------------------------------------------------------------------
# the throwaway server

class Server:
    def __init__(self, workdir, port):
        self.workdir = workdir
        self.data = os.path.join(workdir, "data")
        self.sock = workdir
        self.port = port
        self.logfile = os.path.join(workdir, "server.log")
        self.running = False
        self.stop_error = ""
        self.settings = [
            ("listen_addresses", "''"),
            ("unix_socket_directories", "'%s'" % self.sock),
            ("port", str(port)),
            ("shared_preload_libraries", "'snowflake'"),
            ("snowflake.node_id", str(NODE_ID)),
            ("fsync", "on"),
            ("synchronous_commit", "on"),
            ("shared_buffers", "256MB"),
            ("max_connections", "50"),
            # no checkpoint in the middle of a measurement: sections issue
            # CHECKPOINT themselves between measurements
            ("max_wal_size", "4GB"),
            ("checkpoint_timeout", "1h"),
            # no background activity or plan changes that would hit some
            # methods and not others; sections VACUUM ANALYZE themselves
            ("autovacuum", "off"),
            ("jit", "off"),
            ("max_parallel_workers_per_gather", "0"),
            ("log_checkpoints", "on"),
        ]

    def initdb(self):
        os.makedirs(self.workdir, exist_ok=True)
        run_checked([os.path.join(PGBIN, "initdb"), "-D", self.data,
                     "-U", "postgres", "-A", "trust", "-E", "UTF8",
                     "--locale=C", "--no-sync"])
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("\n# bench/bench.py\n")
            for k, v in self.settings:
                f.write("%s = %s\n" % (k, v))

    def start(self):
        run_checked([os.path.join(PGBIN, "pg_ctl"), "-D", self.data,
                     "-l", self.logfile, "-w", "-t", "120", "start"])
        self.running = True

    def has_pid_file(self):
        return os.path.exists(os.path.join(self.data, "postmaster.pid"))

    def stop(self):
        """Stops the server; 'running' stays True if that did not work.
        Also tries when start() failed, since pg_ctl can give up waiting
        after the postmaster has started: postmaster.pid tells."""
        if not self.running and not self.has_pid_file():
            return
        pg_ctl = os.path.join(PGBIN, "pg_ctl")
        r = subprocess.run([pg_ctl, "-D", self.data, "-m", "fast", "-w", "-t", "120",
                            "stop"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode == 0:
            self.running = False
            return
        # a stale postmaster.pid makes stop fail too; status exits 3 when
        # no server runs on the directory
        st = subprocess.run([pg_ctl, "-D", self.data, "status"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.running = st.returncode != 3
        if self.running:
            self.stop_error = " ".join(r.stdout.split())[-500:]

    def conn_args(self, db="bench"):
        return ["-h", self.sock, "-p", str(self.port), "-U", "postgres", db]


def run_checked(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        raise BenchError("command failed (%d): %s\n%s" %
                         (r.returncode, " ".join(cmd), r.stdout[-3000:]))
    return r.stdout


class Psql:
    """One persistent psql connection: queries go in through stdin, each
    followed by an \\echo marker that ends its output.  With timed=True the
    statement runs under \\timing, which measures the statement only
    (connection set-up is not included)."""

    def __init__(self, server, db="bench"):
        self.errfile = tempfile.NamedTemporaryFile(
            mode="w+", dir=server.workdir, prefix="psql-", suffix=".err",
            delete=False)
        self.proc = subprocess.Popen(
            [os.path.join(PGBIN, "psql"), "-X", "-q", "-A", "-t",
             "-v", "ON_ERROR_STOP=1"] + server.conn_args(db),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.errfile, text=True, bufsize=1)
        self.count = 0
        self.run("SET client_min_messages = warning")

    def run(self, sql, timed=False):
        """Returns (rows, milliseconds or None); rows are '|'-separated."""
        self.count += 1
        marker = "@@bench-%d@@" % self.count
        body = sql.strip()
        if not body.endswith(";"):
            body += ";"
        text = ("\\timing on\n" if timed else "") + body + "\n" + \
               ("\\timing off\n" if timed else "") + "\\echo " + marker + "\n"
        try:
            self.proc.stdin.write(text)
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                self.errfile.seek(0)
                err = self.errfile.read()[-3000:]
                if "canceling statement due to user request" in err:
                    raise KeyboardInterrupt("Ctrl-C")   # psql got the SIGINT too
                raise BenchError("psql failed on:\n%s\n%s" % (body[:2000], err))
            line = line.rstrip("\n")
            if line == marker:
                break
            lines.append(line)
        rows, ms = [], None
        for line in lines:
            m = re.match(r"^Time: ([0-9.]+) ms", line)
            if m:
                ms = float(m.group(1)) + (ms or 0.0)
            else:
                rows.append(line)
        return rows, ms

    def value(self, sql):
        rows, _ = self.run(sql)
        return rows[0] if rows else None

    def timed(self, sql):
        rows, ms = self.run(sql, timed=True)
        if ms is None:
            raise BenchError("no timing for: %s" % sql)
        return rows, ms

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.errfile.close()
        os.unlink(self.errfile.name)


# --------------------------------------------------------------------------
# the harness: server, sessions, report

class Bench:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.server = Server(args.workdir, args.port)
        self.sess = None
        self.report = []          # markdown lines
        self.targets = []         # (section, description, passed, detail)
        self.notes = []
        self.started = datetime.datetime.now(datetime.timezone.utc)

    # -- parameters, by mode ------------------------------------------------
    def p(self, full, quick):
        return quick if self.quick else full

    def rounds(self, full, quick):
        return self.args.rounds or self.p(full, quick)

    # -- report helpers ------------------------------------------------------
    def emit(self, lines):
        if isinstance(lines, str):
            lines = [lines]
        self.report.extend(lines)
        print("\n".join(lines), flush=True)

    def target(self, section, desc, passed, detail):
        self.targets.append((section, desc, passed, detail))
        self.emit("- **%s** %s: %s" % ("PASS" if passed else "FAIL", desc,
                                       detail))

    # -- server and helpers --------------------------------------------------
    def start(self):
        progress("initdb and start in %s (port %d)" %
                 (self.server.workdir, self.server.port))
        self.server.initdb()
        self.server.start()
        admin = Psql(self.server, db="postgres")
        try:
            admin.run("CREATE DATABASE bench")
        finally:
            admin.close()
        self.sess = Psql(self.server)
        self.sess.run(SETUP_SQL)
        self.check_helpers()

    def stop(self):
        if self.sess is not None:
            try:
                self.sess.close()
            except Exception:
                pass
            self.sess = None
        self.server.stop()

    def check_helpers(self):
        """The hand-written generators produce what they claim."""
        s = self.sess
        ok = s.value(r"""
          SELECT bool_and(substr(u::text, 15, 1) = '7'
                     AND substr(u::text, 20, 1) IN ('8', '9', 'a', 'b')
                     AND abs(('x' || substr(replace(u::text, '-', ''), 1, 12))::bit(48)::bigint
                             - floor(date_part('epoch', clock_timestamp()) * 1000)::bigint) < 5000)
            FROM (SELECT bench_uuid_v7() u FROM generate_series(1, 1000)) s""")
        if ok != "t":
            raise BenchError("bench_uuid_v7() does not produce UUIDv7 values")
        ok = s.value(r"""
          SELECT bool_and(abs((id >> 23) + %d
                          - floor(date_part('epoch', clock_timestamp()) * 1000)::bigint) < 5000
                      AND (id >> 10) & 8191 = 1)
            FROM (SELECT bench_instagram_id() id FROM generate_series(1, 1000)) s"""
                     % EPOCH_MS)
        if ok != "t":
            raise BenchError("bench_instagram_id() does not decode as expected")

    def status(self):
        cols = ["ids_issued", "sequence_exhaustions", "max_clock_lead_ms",
                "hwm_writes", "hwm_backend_writes", "clock_waits",
                "clock_errors"]
        row = self.sess.value("SELECT %s FROM snowflake_status()" %
                              ", ".join(cols))
        vals = row.split("|")
        d = {c: (int(v) if v != "" else 0) for c, v in zip(cols, vals)}
        d["at"] = time.monotonic()
        return d

    def checkpoint(self):
        self.sess.run("CHECKPOINT")

    def pgbench_cmd(self, script, clients, seconds, name):
        """Writes 'script' to a file in the work directory; returns the
        pgbench command line that runs it."""
        path = os.path.join(self.server.workdir, "pgbench-%s.sql" % name)
        with open(path, "w") as f:
            f.write(script.strip() + "\n")
        return [os.path.join(PGBIN, "pgbench"), "-n", "-M", "prepared",
                "-c", str(clients), "-j", str(clients), "-T", str(seconds),
                "-f", path] + self.server.conn_args()

    def pgbench(self, script, clients, seconds, name):
        r = subprocess.run(self.pgbench_cmd(script, clients, seconds, name),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        m = re.search(r"^tps = ([0-9.]+) \(without initial connection time\)",
                      r.stdout, re.M)
        failed = re.search(r"number of failed transactions: (\d+)", r.stdout)
        if r.returncode != 0 or not m or (failed and int(failed.group(1))):
            raise BenchError("pgbench failed (%s):\n%s" %
                             (name, r.stdout[-3000:]))
        return float(m.group(1))

    # -- sections -------------------------------------------------------------
    def machine(self):
        def cpuinfo_model():
            try:
                with open("/proc/cpuinfo") as f:
                    for line in f:
                        if line.startswith("model name"):
                            return line.split(":", 1)[1].strip()
            except OSError:
                pass
            return platform.processor() or "unknown"

        def mem_total():
            try:
                with open("/proc/meminfo") as f:
                    for line in f:
                        if line.startswith("MemTotal:"):
                            return "%.1f GiB" % (int(line.split()[1]) / 1048576)
            except OSError:
                pass
            return "unknown"

        def clocksource():
            try:
                with open("/sys/devices/system/clocksource/clocksource0/"
                          "current_clocksource") as f:
                    return f.read().strip()
            except OSError:
                return "unknown"

        version = self.sess.value("SELECT version()")
        ext = self.sess.value(
            "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'")
        layout = self.sess.value(
            "SELECT format('node %s, epoch %s, %s/%s/%s time/node/sequence bits, clock policy %s', "
            "node_id, epoch, time_bits, node_bits, sequence_bits, clock_policy) "
            "FROM snowflake_status()")
        names = [k for k, _ in self.server.settings
                 if k not in ("listen_addresses", "unix_socket_directories")]
        rows, _ = self.sess.run(
            "SELECT name, current_setting(name) FROM pg_settings "
            "WHERE name IN (%s) ORDER BY name" %
            ", ".join("'%s'" % n for n in names))
        settings = ", ".join("`%s=%s`" % tuple(r.split("|", 1)) for r in rows)
        self.emit([
            "# snowflake benchmark report",
            "",
            "Run %s UTC, mode **%s**, sections: %s." % (
                self.started.strftime("%Y-%m-%d %H:%M:%S"),
                "quick" if self.quick else "full", ", ".join(self.args.only)),
            "",
            "## Machine",
            "",
            "- CPUs (nproc): %d; model: %s" % (os.cpu_count(), cpuinfo_model()),
            "- RAM: %s; kernel: %s %s; clocksource: %s" % (
                mem_total(), platform.system(), platform.release(),
                clocksource()),
            "- load average at start: %s" % " ".join(
                "%.2f" % x for x in os.getloadavg()),
            "- PostgreSQL: %s" % version,
            "- snowflake %s: %s; source: %s" % (ext, layout,
                                                os.environ.get("BENCH_SOURCE", "not given")),
            "- server settings (identical for every method): %s" % settings,
            "- timings: psql `\\timing` on one persistent connection "
            "(statement only, no connection set-up); pgbench: `-n -M prepared`, "
            "tps without initial connection time, `-j` = clients",
            "",
        ])

    def sec_bulk(self):
        n = self.p(1000000, 300000)
        reps = self.rounds(7, 3)
        floor_ms = n / SEQ_PER_MS     # IDs cannot come faster without borrowing
        core = ["clock_timestamp", "snowflake", "nextval", "snowflake_bigint"]
        others = [m for m in METHOD_ORDER if m not in core]
        progress("bulk: %d IDs per query, %d rounds" % (n, reps))
        # snowflake_nextval(n), where the installed version has it: info only
        extra = None
        if self.sess.value("SELECT to_regprocedure('snowflake_nextval(bigint)') IS NOT NULL") == "t":
            extra = ("snowflake_nextval(n)", "SELECT count(x) FROM snowflake_nextval(%d) x" % n)
        for m in METHOD_ORDER:           # warm-up: plans, PL/pgSQL, caches
            self.sess.run(bulk_query(METHODS[m][0], n))
        if extra:
            self.sess.run(extra[1])
        extra_t = []
        before = self.status()
        samples = {m: [] for m in METHOD_ORDER}
        per_run = {m: [] for m in METHOD_ORDER}   # ratio vs nextval, same round
        sf_vs_ct, sf_vs_floor, sfb_vs_ct = [], [], []
        for r in range(reps):
            order = rotated(others, r) + rotated(core, r)
            t = {}
            for m in order:
                rows, ms = self.sess.timed(bulk_query(METHODS[m][0], n))
                if rows != [str(n)]:
                    raise BenchError("bulk %s returned %r" % (m, rows))
                t[m] = ms
                samples[m].append(ms)
            if extra:
                rows, ms = self.sess.timed(extra[1])
                if rows != [str(n)]:
                    raise BenchError("bulk %s returned %r" % (extra[0], rows))
                extra_t.append(ms / t["nextval"])
                samples.setdefault(extra[0], []).append(ms)
            for m in METHOD_ORDER:
                per_run[m].append(t[m] / t["nextval"])
            sf_vs_ct.append(t["snowflake"] / t["clock_timestamp"])
            sfb_vs_ct.append(t["snowflake_bigint"] / t["clock_timestamp"])
            sf_vs_floor.append(t["snowflake"] /
                               max(t["clock_timestamp"], floor_ms))
            progress("bulk round %d/%d: %s" % (r + 1, reps, ", ".join(
                "%s %.0f" % (m, t[m]) for m in METHOD_ORDER)))
        after = self.status()

        rows = []
        for m in METHOD_ORDER:
            med = median(samples[m])
            rows.append(["`%s`" % m, fmt_num(med), fmt_span(samples[m]),
                         fmt_num(med * 1e6 / n, 0),
                         fmt_ratio(med / median(samples["nextval"])),
                         "%s (%s)" % (fmt_ratio(median(per_run[m])),
                                      fmt_span(per_run[m], 2))])
        if extra:
            xs = samples[extra[0]]
            rows.append(["(info) `%s`, set-returning, after the round" % extra[0],
                         fmt_num(median(xs)), fmt_span(xs), fmt_num(median(xs) * 1e6 / n, 0),
                         fmt_ratio(median(xs) / median(samples["nextval"])),
                         "%s (%s)" % (fmt_ratio(median(extra_t)), fmt_span(extra_t, 2))])
        self.emit([
            "## 1. Bulk generation in one backend",
            "",
            "`SELECT count(x) FROM (SELECT <gen> x FROM generate_series(1, %s)) s`,"
            " %d rounds; in each round every method runs once, the order rotated"
            " from round to round, and `clock_timestamp`, `snowflake`, `nextval`,"
            " `snowflake_bigint` back to back at the end of the round."
            " One warm-up round is not counted." % (fmt_num(n, 0), reps),
            "",
        ] + md_table(["method", "median ms", "min..max ms", "ns/ID",
                      "x nextval (medians)", "x nextval, median of per-round ratios (min..max)"],
                     rows) + [
            "",
            "Per-round paired ratios (median, min..max): snowflake / clock_timestamp"
            " = %s (%s); snowflake_bigint / clock_timestamp = %s (%s);"
            " snowflake / max(clock_timestamp, %.0f ms) = %s (%s)." % (
                fmt_ratio(median(sf_vs_ct)), fmt_span(sf_vs_ct, 2),
                fmt_ratio(median(sfb_vs_ct)), fmt_span(sfb_vs_ct, 2),
                floor_ms, fmt_ratio(median(sf_vs_floor)),
                fmt_span(sf_vs_floor, 2)),
            "",
            "%.0f ms is the least time %s IDs take without running ahead of the"
            " clock (%d IDs per millisecond)."
            " During the measured rounds the generator issued %s IDs, found its"
            " millisecond used up %s times (it then borrows the next one), and"
            " ran at most %s ms ahead of the clock (since server start)." % (
                floor_ms, fmt_num(n, 0), SEQ_PER_MS,
                fmt_num(after["ids_issued"] - before["ids_issued"], 0),
                fmt_num(after["sequence_exhaustions"] -
                        before["sequence_exhaustions"], 0),
                after["max_clock_lead_ms"]),
            "",
        ])
        r1 = median(sf_vs_floor)
        self.target("bulk", "snowflake bulk <= 1.2 x max(clock_timestamp, %.0f ms)"
                    % floor_ms, r1 <= 1.2,
                    "median per-round ratio %.2f (median %.1f ms vs clock_timestamp %.1f ms)"
                    % (r1, median(samples["snowflake"]),
                       median(samples["clock_timestamp"])))
        r2 = median(per_run["snowflake"])
        self.target("bulk", "snowflake bulk <= 0.75 x nextval", r2 <= 0.75,
                    "median per-round ratio %.2f (median %.1f ms vs nextval %.1f ms)"
                    % (r2, median(samples["snowflake"]),
                       median(samples["nextval"])))
        self.emit("")

    def sec_pgbench(self):
        secs = self.args.pgbench_seconds or self.p(2, 1)
        reps = self.rounds(5, 1)
        clients_list = [2, 8]
        s = self.sess
        # tables for the INSERT runs: keyed by the method's own type, except
        # const (not unique) and clock_timestamp (two clients can read the
        # same microsecond), which get a column without a primary key
        for m in METHOD_ORDER:
            expr, typ, _ = METHODS[m]
            pk = "" if m in ("const", "clock_timestamp") else " PRIMARY KEY"
            s.run("DROP TABLE IF EXISTS pgb_%s; CREATE TABLE pgb_%s (id %s%s)"
                  % (m, m, typ, pk))
        configs = [(k, m, c) for c in clients_list for k in ("select", "insert")
                   for m in METHOD_ORDER]

        def script(kind, m):
            if kind == "select":
                return "SELECT %s;" % METHODS[m][0]
            return "INSERT INTO pgb_%s (id) VALUES (%s);" % (m, METHODS[m][0])

        total = len(configs) * reps * secs
        progress("pgbench: %d configurations x %d rounds x %d s = about %d s"
                 % (len(configs), reps, secs, total))
        tps = {cfg: [] for cfg in configs}
        gen_events = {"hwm_backend_writes": 0, "clock_waits": 0, "clock_errors": 0,
                      "sequence_exhaustions": 0}
        for r in range(reps):
            s.run("TRUNCATE %s" % ", ".join("pgb_%s" % m for m in METHOD_ORDER))
            self.checkpoint()
            for cfg in rotated(configs, r * 7):
                k, m, c = cfg
                before = self.status() if m.startswith("snowflake") else None
                tps[cfg].append(self.pgbench(script(k, m), c, secs,
                                             "%s-%s-%d" % (k, m, c)))
                if before:
                    after = self.status()
                    for key in gen_events:
                        gen_events[key] += after[key] - before[key]
            progress("pgbench round %d/%d done" % (r + 1, reps))

        # paired ratios within a round: snowflake / const (SELECT)
        self.emit([
            "## 2. pgbench: one ID per transaction",
            "",
            "`pgbench -n -M prepared -T %d`, %d rounds; every round runs every"
            " configuration once, in an order rotated from round to round."
            " (a) `SELECT <gen>;`  (b) `INSERT INTO pgb_<method> (id) VALUES (<gen>);`"
            " into a table whose `id` has the method's type and a primary key,"
            " except `const` (bigint) and `clock_timestamp` (timestamptz), whose"
            " values are not unique: their tables have no primary key, so they"
            " show the cost of an insert without index maintenance."
            " The insert tables are emptied and a checkpoint is taken before each round;"
            " every INSERT commits with `fsync=on`, `synchronous_commit=on`."
            % (secs, reps),
            ""])
        for k in ("select", "insert"):
            for c in clients_list:
                ref = median(tps[(k, "nextval", c)])
                rows = []
                for m in METHOD_ORDER:
                    xs = tps[(k, m, c)]
                    rows.append(["`%s`" % m, fmt_num(median(xs), 0),
                                 fmt_span(xs, 0), fmt_ratio(median(xs) / ref)])
                self.emit(["**(%s) %s, %d clients**" % ("a" if k == "select" else "b",
                                                        k.upper(), c), ""] +
                          md_table(["method", "TPS median", "min..max",
                                    "x nextval (medians)"], rows) + [""])
        for c in clients_list:
            per = per_round(tps[("select", "snowflake", c)], tps[("select", "const", c)])
            self.target("pgbench", "snowflake SELECT TPS >= 0.95 x const TPS, %d clients" % c,
                        median(per) >= 0.95,
                        "median per-round ratio %.3f (%s); medians %s vs %s TPS"
                        % (median(per), fmt_span(per, 3),
                           fmt_num(median(tps[("select", "snowflake", c)]), 0),
                           fmt_num(median(tps[("select", "const", c)]), 0)))
        self.emit("- (info) generator events during the snowflake runs of this section"
                  " (`snowflake_status()` deltas): %s." % ", ".join(
                      "%s %d" % kv for kv in gen_events.items()))
        for c in clients_list:
            per = per_round(tps[("select", "snowflake", c)],
                            tps[("select", "snowflake_bigint", c)])
            per2 = per_round(tps[("select", "snowflake_bigint", c)],
                             tps[("select", "const", c)])
            self.emit("- (info) %d clients, median per-round ratios: snowflake / snowflake_bigint"
                      " SELECT TPS %.3f (%s); snowflake_bigint / const %.3f (%s). The two"
                      " snowflake methods run the same generator; they differ only in the"
                      " result column's type (see the profile section)."
                      % (c, median(per), fmt_span(per, 3), median(per2), fmt_span(per2, 3)))
        self.emit("")

    def sec_insert(self):
        n = self.p(2000000, 100000)
        reps = self.args.insert_rounds or self.rounds(5, 2)
        s = self.sess
        methods = ["bigserial", "nextval_cache100", "uuid_v4", "uuid_v7_sql",
                   "instagram_plpgsql", "snowflake_bigint", "snowflake"]

        def ddl(m):
            if m == "bigserial":
                return ("CREATE TABLE ins_bigserial (id bigserial PRIMARY KEY, n integer NOT NULL)",
                        "nextval('ins_bigserial_id_seq')")
            expr, typ, _ = METHODS[m]
            return ("CREATE TABLE ins_%s (id %s PRIMARY KEY, n integer NOT NULL)"
                    % (m, typ), expr)

        progress("insert: %d + %d rows, %d methods, %d rounds" %
                 (n, n, len(methods), reps))
        res = {m: {"t1": [], "t2": [], "i1": [], "i2": [], "h2": [], "w1": [], "w2": []}
               for m in methods}
        for r in range(reps):
            t_round = {}
            for m in rotated(methods, r):
                create, expr = ddl(m)
                s.run("DROP TABLE IF EXISTS ins_%s" % m)
                s.run(create)
                self.checkpoint()
                ins = ("INSERT INTO ins_%s (id, n) SELECT %s, g FROM generate_series(%d, %d) g")
                lsn0 = s.value("SELECT pg_current_wal_insert_lsn()")
                _, t1 = s.timed(ins % (m, expr, 1, n))
                lsn1 = s.value("SELECT pg_current_wal_insert_lsn()")
                i1 = int(s.value("SELECT pg_relation_size('ins_%s_pkey')" % m))
                _, t2 = s.timed(ins % (m, expr, n + 1, 2 * n))
                lsn2 = s.value("SELECT pg_current_wal_insert_lsn()")
                i2 = int(s.value("SELECT pg_relation_size('ins_%s_pkey')" % m))
                w1 = int(s.value("SELECT pg_wal_lsn_diff('%s', '%s')" % (lsn1, lsn0)))
                w2 = int(s.value("SELECT pg_wal_lsn_diff('%s', '%s')" % (lsn2, lsn1)))
                h2 = int(s.value("SELECT pg_relation_size('ins_%s')" % m))
                cnt = int(s.value("SELECT count(*) FROM ins_%s" % m))
                if cnt != 2 * n:
                    raise BenchError("insert %s: %d rows" % (m, cnt))
                s.run("DROP TABLE ins_%s" % m)
                for key, v in (("t1", t1), ("t2", t2), ("i1", i1), ("i2", i2),
                               ("h2", h2), ("w1", w1), ("w2", w2)):
                    res[m][key].append(v)
                t_round[m] = (t1, t2)
            progress("insert round %d/%d: %s" % (r + 1, reps, ", ".join(
                "%s %.0f+%.0f" % (m, a, b) for m, (a, b) in t_round.items())))
        self.checkpoint()

        rows = []
        for m in methods:
            d = res[m]
            rows.append(["`%s`" % m,
                         fmt_num(median(d["t1"]), 0), fmt_span(d["t1"], 0),
                         fmt_ratio(median(per_round(d["t1"], res["bigserial"]["t1"]))),
                         fmt_bytes(median(d["i1"])), fmt_bytes(median(d["w1"])),
                         fmt_num(median(d["t2"]), 0), fmt_span(d["t2"], 0),
                         fmt_ratio(median(per_round(d["t2"], res["bigserial"]["t2"]))),
                         fmt_bytes(median(d["i2"])), fmt_bytes(median(d["w2"])),
                         fmt_bytes(median(d["h2"]))])
        self.emit([
            "## 3. Bulk INSERT into a table keyed by each method",
            "",
            "`CREATE TABLE ins_<m> (id <type> PRIMARY KEY, n integer NOT NULL)`, then"
            " `INSERT INTO ins_<m> (id, n) SELECT <gen>, g FROM generate_series(...)`"
            " of %s rows (first), then %s more (second) into the same table; %d"
            " rounds, methods rotated; the table is dropped and a checkpoint taken"
            " before each method. `bigserial` uses the column's own sequence"
            " (CACHE 1), i.e. native nextval. Ratios are medians of per-round ratios"
            " to bigserial; index = `pg_relation_size` of the primary key."
            % (fmt_num(n, 0), fmt_num(n, 0), reps),
            ""] + md_table(["method", "first ms", "min..max", "x bigserial",
                            "index after first", "WAL first", "second ms", "min..max",
                            "x bigserial", "index after second", "WAL second",
                            "heap after second"],
                           rows) + [""])
        for key, label in (("t1", "first"), ("t2", "second")):
            a = per_round(res["snowflake"][key], res["bigserial"][key])
            self.target("insert", "snowflake INSERT (%s %s rows) <= 1.05 x bigserial"
                        % (label, fmt_num(n, 0)), median(a) <= 1.05,
                        "median per-round ratio %.3f (%s)" % (median(a), fmt_span(a, 3)))
            b = per_round(res["snowflake"][key], res["uuid_v4"][key])
            self.target("insert", "snowflake INSERT (%s %s rows) <= 0.8 x uuid_v4"
                        % (label, fmt_num(n, 0)), median(b) <= 0.8,
                        "median per-round ratio %.3f (%s)" % (median(b), fmt_span(b, 3)))
        for key, label in (("i1", "after %s rows" % fmt_num(n, 0)),
                           ("i2", "after %s rows" % fmt_num(2 * n, 0))):
            sf, bs = res["snowflake"][key], res["bigserial"][key]
            same = max(sf) == min(sf) == max(bs) == min(bs)
            self.target("insert", "snowflake PK index the same size as bigserial's, %s" % label,
                        same, "snowflake %s, bigserial %s bytes" % (
                            "/".join(sorted(set(str(x) for x in sf))),
                            "/".join(sorted(set(str(x) for x in bs)))))
        self.emit("")

    def sec_decode(self):
        n = self.p(1000000, 200000)
        reps = self.rounds(9, 3)
        s = self.sess
        s.run("DROP TABLE IF EXISTS dec_ids")
        s.run("CREATE TABLE dec_ids AS SELECT snowflake_nextval() AS id "
              "FROM generate_series(1, %d)" % n)
        s.run("VACUUM ANALYZE dec_ids")
        bad = int(s.value(
            "SELECT count(*) FROM dec_ids i, snowflake_decode(i.id) d "
            "WHERE d.ts IS DISTINCT FROM %s OR d.node_id IS DISTINCT FROM %s "
            "OR d.seq IS DISTINCT FROM %s" % (SQL_TS, SQL_NODE, SQL_SEQ)))
        if bad:
            raise BenchError("decode: SQL and C disagree on %d IDs" % bad)
        variants = decode_queries("dec_ids")
        progress("decode: %d IDs, %d rounds" % (n, reps))
        for _, _, q in variants:
            s.run(q)
        t = {v[0]: [] for v in variants}
        for r in range(reps):
            for name, _, q in rotated(variants, r):
                _, ms = s.timed(q)
                t[name].append(ms)
        ref = median(t["sql"])
        floor = median(t["scan"])
        rows = []
        for name, desc, _ in variants:
            med = median(t[name])
            rows.append(["`%s` %s" % (name, desc), fmt_num(med), fmt_span(t[name]),
                         fmt_num(med * 1e6 / n, 0),
                         "%.2f" % (ref / med),
                         "%.2f" % net_ratio(ref, med, floor) if name != "scan" else "-"])
        self.emit([
            "## 4. Decoding %s IDs" % fmt_num(n, 0),
            "",
            "A table of %s IDs from `snowflake_nextval()`; each query reads all three"
            " fields of every ID and aggregates them (`max(ts)`, `sum(node_id)`, `sum(seq)`)"
            " so that nothing is skipped. The SQL version gives the same results as"
            " the C functions on every row (checked). %d rounds, rotated."
            " 'speed-up' = SQL median / this median; 'net' subtracts the scan-and-aggregate"
            " floor's median from both, counting a difference below %.1f ms as %.1f ms."
            % (fmt_num(n, 0), reps, NET_MIN_MS, NET_MIN_MS),
            "",
            "SQL arithmetic used: ts = `%s`, node = `%s`, seq = `%s`." % (SQL_TS, SQL_NODE, SQL_SEQ),
            ""] + md_table(["variant", "median ms", "min..max", "ns/ID",
                            "speed-up vs SQL (medians)", "net speed-up (medians)"],
                           rows) + [""])
        # the decoding work of each query: its time minus the floor's, per
        # round; every round counts (see net_ratio for rounds where the C
        # query is no slower than the floor)
        net = [net_ratio(a, b, f) for a, b, f in zip(t["sql"], t["c_fields"], t["scan"])]
        desc = ("snowflake_decode() >= 2x faster than the same arithmetic in SQL"
                " (decoding work, net of the scan-and-aggregate floor)")
        if net:
            self.target("decode", desc, median(net) >= 2.0,
                        "median per-round net speed-up %.2f (%s); gross, with the floor: %.2f"
                        % (median(net), fmt_span(net, 2),
                           median(per_round(t["sql"], t["c_fields"]))))
        else:
            self.target("decode", desc, False, "no rounds measured")
        for name, what in (("c_from", "in FROM (LATERAL)"), ("c_record", "as a record per row")):
            per = per_round(t["sql"], t[name])
            self.emit("- (info) snowflake_decode() %s: median per-round gross speed-up %.2f (%s);"
                      " PostgreSQL builds and reads a one-row tuplestore (in FROM) or a"
                      " record (otherwise) per ID, which costs more than the decoding"
                      % (what, median(per), fmt_span(per, 2)))
        s.run("DROP TABLE dec_ids")
        self.emit("")

    def sec_timerange(self):
        n = self.p(2000000, 400000)
        reps = self.p(300, 60)
        days = 30
        s = self.sess
        step_ms = days * 86400000 // n
        base = "2026-06-01 00:00:00+00"
        progress("time range: building %d rows over %d days" % (n, days))
        s.run("DROP TABLE IF EXISTS tr_events")
        s.run("CREATE TABLE tr_events (id snowflake PRIMARY KEY, "
              "created_at timestamptz NOT NULL, n integer NOT NULL)")
        # row g at a whole millisecond in [g*step, g*step + step/2): times
        # (and so IDs) increase with g, and id's time equals created_at
        s.run("SELECT setseed(0.25)")
        s.run("INSERT INTO tr_events (id, created_at, n) "
              "SELECT snowflake_from_parts(t, %d, (g %% 4096)::integer), t, g FROM ("
              "SELECT g, timestamptz '%s' + (g::bigint * %d + floor(random() * %d)::bigint) "
              "* interval '1 millisecond' AS t FROM generate_series(0, %d) g) s"
              % (NODE_ID, base, step_ms, step_ms // 2, n - 1))
        s.run("CREATE INDEX tr_events_created_at ON tr_events (created_at)")
        s.run("VACUUM ANALYZE tr_events")
        mism = int(s.value("SELECT count(*) FROM tr_events WHERE snowflake_timestamp(id) <> created_at"))
        if mism:
            raise BenchError("time range: %d rows whose ID time differs from created_at" % mism)
        # 24 one-hour windows spread over the 30 days
        windows = []
        for i in range(24):
            a = "timestamptz '%s' + interval '%d minutes'" % (base, i * 1770 + 13)
            windows.append((a, "(%s + interval '1 hour')" % a))
        q_id = ("SELECT count(*) FROM tr_events WHERE id >= snowflake_from_timestamp(%s) "
                "AND id < snowflake_from_timestamp(%s)")
        q_ts = "SELECT count(*) FROM tr_events WHERE created_at >= %s AND created_at < %s"
        counts = []
        for a, b in windows:
            c1 = int(s.value(q_id % (a, b)))
            c2 = int(s.value(q_ts % (a, b)))
            if c1 != c2:
                raise BenchError("time range: counts differ (%d vs %d) for %s" % (c1, c2, a))
            counts.append(c1)
        plans = {}
        for name, q in (("id", q_id), ("created_at", q_ts)):
            rows, _ = s.run("EXPLAIN (COSTS OFF) " + q % windows[0])
            plans[name] = [r.strip() for r in rows if "Scan" in r][:1]
        progress("time range: %d queries per approach" % reps)
        t = {"id": [], "created_at": []}
        for r in range(reps):
            a, b = windows[r % len(windows)]
            pair = [("id", q_id), ("created_at", q_ts)]
            for name, q in (pair if r % 2 == 0 else pair[::-1]):
                _, ms = s.timed(q % (a, b))
                t[name].append(ms)
        pk = int(s.value("SELECT pg_relation_size('tr_events_pkey')"))
        ci = int(s.value("SELECT pg_relation_size('tr_events_created_at')"))
        heap = int(s.value("SELECT pg_relation_size('tr_events')"))
        rows = []
        for name, label, idx in (("id", "ID range through the primary key", pk),
                                 ("created_at", "`created_at` range through its own index", pk + ci)):
            rows.append([label, fmt_num(median(t[name]), 3), fmt_span(t[name], 3),
                         fmt_ratio(median(t[name]) / median(t["id"])),
                         fmt_bytes(idx), "; ".join(plans[name])])
        self.emit([
            "## 5. Time-range query on %s rows" % fmt_num(n, 0),
            "",
            "`tr_events (id snowflake PRIMARY KEY, created_at timestamptz, n integer)`"
            " with an index on `created_at`; rows spread over %d days, one every ~%d ms,"
            " `id = snowflake_from_parts(created_at, %d, g %% 4096)` so that the ID's time"
            " is `created_at` (checked on every row). `count(*)` of a one-hour window,"
            " 24 different windows in turn (%d to %d rows each; both queries return"
            " the same count for every window), %d queries per approach, alternating,"
            " warm cache; table heap %s."
            % (days, step_ms, NODE_ID, min(counts), max(counts), reps, fmt_bytes(heap)),
            "",
            "- by ID: `%s`" % (q_id % ("a", "b")),
            "- by created_at: `%s`" % (q_ts % ("a", "b")),
            ""] + md_table(["approach", "median ms", "min..max", "x ID range (medians)",
                            "index bytes needed", "plan"], rows, right=[1, 2, 3, 4]) + [
            "",
            "Index bytes: the primary key (%s) serves the ID-range query alone; the"
            " `created_at` approach needs the primary key plus `tr_events_created_at`"
            " (%s), i.e. %.2fx the bytes." % (fmt_bytes(pk), fmt_bytes(ci), (pk + ci) / pk),
            ""])
        # a difference would have stopped the run above: information, not a target
        self.emit("- (info) ID-range and created_at counts equal on all %d windows"
                  " (%d..%d rows per window)." % (len(windows), min(counts), max(counts)))
        s.run("DROP TABLE tr_events")
        self.checkpoint()
        self.emit("")

    def sec_scaling(self):
        secs = self.args.pgbench_seconds or self.p(2, 1)
        reps = self.rounds(5, 1)
        clients_list = [1, 2, 4, 8, 16]
        batch = 1000
        kinds = [
            ("snowflake", "SELECT snowflake_nextval();", 1),
            ("nextval", "SELECT nextval('bench_seq');", 1),
            ("snowflake x%d" % batch,
             "SELECT count(snowflake_nextval()) FROM generate_series(1, %d);" % batch, batch),
            ("nextval x%d" % batch,
             "SELECT count(nextval('bench_seq')) FROM generate_series(1, %d);" % batch, batch),
        ]
        configs = [(k, c) for c in clients_list for k in range(len(kinds))]
        progress("scaling: %d configurations x %d rounds x %d s" % (len(configs), reps, secs))
        ids = {cfg: [] for cfg in configs}
        before = self.status()
        for r in range(reps):
            for cfg in rotated(configs, r * 3):
                k, c = cfg
                name, script, per_tx = kinds[k]
                tps = self.pgbench(script, c, secs, "scale-%d-%d" % (k, c))
                ids[cfg].append(tps * per_tx)
            progress("scaling round %d/%d done" % (r + 1, reps))
        after = self.status()
        rows = []
        for c in clients_list:
            row = ["%d" % c]
            for k in range(len(kinds)):
                row.append("%s (%s)" % (fmt_num(median(ids[(k, c)]), 0),
                                        fmt_span(ids[(k, c)], 0)))
            row.append(fmt_ratio(median(ids[(0, c)]) / median(ids[(1, c)])))
            row.append(fmt_ratio(median(ids[(2, c)]) / median(ids[(3, c)])))
            rows.append(row)
        eff = []
        for k in range(len(kinds)):
            one = median(ids[(k, 1)])
            eff.append("%s: %s" % (kinds[k][0], ", ".join(
                "%dc %.2f" % (c, median(ids[(k, c)]) / one) for c in clients_list)))
        ncpu = os.cpu_count() or 1
        sf2 = median(ids[(2, min(2, ncpu))]) / median(ids[(2, 1)])
        nv2 = median(ids[(3, min(2, ncpu))]) / median(ids[(3, 1)])
        peak = max(median(ids[(2, c)]) for c in clients_list)
        exh = after["sequence_exhaustions"] - before["sequence_exhaustions"]
        self.emit([
            "## 6. Scaling with concurrent clients",
            "",
            "IDs per second, median (min..max) of %d runs of `pgbench -n -M prepared -T %d`"
            " per cell, all cells interleaved. `x%d` rows call the generator %d times per"
            " transaction (`SELECT count(<gen>) FROM generate_series(1, %d)`), which"
            " removes most of the per-transaction cost and shows the generator itself"
            " under contention. This machine has %d CPUs: beyond %d clients they only"
            " share the same CPUs." % (reps, secs, batch, batch, batch, ncpu, ncpu),
            ""] + md_table(["clients"] + [k[0] for k in kinds] +
                           ["snowflake / nextval (medians)",
                            "snowflake x%d / nextval x%d (medians)" % (batch, batch)],
                           rows) + [
            "",
            "Throughput relative to 1 client (ratios of medians): " + "; ".join(eff) + ".",
            "",
            "Generator under contention (x%d, medians): %d clients give %.2fx the 1-client rate for"
            " snowflake and %.2fx for nextval; the highest snowflake rate is %s IDs/s,"
            " %.0f%% of the %s IDs/s that %d sequence numbers per millisecond allow."
            " Sequence exhaustions during this section: %s (the generator then borrows"
            " the next millisecond); largest clock lead since start: %d ms. %s" % (
                batch, min(2, ncpu), sf2, nv2, fmt_num(peak, 0),
                100.0 * peak / (SEQ_PER_MS * 1000), fmt_num(SEQ_PER_MS * 1000, 0),
                SEQ_PER_MS, fmt_num(exh, 0), after["max_clock_lead_ms"],
                "The spinlock does not look like a bottleneck: snowflake scales at least"
                " as well as nextval." if sf2 >= 0.9 * nv2 else
                "Snowflake scales worse than nextval here, which points at contention"
                " in the generator."),
            ""])

    def sec_hwm(self):
        secs = self.p(10, 5)
        clients = min(2, os.cpu_count() or 1)
        script = "SELECT count(snowflake_nextval()) FROM generate_series(1, 1000);"
        progress("hwm: %d s of generation at full rate" % secs)
        before = self.status()
        tps = self.pgbench(script, clients, secs, "hwm")
        after = self.status()
        el = after["at"] - before["at"]
        d = {k: after[k] - before[k] for k in ("ids_issued", "hwm_writes",
                                               "hwm_backend_writes",
                                               "sequence_exhaustions")}
        self.emit([
            "## 7. High-water-mark writes at full generation rate",
            "",
            "`pgbench -T %d -c %d` of `%s`; `snowflake_status()` before and after"
            " (%.1f s apart)." % (secs, clients, script, el),
            ""] + md_table(["IDs issued", "IDs/s", "hwm_writes", "writes/s",
                            "hwm_backend_writes", "sequence_exhaustions", "max_clock_lead_ms"],
                           [[fmt_num(d["ids_issued"], 0), fmt_num(d["ids_issued"] / el, 0),
                             d["hwm_writes"], "%.2f" % (d["hwm_writes"] / el),
                             d["hwm_backend_writes"], fmt_num(d["sequence_exhaustions"], 0),
                             after["max_clock_lead_ms"]]]) + [
            "",
            "`hwm_writes` counts the durable reservation writes (see \"Restarts, crashes"
            " and reboots\" in the top-level README); the background worker makes them,"
            " except the `hwm_backend_writes` that a backend made and waited for."
            " pgbench reported %s transactions/s." % fmt_num(tps, 0),
            ""])

    # -- profile ---------------------------------------------------------------
    def perf_supported(self, event):
        perf = shutil.which("perf")
        if not perf:
            return False, "perf is not installed"
        r = subprocess.run([perf, "stat", "-x", ",", "-e", event, "true"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or "<not" in r.stdout or "not supported" in r.stdout:
            last = (r.stdout.strip().splitlines() or ["failed"])[-1]
            return False, "`perf stat -e %s true` gives `%s`" % (event, last)
        return True, ""

    def perf_profile(self, event, query, repeat):
        """perf record -g on this session's backend while it runs 'query'
        'repeat' times; returns (rows of (percent, symbol, object), samples).
        Samples at addresses without a symbol (static functions of a
        stripped binary) are summed per object."""
        perf = shutil.which("perf")
        pid = self.sess.value("SELECT pg_backend_pid()")
        out = os.path.join(self.server.workdir, "perf.data")
        self.sess.run(query)
        with open(os.path.join(self.server.workdir, "perf.err"), "w") as errf:
            rec = subprocess.Popen([perf, "record", "-g", "-e", event, "-F", "4999",
                                    "-p", pid, "-o", out], stdout=errf, stderr=errf)
            try:
                time.sleep(1.0)
                for _ in range(repeat):
                    self.sess.run(query)
            finally:
                self.stop_recording(rec)
        return self.perf_report(out)

    @staticmethod
    def stop_recording(rec):
        """perf record writes its file on SIGINT; give it a minute."""
        rec.send_signal(signal.SIGINT)
        try:
            rec.wait(timeout=60)
        except subprocess.TimeoutExpired:
            rec.kill()

    def perf_report(self, out):
        """(rows of (percent, symbol, object), sample count) of a perf.data file;
        samples at addresses without a symbol (static functions of a stripped
        binary) are summed per object."""
        perf = shutil.which("perf")
        r = subprocess.run([perf, "report", "-i", out, "--no-children", "--stdio",
                            "-g", "none", "--sort", "symbol,dso"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        rows, unresolved, samples = [], {}, None
        for line in r.stdout.splitlines():
            m = re.match(r"^# Samples: (\S+)", line)
            if m:
                samples = m.group(1)
            m = re.match(r"^\s+([\d.]+)%\s+\[(.)\]\s+(\S.*?)\s{2,}(\S+)", line)
            if not m:
                continue
            pct, sym, obj = float(m.group(1)), m.group(3).strip(), m.group(4)
            if re.match(r"^0x[0-9a-f]+$", sym):
                unresolved[obj] = unresolved.get(obj, 0.0) + pct
            else:
                rows.append((pct, sym, obj))
        for obj, pct in unresolved.items():
            rows.append((pct, "(static functions, no symbols)", obj))
        rows.sort(reverse=True)
        return rows, samples

    def perf_pgbench(self, event, script, clients, seconds, name):
        """perf record on every backend of a pgbench run; returns (rows, samples)
        like perf_profile, or raises BenchError."""
        perf = shutil.which("perf")
        out = os.path.join(self.server.workdir, "perf-%s.data" % name)
        bench = subprocess.Popen(self.pgbench_cmd(script, clients, seconds, name),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        rec = None
        try:
            pids = []
            for _ in range(50):
                time.sleep(0.1)
                rows, _ = self.sess.run("SELECT pid FROM pg_stat_activity WHERE "
                                        "application_name = 'pgbench' AND pid <> pg_backend_pid()")
                pids = [r for r in rows if r.strip()]
                if len(pids) >= clients:
                    break
            if not pids:
                raise BenchError("no pgbench backends found")
            with open(out + ".err", "w") as errf:
                rec = subprocess.Popen([perf, "record", "-e", event, "-F", "999", "-p",
                                        ",".join(pids), "-o", out], stdout=errf, stderr=errf)
            output, _ = bench.communicate()
            if bench.returncode != 0:
                raise BenchError("pgbench failed (%s):\n%s" % (name, output[-3000:]))
        finally:
            # also on errors and Ctrl-C: neither pgbench nor perf outlives this
            if bench.poll() is None:
                bench.kill()
                bench.wait()
            bench.stdout.close()
            if rec is not None:
                self.stop_recording(rec)
        return self.perf_report(out)

    def profile_pgbench(self, event):
        """Where the backends' time goes in the 8-client SELECT of section 2."""
        clients, secs = 8, self.p(4, 2)
        progress("profile: perf record -e %s on %d pgbench backends" % (event, clients))
        res = {}
        for name, expr in (("const", "1::bigint"),
                           ("snowflake_bigint", "snowflake_nextval()::bigint"),
                           ("snowflake", "snowflake_nextval()")):
            res[name] = self.perf_pgbench(event, "SELECT %s;" % expr, clients, secs,
                                          "prof-" + name)
        rows, samples = res["snowflake"]
        tab = [[sym.replace("|", "\\|"), obj, "%.1f%%" % pct] for pct, sym, obj in rows[:15]]
        self.emit(["pgbench profile: `perf record -e %s` on the %d backends of `pgbench -M"
                   " prepared -c %d -T %d` running `SELECT snowflake_nextval();` (%s samples,"
                   " user space only: the kernel side of the socket I/O is not in it)."
                   % (event, clients, clients, secs, samples), ""] +
                  md_table(["function", "object", "self"], tab, right=[2]) + [""])
        keys = [("strcmp (any variant; fmgr looks up internal functions by name)",
                 lambda sym, obj: "strcmp" in sym),
                ("s_lock (spinlock contention)", lambda sym, obj: sym == "s_lock"),
                ("perform_spin_delay", lambda sym, obj: sym == "perform_spin_delay"),
                ("everything in snowflake.so", lambda sym, obj: obj == "snowflake.so"),
                ("clock_gettime (vDSO)", lambda sym, obj: "clock_gettime" in sym),
                ("static postgres functions (no symbols)",
                 lambda sym, obj: obj == "postgres" and sym.startswith("(static"))]
        lines = []
        for label, match in keys:
            vals = []
            for name in ("const", "snowflake_bigint", "snowflake"):
                pct = sum(p for p, sym, obj in res[name][0] if match(sym, obj))
                vals.append("%.1f%%" % pct)
            lines.append([label] + vals)
        self.emit(["Share of backend user time, same run for each statement:", ""] +
                  md_table(["function", "`SELECT 1::bigint`", "`SELECT snowflake_nextval()::bigint`",
                            "`SELECT snowflake_nextval()`"], lines) + [""])

    def callgrind(self, name, stdin_text, toggle, parts=0):
        """One single-user backend under callgrind reading 'stdin_text'.
        Counts only inside the function 'toggle' unless it is None.  With
        parts > 0, a profile is dumped after each of the first 'parts' calls
        of 'toggle' and a list of results is returned.  A result is
        {"total": Ir, "self": [(Ir, function, object)], "incl": {function: Ir}}."""
        out = os.path.join(self.server.workdir, "callgrind.%s.out" % name)
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
        if toggle:
            cmd.append("--toggle-collect=" + toggle)
        if parts:
            cmd.append("--dump-after=" + toggle)
        cmd += [os.path.join(PGBIN, "postgres"), "--single", "-D", self.server.data, "bench"]
        r = subprocess.run(cmd, input=stdin_text, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        errors = [l for l in r.stderr.splitlines()
                  if not l.startswith("==") and ("ERROR" in l or "FATAL" in l or
                                                 "PANIC" in l or "Segmentation" in l)]
        files = ["%s.%d" % (out, i) for i in range(1, parts + 1)] if parts else [out]
        if r.returncode != 0 or errors or not all(os.path.exists(f) for f in files):
            tail = [l for l in r.stderr.splitlines() if not l.startswith("==")][-8:]
            raise BenchError("callgrind run '%s' failed (exit code %d): %s" % (
                name, r.returncode, " / ".join(tail) or "no output"))
        results = [self.annotate(f) for f in files]
        return results if parts else results[0]

    def annotate(self, path):
        """Total, self and inclusive costs of one callgrind dump.  In a dump
        taken in the middle of the run, the frames still on the stack (main,
        the single-user loop) show the whole dump as their own cost; entries
        that hold (nearly) everything are dropped from the self list."""
        res = {"self": [], "incl": {}}
        for incl in ("no", "yes"):
            a = subprocess.run(["callgrind_annotate", "--inclusive=" + incl,
                                "--threshold=100", path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for line in a.stdout.splitlines():
                m = re.match(r"^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(\S.*?)\s*$", line)
                if not m:
                    continue
                ir = int(m.group(1).replace(",", ""))
                what = m.group(2)
                if "PROGRAM TOTALS" in what:
                    res["total"] = ir
                    continue
                fm = re.match(r"^(.*?):(\S+)(?: \[(.*)\])?$", what)
                if not fm:
                    continue
                fn, obj = fm.group(2), os.path.basename(fm.group(3) or "")
                if re.match(r"^0x[0-9a-f]+$", fn):
                    fn = "static function at %s (no symbol)" % hex(int(fn, 16))
                if incl == "no":
                    res["self"].append((ir, fn, obj))
                else:
                    res["incl"][fn] = max(ir, res["incl"].get(fn, 0))
        if "total" not in res:
            raise BenchError("callgrind_annotate gave no total for %s" % path)
        res["self"] = [x for x in res["self"] if x[0] < 0.95 * res["total"]]
        return res

    def sec_profile(self):
        n_perf = self.p(1000000, 300000)
        n_cg = self.p(200000, 50000)
        k_tx = self.p(10000, 3000)
        self.emit(["## 8. Profile of the hot path", ""])
        hw_ok, why_not = self.perf_supported("instructions:u")
        sw_ok, _ = self.perf_supported("cpu-clock")
        query = bulk_query("snowflake_nextval()", n_perf)
        progress("profile: timing the profiled query")
        ms = median([self.sess.timed(query)[1] for _ in range(3)])

        def emit_perf(event, label):
            progress("profile: perf record -e %s" % event)
            rows, samples = self.perf_profile(event, query, 5)
            if not rows:
                self.emit("perf record gave no samples for `%s`." % event)
                return
            tab = [[sym.replace("|", "\\|"), obj, "%.1f%%" % pct,
                    "%.1f" % (pct / 100.0 * ms * 1e6 / n_perf)] for pct, sym, obj in rows[:18]]
            self.emit(["%s: `perf record -g -e %s` on a backend running the bulk snowflake"
                       " query of section 1 (%s IDs) 5 times; %s samples, user space only."
                       " Self time; ns/ID = share x %.1f ms (median of this query here) / IDs."
                       % (label, event, fmt_num(n_perf, 0), samples, ms),
                       ""] + md_table(["function", "object", "self", "ns/ID"], tab,
                                      right=[2, 3]) + [""])

        if hw_ok:
            emit_perf("instructions:u", "Instruction profile")
        else:
            self.emit(["No hardware counters here (%s), so perf can only sample time;"
                       " instruction counts come from valgrind's callgrind below." % why_not, ""])
            if sw_ok:
                try:
                    emit_perf("cpu-clock", "Time profile (sampled by the software clock)")
                except BenchError as e:
                    self.emit(["perf cpu-clock profile failed: %s" % e, ""])
            else:
                self.emit(["perf cannot sample here either; no time profile.", ""])
        if hw_ok or sw_ok:
            try:
                self.profile_pgbench("instructions:u" if hw_ok else "cpu-clock")
            except BenchError as e:
                self.emit(["perf profile of pgbench failed: %s" % e, ""])
        if hw_ok or not shutil.which("valgrind"):
            if not hw_ok:
                self.emit(["valgrind is not installed: no instruction profile.", ""])
            return

        # callgrind runs single-user backends on the data directory: stop the server
        self.sess.run("DROP TABLE IF EXISTS prof_ids")
        self.sess.run("CREATE TABLE prof_ids AS SELECT snowflake_nextval() AS id "
                      "FROM generate_series(1, %d)" % n_cg)
        self.sess.run("VACUUM ANALYZE prof_ids")
        progress("profile: callgrind (server stopped): generation, decoding, statements")
        self.stop()
        if self.server.running:
            raise BenchError("could not stop the server for callgrind: %s"
                             % self.server.stop_error)
        gen = [("snowflake", "snowflake_nextval()"), ("nextval", "nextval('bench_seq')"),
               ("clock_timestamp", "clock_timestamp()"), ("const", "1::bigint")]
        decs = decode_queries("prof_ids")
        tx = [("const-0", "1::bigint", 0), ("const", "1::bigint", k_tx),
              ("snowflake_bigint", "snowflake_nextval()::bigint", k_tx),
              ("snowflake", "snowflake_nextval()", k_tx)]
        g = d = t = None
        failures = []
        try:
            parts = self.callgrind("gen", "".join(bulk_query(e, n_cg) + ";\n" for _, e in gen),
                                   "standard_ExecutorRun", parts=len(gen))
            g = {nm: r for (nm, _), r in zip(gen, parts)}
        except BenchError as e:
            failures.append(str(e))
        try:
            parts = self.callgrind("dec", "".join(q + ";\n" for _, _, q in decs),
                                   "standard_ExecutorRun", parts=len(decs))
            d = {nm: r for (nm, _, _), r in zip(decs, parts)}
        except BenchError as e:
            failures.append(str(e))
        try:
            t = {}
            for name, expr, k in tx:
                t[name] = self.callgrind("tx-" + name, "PREPARE p AS SELECT %s;\n" % expr +
                                         "EXECUTE p;\n" * k, None)
        except BenchError as e:
            failures.append(str(e))
            t = None
        self.emit(["Callgrind: single-user backends (`postgres --single`, library preloaded,"
                   " no clock watcher there). For generation and decoding only instructions"
                   " inside the executor are counted (`--toggle-collect=standard_ExecutorRun`,"
                   " one dump per query). Under valgrind `clock_gettime` is a real system"
                   " call whose kernel side is not counted; natively it is a vDSO read of"
                   " the TSC (see the time profile above).", ""])
        for f in failures:
            self.emit(["**Profile run failed**: %s" % f, ""])
        if g:
            self.profile_generation(g, gen, n_cg)
        if d:
            self.profile_decode(d, decs, n_cg)
        if t:
            self.profile_statements(t, tx, k_tx)

    def emit_self_costs(self, title, r, n, limit):
        """The 'limit' functions of callgrind result 'r' with the highest self
        cost, per ID of the n IDs the query made or read."""
        tab = [[fn, obj, fmt_num(ir / n, 1), "%.1f%%" % (100.0 * ir / r["total"])]
               for ir, fn, obj in r["self"][:limit]]
        self.emit([title, ""] +
                  md_table(["function", "object", "instructions/ID", "share"], tab,
                           right=[2, 3]) + [""])

    def profile_generation(self, g, gen, n_cg):
        self.emit(["**Generation**, `%s`:" % bulk_query("<gen>", n_cg), ""] +
                  md_table(["generator", "instructions/ID", "minus const"],
                           [["`%s`" % nm, fmt_num(per_id(g[nm], n_cg), 0),
                             fmt_num(per_id(g[nm], n_cg) - per_id(g["const"], n_cg), 0)]
                            for nm, _ in gen]) + [""])
        self.emit_self_costs("Top functions by self cost in the snowflake generation query:",
                             g["snowflake"], n_cg, 15)
        incl = g["snowflake"]["incl"]
        own = ["snowflake_nextval", "snowflake_generate", "allocate_slots",
               "snowflake_unix_ms_now", "clock_gettime", "__clock_gettime",
               "generator_state_or_error", "snowflake_shared_state",
               "RecoveryInProgress", "pgstat_init_function_usage",
               "pgstat_end_function_usage"]
        parts = ["`%s` %s" % (k, fmt_num(incl[k] / n_cg, 1)) for k in own if k in incl]
        if parts:
            self.emit(["Inclusive instructions per ID: " + ", ".join(parts) + ".", ""])
        nv = g["nextval"]["incl"]
        for k in ("nextval_oid", "nextval_internal"):
            if k in nv:
                self.emit(["For comparison, `%s` of nextval: %s instructions per ID inclusive."
                           % (k, fmt_num(nv[k] / n_cg, 1)), ""])
                break

    def profile_decode(self, d, decs, n_cg):
        scan = per_id(d["scan"], n_cg)
        self.emit(["**Decoding** %s IDs (the queries of section 4 over a table `prof_ids`):"
                   % fmt_num(n_cg, 0), ""] +
                  md_table(["variant", "instructions/ID", "minus scan floor"],
                           [["`%s`" % nm, fmt_num(per_id(d[nm], n_cg), 0),
                             fmt_num(per_id(d[nm], n_cg) - scan, 0)]
                            for nm, _, _ in decs]) + [""])
        self.emit_self_costs("Top functions by self cost, `snowflake_decode(id)` in FROM:",
                             d["c_from"], n_cg, 12)
        dincl = d["c_from"]["incl"]
        parts = ["`%s` %s" % (k, fmt_num(dincl[k] / n_cg, 1))
                 for k in ("ExecFunctionScan", "ExecMakeTableFunctionResult",
                           "snowflake_decode", "heap_form_tuple", "tuplestore_begin_heap",
                           "tuplestore_puttuple", "tuplestore_end", "ExecReScanFunctionScan")
                 if k in dincl]
        if parts:
            self.emit(["Inclusive instructions per ID in that query: " + ", ".join(parts) + ".", ""])

    def profile_statements(self, t, tx, k_tx):
        base = t["const-0"]["total"]
        per_stmt = {nm: (t[nm]["total"] - base) / k_tx for nm, _, k in tx if k}
        c_tx = per_stmt["const"]
        self.emit(["**One ID per statement** (what pgbench's SELECT does): `PREPARE p AS"
                   " SELECT <gen>` then %s x `EXECUTE p` in a single-user backend, all"
                   " instructions counted, minus a run without the EXECUTEs. (Single-user"
                   " mode prints results with `debugtup` instead of the wire protocol, but"
                   " both set up the output function of the result column for every"
                   " execution.)" % fmt_num(k_tx, 0), ""] +
                  md_table(["statement", "instructions/statement", "vs const"],
                           [["`SELECT %s`" % expr, fmt_num(per_stmt[nm], 0),
                             "+%s (+%.1f%%)" % (fmt_num(per_stmt[nm] - c_tx, 0),
                                                100.0 * (per_stmt[nm] - c_tx) / c_tx)]
                            for nm, expr, k in tx if k]) + [""])
        # where the difference between the two snowflake statements goes
        def self_map(r):
            m = {}
            for ir, fn, obj in r["self"]:
                key = "%s (%s)" % (fn, obj)
                m[key] = m.get(key, 0) + ir
            return m
        a_, b_ = self_map(t["snowflake"]), self_map(t["snowflake_bigint"])
        delta = sorted(((a_.get(k, 0) - b_.get(k, 0)) / k_tx, k) for k in set(a_) | set(b_))
        delta = [x for x in delta[::-1] if x[0] > 50][:8]
        if delta:
            self.emit(["Largest self-cost differences per statement, `SELECT snowflake_nextval()`"
                       " minus `SELECT snowflake_nextval()::bigint` (same generator, result type"
                       " `snowflake` instead of `bigint`):", ""] +
                      md_table(["function", "extra instructions/statement"],
                               [[k, "+" + fmt_num(v, 0)] for v, k in delta]) + [""])
        oinc = t["snowflake"]["incl"].get("OidOutputFunctionCall")
        oinc_b = t["snowflake_bigint"]["incl"].get("OidOutputFunctionCall")
        if oinc and oinc_b:
            self.emit(["`OidOutputFunctionCall` (looks up the output function, then calls it),"
                       " inclusive per statement: %s for the `snowflake` column, %s for `bigint`."
                       % (fmt_num(oinc / k_tx, 0), fmt_num(oinc_b / k_tx, 0)), ""])

    def read_server_log(self):
        """Notes from the server log: checkpoints the harness did not ask for
        (they would fall inside a measurement) and warnings or errors."""
        try:
            with open(self.server.logfile, errors="replace") as f:
                text = f.read()
        except OSError:
            return
        reasons = re.findall(r"checkpoint starting: (.*)", text)
        unasked = [r for r in reasons if "force" not in r and "shutdown" not in r
                   and "end-of-recovery" not in r]
        self.notes.append("Server log: %d checkpoints, %d of them not requested by the"
                          " harness (%s)." % (len(reasons), len(unasked),
                                              ", ".join(sorted(set(unasked))) or "none"))
        bad = [l for l in text.splitlines()
               if re.search(r"\b(WARNING|ERROR|FATAL|PANIC):", l)
               and "canceling statement due to user request" not in l]
        if bad:
            self.notes.append("Server log: %d warning/error lines, e.g. `%s`" % (
                len(bad), bad[0][-200:].replace("`", "'")))
        else:
            self.notes.append("Server log: no warnings or errors.")

    # -- driver ------------------------------------------------------------
    def run(self):
        self.start()
        self.machine()
        order = [s for s in SECTIONS if s in self.args.only]
        for name in order:
            t0 = time.monotonic()
            getattr(self, "sec_" + name)()
            progress("section %s took %.0f s" % (name, time.monotonic() - t0))

    def finish(self, error=None):
        lines = []
        if self.notes:
            lines += ["## Run notes", ""] + ["- " + n for n in self.notes] + [""]
        lines += ["## Targets", ""]
        if self.targets:
            for sec, desc, ok, detail in self.targets:
                lines.append("- **%s** [%s] %s: %s" % ("PASS" if ok else "FAIL", sec, desc, detail))
        else:
            lines.append("(no targets in the selected sections)")
        lines.append("")
        if error:
            lines += ["## Error", "", "The run stopped early:", "", "```",
                      str(error)[-4000:], "```", ""]
        el = (datetime.datetime.now(datetime.timezone.utc) - self.started).total_seconds()
        lines.append("Total run time: %.0f s." % el)
        self.emit(lines)
        os.makedirs(self.args.out_dir, exist_ok=True)
        path = os.path.join(self.args.out_dir,
                            self.started.strftime("%Y%m%dT%H%M%SZ") + ".md")
        with open(path, "w") as f:
            f.write("\n".join(self.report) + "\n")
        progress("report written to %s" % path)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="fewer rows, rounds and seconds: a smoke run")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help="comma-separated sections: %s" % ",".join(SECTIONS))
    ap.add_argument("--port", type=int, default=55470)
    ap.add_argument("--workdir", help="directory for the throwaway instance "
                    "(default: a new one under /tmp); removed at the end unless --keep")
    ap.add_argument("--out-dir", default=os.path.join(here, "results"),
                    help="where the markdown report goes (default: bench/results)")
    ap.add_argument("--pgbench-seconds", type=int, default=0,
                    help="override pgbench -T of sections 2 and 6")
    ap.add_argument("--rounds", type=int, default=0,
                    help="override the number of rounds of bulk, pgbench, decode and "
                         "scaling, and of insert unless --insert-rounds is given "
                         "(timerange, hwm and profile have no rounds)")
    ap.add_argument("--insert-rounds", type=int, default=0,
                    help="rounds of the 2M-row INSERT section (default --rounds, else 5, "
                         "quick 2; a full round takes 2-3 minutes on 2 CPUs)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the work directory (server stopped) for inspection")
    args = ap.parse_args()
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in args.only if s not in SECTIONS]
    if unknown:
        ap.error("unknown section(s): %s (known: %s)" % (", ".join(unknown), ", ".join(SECTIONS)))
    for opt in ("rounds", "insert_rounds", "pgbench_seconds"):
        if getattr(args, opt) < 0:
            ap.error("--%s must not be negative" % opt.replace("_", "-"))
    if os.geteuid() == 0:
        ap.error("run as an unprivileged user (initdb refuses root); bench/run.sh does that")
    if args.workdir:
        if os.path.exists(args.workdir) and os.listdir(args.workdir):
            ap.error("--workdir %s exists and is not empty" % args.workdir)
        os.makedirs(args.workdir, exist_ok=True)
    else:
        args.workdir = tempfile.mkdtemp(prefix="snowflake-bench.", dir="/tmp")

    # SIGTERM and SIGHUP end the run like Ctrl-C: through the finally below
    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    bench = Bench(args)
    error = None
    try:
        bench.run()
    except KeyboardInterrupt as e:
        error = "interrupted (%s)" % (e or "Ctrl-C")
    except BenchError as e:
        error = e
    except Exception:  # a bug of the harness: report it with its traceback
        error = traceback.format_exc()
    finally:
        try:
            bench.stop()
            bench.read_server_log()
        finally:
            if bench.server.running:
                progress("the server on %s did not stop (%s); its directory is left in"
                         " place: stop it with `%s -D %s stop -m immediate`, then remove %s"
                         % (bench.server.data, bench.server.stop_error or "pg_ctl stop failed",
                            os.path.join(PGBIN, "pg_ctl"), bench.server.data, args.workdir))
            elif not args.keep:
                shutil.rmtree(args.workdir, ignore_errors=True)
    try:
        bench.finish(error)
    except Exception as e:
        progress("could not write the report: %s" % e)
        return 1
    return 1 if error else 0


if __name__ == "__main__":
    sys.exit(main())
