# Storage faults of the state file, reproduced with test/inject/failio.c (a
# test-only LD_PRELOAD library) after open() succeeded: a write that fails
# (a full disk), an fsync that fails, an fsync that stalls, and a standby
# whose state directory cannot be written.  The server must fail the call
# that needed the mark, never the cluster; leak no file descriptor; let
# every other session wait interruptibly; and keep a standby replaying.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_program('cc', 'gcc');

# failio acts on fsync() calls, which fsync = off (the test default) skips
my $fsync_on = "fsync = on\n";

# a reservation write is forced by a block longer than the reservation
# reaches (100 ms hold 409,600 IDs); it runs ahead of the clock by 122 ms,
# well within the default snowflake.max_borrow
my $force_write = 'SELECT first_id FROM snowflake_reserve(500000)';

sub status
{
	my ($node, $columns) = @_;
	return $node->safe_psql('postgres', "SELECT $columns FROM snowflake_status()");
}

# --- a failing fsync fails the call, not the cluster --------------------------------
my $node = snowflake_node('fsync', conf => $fsync_on . q{
snowflake.node_id = 3
snowflake.clock_check_interval = 0
snowflake.reserve_ahead = 100
});
start_with_failio($node);
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $postmaster = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');

# the first mark of the data directory: a new file, renamed into place
set_failio($node, 'fail_fsync', 1);
is(sqlstate_of($node, 'SELECT snowflake_nextval()'), '58030',
	'a failed fsync of the new state file fails the call with 58030 (io_error)');
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $postmaster,
	'and the server is still up: no PANIC, no crash restart');
like(status($node, 'problem'), qr/^could not write the high-water mark: could not fsync file "pg_snowflake\/state\.tmp": /,
	'snowflake_status() says which write failed');
ok(!-e $node->data_dir . '/pg_snowflake/state.tmp', 'the temporary file is removed');
set_failio($node, 'fail_fsync', 0);
is($node->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't',
	'once fsync works again, so does generation');
is(status($node, 'problem IS NULL AND hwm_write_failures = 1'), 't', 'and the problem is gone');

# a mark overwritten in place whose fsync fails: the next write replaces the
# file instead of trusting an fsync retried on the same pages
set_failio($node, 'fail_fsync', 1);
is(sqlstate_of($node, $force_write), '58030',
	'a failed fsync of the file overwritten in place fails the call');
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $postmaster,
	'and the server is still up');
set_failio($node, 'fail_fsync', 0);
is(sqlstate_of($node, $force_write), '00000', 'the next write succeeds');
is(status($node, 'hwm_id >= last_id AND hwm_write_failures = 2'), 't',
	'and the mark on disk covers every ID issued');

# a full disk: the write itself fails
set_failio($node, 'fail_write', 1);
is(sqlstate_of($node, $force_write), '58030', 'a full disk fails the call with 58030');
like(status($node, 'problem'), qr/could not write file "pg_snowflake\/state(\.tmp)?": No space left on device/,
	'with the reason in snowflake_status()');
set_failio($node, 'fail_write', 0);
is(sqlstate_of($node, $force_write), '00000', 'generation resumes when there is space again');

# nothing of it left a descriptor open in this backend: the transient file
# registry would complain at commit
my ($ret, $out, $err) = $node->psql('postgres', "BEGIN; $force_write; COMMIT;");
unlike($err, qr/not closed/, 'no "temporary file ... not closed" warning');
unlike(slurp_file($node->logfile), qr/PANIC|terminated by signal/, 'no PANIC and no crash in the log');
$node->stop;

# --- the clock watcher renewing against a full disk leaks no descriptor ------------
my $watched = snowflake_node('watcher_fds', conf => $fsync_on . q{
snowflake.node_id = 4
snowflake.clock_check_interval = 10
snowflake.reserve_ahead = 10000
});
start_with_failio($watched);
$watched->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$watched->safe_psql('postgres', 'SELECT snowflake_nextval()');
my $worker = status($watched, 'worker_pid');
sub open_descriptors
{
	opendir(my $dh, "/proc/$worker/fd") or die "could not open /proc/$worker/fd: $!";
	my $n = grep { !/^\./ } readdir($dh);
	closedir $dh;
	return $n;
}
my $before = open_descriptors();
set_failio($watched, 'fail_write', 1);
# the watcher renews while IDs are issued, once less than three quarters of
# the reservation's reach (10 s) is left; once a renewal failed, it tries
# again at every check
$watched->poll_query_until('postgres',
	q{SELECT snowflake_nextval() IS NOT NULL AND hwm_write_failures >= 1 FROM snowflake_status()})
  or die 'the clock watcher did not try to renew';
$watched->poll_query_until('postgres',
	q{SELECT hwm_write_failures >= 30 AND hwm_backend_writes = 1 FROM snowflake_status()})
  or die 'the clock watcher did not try again';
is(open_descriptors(), $before,
	'30 failed renewals later the clock watcher holds as many descriptors as before');
# nor memory: each failure used to leave its message (about 220 bytes) in
# the worker's top memory context; 3,000 more failures would leave 650 kB
my $data_before = proc_status_kb($worker, 'VmData');
$watched->poll_query_until('postgres',
	q{SELECT hwm_write_failures >= 3030 FROM snowflake_status()})
  or die 'the clock watcher did not go on trying';
cmp_ok(proc_status_kb($worker, 'VmData') - $data_before, '<', 256,
	'3,000 failed renewals later the clock watcher\'s memory has not grown (kB)');
set_failio($watched, 'fail_write', 0);
$watched->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'the clock watcher did not write again';
pass('once the disk is writable the clock watcher writes the mark by itself');
like(slurp_file($watched->logfile), qr/snowflake high-water mark written again after failures/,
	'and says so in the log');
$watched->stop;

# --- a stalled disk: every other session can be cancelled ---------------------------
my $stall = snowflake_node('stall', conf => $fsync_on . q{
snowflake.node_id = 5
snowflake.clock_check_interval = 0
});
start_with_failio($stall);
$stall->safe_psql('postgres', 'CREATE EXTENSION snowflake');
set_failio($stall, 'stall_fsync', 1);
my $writer = $stall->background_psql('postgres');
$writer->query_until(qr/started/, q{\echo started
SELECT snowflake_nextval() > 0 AS writer_done;
});
ok(wait_for_stall($stall), 'the first session is stalled in the fsync of the mark');

is(sqlstate_of($stall, q{SET statement_timeout = '200ms'; SELECT snowflake_nextval()}), '57014',
	'a second session waiting for that write ends at its statement_timeout');

my $waiter = $stall->background_psql('postgres', on_error_stop => 0);
my $waiter_pid = $waiter->query_safe('SELECT pg_backend_pid()');
$waiter->query_until(qr/started/, q{\echo started
SELECT snowflake_nextval();
});
$stall->poll_query_until('postgres',
	qq{SELECT wait_event_type = 'Extension' FROM pg_stat_activity WHERE pid = $waiter_pid})
  or die 'the third session does not wait for the reservation';
pass('a third session waits for the reservation in an extension wait event, not an LWLock');
is($stall->safe_psql('postgres', "SELECT pg_cancel_backend($waiter_pid)"), 't', 'it is cancelled');
$stall->poll_query_until('postgres',
	qq{SELECT state = 'idle' FROM pg_stat_activity WHERE pid = $waiter_pid})
  or die 'the cancelled session is still waiting';
pass('and stops waiting at once');

set_failio($stall, 'stall_fsync', 0);
like($writer->query_safe('SELECT 1 AS after_stall'), qr/1/, 'the stalled writer finishes once the disk does');
is($stall->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't', 'and everyone generates again');
$writer->quit;
$waiter->quit;
$stall->stop;

# --- a standby whose state file cannot be written keeps replaying ------------------
my $primary = snowflake_node('primary', init => { allows_streaming => 1 }, conf => q{
snowflake.node_id = 6
snowflake.reserve_ahead = 100
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$primary->safe_psql('postgres', 'SELECT snowflake_nextval()');
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);

my $state_dir = $standby->data_dir . '/pg_snowflake';
chmod(0444, "$state_dir/state") or die "chmod: $!";
chmod(0555, $state_dir) or die "chmod: $!";
$primary->safe_psql('postgres', $force_write) for 1 .. 3;
my $primary_max = $primary->safe_psql('postgres', 'SELECT last_id FROM snowflake_status()');
$primary->wait_for_catchup($standby);
pass('the standby replays marks it cannot write');
like(status($standby, 'problem'), qr/^could not write the high-water mark: /,
	'and snowflake_status() on the standby says so');
my $log = slurp_file($standby->logfile);
is(scalar(() = $log =~ /WARNING:  could not (open|create) file "pg_snowflake/g), 1,
	'the failure is logged once, not at every record');

$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby was not promoted';
is(sqlstate_of($standby, 'SELECT snowflake_nextval()'), '58030',
	'after promotion, no ID is issued while the mark cannot be written');
chmod(0755, $state_dir) or die "chmod: $!";
chmod(0644, "$state_dir/state") or die "chmod: $!";
is($standby->safe_psql('postgres', "SELECT snowflake_nextval() > $primary_max"), 't',
	'once it can, IDs continue above every ID of the old primary');
$standby->stop;
$primary->stop;

done_testing();
