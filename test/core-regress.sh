#!/bin/bash
# test/core-regress.sh: PostgreSQL's own regression suite, run against a
# server that preloads snowflake, with the extension created in every test
# database (pg_regress --load-extension).  It answers one question: does
# installing snowflake change anything for queries that never use it?
#
#   sudo test/core-regress.sh [pgNN-core-regress.tar.xz]
#
# PG_CONFIG names the PostgreSQL to test (default /opt/pg/18/bin/pg_config);
# the tarball is PostgreSQL's src/test/regress for that version, prepared
# as ../shared/pg/README.md describes (default
# ../shared/pg/pg18-core-regress.tar.xz).  Run as root: the server and the
# suite run as the "postgres" user.
#
# The suite must pass unchanged, except where a test lists the whole
# catalog and the extension's objects necessarily appear in the listing.
# Those differences are kept, reviewed and explained, in
# test/core-regress/<test>.diff; a failing test whose differences are not
# exactly its listed ones fails this script.  Ends with "N passed, N failed".
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/opt/pg/18/bin/pg_config}
PG_USER=${PG_USER:-postgres}
TARBALL=${1:-$ROOT/../shared/pg/pg18-core-regress.tar.xz}
ALLOWED=$ROOT/test/core-regress

fail() { echo "$*"; echo "0 passed, 1 failed"; exit 1; }

[ -x "$PG_CONFIG" ] || fail "PG_CONFIG=$PG_CONFIG is not an executable pg_config"
[ -f "$TARBALL" ] || fail "no core regression suite at $TARBALL"
BINDIR=$("$PG_CONFIG" --bindir)

echo "=== building and installing snowflake for $("$PG_CONFIG" --version)"
make -s -C "$ROOT" clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
make -s -C "$ROOT" -j2 PG_CONFIG="$PG_CONFIG" >/dev/null &&
	make -s -C "$ROOT" install PG_CONFIG="$PG_CONFIG" >/dev/null || fail "build failed"
make -s -C "$ROOT" clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1

WORK=$(mktemp -d /tmp/snowflake-core.XXXXXX)
as_pg() { (cd "$WORK" && runuser -u "$PG_USER" -- "$@"); }
cleanup() {
	as_pg "$BINDIR/pg_ctl" -D "$WORK/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT

tar -xJf "$TARBALL" -C "$WORK" || fail "could not unpack $TARBALL"
SUITE=$(find "$WORK" -maxdepth 2 -name parallel_schedule -printf '%h\n' | head -1)
[ -n "$SUITE" ] || fail "no parallel_schedule in $TARBALL"
chown -R "$PG_USER": "$WORK"

echo "=== starting a server with snowflake preloaded"
as_pg "$BINDIR/initdb" -D "$WORK/data" -U postgres -A trust --no-sync >/dev/null ||
	fail "initdb failed"
cat >>"$WORK/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$WORK'
port = 5488
shared_preload_libraries = 'snowflake'
snowflake.node_id = 1
fsync = off
max_connections = 40
EOF
as_pg "$BINDIR/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w start >/dev/null ||
	{ tail -20 "$WORK/server.log"; fail "the server did not start"; }

echo "=== PostgreSQL's regression suite, snowflake created in every test database"
(cd "$SUITE" && runuser -u "$PG_USER" -- ./pg_regress --inputdir=. --bindir="$BINDIR" \
	--dlpath=. --schedule=parallel_schedule --host="$WORK" --port=5488 \
	--user=postgres --max-connections=20 --load-extension=snowflake) >"$WORK/regress.out" 2>&1
grep -E '^(not )?ok ' "$WORK/regress.out" | sed -E 's/ +[0-9]+ ms$//'

# the failed tests, and whether each differs exactly by its listed diff
ARTIFACTS=$ROOT/test-artifacts/core-regress
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
passed=$(grep -cE '^ok ' "$WORK/regress.out")
failed=0
for test in $(sed -nE 's/^not ok [0-9]+ +[-+] ([a-z_0-9]+).*/\1/p' "$WORK/regress.out"); do
	# the test's hunks, without the file names and timestamps of the header
	actual=$(diff -U3 "$SUITE/expected/$test.out" "$SUITE/results/$test.out" | tail -n +3)
	echo "$actual" >"$ARTIFACTS/$test.diff"
	if [ -f "$ALLOWED/$test.diff" ] && [ "$actual" = "$(cat "$ALLOWED/$test.diff")" ]; then
		echo "--- $test: differs only by its listed catalog listing ($ALLOWED/$test.diff)"
		passed=$((passed + 1))
	else
		echo "--- $test: FAILED"
		echo "$actual"
		failed=$((failed + 1))
	fi
done
if ! grep -qE '^(not )?ok ' "$WORK/regress.out"; then
	cat "$WORK/regress.out"
	failed=$((failed + 1))
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
