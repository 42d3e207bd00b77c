# 16 pgbench clients insert into tables keyed by snowflake_nextval() at
# the same time, 300 transactions each: no failures, no duplicates, every
# backend's IDs increasing, and the bigint and snowflake keys behave alike.
# The amount of work is fixed, so the checks do not depend on the speed of
# the machine.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $node = snowflake_node('concurrency',
	conf => "snowflake.node_id = 11\nmax_connections = 40\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE orders (
		id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
		client int NOT NULL,
		n bigint NOT NULL);
	CREATE TABLE events (
		id snowflake PRIMARY KEY DEFAULT snowflake_nextval(),
		client int NOT NULL,
		n bigint NOT NULL);
	CREATE SEQUENCE per_client_order;
});

# n comes from a sequence, so within one client it follows the order in
# which that client's inserts ran
$node->pgbench(
	'--no-vacuum --client=16 --jobs=2 --transactions=300',
	0,
	[ qr{processed: 4800/4800}, qr{number of failed transactions: 0 \(0\.000%\)} ],
	[qr{^$}],
	'16 clients insert 300 times each without a failure',
	{
		'snowflake_insert' => q{
			INSERT INTO orders (client, n) VALUES (:client_id, nextval('per_client_order'));
			INSERT INTO events (client, n) VALUES (:client_id, nextval('per_client_order'));
		}
	});

is($node->safe_psql('postgres', 'SELECT count(*) FROM orders'), '4800', '4800 rows per table');

is($node->safe_psql('postgres', q{
	SELECT count(*) = count(DISTINCT id) FROM (
		SELECT id FROM orders UNION ALL SELECT id::bigint FROM events) a}),
	't', 'count(*) = count(DISTINCT id) over both tables');

is($node->safe_psql('postgres', q{
	SELECT count(DISTINCT client) FROM orders}),
	'16', 'all 16 clients inserted');

is($node->safe_psql('postgres', q{
	SELECT bool_and(id > prev) FROM (
		SELECT id, lag(id) OVER (PARTITION BY client ORDER BY n) AS prev
		  FROM (SELECT id, client, n FROM orders
		        UNION ALL SELECT id::bigint, client, n FROM events) a) s
	 WHERE prev IS NOT NULL}),
	't', 'each client\'s IDs increase in the order it generated them');

is($node->safe_psql('postgres', q{
	SELECT bool_and(snowflake_node_id(id) = 11)
	   AND bool_and(snowflake_timestamp(id) BETWEEN (SELECT pg_postmaster_start_time()) - interval '1 ms' AND clock_timestamp())
	  FROM orders}),
	't', 'every ID carries node 11 and a time between server start and now');

is($node->safe_psql('postgres', q{
	SELECT ids_issued >= 2 * (SELECT count(*) FROM orders) AND clock_errors = 0
	  FROM snowflake_status()}),
	't', 'snowflake_status() counted them, with no clock errors');

$node->stop;
done_testing();
