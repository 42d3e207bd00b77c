"""The throwaway server and the psql sessions that talk to it.

The server lives in a work directory of its own, listens on a Unix socket
only, and is stopped (and its directory removed by cli.py) at the end of
the run, also after an error, Ctrl-C or SIGTERM.
"""

import os
import re
import subprocess
import tempfile

from snowbench.methods import NODE_ID


def pg_bindir():
    """The PostgreSQL binaries to use: $PGBIN, else the bindir of
    $PG_CONFIG, else Debian's PostgreSQL 15."""
    if os.environ.get("PGBIN"):
        return os.environ["PGBIN"]
    if os.environ.get("PG_CONFIG"):
        return subprocess.run([os.environ["PG_CONFIG"], "--bindir"], check=True,
                              stdout=subprocess.PIPE, text=True).stdout.strip()
    return "/usr/lib/postgresql/15/bin"


PGBIN = pg_bindir()


def pgbin(program):
    return os.path.join(PGBIN, program)


class BenchError(Exception):
    pass


def run_checked(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        raise BenchError("command failed (%d): %s\n%s" %
                         (r.returncode, " ".join(cmd), r.stdout[-3000:]))
    return r.stdout


class Server:
    def __init__(self, workdir, port, max_connections=50):
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
            ("max_connections", str(max_connections)),
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
        run_checked([pgbin("initdb"), "-D", self.data,
                     "-U", "postgres", "-A", "trust", "-E", "UTF8",
                     "--locale=C", "--no-sync"])
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("\n# bench/bench.py\n")
            for k, v in self.settings:
                f.write("%s = %s\n" % (k, v))

    def start(self):
        run_checked([pgbin("pg_ctl"), "-D", self.data,
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
        r = subprocess.run([pgbin("pg_ctl"), "-D", self.data, "-m", "fast", "-w",
                            "-t", "120", "stop"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode == 0:
            self.running = False
            return
        # a stale postmaster.pid makes stop fail too; status exits 3 when
        # no server runs on the directory
        st = subprocess.run([pgbin("pg_ctl"), "-D", self.data, "status"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.running = st.returncode != 3
        if self.running:
            self.stop_error = " ".join(r.stdout.split())[-500:]

    def conn_args(self, db="bench"):
        return ["-h", self.sock, "-p", str(self.port), "-U", "postgres", db]


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
            [pgbin("psql"), "-X", "-q", "-A", "-t",
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
