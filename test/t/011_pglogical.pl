# Multi-master with pglogical: two nodes replicating to each other, both
# inserting at once into a table keyed by snowflake_nextval(); they
# converge to the same rows with no conflict on the key.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_extension('pglogical');

# From 15.19 on, output_plugin_libraries must name pglogical's output
# plugin; before, there is no such setting, and a server given it refuses
# to start.
my $plugin_list = `postgres --describe-config` =~ /^output_plugin_libraries\t/m
  ? "output_plugin_libraries = 'pgoutput, test_decoding, pglogical_output'\n"
  : '';

my @nodes;
for my $n (1 .. 2)
{
	my $node = PostgreSQL::Test::Cluster->new("pgl$n");
	$node->init(allows_streaming => 'logical');
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pglogical,snowflake'
snowflake.node_id = $n
track_commit_timestamp = on
max_worker_processes = 16
max_connections = 30
pglogical.conflict_resolution = 'error'
$plugin_list});
	push @nodes, $node;
}
$_->start for @nodes;

for my $n (1 .. 2)
{
	my $node = $nodes[ $n - 1 ];
	my $dsn = $node->connstr . ' dbname=postgres';
	$node->safe_psql('postgres', qq{
		CREATE EXTENSION pglogical;
		CREATE EXTENSION snowflake;
		CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
		                     origin int NOT NULL, val int NOT NULL DEFAULT 0);
		SELECT pglogical.create_node(node_name := 'n$n', dsn := '$dsn');
		SELECT pglogical.replication_set_add_table('default', 'events');
	});
}
for my $n (1 .. 2)
{
	my ($me, $other) = ($nodes[ $n - 1 ], $nodes[ 2 - $n ]);
	my $dsn = $other->connstr . ' dbname=postgres';
	$me->safe_psql('postgres', qq{
		SELECT pglogical.create_subscription(
			subscription_name := 'from_other', provider_dsn := '$dsn',
			replication_sets := ARRAY['default'], synchronize_structure := false,
			synchronize_data := false, forward_origins := '{}')});
}
for my $node (@nodes)
{
	$node->poll_query_until('postgres',
		q{SELECT status = 'replicating' FROM pglogical.show_subscription_status('from_other')})
	  or die 'subscription not replicating';
}
pass('two nodes replicate to each other with pglogical');

my @runs;
for my $n (1 .. 2)
{
	push @runs, start_pgbench($nodes[ $n - 1 ], 'insert',
		"INSERT INTO events (origin) VALUES ($n);", 4, 5);
}
finish_pgbench($_) for @runs;
like($_->{out}, qr/number of failed transactions: 0 /, 'concurrent inserts on both nodes')
  for @runs;

my $q = q{SELECT count(*) || ' rows, ' || count(DISTINCT id) || ' distinct, checksum '
	|| coalesce(sum(hashint8(id)::bigint), 0) FROM events};
my ($a, $b);
for (1 .. 600)
{
	($a, $b) = map { $_->safe_psql('postgres', $q) } @nodes;
	last if $a eq $b;
	select(undef, undef, undef, 0.1);
}
is($a, $b, "both nodes converge to the same rows ($a)");
is($nodes[0]->safe_psql('postgres', 'SELECT count(DISTINCT origin) FROM events'), '2',
	'with rows from both origins');
my $conflicts = 0;
for my $node (@nodes)
{
	my $log = slurp_file($node->logfile);
	$conflicts++ while $log =~ /CONFLICT|duplicate key value/g;
}
is($conflicts, 0, 'no conflict and no duplicate key reported on either node');

$_->stop for @nodes;
done_testing();
