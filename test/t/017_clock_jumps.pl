# The system clock jumps forward (libfaketime): a short excursion, with or
# without IDs issued during it, moves neither the IDs nor the high-water
# mark, on the primary or on a standby; a jump that lasts is followed after
# snowflake.clock_jump_hold; IDs really issued far ahead have a way out.
# And a clock that reads before the epoch: the server starts, decodes, and
# refuses only to generate, preloaded or not.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

my $primary = snowflake_node('primary', init => { allows_streaming => 1 }, conf => q{
snowflake.node_id = 4
snowflake.clock_check_interval = '100ms'
restart_after_crash = on
});
start_with_faketime($primary);
$primary->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), what text);
	INSERT INTO ids (what) VALUES ('before');
});
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
start_with_faketime($standby);

sub status
{
	my ($node, $columns) = @_;
	return $node->safe_psql('postgres', "SELECT $columns FROM snowflake_status()");
}

# Moves the clock forward and waits until the worker (it checks every
# 100 ms) has seen the excursion: snowflake_status() reports a held jump at
# once, the log only once a process has seen it.
sub jump_and_wait_until_held
{
	my ($node, $offset) = @_;
	my $log_offset = -s $node->logfile;
	set_clock_offset($node, $offset);
	$node->wait_for_log(qr/system clock jumped forward by/, $log_offset);
	return;
}

# IDs and the high-water mark are near the real time: within a minute
my $near_now = q{SELECT snowflake_timestamp(max(id)) < now() + interval '1 minute'
                   AND snowflake_timestamp(hwm_id) < now() + interval '1 minute'
                   FROM ids, snowflake_status() GROUP BY hwm_id};

# --- a 1-day excursion, no ID issued during it -------------------------------------
# An ID just before, so that the worker's next check sees IDs issued.
$primary->safe_psql('postgres', "INSERT INTO ids (what) VALUES ('just before')");
jump_and_wait_until_held($primary, '+1d');
my $ignored = status($primary, 'clock_jumps_ignored');
set_clock_offset($primary, '+0');
$primary->poll_query_until('postgres',
	"SELECT clock_jumps_ignored > $ignored AND clock_held_ms = 0 FROM snowflake_status()")
  or die 'the return was not seen';
is($primary->safe_psql('postgres', $near_now), 't',
	'a 1-day excursion with no ID issued: the high-water mark did not move');
ok($primary->log_contains('system clock jumped forward by 86[34]\d{5} ms'), 'the jump is logged');
ok($primary->log_contains('system clock came back after a forward jump; no snowflake ID used the jump'),
	'and so is its end');

my $pid = $primary->{_pid};
$primary->kill9;
wait_for_exit($pid) or die 'postmaster did not exit';
start_with_faketime($primary);
is($primary->safe_psql('postgres', "INSERT INTO ids (what) VALUES ('after kill -9') RETURNING snowflake_timestamp(id) < now() + interval '1 minute'"),
	't', 'after kill -9, generation goes on at the real time');

# --- a 1-hour excursion with IDs issued during it ------------------------------------
jump_and_wait_until_held($primary, '+1h');
is($primary->safe_psql('postgres', q{
	INSERT INTO ids (what) SELECT 'during' FROM generate_series(1, 1000);
	SELECT bool_and(snowflake_timestamp(id) < now() + interval '1 minute') FROM ids WHERE what = 'during'}),
	't', 'IDs issued during a 1-hour excursion carry the time before it');
# An ID made by a server whose clock reads like this one's does now is an
# hour ahead of the time this server trusts: observing it must be measured
# against that time (model: observe-bound-trusted), or the generator would
# follow the held jump (1.6 measured the system clock as it read).
my ($oret, $oout, $oerr) = $primary->psql('postgres',
	q{SELECT snowflake_observe(snowflake_from_parts(clock_timestamp(), 3, 0)::bigint)});
like($oerr, qr/ERROR:  snowflake ID \d+ is 3[56]\d{5} ms ahead of this server's clock/,
	'an ID of the held jump\'s time is not observed: it is measured against the trusted clock');
is($primary->safe_psql('postgres', q{
	INSERT INTO ids (what) VALUES ('after observing') RETURNING snowflake_timestamp(id) < now() + interval '1 minute'}),
	't', 'and the next ID still carries the trusted time');
$ignored = status($primary, 'clock_jumps_ignored');
set_clock_offset($primary, '+0');
$primary->poll_query_until('postgres',
	"SELECT clock_jumps_ignored > $ignored FROM snowflake_status()")
  or die 'the return was not seen';
is($primary->safe_psql('postgres', $near_now), 't', 'and the high-water mark stayed near the real time');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres',
		q{SELECT snowflake_timestamp(hwm_id) < now() + interval '1 minute' FROM snowflake_status()}),
	't', 'so did the standby\'s, through WAL');

$pid = $primary->{_pid};
$primary->kill9;
wait_for_exit($pid) or die 'postmaster did not exit';
start_with_faketime($primary);
is($primary->safe_psql('postgres', "INSERT INTO ids (what) VALUES ('after') RETURNING true"),
	't', 'after kill -9 it generates at once');
is($primary->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicates');

# a clean switchover: the standby takes over and generates at once
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
$primary->stop;
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'promotion did not finish';
is($standby->safe_psql('postgres', "INSERT INTO ids (what) VALUES ('new primary') RETURNING true"),
	't', 'the promoted standby generates at once');
is($standby->safe_psql('postgres',
		"SELECT min(id) FILTER (WHERE what = 'new primary') > max(id) FILTER (WHERE what <> 'new primary') FROM ids"),
	't', 'above every ID of the old primary');
$standby->stop;

# --- a jump that lasts is followed after snowflake.clock_jump_hold -----------------------
start_with_faketime($primary);
$primary->safe_psql('postgres', "ALTER SYSTEM SET snowflake.clock_jump_hold = '2s'");
$primary->reload;
$primary->poll_query_until('postgres', "SELECT current_setting('snowflake.clock_jump_hold') = '2s'")
  or die;
my $jumps = status($primary, 'clock_jumps_forward');
set_clock_offset($primary, '+1h');
$primary->poll_query_until('postgres',
	"SELECT clock_jumps_forward > $jumps AND clock_held_ms = 0 FROM snowflake_status()")
  or die 'the jump was not accepted';
ok($primary->log_contains('system clock stayed 3[56]\d{5} ms ahead for 2 s: snowflake IDs follow it from now on'),
	'a jump that lasts 2 s (snowflake.clock_jump_hold) is accepted, and the log says so');
is($primary->safe_psql('postgres',
		"INSERT INTO ids (what) VALUES ('jumped') RETURNING snowflake_timestamp(id) > clock_timestamp() - interval '1 minute'"),
	't', 'IDs then carry the new time');

# --- IDs issued far ahead of a clock that comes back: the way out ------------------------
set_clock_offset($primary, '+0');
$primary->poll_query_until('postgres', 'SELECT clock_steps_back > 0 FROM snowflake_status()')
  or die 'the step back was not seen';
my ($ret, $out, $err) = $primary->psql('postgres', "INSERT INTO ids (what) VALUES ('refused')");
like($err, qr/snowflake generator is 3[56]\d{5} ms ahead of the system clock/,
	'IDs an hour ahead of the clock: generation is refused');
$primary->safe_psql('postgres', "ALTER SYSTEM SET snowflake.max_borrow = '2h'");
$primary->reload;
$primary->poll_query_until('postgres', "SELECT current_setting('snowflake.max_borrow') = '2h'")
  or die;
is($primary->safe_psql('postgres', "INSERT INTO ids (what) VALUES ('way out') RETURNING id > (SELECT max(id) FROM ids WHERE what = 'jumped')"),
	't', 'the documented way out, snowflake.max_borrow above the lead, lets it go on above the old IDs');
is($primary->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicates in the whole test');
$primary->stop;

# --- a clock before the epoch ----------------------------------------------------------
# 700 days before now is before the default epoch (2025-01-01)
my $early = snowflake_node('early', conf => "snowflake.node_id = 1\n");
start_with_faketime($early, '-700d');
$early->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is($early->safe_psql('postgres',
		"SELECT snowflake_timestamp(snowflake_from_parts('2026-01-01+00', 1, 0)) = '2026-01-01+00'"),
	't', 'preloaded, with the clock before the default epoch: the server starts and decodes');
($ret, $out, $err) = $early->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  system clock is before the snowflake epoch/, 'generation is refused');
is($early->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	'the system clock is before the epoch', 'and snowflake_status() says why');
$early->stop;

# not preloaded, a configured epoch the clock has not reached: decoding uses it
my $plain = PostgreSQL::Test::Cluster->new('early_not_preloaded');
$plain->init;
$plain->append_conf('postgresql.conf', "snowflake.epoch = '2025-06-01 00:00:00+00'\n");
for my $back ('-700d', '-400d')
{
	start_with_faketime($plain, $back);
	$plain->safe_psql('postgres', 'CREATE EXTENSION IF NOT EXISTS snowflake');
	is($plain->safe_psql('postgres', "SELECT snowflake_timestamp('0'::snowflake) = '2025-06-01+00'"),
		't', "not preloaded, the clock $back: decoding uses the configured epoch");
	$plain->stop;
}

# --- monitoring has no side effects ----------------------------------------------------
# Without the clock watcher, nothing but snowflake_status() looks at the
# clock here: it must report the jump without recording or logging it, and
# send the monitoring client no warning.
my $quiet = snowflake_node('quiet', conf => q{
snowflake.node_id = 9
snowflake.clock_check_interval = 0
});
start_with_faketime($quiet);
$quiet->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$quiet->safe_psql('postgres', 'SELECT snowflake_nextval()');
set_clock_offset($quiet, '+1h');
my ($qret, $qout, $qerr) = $quiet->psql('postgres',
	'SELECT clock_held_ms > 3500000, clock_jumps_forward FROM snowflake_status(); ' x 3);
is($qerr, '', 'snowflake_status() sends the monitoring client no warning');
is($qout, "t|0\nt|0\nt|0", 'it reports the jump as held, as the next ID will find it, and records nothing');
ok(!$quiet->log_contains('jumped forward'), 'and logs nothing');
($qret, $qout, $qerr) = $quiet->psql('postgres', 'SELECT snowflake_nextval() > 0');
like($qerr, qr/system clock jumped forward/, 'the next ID is what sees the jump, and warns');
$quiet->stop;

done_testing();
