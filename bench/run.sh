#!/bin/bash
# bench/run.sh: install what the benchmarks need, build and install the
# extension, then run bench/bench.py as the unprivileged "postgres" user
# against a throwaway PostgreSQL instance that it starts and removes.
#
#   sudo bench/run.sh                       full run (about 22 minutes on 2 CPUs)
#   sudo bench/run.sh --quick               smoke run (a few minutes)
#   sudo bench/run.sh --only=bulk,pgbench   some sections only
#   sudo bench/run.sh --scaling             the scaling table and its SVG chart
#   sudo bench/run.sh --help                every option of bench.py
#   sudo PG_CONFIG=/path/to/pg_config bench/run.sh ...   another PostgreSQL
#
# Every argument is passed to bench.py.  PG_CONFIG chooses the PostgreSQL
# (default Debian's 15): the extension is built for it and installed into
# it, and its binaries run the server, psql and pgbench.  The build happens
# in a copy of the working tree, so objects built for another PostgreSQL
# never get mixed in.  The report is printed and saved as
# bench/results/<UTC timestamp>.md (git-ignored), with the scaling table's
# data file and chart next to it; with --out-dir=DIR they go to DIR instead
# (written by the postgres user) and are not copied.  With --keep the work
# directory under /tmp is left in place.
#
# Run it as root on Debian 12.  Profiling uses perf when the machine
# exposes hardware counters, valgrind's callgrind otherwise; if neither
# works the profile section says so and the rest still runs.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEBIAN_PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
PG_CONFIG=${PG_CONFIG:-$DEBIAN_PG_CONFIG}
PG_USER=${PG_USER:-postgres}

for arg in "$@"; do
	case $arg in -h | --help) exec python3 -B "$ROOT/bench/bench.py" --help ;; esac
done

if [ "$(id -u)" != 0 ]; then
	echo "bench/run.sh: run me as root (packages, make install, runuser)" >&2
	exit 1
fi

# --- packages -----------------------------------------------------------------
# Debian's PostgreSQL 15 and the compiler come from the project's list; another
# PostgreSQL (PG_CONFIG) only needs the compiler.  Python for the driver; perf
# and valgrind for the profile section; gnuplot for the scaling chart.  On
# Debian 12 the perf binary is in "linux-perf".
wanted=(python3 linux-perf valgrind)
if [ "$PG_CONFIG" = "$DEBIAN_PG_CONFIG" ]; then
	"$ROOT/test/install-deps.sh" demo
else
	wanted+=(build-essential)
fi
extra=()
for p in "${wanted[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		extra+=("$p")
done
command -v gnuplot >/dev/null || extra+=(gnuplot-nox)
if [ ${#extra[@]} -gt 0 ]; then
	echo "installing: ${extra[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# perf, valgrind and gnuplot only serve the profile and the chart; do not
	# stop the run without them
	if ! apt-get install -y -qq "${extra[@]}" >/dev/null; then
		essential=(python3)
		[ "$PG_CONFIG" = "$DEBIAN_PG_CONFIG" ] || essential+=(build-essential)
		echo "warning: could not install ${extra[*]}; trying ${essential[*]} alone" >&2
		apt-get install -y -qq "${essential[@]}" >/dev/null
	fi
fi

PG_CONFIG=$(command -v "$PG_CONFIG" || true)
if [ -z "$PG_CONFIG" ] || ! PGBIN=$("$PG_CONFIG" --bindir); then
	echo "bench/run.sh: PG_CONFIG does not name a working pg_config" >&2
	exit 1
fi
export PGBIN

# --- the work directory ---------------------------------------------------------
WORK=$(mktemp -d /tmp/snowflake-bench.XXXXXX)
keep=
for arg in "$@"; do
	case $arg in --keep) keep=1 ;; esac
done
cleanup() {
	if [ -n "$keep" ]; then
		echo "work directory kept: $WORK"
	elif [ -e "$WORK/run/data/postmaster.pid" ]; then
		# bench.py could not stop its server: do not pull the directory from under it
		echo "bench/run.sh: a server may still run on $WORK/run/data; $WORK left in place" >&2
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT

# --- build and install ------------------------------------------------------------
# in a copy of the working tree as it is (tracked and untracked files, not
# the ignored ones), so no object built for another PostgreSQL is reused
echo "=== building snowflake for $("$PG_CONFIG" --version) and installing it into $("$PG_CONFIG" --pkglibdir)"
mkdir "$WORK/build"
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$WORK/build" -xf -
else
	tar -C "$ROOT" --exclude=./bench/results -cf - . | tar -C "$WORK/build" -xf -
	make -s -C "$WORK/build" clean PG_CONFIG="$PG_CONFIG" >/dev/null
fi
make -s -C "$WORK/build" PG_CONFIG="$PG_CONFIG" >/dev/null
make -s -C "$WORK/build" install PG_CONFIG="$PG_CONFIG" >/dev/null

# --- run the benchmarks as the postgres user -----------------------------------
chown "$PG_USER": "$WORK"
chmod 700 "$WORK"

mkdir -p "$ROOT/bench/results"
# what was built, for the report
BENCH_SOURCE="commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$ROOT" status --porcelain -- src sql Makefile snowflake.control 2>/dev/null)" ]; then
	BENCH_SOURCE="$BENCH_SOURCE with uncommitted changes in src/, sql/ or the build files"
fi
BENCH_SOURCE="$BENCH_SOURCE, default_version $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/snowflake.control")"
export BENCH_SOURCE
rc=0
# bench.py stops its server itself, also on errors and Ctrl-C
(cd / && runuser -u "$PG_USER" -- env BENCH_SOURCE="$BENCH_SOURCE" PGBIN="$PGBIN" \
	/usr/bin/python3 -B "$ROOT/bench/bench.py" --workdir="$WORK/run" --out-dir="$WORK/out" "$@") || rc=$?

# the report (and the scaling table's data file and chart) is written where
# postgres may write; keep it in the repository (nothing to copy if
# --out-dir sent it elsewhere)
if compgen -G "$WORK/out/*" >/dev/null; then
	for f in "$WORK"/out/*; do
		cp "$f" "$ROOT/bench/results/"
		echo "saved: $ROOT/bench/results/$(basename "$f")"
	done
fi
exit "$rc"
