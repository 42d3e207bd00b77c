# The "snowflake clock watcher" background worker: it starts, rereads its
# settings on SIGHUP, stops cleanly, comes back after being terminated or
# killed, renews the reservation ahead of use, stays away from binary
# upgrades, and is optional.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $node = snowflake_node('worker',
	conf => "snowflake.node_id = 5\nrestart_after_crash = on\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

sub worker_pid
{
	return $node->safe_psql('postgres',
		'SELECT coalesce(worker_pid, 0) FROM snowflake_status()');
}

# --- it starts with the server ------------------------------------------------
$node->poll_query_until('postgres',
	'SELECT worker_pid IS NOT NULL AND worker_checked_at IS NOT NULL FROM snowflake_status()')
  or die 'worker did not start';
my $pid = worker_pid();
ok(kill(0, $pid), "the worker runs (pid $pid)");
ok($node->log_contains('snowflake clock watcher started, checking the clock every 1000 ms'),
	'and logs its start with its interval');

# --- SIGHUP rereads the configuration -------------------------------------------
my $offset = -s $node->logfile;
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.clock_check_interval = '250ms'");
$node->reload;
$node->wait_for_log(qr/snowflake clock watcher reloaded its configuration, checking the clock every 250 ms/,
	$offset);
pass('on SIGHUP the worker rereads snowflake.clock_check_interval');
is(worker_pid(), $pid, 'without restarting');

# --- it renews the reservation while IDs are generated --------------------------
# With a 2 s reservation and checks every 250 ms, the worker renews it
# whenever less than 1 s is left; backends would only step in below 0.5 s.
# So during 3 s of steady generation no backend waits for a write.
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.reserve_ahead = '2s'");
$node->reload;
$node->safe_psql('postgres', 'SELECT snowflake_nextval(); SELECT pg_sleep(0.5)');
my ($writes, $backend_writes) = split /\|/, $node->safe_psql('postgres',
	'SELECT hwm_writes, hwm_backend_writes FROM snowflake_status()');
$node->safe_psql('postgres', q{
	DO $$
	BEGIN
		FOR i IN 1 .. 30 LOOP
			PERFORM snowflake_nextval();
			PERFORM pg_sleep(0.1);
		END LOOP;
	END $$});
is( $node->safe_psql(
		'postgres', "SELECT hwm_writes > $writes FROM snowflake_status()"),
	't', 'the reservation was renewed while generating');
is( $node->safe_psql(
		'postgres', "SELECT hwm_backend_writes - $backend_writes FROM snowflake_status()"),
	'0', 'by the worker: no backend waited for a write');
is( $node->safe_psql(
		'postgres', 'SELECT hwm_id > last_id FROM snowflake_status()'),
	't', 'the reservation stays ahead of the last ID');
ok(!$node->log_contains('could not'), 'no I/O trouble logged');

# --- however rare its checks, it reserves no further than reserve_ahead ---------
# (after a crash IDs resume at the reservation, so it bounds their jump)
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.clock_check_interval = '1h'");
$node->reload;
$node->safe_psql('postgres', 'SELECT snowflake_nextval()');
$writes = $node->safe_psql('postgres', 'SELECT hwm_writes FROM snowflake_status()');
$node->reload;    # wakes the worker: it checks at once
$node->poll_query_until('postgres', "SELECT hwm_writes > $writes FROM snowflake_status()")
  or die 'the worker did not renew the reservation';
is( $node->safe_psql(
		'postgres',
		q{SELECT snowflake_timestamp(hwm_id) < clock_timestamp() + interval '3.1 s' FROM snowflake_status()}),
	't', 'with checks every hour the reservation stays within 1.5 x reserve_ahead (2 s) of the clock');
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.clock_check_interval = '250ms'");
$node->reload;

# --- it is restarted after SIGTERM (pg_terminate_backend) ---------------------
$offset = -s $node->logfile;
kill 'TERM', $pid;
$node->wait_for_log(qr/snowflake clock watcher shutting down/, $offset);
pass('SIGTERM ends the worker cleanly');
$node->poll_query_until('postgres',
	"SELECT worker_pid IS NOT NULL AND worker_pid <> $pid FROM snowflake_status()")
  or die 'worker was not restarted';
my $pid2 = worker_pid();
pass("the postmaster restarts it (new pid $pid2)");

# --- and after SIGKILL (a crash restart of the whole server) --------------------
$node->safe_psql('postgres', 'CREATE TABLE ids (id snowflake PRIMARY KEY DEFAULT snowflake_nextval())');
$node->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 1000)');
kill 'KILL', $pid2;
$node->poll_query_until('postgres',
	"SELECT worker_pid IS NOT NULL AND worker_pid <> $pid2 FROM snowflake_status()")
  or die 'worker not back after crash';
pass('after SIGKILL the server reinitializes and the worker is back');
$node->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 1000)');
is($node->safe_psql('postgres', 'SELECT count(DISTINCT id) FROM ids'),
	'2000', 'and IDs after the crash restart are new');

# --- it stops cleanly with the server ----------------------------------------------
$offset = -s $node->logfile;
$node->stop;
like(slurp_file($node->logfile, $offset), qr/snowflake clock watcher shutting down/,
	'it shuts down with the server');

# --- it is not started for a binary upgrade (pg_upgrade's "postgres -b") --------
command_ok(
	[ 'pg_ctl', '-w', '-D', $node->data_dir, '-l', $node->logfile, '-o', '-b', 'start' ],
	'server starts in binary-upgrade mode');
$node->_update_pid(1);
is($node->safe_psql('postgres', 'SELECT worker_pid IS NULL FROM snowflake_status()'),
	't', 'no worker in binary-upgrade mode');
$node->stop;

# --- it is optional: interval 0 at start, and backends renew themselves -----------
$node->start;
$node->safe_psql('postgres', 'ALTER SYSTEM SET snowflake.clock_check_interval = 0');
$node->restart;
is($node->safe_psql('postgres', 'SELECT worker_pid IS NULL FROM snowflake_status()'),
	't', 'no worker with snowflake.clock_check_interval = 0');
$node->safe_psql('postgres', q{
	DO $$
	BEGIN
		FOR i IN 1 .. 30 LOOP
			INSERT INTO ids DEFAULT VALUES;
			PERFORM pg_sleep(0.1);
		END LOOP;
	END $$});
is( $node->safe_psql(
		'postgres', 'SELECT hwm_id > last_id AND hwm_backend_writes >= 2 FROM snowflake_status()'),
	't', 'backends reserve ahead on their own');
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicates');
$node->stop;

done_testing();
