# Logical replication fan-in: three publishers with node IDs 1, 2 and 3,
# each with 8 pgbench clients inserting into its own copy of a table keyed
# by snowflake_nextval(), all subscribed to by a fourth node.  Every row
# arrives, no apply error, no duplicate key, and ordering by ID agrees with
# ordering by commit time up to the clock skew and the time from taking an
# ID to committing it.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use List::Util qw(max min sum);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;
use Time::HiRes qw(time);

my $table = q{CREATE TABLE orders (
	id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
	origin int NOT NULL,
	client int NOT NULL,
	created timestamptz NOT NULL DEFAULT clock_timestamp())};

my @pubs;
for my $n (1 .. 3)
{
	my $pub = snowflake_node("pub$n", init => { allows_streaming => 'logical' }, conf => qq{
snowflake.node_id = $n
track_commit_timestamp = on
max_connections = 30
});
	$pub->start;
	$pub->safe_psql('postgres', "CREATE EXTENSION snowflake; $table;
		CREATE PUBLICATION orders_pub FOR TABLE orders;");
	push @pubs, $pub;
}

my $sub = snowflake_node('subscriber', conf => q{
snowflake.node_id = 4
max_logical_replication_workers = 8
max_worker_processes = 16
});
$sub->start;
$sub->safe_psql('postgres', "CREATE EXTENSION snowflake; $table;");
for my $n (1 .. 3)
{
	my $conn = $pubs[ $n - 1 ]->connstr . ' dbname=postgres';
	$sub->safe_psql('postgres',
		"CREATE SUBSCRIPTION sub_from_$n CONNECTION '$conn' PUBLICATION orders_pub");
}
$sub->wait_for_subscription_sync;

# 8 clients on each publisher at once
my @runs;
for my $n (1 .. 3)
{
	push @runs, start_pgbench($pubs[ $n - 1 ], 'insert',
		"INSERT INTO orders (origin, client) VALUES ($n, :client_id);", 8, 6);
}
finish_pgbench($_) for @runs;

my @tps;
for my $n (1 .. 3)
{
	like($runs[ $n - 1 ]{out}, qr/number of failed transactions: 0 \(0\.000%\)/,
		"publisher $n: 8 clients, no failed transaction");
	push @tps, $runs[ $n - 1 ]{out} =~ /tps = ([\d.]+)/ ? $1 : 0;
	$pubs[ $n - 1 ]->wait_for_catchup("sub_from_$n");
}

my @counts = map { $_->safe_psql('postgres', 'SELECT count(*) FROM orders') } @pubs;
my $total = sum(@counts);
is($sub->safe_psql('postgres', 'SELECT count(*) FROM orders'), $total,
	"every row arrived ($total rows: " . join(' + ', @counts) . ')');
is($sub->safe_psql('postgres',
		# every *_error_count column: their names differ between versions
		q{SELECT coalesce(sum(e.value::bigint), 0)
		    FROM pg_stat_subscription_stats s, jsonb_each_text(to_jsonb(s)) e
		   WHERE e.key LIKE '%error_count'}),
	'0', 'no apply errors');
is($sub->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM orders'),
	't', 'no duplicate keys');
is($sub->safe_psql('postgres',
		'SELECT bool_and(snowflake_node_id(id) = origin) FROM orders'),
	't', 'every ID carries the node ID of the server that made it');

# clock skew between the nodes, measured from here: each node's clock
# against the middle of the round trip to it
my @offsets;
my $uncertainty = 0;
for my $node (@pubs, $sub)
{
	my $before = time() * 1000;
	my $t = $node->safe_psql('postgres',
		'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint');
	my $after = time() * 1000;
	push @offsets, $t - ($before + $after) / 2;
	$uncertainty = max($uncertainty, ($after - $before) / 2);
}
my $skew = max(@offsets) - min(@offsets) + 2 * $uncertainty;

# ordering by ID against ordering by commit time (track_commit_timestamp)
my @rows;
for my $pub (@pubs)
{
	for my $line (split /\n/, $pub->safe_psql('postgres', q{
		SELECT id, (extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000)::bigint,
		       (extract(epoch FROM snowflake_timestamp(id)) * 1000)::bigint
		  FROM orders}))
	{
		push @rows, [ split /\|/, $line ];
	}
}
@rows = sort { $a->[0] <=> $b->[0] } @rows;
my ($latest_commit, $inversion, $latency) = (0, 0, 0);
for my $r (@rows)
{
	$inversion = max($inversion, $latest_commit - $r->[1]);
	$latest_commit = max($latest_commit, $r->[1]);
	$latency = max($latency, $r->[1] - $r->[2]);
}
note(sprintf('rows %d, tps %s, clock skew %.1f ms, largest commit-order inversion %d ms, '
	  . 'largest ID-to-commit time %d ms', scalar(@rows), join('/', @tps), $skew, $inversion, $latency));
ok($inversion <= $skew + $latency + 1,
	"ordered by ID, commit times go back by at most the skew plus the ID-to-commit time ($inversion <= "
	  . sprintf('%.1f', $skew) . " + $latency + 1 ms)");

$_->stop for @pubs, $sub;
done_testing();
