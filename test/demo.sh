#!/bin/bash
# test/demo.sh: install what is needed, build and install snowflake, start a
# throwaway PostgreSQL 15 instance with the extension preloaded, show what
# it does, then stop the instance and delete it.
#
#   sudo test/demo.sh
#
# The instance runs as the "postgres" user in a temporary directory, listens
# on a Unix socket only, and is removed on exit, whatever happens.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_USER=${PG_USER:-postgres}

"$ROOT/test/install-deps.sh" demo
PGBIN=$("$PG_CONFIG" --bindir)

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
