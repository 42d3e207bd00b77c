# snowflake on a Citus cluster: a coordinator and two workers on loopback,
# each with its own snowflake.node_id, and a worker added later.  The
# extension reaches every node; tables keyed by snowflake and by bigint
# are distributed; a default on a distribution column must come before
# create_distributed_table(); every node writes at once, and every ID is
# unique and carries the node ID of the server that made it; time
# predicates give the rows snowflake_timestamp() gives, with now()
# evaluated by each worker and a parameter once; min() and max() run on
# each shard; RETURNING decodes with the IMMUTABLE decoder; a join of a
# snowflake key with a bigint key fails, and the documented form works;
# ADD COLUMN with a snowflake default fills distributed shards uniquely but
# reference-table replicas differently, as the documentation warns; a
# table partitioned by ID ranges is distributed; snowflake_adopt() refuses
# Citus tables, and the documented path (undistribute, adopt, distribute,
# copy the boundary comment) works; a worker added later gets the
# extension; the peer checker catches a shared node ID only where it runs
# on every node; and a node removed from the cluster goes on generating.
# Every server here has snowflake.node_id set; node IDs taken from Citus
# groups are 028_citus_node_ids.pl's subject.
#
# The documentation's Citus examples (doc/operations.md, marked "019_citus.pl
# runs it (NAME)") are read from the file and run as written.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_extension('citus');

# the ```sql block of doc/operations.md that follows the marker
# "test/t/019_citus.pl runs it (NAME)", without its indentation
sub doc_block
{
	my ($name) = @_;
	my $path = "$FindBin::RealBin/../../doc/operations.md";
	open my $fh, '<', $path or die "cannot read $path: $!";
	my $text = do { local $/; <$fh> };
	close $fh;
	$text =~ /019_citus\.pl runs it \(\Q$name\E\) -->\n( *)```sql\n(.*?)^ *```$/ms
	  or die "doc/operations.md has no block marked ($name)";
	my ($indent, $sql) = (length $1, $2);
	$sql =~ s/^ {0,$indent}//mg;
	return $sql;
}

# run a documented block on a node as psql would, stopping at an error
sub run_doc_block
{
	my ($node, $name) = @_;
	return $node->psql('postgres', doc_block($name), extra_params => [ '-v', 'ON_ERROR_STOP=1' ]);
}

# a server of the cluster; citus comes first in shared_preload_libraries
sub citus_node
{
	my ($name, $node_id) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'citus,snowflake'
listen_addresses = '127.0.0.1'
max_connections = 100
max_prepared_transactions = 100
citus.node_conninfo = 'sslmode=disable'
snowflake.peer_check_interval = '300ms'
} . (defined $node_id ? "snowflake.node_id = $node_id\n" : ''));
	if (!$node->start(fail_ok => 1))
	{
		# Citus from ../shared/citus is built for one minor release of 15
		# (15.20); into another its library may not load, which is a
		# missing dependency, said as such, not a failure of snowflake
		my ($why) = slurp_file($node->logfile) =~ /could not load library "[^"]*citus\.so": (.*)/;
		plan skip_all => "Citus does not load into this PostgreSQL: $why" if defined $why;
		die "node $name did not start";
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION citus');
	return $node;
}

my $coord = citus_node('coordinator', 1);
my @workers = (citus_node('worker1', 2), citus_node('worker2', 3));
my @nodes = ($coord, @workers);
$coord->safe_psql('postgres',
	"SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')')
  for @workers;

# --- the extension reaches every node ---------------------------------------------
$coord->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $version = $coord->safe_psql('postgres',
	q{SELECT extversion FROM pg_extension WHERE extname = 'snowflake'});
is(join(',', map { $_->safe_psql('postgres',
		q{SELECT extversion FROM pg_extension WHERE extname = 'snowflake'}) } @workers),
	"$version,$version", 'CREATE EXTENSION on the coordinator reaches both workers');

# --- distributed tables keyed by snowflake and by bigint --------------------------
$coord->safe_psql('postgres', q{
	CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(),
	                     origin int NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
	SELECT create_distributed_table('events', 'id');
	CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), origin int NOT NULL);
	SELECT create_distributed_table('orders', 'id');
});
pass('tables keyed by snowflake and by bigint are distributed by their key');

# --- a default on a distribution column: before distributing, not after -------------
my ($ret, $stdout, $stderr);
$coord->safe_psql('postgres', q{
	CREATE TABLE tickets (id bigint PRIMARY KEY, origin int);
	SELECT create_distributed_table('tickets', 'id');
});
($ret, $stdout, $stderr) = $coord->psql('postgres',
	'ALTER TABLE tickets ALTER COLUMN id SET DEFAULT snowflake_nextval()');
like($stderr, qr/cannot execute ALTER TABLE command involving partition column/,
	'Citus refuses a snowflake default on the key of a distributed table');
$coord->safe_psql('postgres', q{
	SELECT undistribute_table('tickets');
	ALTER TABLE tickets ALTER COLUMN id SET DEFAULT snowflake_nextval();
	SELECT create_distributed_table('tickets', 'id');
	INSERT INTO tickets (origin) VALUES (1);
});
is($coord->safe_psql('postgres', 'SELECT snowflake_node_id(id) FROM tickets'), '1',
	'undistributed, given the default and distributed again, the table generates its keys');

# --- every node writes at once ------------------------------------------------------
# each statement goes to the node pgbench talks to, which evaluates the
# default there: the origin column is that node's own node ID
my @runs = map {
	start_pgbench($_, 'insert', q{
		INSERT INTO events (origin) VALUES (current_setting('snowflake.node_id')::int);
		INSERT INTO orders (origin) VALUES (current_setting('snowflake.node_id')::int);
	}, 4, 0, '--transactions=250')
} @nodes;
my $out = join('', map { finish_pgbench($_) } @runs);
unlike($out, qr/number of failed transactions: [1-9]/, 'three nodes, 4 clients each: no failure');
is($coord->safe_psql('postgres', q{
	SELECT count(*) || ' ' || count(DISTINCT id) FROM events}), '3000 3000',
	'3000 rows keyed by snowflake, no duplicate');
is($coord->safe_psql('postgres', q{
	SELECT count(*) || ' ' || count(DISTINCT id) FROM orders}), '3000 3000',
	'3000 rows keyed by bigint, no duplicate');
is($coord->safe_psql('postgres', q{
	SELECT bool_and(snowflake_node_id(id) = origin) FROM
	  (SELECT id::bigint AS id, origin FROM events UNION ALL SELECT id, origin FROM orders) a}),
	't', 'every ID carries the node ID of the server that generated it');
is($coord->safe_psql('postgres', q{
	SELECT string_agg(DISTINCT origin::text, ',' ORDER BY origin::text) FROM events}),
	'1,2,3', 'from all three nodes');

# INSERT ... SELECT between distributed tables: the workers evaluate it
$coord->safe_psql('postgres', q{
	INSERT INTO orders (origin) SELECT 0 FROM events WHERE origin = 1});
is($coord->safe_psql('postgres', q{
	SELECT count(*) = count(DISTINCT id) AND bool_and(snowflake_node_id(id) IN (2, 3))
	  FROM orders WHERE origin = 0}),
	't', 'INSERT ... SELECT between distributed tables: generated on the workers, no duplicate');

# --- time predicates: ID bounds on every shard; now() evaluated by each worker -----
is($coord->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM events WHERE id >= now() - interval '1 hour') =
	       (SELECT count(*) FROM events WHERE snowflake_timestamp(id) >= now() - interval '1 hour')
	   AND (SELECT count(*) FROM orders WHERE id::snowflake < now() - interval '1 hour') =
	       (SELECT count(*) FROM orders WHERE snowflake_timestamp(id) < now() - interval '1 hour')}),
	't', 'time predicates give the rows snowflake_timestamp() gives, on both keys');
like($coord->safe_psql('postgres', q{
	EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM events WHERE id >= now() - interval '1 hour'}),
	qr/WHERE \(id OPERATOR\(public\.>\) public\.snowflake_last_id_before\(/,
	'each shard gets the ID bound, for its primary key');
my ($shard_query) = $coord->safe_psql('postgres', q{
	EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM events WHERE id >= now() - interval '1 hour'})
  =~ /Query: ([^\n]*)/;
like($shard_query, qr/snowflake_last_id_before\(\(now\(\) OPERATOR\(pg_catalog\.-\)/,
	'now() goes to each shard as it is: each worker evaluates it');
($shard_query) = $coord->safe_psql('postgres', q{
	PREPARE recent(timestamptz) AS SELECT count(*) FROM events WHERE id >= $1;
	EXPLAIN (VERBOSE, COSTS OFF) EXECUTE recent(now() - interval '1 hour')})
  =~ /Query: ([^\n]*)/;
like($shard_query,
	qr/snowflake_last_id_before\('[^']+'::timestamp with time zone\)\)$/,
	'a parameter reaches every shard as one constant');

# --- min() and max() run on each shard ----------------------------------------------
my $plan = $coord->safe_psql('postgres',
	'EXPLAIN (VERBOSE, COSTS OFF) SELECT min(id), max(id) FROM events');
like($plan, qr/Query: SELECT public\.min\(id\) AS min, public\.max\(id\) AS max FROM public\.events_\d+ events/,
	'min() and max() are sent to each shard as they are');
like($plan, qr/Index Only Scan Backward using events_pkey_\d+/, 'where they read the shard\'s index');
unlike($plan, qr/worker_partial_agg/, 'not as a generic partial aggregate');
my $ends = $coord->safe_psql('postgres', 'SELECT min(id) || \' \' || max(id) FROM events');
is($ends, join(' ', map { $coord->safe_psql('postgres', "SELECT id FROM events ORDER BY id $_ LIMIT 1") }
		('ASC', 'DESC')),
	'and give the right values');

# --- RETURNING: the IMMUTABLE decoder -----------------------------------------------
($ret, $stdout, $stderr) = $coord->psql('postgres',
	'INSERT INTO events (origin) VALUES (1) RETURNING snowflake_timestamp(id)');
like($stderr, qr/non-IMMUTABLE functions are not allowed in the RETURNING clause/,
	'Citus refuses the STABLE decoder in RETURNING');
my ($id, $ts) = split /\|/, $coord->safe_psql('postgres', q{
	INSERT INTO events (origin) VALUES (1)
	RETURNING id, snowflake_timestamp(id, '2025-01-01 00:00:00+00')});
is($coord->safe_psql('postgres', "SELECT snowflake_timestamp('$id'::snowflake) = '$ts'"),
	't', 'the IMMUTABLE one, given the epoch, is accepted, and agrees with the other');

# --- a join of a snowflake key with a bigint key ------------------------------------
# 1000 IDs of events (made by worker1) become keys of orders as well
$coord->safe_psql('postgres', 'INSERT INTO orders (id, origin) SELECT id, -1 FROM events WHERE origin = 2');
($ret, $stdout, $stderr) = $coord->psql('postgres', q{
	SET citus.enable_repartition_joins = on;
	SELECT count(*) FROM events e JOIN orders o ON o.id = e.id});
like($stderr, qr/complex joins are only supported when all distributed tables are joined on their distribution columns with equal operator/,
	'a join of a snowflake key with a bigint key fails, even with repartition joins');
($ret, $stdout, $stderr) = run_doc_block($coord, 'join');
is("$ret $stdout", '0 1000', 'one side cast in a subquery, as documented: the join works')
  or diag($stderr);

# a bigint key and a snowflake key hash as different types: not co-located
$coord->safe_psql('postgres', 'CREATE TABLE order_lines (order_id bigint, line int)');
($ret, $stdout, $stderr) = $coord->psql('postgres',
	q{SELECT create_distributed_table('order_lines', 'order_id', colocate_with => 'events')});
like($stderr, qr/cannot colocate tables events and order_lines\nDETAIL:  Distribution column types don.t match/, 'a bigint column cannot be co-located with a snowflake key');

# --- adding a column with a snowflake default (doc/operations.md, Citus) ------------
# on a distributed table every worker fills its own shards: unique IDs
$coord->safe_psql('postgres', 'ALTER TABLE orders ADD COLUMN ref bigint DEFAULT snowflake_nextval()');
is($coord->safe_psql('postgres', q{
	SELECT count(*) = count(DISTINCT ref) AND bool_and(snowflake_node_id(ref) IN (2, 3)) FROM orders}),
	't', 'ADD COLUMN with a snowflake default on a distributed table: filled on the workers, unique');
($ret, $stdout, $stderr) = $coord->psql('postgres', 'UPDATE orders SET ref = snowflake_nextval()');
like($stderr, qr/functions used in UPDATE queries on distributed tables must not be VOLATILE/,
	'Citus refuses snowflake_nextval() in an UPDATE');

# on a reference table every node fills its own replica: the replicas differ
$coord->safe_psql('postgres', q{
	CREATE TABLE kinds (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), name text);
	SELECT create_reference_table('kinds');
	INSERT INTO kinds (name) VALUES ('a'), ('b');
	ALTER TABLE kinds ADD COLUMN ref bigint DEFAULT snowflake_nextval();
	ALTER TABLE kinds ADD COLUMN ref2 bigint;
	ALTER TABLE kinds ALTER COLUMN ref2 SET DEFAULT snowflake_nextval();
	INSERT INTO kinds (name) VALUES ('c');
});
my $replica = $coord->safe_psql('postgres', q{
	SELECT shard_name('kinds', shardid) FROM pg_dist_shard WHERE logicalrelid = 'kinds'::regclass});
my @copies = map { $_->safe_psql('postgres', qq{
	SET citus.override_table_visibility = off;
	SELECT string_agg(concat_ws(':', id, ref, ref2), ' ' ORDER BY id) FROM $replica}) } @nodes;
my @ids = map { s/:\d+(:\d*)?//gr } @copies;
my @refs = map { join ' ', /\d+:(\d+)/g } @copies;
is(scalar(keys %{{ map { $_ => 1 } @ids }}), 1,
	'reference table: rows inserted with a snowflake default are the same on every node');
is(scalar(keys %{{ map { $_ => 1 } @refs }}), 3,
	'but ADD COLUMN with a snowflake default fills each node\'s replica differently (Citus evaluates it per node)');
is($coord->safe_psql('postgres', q{SELECT count(ref2) FROM kinds}), '1',
	'adding the column first and setting the default after gives old rows NULL, new rows one ID');

# --- partitioning by ID ranges -----------------------------------------------------
$coord->safe_psql('postgres', q{
	CREATE TABLE log (id snowflake NOT NULL DEFAULT snowflake_nextval(), origin int,
	                  PRIMARY KEY (id)) PARTITION BY RANGE (id);
	SELECT create_distributed_table('log', 'id');
	DO $$
	DECLARE
		d date;
	BEGIN
		FOR d IN SELECT generate_series(current_date - 1, current_date + 1, interval '1 day')::date LOOP
			EXECUTE format('CREATE TABLE %I PARTITION OF log FOR VALUES FROM (%L) TO (%L)',
			               'log_' || to_char(d, 'YYYYMMDD'),
			               snowflake_from_timestamp(d::timestamptz),
			               snowflake_from_timestamp((d + 1)::timestamptz));
		END LOOP;
	END $$;
	INSERT INTO log (origin) SELECT 1 FROM generate_series(1, 100);
});
is($coord->safe_psql('postgres', q{
	SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text LIKE 'log_%'}),
	'3', 'partitions by ID range of a distributed table are distributed too');
# (each partition holds the rows of its day only; all 100 rows are there)
my $misplaced = 0;
my $rows = 0;
for my $day ($coord->safe_psql('postgres', q{
		SELECT to_char(d, 'YYYYMMDD') FROM generate_series(current_date - 1, current_date + 1, interval '1 day') d}) =~ /(\d+)/g)
{
	$misplaced += $coord->safe_psql('postgres',
		"SELECT count(*) FROM log_$day WHERE to_char(snowflake_timestamp(id), 'YYYYMMDD') <> '$day'");
	$rows += $coord->safe_psql('postgres', "SELECT count(*) FROM log_$day");
}
is("$rows $misplaced", '100 0', 'and every row is in the partition of its day');

# --- snowflake_adopt(): refused on Citus tables; the documented path works ----------
$coord->safe_psql('postgres', q{
	CREATE SCHEMA shop;
	CREATE TABLE shop.orders (id serial PRIMARY KEY, item text);
	CREATE TABLE shop.order_lines (order_id int REFERENCES shop.orders, line int,
	                               PRIMARY KEY (order_id, line));
	SELECT create_distributed_table('shop.orders', 'id');
	SELECT create_distributed_table('shop.order_lines', 'order_id', colocate_with => 'shop.orders');
	INSERT INTO shop.orders (item) SELECT 'item ' || g FROM generate_series(1, 50) g;
	INSERT INTO shop.order_lines SELECT id, 1 FROM shop.orders;
	CREATE TABLE shop.kinds (id serial PRIMARY KEY, name text);
	SELECT create_reference_table('shop.kinds');
});
for my $case ([ 'shop.orders', 'distributed' ], [ 'shop.kinds', 'reference' ])
{
	my ($table, $kind) = @$case;
	($ret, $stdout, $stderr) = $coord->psql('postgres', "SELECT * FROM snowflake_adopt('$table')");
	like($stderr,
		qr/ERROR:  cannot switch the key of table \Q$table\E because it is a Citus $kind table\n.*HINT:  Undistribute it with undistribute_table\('\Q$table\E', cascade_via_foreign_keys => true\), switch the key, then distribute the tables again as they were\. Citus keeps the boundary comment on the coordinator only\./s,
		"the dry run on a Citus $kind table refuses, naming the path that works");
}
is(sqlstate_of($coord, q{SELECT * FROM snowflake_adopt('shop.orders', dry_run => false)}),
	'0A000', 'and so does the real run, before changing anything: SQLSTATE 0A000');

($ret, $stdout, $stderr) = run_doc_block($coord, 'adopt');
is($ret, 0, 'the documented path runs: undistribute, adopt, distribute again') or diag($stderr);
is($coord->safe_psql('postgres', q{
	SELECT string_agg(p.logicalrelid::text || ' ' || format_type(a.atttypid, NULL), ', '
	                  ORDER BY p.logicalrelid::text) || ', ' || count(DISTINCT p.colocationid) || ' group'
	  FROM pg_dist_partition p
	  JOIN pg_attribute a ON a.attrelid = p.logicalrelid AND a.attname IN ('id', 'order_id')
	 WHERE p.logicalrelid IN ('shop.orders'::regclass, 'shop.order_lines'::regclass)}),
	'shop.order_lines bigint, shop.orders bigint, 1 group',
	'both tables distributed again, co-located, their keys bigint');
$coord->safe_psql('postgres', q{
	INSERT INTO shop.orders (item) VALUES ('new');
	INSERT INTO shop.order_lines SELECT id, 1 FROM shop.orders WHERE item = 'new';
});
is($coord->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE id <= 50) || ' old, ' ||
	       count(*) FILTER (WHERE id > 50 AND snowflake_node_id(id) = 1) || ' new'
	  FROM shop.orders}),
	'50 old, 1 new', 'old keys kept; a new row gets a snowflake ID, made on the coordinator');

# the boundary: in the coordinator's comment; on the workers once copied
my $boundary_query = q{
	SELECT substring(col_description(attrelid, attnum) FROM 'keys below (\d+)')::bigint
	  FROM pg_attribute WHERE attrelid = 'shop.orders'::regclass AND attname = 'id'};
my $boundary = $coord->safe_psql('postgres', $boundary_query);
like($boundary, qr/^\d+$/, 'the boundary is recorded on the coordinator');
is(join(',', map { $_->safe_psql('postgres', $boundary_query) } @workers), ',',
	'Citus does not copy column comments: the workers read no boundary');
($ret, $stdout, $stderr) = run_doc_block($coord, 'boundary');
is($ret, 0, 'the documented copy of the comment runs') or diag($stderr);
is(join(',', map { $_->safe_psql('postgres', $boundary_query) } @workers),
	"$boundary,$boundary", 'then every worker reads the boundary');

# --- a node added later ---------------------------------------------------------------
my $late = citus_node('worker3', 4);
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $late->port . ')');
is($late->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'snowflake'}),
	$version, 'a worker added later gets the extension');

# --- the peer checker: on the coordinator alone, it protects only the coordinator ----
# the late worker gets node ID 2, which worker1 has
my $cluster = 'citus:host=127.0.0.1 port=' . $coord->port . ' dbname=postgres';
$coord->append_conf('postgresql.conf', qq{snowflake.peers = '"$cluster"'\n});
$coord->restart;
$late->append_conf('postgresql.conf', "snowflake.node_id = 2\n");
$late->restart;
$coord->poll_query_until('postgres',
	q{SELECT count(*) FILTER (WHERE status = 'ok: node 2') = 2 FROM snowflake_peers()})
  or die 'the coordinator did not check both workers with node ID 2';
pass('the coordinator, given the cluster, sees two workers with node ID 2 as "ok: node 2"');
is(join(',', map { $_->safe_psql('postgres',
		'SELECT problem IS NULL AND snowflake_node_id(snowflake_nextval()) = 2 FROM snowflake_status()') }
		($workers[0], $late)),
	't,t', 'and both go on generating with node ID 2');
$late->append_conf('postgresql.conf', "snowflake.node_id = 4\n");
$late->restart;

# --- the peer checker on every node checks every node --------------------------------
for my $node (@workers)
{
	$node->append_conf('postgresql.conf', qq{snowflake.peers = '"$cluster"'\n});
	$node->restart;
}
for my $node (@nodes)
{
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 4 AND count(*) FILTER (WHERE status = 'this server') = 1 FROM snowflake_peers()})
	  or die 'a node did not check the whole cluster';
}
pass('every node checks every node of the cluster, the late worker included');
# the late worker takes node ID 2 again, and starts after worker1
$late->append_conf('postgresql.conf', qq{snowflake.node_id = 2\nsnowflake.peers = '"$cluster"'\n});
$late->restart;
$late->poll_query_until('postgres',
	q{SELECT problem LIKE 'node ID conflict:%' FROM snowflake_status()})
  or die 'the conflict was not found';
pass('the late worker, given a node ID already taken, sees the conflict and stops');
is($workers[0]->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'),
	't', 'while the worker that had it first goes on');

# --- a node removed from the cluster ---------------------------------------------------
# with its own node ID again, then removed: it keeps the metadata and
# writes into the distributed tables, and no one checks it any more
$late->append_conf('postgresql.conf', "snowflake.node_id = 4\n");
$late->restart;
$coord->safe_psql('postgres', "SELECT citus_remove_node('127.0.0.1', " . $late->port . ')');
$late->safe_psql('postgres', 'INSERT INTO events (origin) VALUES (44)');
is($coord->safe_psql('postgres', 'SELECT snowflake_node_id(id) FROM events WHERE origin = 44'),
	'4', 'a node removed with citus_remove_node() still inserts into distributed tables, with its node ID');
$coord->poll_query_until('postgres',
	q{SELECT count(*) = 3 AND bool_and(status NOT LIKE '%node 4%') FROM snowflake_peers()})
  or die 'the removed node is still checked';
pass('and the peer checkers no longer check it');

$_->stop for (@nodes, $late);
done_testing();
