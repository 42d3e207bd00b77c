#!/bin/bash
# bench/perid.sh: what one snowflake_nextval() costs, in this tree and in a
# reference version (default 1.4, commit 263189c), side by side on the same
# PostgreSQL:
#
#   - callgrind: instructions per call inside snowflake_nextval(), and
#     clock reads (clock_gettime() calls) per ID, over 20,000 calls in a
#     single-user backend: counts, not times, so the same on any machine;
#   - wall clock: 1,000,000 IDs in one backend, against a clock_timestamp()
#     call per row and a sequence's nextval() per row, in alternating
#     rounds; the report gives the median of the per-round ratios.  Two
#     functions of bench/floor run in the same rounds: one clock read per
#     row, and one clock read plus a spinlock, the least any generator
#     shared by backends does per ID.
#
#   sudo bench/perid.sh                       the tree against 263189c (1.4)
#   sudo bench/perid.sh --ref 7fb3333         another reference commit
#   sudo bench/perid.sh --rounds 11 --ids 1000000 --calls 20000
#   sudo PG_CONFIG=/opt/pg/18/bin/pg_config bench/perid.sh
#
# It copies the PostgreSQL installation that PG_CONFIG names twice under a
# directory of its own in /tmp (the installations are relocatable), builds
# the tree into one and the reference (git archive) into the other, and
# runs bench/perid.py as the postgres user.  Nothing outside that
# directory is touched.  The report is printed and saved as
# bench/results/<UTC timestamp>-perid.md.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_USER=${PG_USER:-postgres}
REF=263189c
ARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--ref) REF=$2; shift 2 ;;
	--ref=*) REF=${1#--ref=}; shift ;;
	*) ARGS+=("$1"); shift ;;
	esac
done

[ "$(id -u)" = 0 ] || { echo "bench/perid.sh: run me as root" >&2; exit 1; }
command -v valgrind >/dev/null || { apt-get install -y -qq valgrind python3 >/dev/null; }

WORK=$(mktemp -d /tmp/snowflake-perid.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

# copy_pg DEST: a private copy of the installation PG_CONFIG names; prints
# the pg_config of the copy.  Debian spreads an installation over
# /usr/lib/postgresql/N, /usr/share/postgresql/N and
# /usr/include/postgresql; a source build lives under one prefix.
copy_pg() {
	local dest=$1 bindir
	bindir=$("$PG_CONFIG" --bindir)
	if [[ $bindir == /usr/lib/postgresql/*/bin ]]; then
		local v
		v=$(basename "$(dirname "$bindir")")
		mkdir -p "$dest/usr/lib/postgresql" "$dest/usr/share/postgresql" "$dest/usr/include"
		cp -a "/usr/lib/postgresql/$v" "$dest/usr/lib/postgresql/"
		cp -a "/usr/share/postgresql/$v" "$dest/usr/share/postgresql/"
		cp -a /usr/include/postgresql "$dest/usr/include/"
		echo "$dest/usr/lib/postgresql/$v/bin/pg_config"
	else
		local prefix
		prefix=$(dirname "$bindir")
		mkdir -p "$dest"
		cp -a "$prefix/." "$dest/"
		echo "$dest/bin/pg_config"
	fi
}

# build_into SRC PG_CONFIG
build_into() {
	make -s -C "$1" PG_CONFIG="$2" >/dev/null 2>&1 &&
		make -s -C "$1" install PG_CONFIG="$2" >/dev/null 2>&1 ||
		{ echo "bench/perid.sh: could not build $1 for $2" >&2; exit 1; }
}

echo "building the tree and $REF for $("$PG_CONFIG" --version)" >&2
mkdir -p "$WORK/src-tree" "$WORK/src-ref"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$WORK/src-tree")
git -C "$ROOT" archive "$REF" | tar -x -C "$WORK/src-ref"
TREE_PG=$(copy_pg "$WORK/pg-tree")
REF_PG=$(copy_pg "$WORK/pg-ref")
build_into "$WORK/src-tree" "$TREE_PG"
build_into "$WORK/src-ref" "$REF_PG"
# the floor: a clock read alone, and with a spinlock (bench/floor)
build_into "$WORK/src-tree/bench/floor" "$TREE_PG"

chown -R "$PG_USER": "$WORK"
mkdir -p "$ROOT/bench/results"
report="$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-perid.md"
(cd "$WORK" && runuser -u "$PG_USER" -- python3 -B "$ROOT/bench/perid.py" \
	--work "$WORK" --tree-bin "$("$TREE_PG" --bindir)" --ref-bin "$("$REF_PG" --bindir)" \
	--ref-name "$REF" "${ARGS[@]}") | tee "$report"
echo "saved: $report" >&2
