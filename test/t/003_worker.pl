# The "snowflake clock watcher" background worker: it starts, rereads its
# settings on SIGHUP, renews the reservation ahead of the IDs being issued
# (and only then), stops cleanly, comes back after being terminated or
# killed, stays away from binary upgrades, and is optional.  Every check
# waits for a state to be reached (poll_query_until), never for a time;
# libfaketime moves the server's clock where time must pass.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

my $node = snowflake_node('worker', conf => q{
snowflake.node_id = 5
snowflake.max_borrow = '1h'
snowflake.max_clock_jump = '1min'
restart_after_crash = on
});
start_with_faketime($node);
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

sub status
{
	my ($columns) = @_;
	return $node->safe_psql('postgres', "SELECT $columns FROM snowflake_status()");
}

# waits for n more checks of the worker
sub worker_checks
{
	my ($n) = @_;
	for (1 .. $n)
	{
		my $at = status('worker_checked_at');
		$node->poll_query_until('postgres',
			"SELECT worker_checked_at > '$at' FROM snowflake_status()")
		  or die 'the worker stopped checking';
	}
	return;
}

# --- it starts with the server ------------------------------------------------
$node->poll_query_until('postgres',
	'SELECT worker_pid IS NOT NULL AND worker_checked_at IS NOT NULL FROM snowflake_status()')
  or die 'worker did not start';
my $pid = status('worker_pid');
ok(kill(0, $pid), "the worker runs (pid $pid)");
ok($node->log_contains('snowflake clock watcher started, checking the clock every 1000 ms'),
	'and logs its start with its interval');

# --- SIGHUP rereads the configuration -------------------------------------------
my $offset = -s $node->logfile;
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.clock_check_interval = '100ms'");
$node->reload;
$node->wait_for_log(qr/snowflake clock watcher reloaded its configuration, checking the clock every 100 ms/,
	$offset);
pass('on SIGHUP the worker rereads snowflake.clock_check_interval');
is(status('worker_pid'), $pid, 'without restarting');

# --- it renews the reservation ahead of the IDs being issued ------------------------
# With snowflake.reserve_ahead = 60 s, a reservation reaches 60 s past the
# clock.  A backend writes one when an ID needs it, or when less than 15 s
# are left; the worker renews at its check once less than 45 s are left and
# IDs were issued since its last check.  The clock moves 20 s on (a step
# the settings accept at once), an ID is issued: 40 s are left, and the
# worker, not a backend, renews.
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.reserve_ahead = '60s'");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('snowflake.reserve_ahead') = '1min'")
  or die;
worker_checks(1);
$node->safe_psql('postgres', 'SELECT snowflake_nextval()');
# two whole checks after the ID, so that the worker has seen it before the
# clock moves: with 60 s left it renews nothing, and no ID is pending after
worker_checks(2);
my ($writes, $backend_writes) = split /\|/, status('hwm_writes, hwm_backend_writes');
cmp_ok($backend_writes, '>=', 1, 'the first ID after start: a backend wrote the reservation');
set_clock_offset($node, '+20');
$node->poll_query_until('postgres', 'SELECT clock_jumps_forward > 0 FROM snowflake_status()')
  or die 'the worker did not see the clock move';
worker_checks(2);
is(status('hwm_writes'), $writes, 'the clock moving on alone renews nothing');
$node->safe_psql('postgres', 'SELECT snowflake_nextval()');
$node->poll_query_until('postgres', "SELECT hwm_writes > $writes FROM snowflake_status()")
  or die 'the worker did not renew the reservation';
is(status('hwm_backend_writes'), $backend_writes, 'once an ID is issued, the worker renews it, not a backend');
is(status(q{hwm_id > last_id AND snowflake_timestamp(hwm_id) <= clock_timestamp() + interval '60 s'}),
	't', 'to reserve_ahead past the clock');

# --- an idle server writes nothing ---------------------------------------------------
$writes = status('hwm_writes');
worker_checks(3);
is(status('hwm_writes'), $writes, 'three checks with no ID issued: no write');
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.reserve_ahead = '2s'");

# The rest runs without libfaketime: after a crash, the postmaster of 15
# forks processes from a signal handler, where libfaketime reads the real
# clock, and the processes would disagree about the time.  The clock is
# then 20 s behind the IDs, which snowflake.max_borrow = 1h allows.
$node->stop;
$node->start;
$node->poll_query_until('postgres', 'SELECT worker_pid IS NOT NULL FROM snowflake_status()')
  or die 'worker did not start';
$pid = status('worker_pid');

# --- it is restarted after SIGTERM (pg_terminate_backend) ---------------------
$offset = -s $node->logfile;
kill 'TERM', $pid;
$node->wait_for_log(qr/snowflake clock watcher shutting down/, $offset);
pass('SIGTERM ends the worker cleanly');
$node->poll_query_until('postgres',
	"SELECT worker_pid IS NOT NULL AND worker_pid <> $pid FROM snowflake_status()")
  or die 'worker was not restarted';
my $pid2 = status('worker_pid');
pass("the postmaster restarts it (new pid $pid2)");

# --- and after SIGKILL (a crash restart of the whole server) --------------------
$node->safe_psql('postgres', 'CREATE TABLE ids (id snowflake PRIMARY KEY DEFAULT snowflake_nextval())');
$node->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 1000)');
$offset = -s $node->logfile;
kill 'KILL', $pid2;
wait_for_crash_restart($node, $offset);
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

# --- interval 0 at start: the worker checks nothing, backends renew themselves --
$node->start;
$node->safe_psql('postgres', 'ALTER SYSTEM SET snowflake.clock_check_interval = 0');
$node->restart;
is($node->safe_psql('postgres', 'SELECT worker_pid IS NOT NULL AND worker_checked_at IS NULL FROM snowflake_status()'),
	't', 'with snowflake.clock_check_interval = 0 the worker runs but checks nothing');
$backend_writes = status('hwm_backend_writes');
# each block reaches past the reservation (2 s ahead of the last ID)
$node->safe_psql('postgres', 'INSERT INTO ids SELECT id FROM snowflake_nextval(4096 * 2500) id');
$node->safe_psql('postgres', 'INSERT INTO ids SELECT id FROM snowflake_nextval(4096 * 2500) id');
cmp_ok(status('hwm_backend_writes'), '>=', $backend_writes + 2,
	'backends reserve ahead on their own');
is(status('hwm_id > last_id'), 't', 'and the reservation covers the last ID');
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicates');

# --- settings set by a reload take effect: no restart needed ----------------------
# the clock checks resume when the interval is set
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.clock_check_interval = '100ms'");
$node->reload;
$node->poll_query_until('postgres', 'SELECT worker_checked_at IS NOT NULL FROM snowflake_status()')
  or die 'the clock checks did not start';
pass('setting snowflake.clock_check_interval by a reload starts the clock checks');

# the peer checker runs with nothing listed, and starts checking when
# snowflake.peers is set by a reload; it finds a conflict
my $other = snowflake_node('other', conf => "snowflake.node_id = 5\n");
$other->start;
$other->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$other->safe_psql('postgres', 'SELECT snowflake_nextval()');
is($node->safe_psql('postgres', 'SELECT count(*) FROM snowflake_peers()'), '0',
	'no peer checked while snowflake.peers is empty');
ok($node->log_contains('snowflake peer checker started; it checks nothing while "snowflake.peers" is empty'),
	'the peer checker says it is idle');
my $peer = $other->connstr . ' dbname=postgres';
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peer_check_interval = '100ms'});
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"$peer"'});
$node->reload;
$node->poll_query_until('postgres',
	q{SELECT count(*) = 1 AND bool_and(reachable) FROM snowflake_peers()})
  or die 'the peer checker did not start checking';
pass('setting snowflake.peers by a reload starts the peer checks');
$node->poll_query_until('postgres',
	q{SELECT bool_or(status LIKE 'conflict: same node ID 5%') FROM snowflake_peers()})
  or die 'the conflict was not found';
pass('and it finds the peer with the same node ID');
# emptying the list by a reload stops the checks; snowflake_peers() is empty
$node->safe_psql('postgres', 'ALTER SYSTEM RESET snowflake.peers');
$node->reload;
$node->poll_query_until('postgres', 'SELECT count(*) = 0 FROM snowflake_peers()')
  or die 'the peer list was not emptied';
pass('emptying snowflake.peers by a reload ends the checks');
$other->stop;
$node->stop;

done_testing();
