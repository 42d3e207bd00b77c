"""bench/bench.py: benchmarks of the snowflake extension against other ways
of generating keys in PostgreSQL.

Starts a throwaway PostgreSQL instance (Unix socket only; the binaries of
$PGBIN, else of $PG_CONFIG --bindir, else Debian's PostgreSQL 15), runs the
selected sections, prints a markdown report and saves it, then stops and
removes the instance, also on errors and Ctrl-C.  Python 3 standard library
only; it runs as an unprivileged user (initdb refuses root), normally
through bench/run.sh.  See bench/README.md.

    python3 bench/bench.py [--quick] [--only=bulk,pgbench,...]
    python3 bench/bench.py --scaling [--clients=1,2,4] [--pgbench-seconds=5]
"""

import argparse
import os
import shutil
import signal
import tempfile
import traceback

from snowbench import (bulk, decode, hwm, insert, pgbench, profile, scaling,
                       scaling_table, timerange)
from snowbench.harness import Bench
from snowbench.report import progress
from snowbench.server import BenchError, pgbin

# every section in the order it runs; profile stops the server, so it is last
SECTIONS = [
    ("bulk", bulk.run),
    ("pgbench", pgbench.run),
    ("insert", insert.run),
    ("decode", decode.run),
    ("timerange", timerange.run),
    ("scaling", scaling.run),
    ("scaling-table", scaling_table.run),
    ("hwm", hwm.run),
    ("profile", profile.run),
]
NAMES = [name for name, _ in SECTIONS]
# what runs without --only or --scaling
DEFAULT = [name for name in NAMES if name != "scaling-table"]


def parse_args():
    bench_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(prog="bench.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="fewer rows, rounds and seconds: a smoke run")
    ap.add_argument("--only",
                    help="comma-separated sections: %s (default: all but scaling-table)"
                    % ",".join(NAMES))
    ap.add_argument("--scaling", action="store_true",
                    help="the scaling table and its chart: the section scaling-table "
                         "alone, or added to those of --only")
    ap.add_argument("--clients",
                    help="client counts of the scaling table, e.g. 1,2,4,8 (default: "
                         "powers of two up to 4 per CPU, at most 64; quick: at most 4)")
    ap.add_argument("--port", type=int, default=55470)
    ap.add_argument("--workdir", help="directory for the throwaway instance "
                    "(default: a new one under /tmp); removed at the end unless --keep")
    ap.add_argument("--out-dir", default=os.path.join(bench_dir, "results"),
                    help="where the markdown report goes (default: bench/results)")
    ap.add_argument("--pgbench-seconds", type=int, default=0,
                    help="override pgbench -T of sections 2 and 6 and of the scaling table")
    ap.add_argument("--rounds", type=int, default=0,
                    help="override the number of rounds of bulk, pgbench, decode, "
                         "scaling and scaling-table, and of insert unless --insert-rounds "
                         "is given (timerange, hwm and profile have no rounds)")
    ap.add_argument("--insert-rounds", type=int, default=0,
                    help="rounds of the 2M-row INSERT section (default --rounds, else 5, "
                         "quick 2; a full round takes 2-3 minutes on 2 CPUs)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the work directory (server stopped) for inspection")
    args = ap.parse_args()

    if args.only is None:
        args.only = [] if args.scaling else list(DEFAULT)
    else:
        args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    if args.scaling and "scaling-table" not in args.only:
        args.only.append("scaling-table")
    unknown = [s for s in args.only if s not in NAMES]
    if unknown:
        ap.error("unknown section(s): %s (known: %s)" % (", ".join(unknown), ", ".join(NAMES)))
    for opt in ("rounds", "insert_rounds", "pgbench_seconds"):
        if getattr(args, opt) < 0:
            ap.error("--%s must not be negative" % opt.replace("_", "-"))
    if args.clients is None:
        args.clients = scaling_table.default_clients(os.cpu_count() or 1, args.quick)
    else:
        try:
            args.clients = sorted({int(c) for c in args.clients.split(",") if c.strip()})
        except ValueError:
            ap.error("--clients takes whole numbers separated by commas")
        if not args.clients or args.clients[0] < 1:
            ap.error("--clients takes numbers of 1 or more")
    # the scaling table's clients, the harness's session and some spare
    args.max_connections = 50
    if "scaling-table" in args.only:
        args.max_connections = max(50, args.clients[-1] + 10)
    if os.geteuid() == 0:
        ap.error("run as an unprivileged user (initdb refuses root); bench/run.sh does that")
    if args.workdir:
        if os.path.exists(args.workdir) and os.listdir(args.workdir):
            ap.error("--workdir %s exists and is not empty" % args.workdir)
        os.makedirs(args.workdir, exist_ok=True)
    else:
        args.workdir = tempfile.mkdtemp(prefix="snowflake-bench.", dir="/tmp")
    return args


def main():
    args = parse_args()

    # SIGTERM and SIGHUP end the run like Ctrl-C: through the finally below
    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    bench = Bench(args)
    error = None
    try:
        bench.run(SECTIONS)
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
                            pgbin("pg_ctl"), bench.server.data, args.workdir))
            elif not args.keep:
                shutil.rmtree(args.workdir, ignore_errors=True)
    try:
        bench.report.finish(error)
    except Exception as e:
        progress("could not write the report: %s" % e)
        return 1
    return 1 if error else 0
