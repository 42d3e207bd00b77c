# Node IDs leased from a registry (the extension snowflake_registry):
# servers with one shared configuration (snowflake.node_registry, no
# snowflake.node_id) get distinct node IDs; a restart with the registry
# down keeps the node ID and generates; a released node ID, taken by a new
# server whose clock is 10 minutes behind, gives IDs above every ID of its
# last holder; a release under load covers every ID; a reclaimed node ID
# is taken last; with snowflake.registry_fencing a holder generates only
# within what the registry grants: it stops when the registry is gone, and
# a holder whose clock runs ahead of the registry's issues nothing past
# the grant; a registry that hangs hangs no server, and a server that never
# reached it refuses, saying why.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

# --- the registry: a database with the extension, and a role for the servers -
my $registry = snowflake_node('registry');
$registry->start;
setup_registry($registry);
my $registry_conn = $registry->connstr . ' dbname=postgres user=snowflake_registry';

# the configuration every server shares
my $shared_conf = qq{
snowflake.node_registry = '$registry_conn'
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '2s'
};

sub leased_node
{
	my ($name, $extra) = @_;
	my $node = snowflake_node($name, conf => $shared_conf . ($extra // ''),
		init => { allows_streaming => 1 });
	return $node;
}

sub wait_for_node_id
{
	my ($node) = @_;
	$node->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()')
	  or die $node->name . ' got no node ID';
	return $node->safe_psql('postgres', 'SELECT node_id FROM snowflake_status()');
}

# --- three servers, one configuration: three node IDs ------------------------------
my @servers = map { leased_node("server_$_") } qw(a b c);
$_->start for @servers;
$_->safe_psql('postgres', 'CREATE EXTENSION snowflake') for @servers;
my @ids = map { wait_for_node_id($_) } @servers;
is(join(',', sort @ids), '0,1,2', 'three servers with one configuration lease node IDs 0, 1 and 2');
is(join(',', map { $_->safe_psql('postgres', 'SELECT node_id_source FROM snowflake_status()') } @servers),
	'registry,registry,registry', 'each says its node ID is leased');
$registry->poll_query_until('postgres',
	'SELECT count(*) = 3 FROM snowflake_registry.node_lease WHERE released_at IS NULL AND reported_at IS NOT NULL AND NOT fenced')
  or die 'the leases were not reported';
pass('the registry holds three leases, not fenced, each reported once');
for my $s (@servers)
{
	$s->safe_psql('postgres', q{
		CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
		INSERT INTO ids SELECT FROM generate_series(1, 1000);
	});
}
is(join(',', map { $_->safe_psql('postgres', 'SELECT count(DISTINCT snowflake_node_id(id)) || \':\' || min(snowflake_node_id(id)) FROM ids') } @servers),
	join(',', map { "1:$_" } @ids), 'each generates with its own node ID');
is($servers[0]->safe_psql('postgres', 'SELECT state FROM snowflake_node_lease()'),
	'held', 'snowflake_node_lease() says the lease is held');

# --- a restart with the registry down keeps the node ID and generates ----------
$registry->stop;
$servers[0]->restart;
is(wait_for_node_id($servers[0]), $ids[0], 'restarted with the registry down, it keeps its node ID');
is($servers[0]->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 10) RETURNING 1'),
	join("\n", (1) x 10), 'and generates');
like($servers[0]->safe_psql('postgres', 'SELECT registry_error FROM snowflake_node_lease()'),
	qr/^snowflake_registry\.report\(\): /, 'while snowflake_node_lease() says the registry cannot be reached');
$registry->start;
$servers[0]->poll_query_until('postgres',
	'SELECT registry_error IS NULL AND reported_at IS NOT NULL FROM snowflake_node_lease()')
  or die 'the registry was not reached again';
pass('once the registry is back, the server reports to it');

# --- release, and reuse by a server whose clock is 10 minutes behind --------------
my $released = $servers[2];
my $released_id = $ids[2];
my $max_before = $released->safe_psql('postgres', 'SELECT max(id) FROM ids');
is($released->safe_psql('postgres', 'SELECT snowflake_release_node_id()'), 't',
	'a server releases its node ID');
my ($ret, $out, $err) = $released->psql('postgres', 'INSERT INTO ids DEFAULT VALUES');
like($err, qr/ERROR:  this server has no snowflake node ID\nDETAIL:  The lease of node ID $released_id was released/,
	'and generates no more, saying why');
my $final = $registry->safe_psql('postgres',
	"SELECT high_water_id FROM snowflake_registry.node_lease WHERE node_id = $released_id AND released_at IS NOT NULL");
cmp_ok($final, '>=', $max_before, 'the registry keeps its final high-water mark, above its IDs');
$released->stop;

my $newcomer = leased_node('newcomer', "snowflake.max_borrow = '15min'\n");
start_with_faketime($newcomer, '-600');
$newcomer->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(wait_for_node_id($newcomer), $released_id, 'a new server takes the released node ID');
$newcomer->safe_psql('postgres', q{
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
	INSERT INTO ids SELECT FROM generate_series(1, 1000);
});
is($newcomer->safe_psql('postgres', "SELECT min(id) > $max_before FROM ids"), 't',
	'its clock 10 minutes behind, every ID it issues is above every ID of the last holder');
ok($newcomer->log_contains("IDs start above $final"), 'and it logs where it starts');

# the same with the default max_borrow: refused, never lower
my $strict = leased_node('strict');
$released = $newcomer;
is($newcomer->safe_psql('postgres', 'SELECT snowflake_release_node_id()'), 't',
	'the newcomer releases the node ID in turn');
$max_before = $newcomer->safe_psql('postgres', 'SELECT max(id) FROM ids');
$newcomer->stop;
start_with_faketime($strict, '-600');
$strict->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(wait_for_node_id($strict), $released_id, 'another server takes it, its clock 10 minutes behind too');
is(sqlstate_of($strict, 'SELECT snowflake_nextval()'), '58000',
	'with max_borrow at its default it refuses (the IDs would run 10 minutes ahead), never issuing lower');

# --- a released server, restarted, claims a new node ID ---------------------------
$released = $servers[2];
$released->start;
my $new_id = wait_for_node_id($released);
isnt($new_id, $released_id, 'a server restarted after releasing its node ID claims another');
is($released->safe_psql('postgres', 'SELECT state FROM snowflake_node_lease()'), 'held',
	'and holds it');

# --- a release under load: every session ends, none hangs --------------------------
my $load = start_pgbench($released, 'under_release',
	'INSERT INTO ids DEFAULT VALUES;', 4, 0, '--transactions=2000');
$released->poll_query_until('postgres', 'SELECT ids_issued > 100 FROM snowflake_status()')
  or die 'no load';
is($released->safe_psql('postgres', 'SELECT snowflake_release_node_id()'), 't',
	'a release while four sessions insert');
my $pgbench = finish_pgbench($load);
like($pgbench, qr/number of transactions actually processed: \d+/,
	'and the sessions end (those after the release with an error)');
my $final2 = $registry->safe_psql('postgres',
	"SELECT high_water_id FROM snowflake_registry.node_lease WHERE node_id = $new_id AND released_at IS NOT NULL");
cmp_ok($final2, '>=', $released->safe_psql('postgres', 'SELECT max(id) FROM ids'),
	'the released mark covers every ID issued, those of sessions under way included');
$released->stop;

# --- a server gone for good: reclaimed by the operator, reused last ----------------
my $gone = leased_node('gone');
$gone->start;
$gone->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $gone_id = wait_for_node_id($gone);
$gone->safe_psql('postgres', 'SELECT snowflake_nextval()');
$gone->stop('immediate');
my $reclaimed = $registry->safe_psql('postgres', "SELECT snowflake_registry.reclaim($gone_id)");
cmp_ok($reclaimed, '>', $registry->safe_psql('postgres',
		"SELECT snowflake_registry.last_id_of(layout, (extract(epoch FROM now() + interval '59 min') * 1000)::bigint)
		   FROM snowflake_registry.node_lease WHERE node_id = $gone_id"),
	'the operator reclaims the node ID of a server gone for good: its next holder starts an hour ahead');
my $fresh = leased_node('fresh');
$fresh->start;
$fresh->safe_psql('postgres', 'CREATE EXTENSION snowflake');
isnt(wait_for_node_id($fresh), $gone_id,
	'a new server takes a node ID whose floor is not ahead, not the reclaimed one');
is($fresh->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't', 'and generates at once');
$fresh->stop;

# --- fencing: IDs only within what the registry grants ----------------------------
my $fenced = leased_node('fenced', "snowflake.registry_fencing = on\n");
$fenced->start;
$fenced->safe_psql('postgres', 'CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');
my $fenced_id = wait_for_node_id($fenced);
$fenced->poll_query_until('postgres', 'SELECT snowflake_nextval() IS NOT NULL')
  or die 'the fenced server does not generate';
is($fenced->safe_psql('postgres', 'SELECT fenced AND granted_until > now() FROM snowflake_node_lease()'),
	't', 'a lease claimed with snowflake.registry_fencing is fenced, and granted IDs ahead of now');
($ret, $out, $err) = $registry->psql('postgres', "SELECT snowflake_registry.reclaim($fenced_id)");
like($err, qr/ERROR:  the holder of snowflake node ID $fenced_id still reports/,
	'the operator cannot reclaim the node ID of a fenced holder that reports');

# the registry gone: the holder stops at the end of its grant
$registry->stop;
poll_until_sqlstate($fenced, 'INSERT INTO ids DEFAULT VALUES', '55000')
  or die 'the fenced server did not stop';
($ret, $out, $err) = $fenced->psql('postgres', 'INSERT INTO ids DEFAULT VALUES');
like($err, qr/ERROR:  snowflake ID generation waits for the registry\n/,
	'with the registry gone, a fenced holder stops when its grant runs out, saying why');
like($fenced->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/^the registry has granted this fenced lease no IDs past /,
	'and snowflake_status() says so');
my $granted = $fenced->safe_psql('postgres', 'SELECT granted_until FROM snowflake_node_lease()');
is($fenced->safe_psql('postgres', "SELECT count(*) FROM ids WHERE snowflake_timestamp(id) > '$granted'"),
	'0', 'no ID it issued is past its grant');
$registry->start;
$fenced->poll_query_until('postgres', 'SELECT snowflake_nextval() IS NOT NULL')
  or die 'the fenced server did not come back';
is($fenced->safe_psql('postgres', 'SELECT snowflake_nextval() > (SELECT max(id) FROM ids)'), 't',
	'once the registry answers, it generates again, above its IDs');

# a restart while the registry is down: no grant, no IDs
$fenced->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 10)');
$registry->stop;
$fenced->restart;
ok( $fenced->poll_query_until('postgres',
		q{SELECT problem LIKE 'no node ID: The lease of node ID % is fenced, and the registry has not granted this server IDs yet%' FROM snowflake_status()}),
	'a fenced holder that starts while the registry is down does not generate');
is(sqlstate_of($fenced, 'SELECT snowflake_nextval()'), '55000', 'snowflake_nextval() refuses');
$registry->start;
$fenced->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'the fenced server did not come back';
is($fenced->safe_psql('postgres', 'SELECT snowflake_nextval() > (SELECT max(id) FROM ids)'), 't',
	'and generates once the registry grants, above its IDs');
$fenced->stop;

# a fenced holder whose clock is 20 s ahead of the registry's issues no ID
# past its grant, 5 s past the registry's clock: it refuses instead
my $ahead = leased_node('ahead', "snowflake.registry_fencing = on\n");
start_with_faketime($ahead, '+20');
$ahead->safe_psql('postgres', 'CREATE EXTENSION snowflake');
wait_for_node_id($ahead);
($ret, $out, $err) = $ahead->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  snowflake ID generation waits for the registry\n/,
	'a fenced holder 20 s ahead of the registry refuses: its IDs would pass the grant');
$ahead->stop;

# --- a registry that hangs hangs no server -------------------------------------
kill 'STOP', $registry->{_pid};
my $lonely = leased_node('lonely');
$lonely->start;
$lonely->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$lonely->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: No node ID could be claimed from "snowflake.node_registry" yet%' FROM snowflake_status()})
  or die 'the new server does not say why it has no node ID';
pass('a first start with the registry hanging: no node ID, and snowflake_status() says why');
($ret, $out, $err) = $lonely->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  this server has no snowflake node ID\nDETAIL:  No node ID could be claimed/,
	'snowflake_nextval() refuses with the reason');
ok($lonely->stop('fast', fail_ok => 1), 'and it stops at once while the registry hangs');
kill 'CONT', $registry->{_pid};

$_->stop for ($servers[0], $servers[1], $strict, $registry);
done_testing();
