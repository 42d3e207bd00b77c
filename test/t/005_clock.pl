# The system clock steps back (libfaketime shifts the clock of every server
# process while it runs), under load and under each clock policy, and
# restarts find it behind the last ID.  No ID is ever issued twice, the
# policies do what the documentation says and no more, blocks of IDs are
# bounded as documented, and snowflake_status() and the log say what
# happened.  Every wait is for a state, never for a time.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

my $node = snowflake_node('clock', conf => q{
snowflake.node_id = 2
snowflake.clock_check_interval = '100ms'
max_connections = 40
restart_after_crash = on
});
start_with_faketime($node);
$node->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
	                  client int, n bigint, round int);
	CREATE SEQUENCE per_client;
});

sub psql_error
{
	my ($sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
	return $ret == 0 ? '' : $err;
}

# applies settings and waits until new sessions see them
sub set_and_reload
{
	my ($settings, $check) = @_;
	$node->safe_psql('postgres', $settings);
	$node->reload;
	$node->poll_query_until('postgres', $check) or die "settings not applied: $check";
	return;
}

# waits until the clock has caught up with the last ID
sub wait_for_clock_to_catch_up
{
	$node->poll_query_until('postgres',
		'SELECT clock_lead_ms = 0 FROM snowflake_status()')
	  or die 'the clock did not catch up';
	return;
}

# --- the clock steps back 5 s while 8 clients insert ---------------------------------
# The step comes while the first 1600 inserts run (maybe after them, on a
# fast machine); the next 1600 all run with the clock 5 s behind the IDs.
my $insert = q{INSERT INTO ids (client, n, round) VALUES (:client_id, nextval('per_client'), 1);};
my $pgbench = start_pgbench($node, 'insert', $insert, 8, 0, '--transactions=200');
$node->poll_query_until('postgres', 'SELECT count(*) >= 200 FROM ids')
  or die 'pgbench did not start inserting';
my $offset = -s $node->logfile;
set_clock_offset($node, '-5');
my $out = finish_pgbench($pgbench)
  . finish_pgbench(start_pgbench($node, 'insert', $insert, 8, 0, '--transactions=200'));
unlike($out, qr/number of failed transactions: [1-9]/,
	'8 clients across a 5 s step back: no failed transaction');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ids'), '3200', '(3200 rows)');
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicate IDs');
is($node->safe_psql('postgres', q{
	SELECT bool_and(id > prev) FROM (
		SELECT id, lag(id) OVER (PARTITION BY client ORDER BY n) AS prev FROM ids) s
	 WHERE prev IS NOT NULL}),
	't', 'every client\'s IDs kept increasing');

$node->wait_for_log(qr/WARNING:  system clock stepped back by \d+ ms/, $offset);
pass('the step back is logged');
my ($steps, $largest, $errors) = split /\|/, $node->safe_psql('postgres',
	'SELECT clock_steps_back, largest_step_back_ms, clock_errors FROM snowflake_status()');
is($steps, '1', 'snowflake_status() counts one step back');
ok($largest >= 4500 && $largest <= 5500, "of about 5 s ($largest ms)");
is($errors, '0', 'without a clock error');

$offset = -s $node->logfile;
set_clock_offset($node, '+0');
$node->wait_for_log(qr/WARNING:  system clock stepped forward by \d+ ms/, $offset);
pass('the step back to the right time is logged too');
$node->poll_query_until('postgres', 'SELECT clock_jumps_forward = 1 FROM snowflake_status()')
  or die 'the step forward was not counted';
pass('and counted');

# --- clock_policy = error fails only on a real step back -----------------------
set_and_reload("ALTER SYSTEM SET snowflake.clock_policy = 'error'",
	"SELECT current_setting('snowflake.clock_policy') = 'error'");
# more IDs than a millisecond holds, in one statement and from 8 clients:
# used-up milliseconds are waited for, never an error
is($node->safe_psql('postgres', 'SELECT count(snowflake_nextval()) FROM generate_series(1, 100000)'),
	'100000', 'policy "error": 100,000 IDs in one statement, used-up milliseconds are no error');
like(finish_pgbench(start_pgbench($node, 'select', 'SELECT snowflake_nextval();', 8, 0, '--transactions=20000')),
	qr/processed: 160000\/160000/,
	'8 clients, 160,000 calls: no error without a step of the clock');
is($node->safe_psql('postgres', 'SELECT clock_errors FROM snowflake_status()'), '0',
	'no clock error counted');
$node->safe_psql('postgres', 'SELECT snowflake_nextval()');
# (steps here are far larger than their bounds, so that no slow call can
# see the clock caught up again)
set_clock_offset($node, '-60');
my $e = psql_error('SELECT snowflake_nextval()');
like($e, qr/ERROR:  58000: snowflake generator is \d+ ms ahead of the system clock/,
	'a clock a minute behind the last ID is an error at once (SQLSTATE 58000)');
like($e, qr/DETAIL:  With "snowflake.clock_policy" = "error", a call fails at once when the last ID is more than 100 ms ahead of the clock\./,
	'whose detail names the policy and the bound (snowflake.clock_step_threshold)');
like($e, qr/HINT:  Check this server's time synchronization/, 'and whose hint says what to do');
like($node->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/the generator is \d+ ms ahead of the system clock/, 'snowflake_status() shows the problem');
set_clock_offset($node, '+0');
wait_for_clock_to_catch_up();

# --- clock_policy = wait: wait for the clock, within clock_wait_timeout -------------
set_and_reload("ALTER SYSTEM SET snowflake.clock_policy = 'wait'; ALTER SYSTEM SET snowflake.clock_wait_timeout = '30s'",
	"SELECT current_setting('snowflake.clock_wait_timeout') = '30s'");
my $waits = $node->safe_psql('postgres', 'SELECT clock_waits FROM snowflake_status()');
my $before = $node->safe_psql('postgres', 'SELECT snowflake_nextval()');
set_clock_offset($node, '-10');
is($node->safe_psql('postgres', "INSERT INTO ids (round) VALUES (2) RETURNING id > $before"),
	't', 'policy "wait": with the clock 10 s behind, the call waits and succeeds');
is($node->safe_psql('postgres', "SELECT clock_waits > $waits FROM snowflake_status()"),
	't', 'the wait is counted');
set_clock_offset($node, '+0');
wait_for_clock_to_catch_up();

# --- clock_policy = borrow, beyond max_borrow -------------------------------------
set_and_reload("ALTER SYSTEM SET snowflake.clock_policy = 'borrow'; ALTER SYSTEM SET snowflake.max_borrow = '1s'; ALTER SYSTEM SET snowflake.clock_wait_timeout = '500ms'",
	"SELECT current_setting('snowflake.max_borrow') = '1s'");
$node->safe_psql('postgres', 'SELECT snowflake_nextval()');
set_clock_offset($node, '-60');
$e = psql_error('SELECT snowflake_nextval()');
like($e, qr/ERROR:  58000: snowflake generator is \d+ ms ahead of the system clock/,
	'policy "borrow": beyond snowflake.max_borrow and the wait, an error');
like($e, qr/IDs may run at most 1000 ms ahead of the clock \("snowflake.max_borrow"\), and waiting up to 500 ms/,
	'whose detail gives the bounds');
set_clock_offset($node, '+0');
wait_for_clock_to_catch_up();

# --- blocks of IDs: each policy's bound holds exactly -----------------------------
# A block may take the sequence numbers of as many milliseconds as the
# policy lets IDs run ahead of the clock, waits included (4096 IDs each).
# One ID more is refused outright; the bound itself is granted (the call
# waits until the clock is close enough), from a generator at the clock.
my @bounds = (
	[ 'borrow', 'max_borrow = 1s, clock_wait_timeout = 500ms', 1500 ],
	[ 'wait',   'clock_wait_timeout = 500ms',                  500 ],
	[ 'error',  'clock_step_threshold = 100ms',                100 ],);
for my $b (@bounds)
{
	my ($policy, $what, $ms) = @$b;
	my $ids = 4096 * $ms;
	set_and_reload("ALTER SYSTEM SET snowflake.clock_policy = '$policy'",
		"SELECT current_setting('snowflake.clock_policy') = '$policy'");
	wait_for_clock_to_catch_up();
	is($node->safe_psql('postgres', "SELECT ids FROM snowflake_reserve($ids)"), $ids,
		"policy \"$policy\" ($what): a block of $ids IDs is granted");
	wait_for_clock_to_catch_up();
	$e = psql_error('SELECT snowflake_reserve(' . ($ids + 1) . ')');
	like($e, qr/ERROR:  54000: cannot reserve ${\ ($ids + 1)} snowflake IDs at once/,
		'one ID more is refused');
	like($e, qr/a block may take the sequence numbers of $ms ms \($ids IDs\)/,
		'saying what the bound is');
}
set_and_reload('ALTER SYSTEM RESET ALL', "SELECT current_setting('snowflake.clock_policy') = 'borrow'");
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'still no duplicate IDs');

# --- restarts with the clock behind the last ID ------------------------------------
sub round_above
{
	my ($round) = @_;
	$node->safe_psql('postgres', "INSERT INTO ids (round) SELECT $round FROM generate_series(1, 1000)");
	return $node->safe_psql('postgres',
		"SELECT (SELECT min(id) FROM ids WHERE round = $round) > (SELECT max(id) FROM ids WHERE round < $round)");
}

is(round_above(10), 't', 'generating before the restarts');

# clean restart with the clock an hour behind: refuse, do not repeat
$node->stop;
$offset = -s $node->logfile;
start_with_faketime($node, '-1h');
like(slurp_file($node->logfile, $offset),
	qr/WARNING:  system clock is \d+ ms behind the snowflake high-water mark/,
	'restart with the clock 1 h behind: the log warns');
$e = psql_error("INSERT INTO ids (round) VALUES (11)");
like($e, qr/ERROR:  58000: snowflake generator is 3[56]\d{5} ms ahead of the system clock/,
	'and generation is refused, saying the clock is an hour behind');
like($node->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/the generator is 3[56]\d{5} ms ahead of the system clock/, 'snowflake_status() agrees');
# The correction lands further past the high-water mark than
# snowflake.max_clock_jump allows (by the time the server was down; a
# limit of 1 ms makes that certain here), so it is held as a forward jump.
# Generation must resume at once all the same, at the mark's time, not
# after snowflake.clock_jump_hold.
$node->append_conf('postgresql.conf', "snowflake.max_clock_jump = '1ms'\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('snowflake.max_clock_jump') = '1ms'")
  or die 'snowflake.max_clock_jump was not reloaded';
$offset = -s $node->logfile;
set_clock_offset($node, '+0');
is(round_above(12), 't', 'once the clock is back, IDs continue above the old ones, at once');
like(slurp_file($node->logfile, $offset), qr/WARNING:  system clock jumped forward by 3\d{6} ms/,
	'although the correction is held as a forward jump');
$node->append_conf('postgresql.conf', "snowflake.max_clock_jump = '1s'\n");
$node->reload;

# The clock steps back an hour while the server runs, then a clean restart:
# the mark lowered at exit was written by the stepped-back clock, but the
# lead it leaves is no restart lead (at most snowflake.reserve_ahead):
# refused at once, as before the restart, never waited out.
set_clock_offset($node, '-1h');
like(psql_error("INSERT INTO ids (round) VALUES (11)"),
	qr/ERROR:  58000: snowflake generator is 3[56]\d{5} ms ahead of the system clock/,
	'the clock an hour behind while running: refused');
$node->stop;
$offset = -s $node->logfile;
start_with_faketime($node, '-1h');
like(slurp_file($node->logfile, $offset),
	qr/WARNING:  system clock is \d+ ms behind the snowflake high-water mark/,
	'a clean restart after the step: the log warns');
like(psql_error("SET statement_timeout = '60s'; INSERT INTO ids (round) VALUES (11)"),
	qr/ERROR:  58000: snowflake generator is 3[56]\d{5} ms ahead of the system clock/,
	'and generation is refused at once, not waited out until the clock catches up');
set_clock_offset($node, '+0');
is(round_above(12), 't', 'the clock back: IDs continue above the old ones');

# The other order: an immediate shutdown (the reservation, ahead of the
# clock, stays the mark, and its lead is excused after the restart), the
# clock past that reservation, and only then, with no ID in between, a
# step back of 10 minutes.  The excuse covers only the lead a restart
# leaves (reserve_ahead), not a step that comes after it.
$node->stop('immediate');
start_with_faketime($node, '+0');
$node->poll_query_until('postgres',
	q{SELECT clock_timestamp() > hwm_time + interval '100 ms' FROM snowflake_status()})
  or die 'the clock did not pass the reservation';
set_clock_offset($node, '-600');
# (the lead is the 10 minutes less the time the clock ran past the
# reservation before the step: seconds on a loaded machine)
like(psql_error("SET statement_timeout = '60s'; INSERT INTO ids (round) VALUES (12)"),
	qr/ERROR:  58000: snowflake generator is (5[0-9]|60)\d{4} ms ahead of the system clock/,
	'a step back of 10 minutes after a restart is refused at once, not waited out');
set_clock_offset($node, '+0');

# Crashes with the clock minutes behind, within a max_borrow of an hour:
# generation goes on above the old IDs, ahead of the clock.  Minutes, so
# that neither the clock's advance can rescue the check nor a slow restart
# use up the lead before the status is read.
$node->append_conf('postgresql.conf', "snowflake.max_borrow = '1h'\n");

# immediate shutdown, clock 5 min behind: continue above, ahead of the clock
$node->stop('immediate');
start_with_faketime($node, '-300');
is(round_above(13), 't', 'immediate shutdown and the clock 5 min behind: IDs continue above');
is($node->safe_psql('postgres', 'SELECT clock_lead_ms > 0 FROM snowflake_status()'),
	't', 'running ahead of the clock, as snowflake_status() shows');

# kill -9 of the postmaster, clock 5 min further behind
my $pid = $node->{_pid};
$node->kill9;
wait_for_exit($pid) or die 'postmaster did not exit';
start_with_faketime($node, '-600');
is(round_above(14), 't', 'kill -9 of the postmaster and the clock 10 min behind: IDs continue above');

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicate IDs in the whole test');
$node->stop;

done_testing();
