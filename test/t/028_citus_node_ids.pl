# Node IDs from Citus: a coordinator and two workers with one shared
# configuration and no snowflake.node_id.  Before a server is part of the
# cluster it reads Citus group 0 and refuses to generate, saying why; once
# added, each server's node ID is its Citus group ID (the coordinator's 0),
# every node writes at once with no duplicate, and a worker added later
# gets its own.  A group the layout cannot hold is refused, clearly.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_extension('citus');

# the one configuration every server shares: no node ID anywhere
my $shared_conf = q{
shared_preload_libraries = 'citus,snowflake'
listen_addresses = '127.0.0.1'
max_connections = 100
max_prepared_transactions = 100
citus.node_conninfo = 'sslmode=disable'
};

sub citus_node
{
	my ($name, $extra) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', $shared_conf . ($extra // ''));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION citus');
	return $node;
}

sub status_of
{
	my ($node, $column) = @_;
	return $node->safe_psql('postgres', "SELECT $column FROM snowflake_status()");
}

my $coord = citus_node('coordinator');
my @workers = (citus_node('worker1'), citus_node('worker2'));

# --- before a server is part of a cluster, it refuses --------------------------
$coord->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(status_of($coord, 'node_id_source'), 'citus', 'the node ID comes from Citus');
$coord->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: This server reads Citus group 0, but its metadata lists no coordinator%' FROM snowflake_status()})
  or die 'the coordinator does not say it is not part of a cluster';
pass('a server that reads group 0 without a coordinator in its metadata has no node ID');
my ($ret, $out, $err) = $coord->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  this server has no snowflake node ID\nDETAIL:  This server reads Citus group 0/,
	'and refuses to generate, saying why');
is(sqlstate_of($coord, 'SELECT snowflake_nextval()'), '55000', 'with SQLSTATE 55000');
ok($coord->log_contains('snowflake node ID not obtained yet'), 'and logs it');

# --- added: each server's node ID is its group ID ------------------------------
$coord->safe_psql('postgres',
	"SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')')
  for @workers;
for my $node ($coord, @workers)
{
	$node->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()')
	  or die $node->name . ' got no node ID';
}
my %group = map {
	$_->name => $_->safe_psql('postgres', 'SELECT groupid FROM pg_dist_local_group')
} ($coord, @workers);
is(status_of($coord, 'node_id'), '0', 'the coordinator takes node ID 0, its group');
is(join(',', map { status_of($_, 'node_id') } @workers),
	join(',', map { $group{ $_->name } } @workers),
	'each worker takes its Citus group ID');
isnt($group{worker1}, $group{worker2}, 'which differ');
ok($coord->log_contains('snowflake node ID 0: the Citus group of this server'),
	'the coordinator logs where its node ID came from');

# --- every node writes at once, no duplicate -------------------------------------
$coord->safe_psql('postgres', q{
	CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), origin int NOT NULL);
	SELECT create_distributed_table('events', 'id');
});
my @runs = map {
	start_pgbench($_, 'insert', q{
		INSERT INTO events (origin) SELECT node_id FROM snowflake_status();
	}, 4, 0, '--transactions=250')
} ($coord, @workers);
my $pgbench = join('', map { finish_pgbench($_) } @runs);
unlike($pgbench, qr/number of failed transactions: [1-9]/, 'three nodes, 4 clients each: no failure');
is($coord->safe_psql('postgres', q{SELECT count(*) || ' ' || count(DISTINCT id) FROM events}),
	'3000 3000', '3000 rows, no duplicate');
is($coord->safe_psql('postgres', q{SELECT bool_and(snowflake_node_id(id) = origin) FROM events}),
	't', 'every ID carries the node ID of the server that generated it');
is($coord->safe_psql('postgres', q{SELECT count(DISTINCT origin) FROM events}), '3',
	'from all three nodes');

# --- a worker added later gets its own ---------------------------------------
my $late = citus_node('worker3');
$late->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(status_of($late, 'node_id IS NULL'), 't', 'a new server has no node ID before it is added');
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $late->port . ')');
$late->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()')
  or die 'the late worker got no node ID';
my $late_group = $late->safe_psql('postgres', 'SELECT groupid FROM pg_dist_local_group');
is(status_of($late, 'node_id'), $late_group, 'once added, its node ID is its group ID');
ok(!grep({ $_ eq $late_group } (0, values %group)), 'one no other server has');
$late->safe_psql('postgres', 'INSERT INTO events (origin) SELECT node_id FROM snowflake_status()');
is($coord->safe_psql('postgres', q{SELECT count(*) = count(DISTINCT id) FROM events}),
	't', 'and its IDs are unique too');

# --- a group the layout cannot hold is refused ------------------------------------
# three node bits hold 0 to 7; this server's group is higher
my $narrow = citus_node('narrow', "snowflake.node_bits = 3\nsnowflake.sequence_bits = 12\n");
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $narrow->port
	  . ', groupid => 9)');
$narrow->poll_query_until('postgres',
	q{SELECT problem LIKE '%Citus group ID of this server is 9, which 3 node bits cannot hold (0 to 7)%' FROM snowflake_status()})
  or die 'the narrow worker does not refuse its group';
pass('a group ID the layout cannot hold is refused, with the range');

$_->stop for ($coord, @workers, $late, $narrow);
done_testing();
