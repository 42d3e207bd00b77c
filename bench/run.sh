#!/bin/bash
# bench/run.sh: install what the benchmarks need, build and install the
# extension, then run bench/bench.py as the unprivileged "postgres" user
# against a throwaway PostgreSQL 15 instance that it starts and removes.
#
#   sudo bench/run.sh                       full run (about 22 minutes on 2 CPUs)
#   sudo bench/run.sh --quick               smoke run (a few minutes)
#   sudo bench/run.sh --only=bulk,pgbench   some sections only
#   sudo bench/run.sh --help                every option of bench.py
#
# Every argument is passed to bench.py.  The report is printed and saved
# as bench/results/<UTC timestamp>.md (git-ignored); with --out-dir=DIR it
# goes to DIR instead (written by the postgres user) and is not copied.
# With --keep the work directory under /tmp is left in place.
#
# Run it as root on Debian 12.  Profiling uses perf when the machine
# exposes hardware counters, valgrind's callgrind otherwise; if neither
# works the profile section says so and the rest still runs.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_USER=${PG_USER:-postgres}

for arg in "$@"; do
	case $arg in -h | --help) exec python3 "$ROOT/bench/bench.py" --help ;; esac
done

if [ "$(id -u)" != 0 ]; then
	echo "bench/run.sh: run me as root (packages, make install, runuser)" >&2
	exit 1
fi

# --- packages -----------------------------------------------------------------
# PostgreSQL, PGXS and the compiler come from the test suite's list.
"$ROOT/test/install-deps.sh"

# Python for the driver; perf and valgrind for the profile section.  On
# Debian 12 the perf binary is in "linux-perf".
extra=()
for p in python3 linux-perf valgrind; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		extra+=("$p")
done
if [ ${#extra[@]} -gt 0 ]; then
	echo "installing: ${extra[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# perf and valgrind only serve the profile; do not stop the run without them
	if ! apt-get install -y -qq "${extra[@]}" >/dev/null; then
		echo "warning: could not install ${extra[*]}; trying python3 alone" >&2
		apt-get install -y -qq python3 >/dev/null
	fi
fi

# --- build and install --------------------------------------------------------
echo "=== building and installing snowflake"
make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" >/dev/null
make -s -C "$ROOT" install PG_CONFIG="$PG_CONFIG" >/dev/null

# --- run the benchmarks as the postgres user -----------------------------------
WORK=$(mktemp -d /tmp/snowflake-bench.XXXXXX)
chown "$PG_USER": "$WORK"
chmod 700 "$WORK"
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
(cd / && runuser -u "$PG_USER" -- env BENCH_SOURCE="$BENCH_SOURCE" /usr/bin/python3 "$ROOT/bench/bench.py" \
	--workdir="$WORK/run" --out-dir="$WORK/out" "$@") || rc=$?

# the report is written where postgres may write; keep it in the repository
# (nothing to copy if --out-dir sent it elsewhere)
if compgen -G "$WORK/out/*.md" >/dev/null; then
	for f in "$WORK"/out/*.md; do
		cp "$f" "$ROOT/bench/results/"
		echo "report saved: $ROOT/bench/results/$(basename "$f")"
	done
fi
exit "$rc"
