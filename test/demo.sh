#!/bin/bash
# test/demo.sh: install what is needed, build and install snowflake, start a
# throwaway PostgreSQL 15 instance with the extension preloaded, show what
# it does, then stop the instance and delete it.
#
#   sudo test/demo.sh
#
# The instance runs as the "postgres" user in a temporary directory, listens
# on a Unix socket only, and is removed on exit, whatever happens.  What
# stays on the machine is listed at the end, with how to undo it: the
# packages installed, Debian's cluster "main" that installing postgresql-15
# creates (the README's configuration steps use it), and the extension
# installed into PostgreSQL.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_USER=${PG_USER:-postgres}

installed_packages() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null | awk '$1 == "ii" { print $2 }' | sort
}
packages_before=$(installed_packages)
clusters_before=$(ls -d /etc/postgresql/*/main 2>/dev/null || true)
deps_log=$(mktemp /tmp/snowflake-demo-deps.XXXXXX)
"$ROOT/test/install-deps.sh" demo | tee "$deps_log"
deps_out=$(cat "$deps_log")
rm -f "$deps_log"
packages_new=$(comm -13 <(echo "$packages_before") <(installed_packages) | wc -l)
PGBIN=$("$PG_CONFIG" --bindir)
PGMAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

echo "=== building and installing"
make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" >/dev/null
make -s -C "$ROOT" install PG_CONFIG="$PG_CONFIG" >/dev/null

DIR=$(mktemp -d /tmp/snowflake-demo.XXXXXX)
chown "$PG_USER": "$DIR"
as_pg() { (cd / && runuser -u "$PG_USER" -- "$@"); }
cleanup() {
	as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$DIR"
}
trap cleanup EXIT

echo "=== starting a throwaway server in $DIR"
as_pg "$PGBIN/initdb" -D "$DIR/data" -U postgres -A trust --no-sync >/dev/null
cat >>"$DIR/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$DIR'
port = 5499
shared_preload_libraries = 'snowflake'
snowflake.node_id = 7
EOF
as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w start >/dev/null
grep 'snowflake' "$DIR/server.log" | sed 's/^.*LOG:  /server log: /'

echo "=== demo"
as_pg "$PGBIN/psql" -X -h "$DIR" -p 5499 -U postgres -d postgres \
	-v ON_ERROR_STOP=1 --echo-queries <<'SQL'
CREATE EXTENSION snowflake;

-- a bigint key and a snowflake key, both generated
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), item text);
CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), kind text);
INSERT INTO orders (item) SELECT 'item ' || g FROM generate_series(1, 5) g;
INSERT INTO events (kind) VALUES ('login'), ('click'), ('logout');

-- every ID says when and where it was made
SELECT id, item, (snowflake_decode(id)).* FROM orders ORDER BY id;
SELECT id, snowflake_timestamp(id), kind FROM events ORDER BY id DESC LIMIT 10;

-- JSON carries IDs as strings, so JavaScript clients lose no digits
SELECT json_agg(e) FROM events e;

-- a time range through the primary key, no created_at column needed
SELECT count(*) AS orders_last_minute
  FROM orders WHERE id >= snowflake_from_timestamp(now() - interval '1 minute');
EXPLAIN (COSTS OFF)
SELECT * FROM orders WHERE id >= snowflake_from_timestamp(now() - interval '1 minute');
-- or compare IDs with times directly
SELECT count(*) AS events_last_minute
  FROM events WHERE id >= now() - interval '1 minute';

-- what the operator sees
SELECT node_id, time_bits, node_bits, sequence_bits, time_runs_out_at,
       ids_issued, hwm_id, worker_pid IS NOT NULL AS worker_running, problem
  FROM snowflake_status();
SQL

echo "=== stopping and removing the throwaway server"
cleanup
trap - EXIT

# what stays, and how to undo it
echo
echo "=== what the demo left on this machine, and how to undo it"
named=$(echo "$deps_out" | sed -n 's/^installed: //p')
if [ -n "$named" ]; then
	echo "- $packages_new Debian packages: $named, and what they depend on."
	echo "    undo: apt-get purge $named && apt-get autoremove --purge"
fi
if [ -d "/etc/postgresql/$PGMAJOR/main" ] &&
	! grep -qx "/etc/postgresql/$PGMAJOR/main" <<<"$clusters_before"; then
	echo "- PostgreSQL $PGMAJOR's cluster \"main\", which Debian creates when it installs postgresql-$PGMAJOR:"
	echo "  configuration in /etc/postgresql/$PGMAJOR/main, data in /var/lib/postgresql/$PGMAJOR/main; the demo did not use it."
	echo "  It is the server the README's \"Configure\" step sets up."
	echo "    undo: pg_dropcluster --stop $PGMAJOR main"
fi
echo "- snowflake, installed into PostgreSQL $PGMAJOR by \"make install\": the library in $("$PG_CONFIG" --pkglibdir),"
echo "  the control and SQL files in $("$PG_CONFIG" --sharedir)/extension.  The Debian package, if installed later, replaces them."
echo "    undo: make -C $ROOT uninstall PG_CONFIG=$PG_CONFIG   (not once the Debian package is installed: remove that instead)"
echo "- the build's files in $ROOT."
echo "    undo: make -C $ROOT clean PG_CONFIG=$PG_CONFIG"
echo "The throwaway server and its directory are gone.  Next: README.md, \"Install\"."
