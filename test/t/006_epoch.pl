# The time bits of a layout run out: the log warns ahead of time, IDs stay
# positive and increasing to the very last millisecond, and after it every
# call fails with a clear error instead of wrapping around.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use POSIX qw(strftime);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;
use Time::HiRes qw(time);

# 16 node bits + 12 sequence bits leave 35 time bits: 2^35 ms, about 398 days
my $span_ms = 2**35;

sub epoch_ending_in
{
	my ($seconds) = @_;
	my $epoch_ms = int(time() * 1000) + $seconds * 1000 - $span_ms;
	return strftime('%Y-%m-%d %H:%M:%S', gmtime(int($epoch_ms / 1000)))
	  . sprintf('.%03d+00', $epoch_ms % 1000);
}

# --- a layout that ran out long ago -------------------------------------------------
my $old = snowflake_node('exhausted', conf => q{
snowflake.node_id = 1
snowflake.node_bits = 16
snowflake.sequence_bits = 12
snowflake.epoch = '2020-01-01 00:00:00+00'
});
$old->start;
$old->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($old->log_contains('WARNING:  snowflake time bits ran out at 2021-02-0'),
	'the log says when the time bits ran out');
my ($ret, $stdout, $stderr) = $old->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT snowflake_nextval()");
like($stderr, qr/ERROR:  2200H: snowflake timestamp range exhausted/,
	'generation fails with sequence_generator_limit_exceeded (2200H)');
like($stderr, qr/DETAIL:  The 35 time bits of the ID layout ran out at 2021-02-0/,
	'saying when the time ran out');
is($old->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	'the time bits of the layout are exhausted', 'snowflake_status() shows it');
$old->stop;

# --- a layout that runs out in a few seconds -----------------------------------------
my $node = snowflake_node('running_out', conf => q{
snowflake.node_id = 1
snowflake.node_bits = 16
snowflake.sequence_bits = 12
} . "snowflake.epoch = '" . epoch_ending_in(4) . "'\n");
$node->start;
ok($node->log_contains('WARNING:  snowflake time bits run out in 0 days'),
	'the log warns that the time bits run out soon');
$node->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (n bigserial, id snowflake DEFAULT snowflake_nextval());
	CREATE PROCEDURE fill() LANGUAGE plpgsql AS $$
	BEGIN
		LOOP
			INSERT INTO ids (id) SELECT snowflake_nextval() FROM generate_series(1, 50);
			COMMIT;
			PERFORM pg_sleep(0.01);
		END LOOP;
	END $$;
});

# a block of IDs that would reach past the last millisecond is refused as
# a whole, and leaves the time that is left to single IDs
($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT * FROM snowflake_reserve(4096 * 6000)');
like($stderr, qr/ERROR:  snowflake timestamp range exhausted/,
	'a block reaching past the end of the time bits is refused');
is($node->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't',
	'and single IDs still come while time is left');

# generate until the time runs out
($ret, $stdout, $stderr) = $node->psql('postgres', "\\set VERBOSITY verbose\nCALL fill()",
	timeout => 60);
like($stderr, qr/ERROR:  2200H: snowflake timestamp range exhausted/,
	'generation stops with the exhaustion error');
my $rows = $node->safe_psql('postgres', 'SELECT count(*) FROM ids');
cmp_ok($rows, '>', 100, "after $rows IDs");
is($node->safe_psql('postgres', q{
	SELECT bool_and(id > prev) AND bool_and(id::bigint > 0)
	  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) s
	 WHERE prev IS NOT NULL}),
	't', 'every ID up to the end is positive and larger than the one before');
is($node->safe_psql('postgres', q{
	SELECT snowflake_timestamp(max(id)) < time_runs_out_at
	   AND snowflake_timestamp(max(id)) > time_runs_out_at - interval '3 seconds'
	  FROM ids, snowflake_status() GROUP BY time_runs_out_at}),
	't', 'the last IDs carry the last milliseconds of the layout');
($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT snowflake_nextval()');
like($stderr, qr/snowflake timestamp range exhausted/, 'and later calls keep failing');
$node->stop;

done_testing();
