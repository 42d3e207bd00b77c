# pg_dump and pg_restore, plain and custom format, of a database with
# snowflake and bigint keys, defaults, btree, hash and BRIN indexes and a
# table partitioned by ID, into a fresh server: the data come back intact,
# the indexes and time queries work, and the defaults go on generating IDs.
# (pg_upgrade: 016_pg_upgrade.pl.)
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $old = snowflake_node('old', conf => "snowflake.node_id = 3\n");
$old->start;
$old->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), kind text);
	CREATE INDEX events_hash ON events USING hash (id);
	CREATE INDEX events_brin ON events USING brin (id);
	CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
	                     event snowflake REFERENCES events);
	CREATE TABLE log (id snowflake NOT NULL DEFAULT snowflake_nextval(), t timestamptz)
	  PARTITION BY RANGE (id);
	CREATE TABLE log_old PARTITION OF log
	  FOR VALUES FROM (snowflake_from_timestamp('2025-01-01+00')) TO (snowflake_from_timestamp('2026-01-01+00'));
	CREATE TABLE log_new PARTITION OF log
	  FOR VALUES FROM (snowflake_from_timestamp('2026-01-01+00')) TO (MAXVALUE);
	INSERT INTO events (kind) SELECT 'k' || g FROM generate_series(1, 5000) g;
	INSERT INTO orders (event) SELECT id FROM events;
	INSERT INTO log SELECT id, snowflake_timestamp(id) FROM events;
	INSERT INTO log VALUES (snowflake_from_parts('2025-06-01+00', 3, 0), '2025-06-01+00');
});

my $fingerprint = q{
	SELECT (SELECT count(*) || '/' || sum(hashint8(id::bigint)::bigint) FROM events) || ' '
	    || (SELECT count(*) || '/' || sum(hashint8(id)::bigint) FROM orders) || ' '
	    || (SELECT string_agg(tableoid::regclass || ':' || n, ',' ORDER BY tableoid::regclass::text)
	          FROM (SELECT tableoid, count(*) AS n FROM log GROUP BY 1) s)
};
my $before = $old->safe_psql('postgres', $fingerprint);

my $new = snowflake_node('new', conf => "snowflake.node_id = 3\n");
$new->start;

for my $format ('plain', 'custom')
{
	my $db = "restored_$format";
	dump_and_restore($old, $new, $format, $db);

	is($new->safe_psql($db, $fingerprint), $before, "$format: the same rows, in the same partitions");
	is($new->safe_psql($db, q{
		SET enable_seqscan = off;
		SELECT count(*) FROM events WHERE id >= snowflake_from_timestamp(now() - interval '1 hour')}),
		'5000', "$format: the index answers time queries");
	is($new->safe_psql($db, q{
		SELECT amvalidate(c.oid) FROM pg_index i JOIN pg_class r ON r.oid = i.indexrelid
		  JOIN pg_opclass c ON c.oid = i.indclass[0]
		 WHERE r.relname IN ('events_pkey', 'events_hash', 'events_brin') GROUP BY 1}),
		't', "$format: btree, hash and BRIN indexes restored with valid operator classes");
	is($new->safe_psql($db, q{
		INSERT INTO events (kind) VALUES ('after restore') RETURNING snowflake_node_id(id) = 3;
	}), 't', "$format: the restored default generates IDs");
	is($new->safe_psql($db, q{SELECT extversion FROM pg_extension WHERE extname = 'snowflake'}),
		$old->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'snowflake'}),
		"$format: the same extension version");
}

$new->stop;
$old->stop;
done_testing();
