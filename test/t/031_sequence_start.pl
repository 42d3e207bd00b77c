# snowflake.sequence_random_start: at a low rate (about one ID per
# millisecond) the sequence numbers, and so id % 16, are spread evenly
# with the option and all 0 without it; IDs stay strictly increasing
# either way, at a low rate and at full speed.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;
use Time::HiRes qw(usleep);

my $node = snowflake_node('seqstart', conf => "snowflake.node_id = 3\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	-- one ID per call, a millisecond's sleep after each: IDs of a low rate
	CREATE FUNCTION slow_ids(n int) RETURNS TABLE (k int, id bigint)
	LANGUAGE plpgsql AS $$
	BEGIN
		FOR i IN 1 .. n LOOP
			k := i;
			id := snowflake_nextval();
			RETURN NEXT;
			PERFORM pg_sleep(0.001);
		END LOOP;
	END $$;
	CREATE TABLE runs (run text, k int, id bigint);
});

# chi-square statistic of id % 16 over a run (15 degrees of freedom; above
# 52 has a probability below one in a million for an even spread)
sub chi_square
{
	my ($run) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT round(sum((c - e) ^ 2 / e)::numeric, 1)
		  FROM (SELECT count(r.id) AS c, (SELECT count(*) FROM runs WHERE run = '$run') / 16.0 AS e
		          FROM generate_series(0, 15) g
		          LEFT JOIN runs r ON r.run = '$run' AND r.id % 16 = g
		         GROUP BY g) s});
}

sub increasing
{
	my ($run) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT bool_and(id > prev) FROM
		  (SELECT id, lag(id) OVER (ORDER BY k) AS prev FROM runs WHERE run = '$run') s
		 WHERE prev IS NOT NULL});
}

$node->safe_psql('postgres', q{INSERT INTO runs SELECT 'plain', * FROM slow_ids(4000)});
cmp_ok(chi_square('plain'), '>', 1000, 'without the option, id % 16 is far from even at a low rate');
is($node->safe_psql('postgres',
		q{SELECT count(*) FILTER (WHERE snowflake_seq(id) = 0) * 2 > count(*) FROM runs WHERE run = 'plain'}),
	't', 'most IDs are the first of their millisecond, sequence 0');

# a session that generated before the reload (its fast path has a plan)
# follows the new setting as well
my $held = $node->background_psql('postgres');
$held->query_safe('SELECT snowflake_nextval()');

$node->safe_psql('postgres', 'ALTER SYSTEM SET snowflake.sequence_random_start = 1024');
$node->reload;
$node->poll_query_until('postgres', q{SELECT current_setting('snowflake.sequence_random_start') = '1024'})
  or die 'the setting was not reloaded';
my $seen = '';
for (1 .. 600)
{
	$seen = $held->query_safe(q{SELECT current_setting('snowflake.sequence_random_start')});
	last if $seen eq '1024';
	usleep(100_000);
}
is($seen, '1024', 'a session that generated before the reload sees the new setting');
$held->query_safe(q{INSERT INTO runs SELECT 'held', * FROM slow_ids(400)});
$held->quit;
is($node->safe_psql('postgres',
		q{SELECT count(*) FILTER (WHERE snowflake_seq(id) <> 0) > 300 FROM runs WHERE run = 'held'}),
	't', 'and its IDs start their milliseconds at random sequence numbers');
$node->safe_psql('postgres', q{INSERT INTO runs SELECT 'random', * FROM slow_ids(4000)});
cmp_ok(chi_square('random'), '<', 52, 'with snowflake.sequence_random_start = 1024, id % 16 is even');
is($node->safe_psql('postgres',
		q{SELECT max(snowflake_seq(id)) < 1024 + 4000 FROM runs WHERE run = 'random'}),
	't', 'the sequence starts below the setting');
is(increasing('random'), 't', 'IDs are strictly increasing at a low rate');

# at full speed, sequences continue within a millisecond
$node->safe_psql('postgres', q{
	INSERT INTO runs SELECT 'fast', k, snowflake_nextval() FROM generate_series(1, 100000) k});
is(increasing('fast'), 't', 'and at full speed');
is($node->safe_psql('postgres', q{SELECT count(DISTINCT id) FROM runs WHERE run IN ('random', 'fast')}),
	'104000', 'with no duplicate');

$node->stop;
done_testing();
