# IDs keep increasing across a clean restart, an immediate shutdown, a
# kill -9 of the postmaster and a crash restart of all backends, and the
# high-water mark file is where the documentation says.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $node = snowflake_node('restart', conf => "snowflake.node_id = 9\nrestart_after_crash = on\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$node->safe_psql('postgres',
	'CREATE TABLE ids (round int, id snowflake PRIMARY KEY DEFAULT snowflake_nextval())');

my $state_file = $node->data_dir . '/pg_snowflake/state';

# generate a batch in round $round; return true if every ID of it is larger
# than every ID of the rounds before
sub round_is_above_previous
{
	my ($round) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO ids (round) SELECT $round FROM generate_series(1, 5000)");
	return $node->safe_psql('postgres',
		"SELECT (SELECT min(id) FROM ids WHERE round = $round) >
		        coalesce((SELECT max(id) FROM ids WHERE round < $round), '0')");
}

is(round_is_above_previous(1), 't', 'first round');
ok(-f $state_file, 'the high-water mark is in $PGDATA/pg_snowflake/state');
is($node->safe_psql('postgres',
		'SELECT hwm_id >= (SELECT max(id) FROM ids) FROM snowflake_status()'),
	't', 'and it covers every ID issued');

$node->restart;
is(round_is_above_previous(2), 't', 'IDs increase across a clean restart');
ok($node->log_contains('snowflake: IDs resume above high-water mark'),
	'the log says where IDs resume');

$node->stop('immediate');
$node->start;
is(round_is_above_previous(3), 't', 'IDs increase across an immediate shutdown');

my $pid = $node->{_pid};
$node->kill9;
ok(wait_for_exit($pid), 'postmaster killed');
$node->start;
is(round_is_above_previous(4), 't', 'IDs increase across kill -9 of the postmaster');

# a backend crash makes the postmaster reinitialize shared memory
my $psql = $node->background_psql('postgres');
my $backend = $psql->query_safe('SELECT pg_backend_pid()');
kill 'KILL', $backend;
$node->poll_query_until('postgres', 'SELECT count(*) > 0 FROM ids')
  or die 'server did not come back after the backend crash';
eval { $psql->quit };
is(round_is_above_previous(5), 't', 'IDs increase across a crash restart of all backends');

# crashes in a row: after each one, IDs resume at the reservation, ahead of
# the clock; they must not be pushed further ahead with every crash.  With
# snowflake.reserve_ahead = 2 s the reservation stays within about 3 s of
# the clock (1.5 x reserve_ahead), however many crashes
my $max_lead = 0;
for my $crash (1 .. 8)
{
	$node->stop('immediate');
	$node->start;
	$node->safe_psql('postgres', "INSERT INTO ids (round) VALUES (100 + $crash)");
	my $lead = $node->safe_psql('postgres', 'SELECT clock_lead_ms FROM snowflake_status()');
	$max_lead = $lead if $lead > $max_lead;
}
note("largest clock lead after a crash: $max_lead ms");
cmp_ok($max_lead, '<', 3500, 'eight crashes in a row leave IDs at most about 1.5 x reserve_ahead ahead');

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicates over all rounds');

# a corrupt state file stops generation, it does not restart from the clock
$node->stop;
open(my $fh, '+<', $state_file) or die "open $state_file: $!";
binmode $fh;
seek($fh, 12, 0);
print $fh "\xff\xff";
close $fh;
$node->start;
my ($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'a corrupt high-water mark refuses generation');
like($stderr, qr/snowflake ID generation is disabled: file "pg_snowflake\/state" is corrupt/,
	'with an error naming the file');
like($stderr, qr/HINT:  Make sure the system clock is past every ID this server issued/,
	'and a hint saying what to do');
like($node->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/is corrupt/, 'snowflake_status() reports it');
ok($node->log_contains('WARNING:  snowflake ID generation is disabled'), 'the log warns at start');

# the documented way out: remove the file once the clock is past every ID
# (after the crash above, IDs may run up to snowflake.reserve_ahead ahead)
$node->poll_query_until('postgres',
	'SELECT snowflake_timestamp(max(id)) < clock_timestamp() FROM ids')
  or die 'clock did not pass the IDs';
$node->stop;
unlink $state_file or die "unlink: $!";
$node->start;
is(round_is_above_previous(6), 't', 'after removing the file, generation resumes');

$node->stop;
done_testing();
