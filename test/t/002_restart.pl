# IDs keep increasing across a clean restart, an immediate shutdown, a
# kill -9 of the postmaster and a crash restart of all backends.  Before
# each, the system clock of the server is set back ten more minutes
# (libfaketime), so that the clock cannot carry the next IDs above the last
# ones: only the durable high-water mark in $PGDATA/pg_snowflake can.
# Then crashes in a row, and a corrupt or unwritable high-water mark.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

# IDs will run up to 40 minutes ahead of the faked clock: allow it
my $node = snowflake_node('restart', conf => q{
snowflake.node_id = 9
snowflake.max_borrow = '1h'
restart_after_crash = on
});
start_with_faketime($node);
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$node->safe_psql('postgres',
	'CREATE TABLE ids (round int, id snowflake PRIMARY KEY DEFAULT snowflake_nextval())');

my $state_file = $node->data_dir . '/pg_snowflake/state';

# generate a batch in round $round; return true if every ID of it is larger
# than every ID of the rounds before
sub round_is_above_previous
{
	my ($node, $round) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO ids (round) SELECT $round FROM generate_series(1, 5000)");
	return $node->safe_psql('postgres',
		"SELECT (SELECT min(id) FROM ids WHERE round = $round) >
		        coalesce((SELECT max(id) FROM ids WHERE round < $round), '0')");
}

# moves the server's clock ten more minutes back, and checks that the
# last ID is then ahead of it: the next IDs cannot come from the clock
my $minutes_back = 0;
sub clock_back
{
	$minutes_back += 10;
	set_clock_offset($node, "-${minutes_back}m");
	return $node->safe_psql('postgres',
		"SELECT snowflake_timestamp(max(id)) > clock_timestamp() + interval '9 minutes' FROM ids");
}

is(round_is_above_previous($node, 1), 't', 'first round');
ok(-f $state_file, 'the high-water mark is in $PGDATA/pg_snowflake/state');
is($node->safe_psql('postgres',
		'SELECT hwm_id >= (SELECT max(id) FROM ids) FROM snowflake_status()'),
	't', 'and it covers every ID issued');

is(clock_back(), 't', 'clock set 10 minutes back');
$node->stop;
start_with_faketime($node, "-${minutes_back}m");
is(round_is_above_previous($node, 2), 't', 'IDs increase across a clean restart');
ok($node->log_contains('IDs resume above high-water mark'), 'the log says where IDs resume');

is(clock_back(), 't', 'clock set 20 minutes back');
$node->stop('immediate');
start_with_faketime($node, "-${minutes_back}m");
is(round_is_above_previous($node, 3), 't', 'IDs increase across an immediate shutdown');

is(clock_back(), 't', 'clock set 30 minutes back');
my $pid = $node->{_pid};
$node->kill9;
ok(wait_for_exit($pid), 'postmaster killed');
start_with_faketime($node, "-${minutes_back}m");
is(round_is_above_previous($node, 4), 't', 'IDs increase across kill -9 of the postmaster');

# a backend crash makes the postmaster reinitialize shared memory; the
# postmaster keeps its libfaketime, so the clock stays back
is(clock_back(), 't', 'clock set 40 minutes back');
my $psql = $node->background_psql('postgres');
my $backend = $psql->query_safe('SELECT pg_backend_pid()');
my $log_offset = -s $node->logfile;
kill 'KILL', $backend;
wait_for_crash_restart($node, $log_offset);
$node->poll_query_until('postgres', 'SELECT count(*) > 0 FROM ids')
  or die 'server did not come back after the backend crash';
eval { $psql->quit };
is(round_is_above_previous($node, 5), 't', 'IDs increase across a crash restart of all backends');

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicates over all rounds');
$node->stop;

# --- crashes in a row ------------------------------------------------------------------
# After a crash, IDs resume at the reservation, ahead of the clock.  A
# reservation reaches snowflake.reserve_ahead (2 s) past the clock, and
# only 250 ms past IDs that run further ahead than that.  So after eight
# crashes right after an ID, IDs run at most 2 s + 8 x 250 ms = 4 s ahead
# of the clock, however fast or slow the restarts are.
my $crashy = snowflake_node('crashes', conf => "snowflake.node_id = 10\n");
$crashy->start;
$crashy->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $max_lead = 0;
for my $crash (1 .. 8)
{
	$crashy->safe_psql('postgres', 'SELECT snowflake_nextval()');
	$crashy->stop('immediate');
	$crashy->start;
	my $lead = $crashy->safe_psql('postgres',
		q{SELECT (extract(epoch FROM snowflake_timestamp(snowflake_nextval()) - clock_timestamp()) * 1000)::int});
	$max_lead = $lead if $lead > $max_lead;
}
note("largest lead over the clock after a crash: $max_lead ms");
cmp_ok($max_lead, '<=', 4000,
	'eight crashes in a row leave IDs at most reserve_ahead + 8 x 250 ms ahead');

# --- a corrupt state file stops generation, it does not restart from the clock -------
my $hwm = $crashy->safe_psql('postgres', 'SELECT hwm_id FROM snowflake_status()');
$crashy->stop;
my $crashy_state = $crashy->data_dir . '/pg_snowflake/state';
open(my $fh, '+<', $crashy_state) or die "open $crashy_state: $!";
binmode $fh;
seek($fh, 12, 0);
print $fh "\xff\xff";
close $fh;
$crashy->start;
my ($ret, $stdout, $stderr) = $crashy->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'a corrupt high-water mark refuses generation');
like($stderr, qr/snowflake ID generation is disabled: file "pg_snowflake\/state" is corrupt/,
	'with an error naming the file');
like($stderr, qr/HINT:  Make sure the system clock is past every ID this server issued/,
	'and a hint saying what to do');
like($crashy->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/is corrupt/, 'snowflake_status() reports it');
ok($crashy->log_contains('WARNING:  snowflake ID generation is disabled'), 'the log warns at start');

# a longer file is no state file either
$crashy->stop;
open($fh, '>>', $crashy_state) or die "open $crashy_state: $!";
print $fh "x";
close $fh;
$crashy->start;
($ret, $stdout, $stderr) = $crashy->psql('postgres', 'SELECT snowflake_nextval()');
like($stderr, qr/file "pg_snowflake\/state" is corrupt/, 'a state file with a byte too many is corrupt');

# the documented way out: remove the file once the clock is past every ID
$crashy->poll_query_until('postgres',
	"SELECT snowflake_timestamp('$hwm'::snowflake) < clock_timestamp()")
  or die 'clock did not pass the high-water mark';
$crashy->stop;
unlink $crashy_state or die "unlink: $!";
$crashy->start;
is($crashy->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't',
	'after removing the file, generation resumes');

# a mark that cannot be written: calls that need one fail, and
# snowflake_status() says why, until it can be written again
chmod 0400, $crashy_state or die "chmod: $!";
($ret, $stdout, $stderr) = $crashy->psql('postgres', 'SELECT snowflake_reserve(4096 * 3000)');
like($stderr, qr/ERROR:  could not open file "pg_snowflake\/state": Permission denied/,
	'an unwritable state file: the call fails with the file\'s error');
like($crashy->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/^could not write the high-water mark: could not open file "pg_snowflake\/state": Permission denied$/,
	'and snowflake_status() reports it');
chmod 0600, $crashy_state or die "chmod: $!";
is($crashy->safe_psql('postgres',
		'SELECT snowflake_reserve(4096 * 3000) IS NOT NULL; SELECT problem IS NULL FROM snowflake_status()'),
	"t\nt", 'once it can be written, generation and snowflake_status() are well again');
$crashy->stop;
done_testing();
