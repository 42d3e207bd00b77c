# pg_dump and pg_restore, plain and custom format, of a database with
# snowflake and bigint keys, defaults, btree, hash and BRIN indexes and a
# table partitioned by ID, into a fresh server: the data come back intact,
# the indexes and time queries work, and the defaults go on generating IDs
# above the restored ones.  Then pg_upgrade of the same data directory.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use File::Copy;
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
my $dir = $old->basedir;

for my $format ('plain', 'custom')
{
	my $db = "restored_$format";
	$new->safe_psql('postgres', "CREATE DATABASE $db");
	my $file = "$dir/dump.$format";
	command_ok([ 'pg_dump', '-d', $old->connstr('postgres'), '--format', $format, '-f', $file ],
		"pg_dump, $format format");
	if ($format eq 'plain')
	{
		command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $new->connstr($db), '-f', $file ],
			'restore with psql');
	}
	else
	{
		command_ok([ 'pg_restore', '--exit-on-error', '-d', $new->connstr($db), $file ],
			'restore with pg_restore');
	}

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
		INSERT INTO events (kind) VALUES ('after restore') RETURNING id > (SELECT max(id) FROM events WHERE kind <> 'after restore');
	}), 't', "$format: the default generates IDs above the restored ones");
	is($new->safe_psql($db, q{SELECT extversion FROM pg_extension WHERE extname = 'snowflake'}),
		$old->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'snowflake'}),
		"$format: the same extension version");
}

# pg_upgrade (15 to 15 here) moves the data; the high-water mark is not part
# of what it copies, so it is carried over by hand, as the README says
$old->stop;
my $upgraded = snowflake_node('upgraded', conf => "snowflake.node_id = 3\n");
my $max_before = do {
	$old->start;
	my $m = $old->safe_psql('postgres', 'SELECT max(id) FROM events');
	$old->stop;
	$m;
};
my $upgrade_dir = $upgraded->basedir . '/pg_upgrade';
mkdir $upgrade_dir;
chdir $upgrade_dir or die "chdir: $!";	# pg_upgrade writes its logs here
command_ok(
	[ 'pg_upgrade', '--no-sync',
	  '-d', $old->data_dir, '-D', $upgraded->data_dir,
	  '-b', $old->config_data('--bindir'), '-B', $upgraded->config_data('--bindir'),
	  '-s', $upgraded->host, '-p', $old->port, '-P', $upgraded->port ],
	'pg_upgrade of a cluster using snowflake');
mkdir $upgraded->data_dir . '/pg_snowflake';
copy($old->data_dir . '/pg_snowflake/state', $upgraded->data_dir . '/pg_snowflake/state')
  or die "copy: $!";
$upgraded->start;
is($upgraded->safe_psql('postgres', $fingerprint), $before, 'pg_upgrade kept every row');
is($upgraded->safe_psql('postgres', qq{
	INSERT INTO events (kind) VALUES ('after upgrade') RETURNING id > '$max_before'}),
	't', 'and generation continues above the old IDs');
$upgraded->stop;
$new->stop;
done_testing();
