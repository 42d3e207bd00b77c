# The system clock misbehaves (libfaketime shifts the clock of every server
# process while it runs): a step back under load, each clock policy, and
# restarts with the clock behind the last ID.  No ID is ever issued twice,
# and snowflake_status() and the log say what happened.
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
use Time::HiRes qw(usleep);

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

sub set_and_reload
{
	my ($settings) = @_;
	$node->safe_psql('postgres', $settings);
	$node->reload;
	# new sessions see the reloaded values once the postmaster has them
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_settings WHERE name LIKE 'snowflake.%' AND pending_restart})
	  or die;
	usleep(300_000);
	return;
}

# --- the clock steps back 5 s under 8 clients ------------------------------------
my $pgbench = start_pgbench($node, 'insert',
	"INSERT INTO ids (client, n, round) VALUES (:client_id, nextval('per_client'), 1);",
	8, 6);
sleep 2;
my $offset = -s $node->logfile;
set_clock_offset($node, '-5');

like(finish_pgbench($pgbench), qr/number of failed transactions: 0 \(0\.000%\)/,
	'8 clients across a 5 s step back: no failed transaction');
my $rows = $node->safe_psql('postgres', 'SELECT count(*) FROM ids');
cmp_ok($rows, '>', 100, "($rows rows)");
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicate IDs');
is($node->safe_psql('postgres', q{
	SELECT bool_and(id > prev) FROM (
		SELECT id, lag(id) OVER (PARTITION BY client ORDER BY n) AS prev FROM ids) s
	 WHERE prev IS NOT NULL}),
	't', 'every client\'s IDs kept increasing');

$node->wait_for_log(qr/WARNING:  system clock stepped back by \d+ ms/, $offset);
pass('the worker logged the step back');
my ($steps, $largest, $max_lead, $errors) = split /\|/, $node->safe_psql('postgres',
	'SELECT clock_steps_back, largest_step_back_ms, max_clock_lead_ms, clock_errors FROM snowflake_status()');
is($steps, '1', 'snowflake_status() counts one step back');
ok($largest >= 4500 && $largest <= 5500, "of about 5 s ($largest ms)");
ok($max_lead >= 4000, "the generator ran ahead of the clock ($max_lead ms at most)");
is($errors, '0', 'without a clock error');

$offset = -s $node->logfile;
set_clock_offset($node, '+0');
$node->wait_for_log(qr/WARNING:  system clock jumped forward by \d+ ms/, $offset);
pass('the jump forward is logged too');
is($node->safe_psql('postgres', 'SELECT clock_jumps_forward FROM snowflake_status()'),
	'1', 'and counted');

# --- clock_policy = error: fail at once, saying how far behind ----------------------
set_and_reload("ALTER SYSTEM SET snowflake.clock_policy = 'error'");
$node->safe_psql('postgres', 'SELECT snowflake_nextval()');
set_clock_offset($node, '-3');
my $e = psql_error('SELECT snowflake_nextval()');
like($e, qr/ERROR:  58000: system clock is \d+ ms behind the snowflake generator/,
	'policy "error": a clock behind the last ID is an error (SQLSTATE 58000)');
like($e, qr/DETAIL:  With "snowflake.clock_policy" = "error", IDs are never generated ahead of the clock/,
	'whose detail names the policy');
like($e, qr/HINT:  Check this server's time synchronization/, 'and whose hint says what to do');
like($node->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/the system clock is \d+ ms behind the generator/, 'snowflake_status() shows the problem');
set_clock_offset($node, '+0');

# --- clock_policy = wait: wait for the clock, within clock_wait_timeout -------------
set_and_reload("ALTER SYSTEM SET snowflake.clock_policy = 'wait'; ALTER SYSTEM SET snowflake.clock_wait_timeout = '5s'");
my $waits = $node->safe_psql('postgres', 'SELECT snowflake_nextval() > 0; SELECT clock_waits FROM snowflake_status()');
$waits = (split /\n/, $waits)[1];
my $before = $node->safe_psql('postgres', 'SELECT max(id) FROM ids');
set_clock_offset($node, '-2');
is($node->safe_psql('postgres', "INSERT INTO ids (round) VALUES (2) RETURNING id > $before"),
	't', 'policy "wait": with the clock 2 s behind, the call waits and succeeds');
is($node->safe_psql('postgres', "SELECT clock_waits > $waits FROM snowflake_status()"),
	't', 'the wait is counted');
set_clock_offset($node, '+0');

# --- clock_policy = borrow, beyond max_borrow -------------------------------------
set_and_reload("ALTER SYSTEM SET snowflake.clock_policy = 'borrow'; ALTER SYSTEM SET snowflake.max_borrow = '1s'; ALTER SYSTEM SET snowflake.clock_wait_timeout = '500ms'");
$node->safe_psql('postgres', 'SELECT snowflake_nextval()');
set_clock_offset($node, '-5');
$e = psql_error('SELECT snowflake_nextval()');
like($e, qr/ERROR:  58000: system clock is \d+ ms behind the snowflake generator/,
	'policy "borrow": beyond snowflake.max_borrow and the wait, an error');
like($e, qr/The generator may run at most 1000 ms ahead of the clock \("snowflake.max_borrow"\), and waiting up to 500 ms/,
	'whose detail gives the bounds');
set_clock_offset($node, '+0');
set_and_reload('ALTER SYSTEM RESET ALL');
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
set_clock_offset($node, '-1h');
$offset = -s $node->logfile;
start_with_faketime($node, '-1h');
like(slurp_file($node->logfile, $offset),
	qr/WARNING:  snowflake: the system clock is \d+ ms behind the high-water mark/,
	'restart with the clock 1 h behind: the log warns');
$e = psql_error("INSERT INTO ids (round) VALUES (11)");
like($e, qr/ERROR:  58000: system clock is 3[56]\d{5} ms behind the snowflake generator/,
	'and generation is refused, saying the clock is an hour behind');
like($node->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/the system clock is 3[56]\d{5} ms behind the generator/, 'snowflake_status() agrees');
set_clock_offset($node, '+0');
is(round_above(12), 't', 'once the clock is back, IDs continue above the old ones');

# immediate shutdown, clock 2 s behind: continue above, ahead of the clock
$node->stop('immediate');
start_with_faketime($node, '-2');
is(round_above(13), 't', 'immediate shutdown and the clock 2 s behind: IDs continue above');
is($node->safe_psql('postgres', 'SELECT clock_lead_ms > 0 FROM snowflake_status()'),
	't', 'running ahead of the clock, as snowflake_status() shows');

# kill -9 of the postmaster, clock 2 s further behind
my $pid = $node->{_pid};
$node->kill9;
wait_for_exit($pid) or die 'postmaster did not exit';
start_with_faketime($node, '-4');
is(round_above(14), 't', 'kill -9 of the postmaster and the clock 4 s behind: IDs continue above');

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicate IDs in the whole test');
$node->stop;

done_testing();
