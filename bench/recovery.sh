#!/bin/bash
# bench/recovery.sh: how long archive recovery takes to replay N high-water
# mark records (default 10,000), the cost a standby or a point-in-time
# recovery pays for every second of generation it replays.
#
#   sudo bench/recovery.sh [N]          with the installed snowflake
#
# A primary (fsync on) is copied while stopped, then makes N reservations,
# each one a WAL record (snowflake.reserve_ahead = 10ms, one block past the
# reservation per call).  The copy then replays that WAL from an archive as
# a standby would, and the time from its start to the end of recovery is
# printed, with the number of records replayed.  PG_CONFIG chooses the
# PostgreSQL (default Debian's 15).
set -euo pipefail

N=${1:-10000}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
BIN=$("$PG_CONFIG" --bindir)
DIR=$(mktemp -d /tmp/snowflake-recovery.XXXXXX)
chown postgres: "$DIR"
as_pg() { (cd / && runuser -u postgres -- "$@"); }
cleanup() {
	for d in primary replica; do
		as_pg "$BIN/pg_ctl" -D "$DIR/$d" -m immediate -w stop >/dev/null 2>&1 || true
	done
	[ -n "${KEEP:-}" ] || rm -rf "$DIR"
}
trap cleanup EXIT

as_pg "$BIN/initdb" -D "$DIR/primary" -U postgres -A trust >/dev/null
cat >>"$DIR/primary/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$DIR'
port = 5477
shared_preload_libraries = 'snowflake'
snowflake.node_id = 1
snowflake.reserve_ahead = '10ms'
snowflake.max_borrow = '1h'
snowflake.clock_check_interval = 0
wal_level = replica
archive_mode = on
archive_command = 'cp %p $DIR/archive/%f'
EOF
as_pg mkdir "$DIR/archive"
as_pg "$BIN/pg_ctl" -D "$DIR/primary" -l "$DIR/primary.log" -w start >/dev/null
as_pg "$BIN/psql" -X -q -h "$DIR" -p 5477 -d postgres -c 'CREATE EXTENSION snowflake' \
	-c 'SELECT snowflake_nextval()' -c 'CHECKPOINT'
as_pg "$BIN/pg_ctl" -D "$DIR/primary" -m fast -w stop >/dev/null
as_pg cp -a "$DIR/primary" "$DIR/replica"
as_pg "$BIN/pg_ctl" -D "$DIR/primary" -l "$DIR/primary.log" -w start >/dev/null

started=$(date +%s.%N)
as_pg "$BIN/psql" -X -q -h "$DIR" -p 5477 -d postgres -c "
DO \$\$
BEGIN
	FOR i IN 1 .. $N LOOP
		PERFORM snowflake_reserve(4096 * 20);
	END LOOP;
END \$\$"
generated=$(echo "$(date +%s.%N) - $started" | bc)
# each write of the mark is one WAL record
records=$(as_pg "$BIN/psql" -X -h "$DIR" -p 5477 -d postgres -Atc 'SELECT hwm_writes FROM snowflake_status()')
as_pg "$BIN/psql" -X -q -h "$DIR" -p 5477 -d postgres -c 'SELECT pg_switch_wal()' >/dev/null
as_pg "$BIN/pg_ctl" -D "$DIR/primary" -m fast -w stop >/dev/null

# the copy replays the archive as a standby would, then ends recovery
cat >>"$DIR/replica/postgresql.conf" <<EOF
restore_command = 'cp $DIR/archive/%f %p'
recovery_target_action = 'promote'
port = 5478
archive_mode = off
EOF
as_pg touch "$DIR/replica/recovery.signal"
started=$(date +%s.%N)
as_pg "$BIN/pg_ctl" -D "$DIR/replica" -l "$DIR/replica.log" -w -t 3600 start >/dev/null
until as_pg "$BIN/psql" -X -q -h "$DIR" -p 5478 -d postgres -Atc 'SELECT NOT pg_is_in_recovery()' 2>/dev/null | grep -q t; do
	sleep 0.05
done
recovered=$(echo "$(date +%s.%N) - $started" | bc)
echo "snowflake $(as_pg "$BIN/psql" -X -h "$DIR" -p 5478 -d postgres -Atc "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'"), $("$PG_CONFIG" --version)"
echo "generating $N reservations: $generated s"
echo "archive recovery of them ($records high-water mark records): $recovered s"
