"""The Bench object that every section works with: the options, the
throwaway server and one persistent session on it, the report, and the
steps the sections share (pgbench runs, checkpoints, generator status)."""

import os
import re
import subprocess
import time

from snowbench import machine
from snowbench.methods import HELPER_CHECKS, SETUP_SQL
from snowbench.report import Report, progress
from snowbench.server import BenchError, Psql, Server, pgbin


class Bench:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.server = Server(args.workdir, args.port, args.max_connections)
        self.sess = None
        self.report = Report(args.out_dir)

    # -- parameters, by mode ------------------------------------------------
    def p(self, full, quick):
        return quick if self.quick else full

    def rounds(self, full, quick):
        return self.args.rounds or self.p(full, quick)

    def pgbench_seconds(self, full, quick):
        return self.args.pgbench_seconds or self.p(full, quick)

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
        for query, error in HELPER_CHECKS:
            if self.sess.value(query) != "t":
                raise BenchError(error)

    def stop(self):
        if self.sess is not None:
            try:
                self.sess.close()
            except Exception:
                pass
            self.sess = None
        self.server.stop()

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

    def has_function(self, signature):
        """Whether the server has a function, e.g. 'uuidv7()'."""
        return self.sess.value("SELECT to_regprocedure('%s') IS NOT NULL"
                               % signature) == "t"

    def insert_tables(self, prefix, columns):
        """(Re)creates one table <prefix><name> (id <type>[ PRIMARY KEY]) for
        each (name, type, primary key?) in 'columns'."""
        for name, typ, pk in columns:
            self.sess.run("DROP TABLE IF EXISTS %s%s; CREATE TABLE %s%s (id %s%s)"
                          % (prefix, name, prefix, name, typ, " PRIMARY KEY" if pk else ""))

    def pgbench_cmd(self, script, clients, seconds, name):
        """Writes 'script' to a file in the work directory; returns the
        pgbench command line that runs it."""
        path = os.path.join(self.server.workdir, "pgbench-%s.sql" % name)
        with open(path, "w") as f:
            f.write(script.strip() + "\n")
        return [pgbin("pgbench"), "-n", "-M", "prepared",
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

    def read_server_log(self):
        """Notes from the server log: checkpoints the harness did not ask for
        (they would fall inside a measurement) and warnings or errors."""
        try:
            with open(self.server.logfile, errors="replace") as f:
                text = f.read()
        except OSError:
            return
        notes = self.report.notes
        reasons = re.findall(r"checkpoint starting: (.*)", text)
        unasked = [r for r in reasons if "force" not in r and "shutdown" not in r
                   and "end-of-recovery" not in r]
        notes.append("Server log: %d checkpoints, %d of them not requested by the"
                     " harness (%s)." % (len(reasons), len(unasked),
                                         ", ".join(sorted(set(unasked))) or "none"))
        bad = [l for l in text.splitlines()
               if re.search(r"\b(WARNING|ERROR|FATAL|PANIC):", l)
               and "canceling statement due to user request" not in l]
        if bad:
            notes.append("Server log: %d warning/error lines, e.g. `%s`" % (
                len(bad), bad[0][-200:].replace("`", "'")))
        else:
            notes.append("Server log: no warnings or errors.")

    # -- driver ------------------------------------------------------------
    def run(self, sections):
        """Starts the server and describes the machine, then runs the
        (name, function) of 'sections' that the options select, in that
        order."""
        self.start()
        machine.run(self)
        for name, func in sections:
            if name not in self.args.only:
                continue
            t0 = time.monotonic()
            func(self)
            progress("section %s took %.0f s" % (name, time.monotonic() - t0))
