# A Citus group ID handed to a second worker: the model of the
# cross-server protocol's counterexample citus16_group_reuse, on real
# servers.  With no snowflake.node_id, a server's node ID is its Citus
# group ID (028_citus_node_ids.pl).  A worker generates, is removed with
# citus_remove_node() and stopped; citus_add_node(..., groupid => N) then
# gives its group to a fresh worker whose clock is behind, which takes the
# same node ID with no floor under it and issues IDs the removed worker
# had already issued.
#
# This script EXPECTS the break: it asserts that the two workers issue IDs
# in common, so that the suite stays green and says what the code does
# today, until the node-identity layer is rebuilt on the model (issue "The
# node-identity layer rebuilt on the model").  That fix turns the last
# check around, into one that expects no ID in common.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use POSIX qw(ceil);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;
use Time::HiRes;

skip_all_without_extension('citus');
skip_all_without_faketime();

# IDs each worker generates
my $count = 3000;

# the one configuration every server shares: no node ID anywhere
my $shared_conf = q{
shared_preload_libraries = 'citus,snowflake'
listen_addresses = '127.0.0.1'
max_connections = 100
max_prepared_transactions = 100
citus.node_conninfo = 'sslmode=disable'
};

# a new server of the cluster, not started
sub citus_server
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', $shared_conf);
	return $node;
}

# a server of the cluster, started, with Citus installed
sub citus_node
{
	my ($name) = @_;
	my $node = citus_server($name);
	if (!$node->start(fail_ok => 1))
	{
		# Citus from ../shared/citus is built for one minor release of 15;
		# into another its library may not load: a missing dependency
		my ($why) = slurp_file($node->logfile) =~ /could not load library "[^"]*citus\.so": (.*)/;
		plan skip_all => "Citus does not load into this PostgreSQL: $why" if defined $why;
		die "node $name did not start";
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION citus');
	return $node;
}

sub status_of
{
	my ($node, $column) = @_;
	return $node->safe_psql('postgres', "SELECT $column FROM snowflake_status()");
}

# $count IDs from one session of $node, one about every millisecond (each
# the first of its millisecond, sequence 0), so that they cover some
# seconds of clock time whatever the speed of the machine
sub generate
{
	my ($node) = @_;
	return split /\n/, $node->safe_psql('postgres', qq{
		CREATE TEMP TABLE ids (n int PRIMARY KEY, id bigint NOT NULL);
		DO \$\$
		BEGIN
			FOR i IN 1..$count LOOP
				INSERT INTO ids VALUES (i, snowflake_nextval());
				PERFORM pg_sleep(0.001);
			END LOOP;
		END
		\$\$;
		SELECT id FROM ids ORDER BY n;
	});
}

my $coord = citus_node('coordinator');
my $w1 = citus_node('worker1');
$coord->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$coord->safe_psql('postgres',
	"SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $w1->port . ')');
$w1->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()')
  or die 'worker1 got no node ID';
my $group = $w1->safe_psql('postgres', 'SELECT groupid FROM pg_dist_local_group');
is(status_of($w1, 'node_id'), $group, 'the first worker takes its Citus group as its node ID');

# --- the first worker generates -------------------------------------------------
my @first = generate($w1);
my %first = map { $_ => 1 } @first;
is(scalar(keys %first), $count, "the first worker issues $count distinct IDs");
my $ids = join(',', @first);
is($w1->safe_psql('postgres',
		"SELECT bool_and(snowflake_node_id(id) = $group) FROM unnest('{$ids}'::bigint[]) id"),
	't', 'all with its node ID');
# where its IDs begin and end, in Unix seconds
my ($first_at, $last_at) = split /\|/, $w1->safe_psql('postgres', qq{
	SELECT extract(epoch FROM snowflake_timestamp(min(id))),
	       extract(epoch FROM snowflake_timestamp(max(id)))
	FROM unnest('{$ids}'::bigint[]) id});
note sprintf('the first worker issued its IDs over %.3f s', $last_at - $first_at);

# --- removed and stopped -------------------------------------------------------
$coord->safe_psql('postgres', "SELECT citus_remove_node('127.0.0.1', " . $w1->port . ')');
is($coord->safe_psql('postgres', "SELECT count(*) FROM pg_dist_node WHERE groupid = $group"),
	'0', 'removed, its group is in no node of the cluster');
$w1->stop;

# --- a fresh worker behind the clock, given the same group ----------------------
# behind by as long as it has been since the first worker's first ID
my $w2 = citus_server('worker2');
my $behind = ceil(Time::HiRes::time() - $first_at);
start_with_faketime($w2, "-$behind");
$w2->safe_psql('postgres', 'CREATE EXTENSION citus');
$w2->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(status_of($w2, 'node_id IS NULL'), 't', 'the fresh worker has no node ID before it is added');

my ($ret, $out, $err) = $coord->psql('postgres',
	"SELECT citus_add_node('127.0.0.1', " . $w2->port . ", groupid => $group)");
is($ret, 0, 'Citus adds the fresh worker with the removed worker\'s group ID')
  or diag($err);
$w2->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()')
  or die 'worker2 got no node ID';
is($w2->safe_psql('postgres', 'SELECT groupid FROM pg_dist_local_group'), $group,
	'its Citus group is the removed worker\'s');
is(status_of($w2, 'node_id'), $group, 'and so is its node ID');

# Setting it up took a while, during which its clock moved on: set it back
# again (it has issued nothing yet, so the step is simply taken) to where
# the first worker began, however long that took.
$behind = ceil(Time::HiRes::time() - $first_at);
set_clock_offset($w2, "-$behind");
is($w2->safe_psql('postgres', "SELECT clock_timestamp() < to_timestamp($last_at)"), 't',
	'its clock is behind the last ID the removed worker issued');

# --- the break: the same IDs again ---------------------------------------------
my @second = generate($w2);
my %second = map { $_ => 1 } @second;
is(scalar(keys %second), $count, "the fresh worker issues $count distinct IDs");
$ids = join(',', @second);
is($w2->safe_psql('postgres',
		"SELECT bool_and(snowflake_node_id(id) = $group) FROM unnest('{$ids}'::bigint[]) id"),
	't', 'all with the reused node ID');
my $common = grep { $first{$_} } @second;
note "IDs issued by both workers: $common of $count";
# EXPECTED today (citus16_group_reuse); once the node-identity layer is
# rebuilt on the model, this becomes: no ID in common
ok($common > 0, 'the fresh worker reissues IDs the removed worker issued (citus16_group_reuse)');

$_->stop for ($coord, $w2);
done_testing();
