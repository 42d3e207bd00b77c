# Node IDs leased from a registry: servers with one shared configuration
# (snowflake.node_registry, no snowflake.node_id) get distinct node IDs; a
# restart with the registry down keeps the node ID and generates; a
# released node ID, taken by a new server whose clock is 10 minutes
# behind, gives IDs above every ID of its last holder; a copy of a
# server's data directory started on its own does not generate with the
# lease it copied while the original runs; with snowflake.registry_fencing
# a server generates only while the registry confirms it as the lease's
# active run, and stops before the registry hands the lease on; a run that
# takes over after a crash starts above the crashed run's IDs, however far
# its clock ran ahead; a registry that hangs hangs no server, and a server
# that never reached it refuses, saying why.
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
is($registry->safe_psql('postgres',
		'SELECT count(*) FROM snowflake_node_lease WHERE released_at IS NULL AND heartbeat_at IS NOT NULL'),
	'3', 'the registry holds three leases, each reported');
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
	qr/^snowflake_registry_heartbeat\(\): /, 'while snowflake_node_lease() says the registry cannot be reached');
$registry->start;
$servers[0]->poll_query_until('postgres',
	'SELECT registry_error IS NULL AND reported_at IS NOT NULL FROM snowflake_node_lease()')
  or die 'the registry was not reached again';
pass('once the registry is back, the server reports to it again');

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
	"SELECT high_water_id FROM snowflake_node_lease WHERE node_id = $released_id AND released_at IS NOT NULL");
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

# --- a copy of a data directory started on its own does not use the lease -------
my $original = $servers[1];
$original->backup('copy');
my $copy = PostgreSQL::Test::Cluster->new('copy');
$copy->init_from_backup($original, 'copy');
$original->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 10)');

# a role of the registry database with CREATE on the extension's schema
# plants an overload that would always say "active": never called, the
# servers name every argument's type
$registry->safe_psql('postgres', q{
	CREATE ROLE planter LOGIN;
	GRANT CREATE ON SCHEMA public TO planter;
	SET ROLE planter;
	CREATE FUNCTION public.snowflake_registry_heartbeat(integer, bigint, integer, bigint, bigint, text, integer, integer, integer, text, integer,
		OUT held boolean, OUT active boolean, OUT lease_high_water_id bigint,
		OUT other_instance bigint, OUT other_active_ms bigint)
	  LANGUAGE sql AS 'SELECT true, true, -1::bigint, NULL::bigint, NULL::bigint';
	RESET ROLE;
});

# the copy's clock is 6 s behind the original's
start_with_faketime($copy, '-6');
$copy->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: Another server holds the lease of node ID % as its active run, for % ms more%' FROM snowflake_status()})
  or die 'the copy does not wait for the original';
pass('a copy of a server, started while the original runs, waits: the original is the lease\'s active run');
is(sqlstate_of($copy, 'SELECT snowflake_nextval()'), '55000', 'and refuses to generate');
is($original->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 10) RETURNING 1'),
	join("\n", (1) x 10), 'while the original goes on');
($ret, $out, $err) = $copy->psql('postgres', 'SELECT snowflake_release_node_id()');
like($err, qr/ERROR:  this server is not the active holder of its snowflake node-ID lease/,
	'the copy cannot release the lease the original generates with');

# the original stops cleanly while four sessions insert: it gives its time
# up with its final mark, and the copy, 6 s behind, takes over above it.
# The original reports every 5 s here, more than its reservation reaches
# (2 s): its last report alone would not cover its last IDs.
$original->append_conf('postgresql.conf', "snowflake.peer_check_interval = '5s'\n");
$original->reload;
$original->poll_query_until('postgres', q{SELECT current_setting('snowflake.peer_check_interval') = '5s'})
  or die 'interval not reloaded';
my $busy = start_pgbench($original, 'before_stop', 'INSERT INTO ids DEFAULT VALUES;', 4, 0,
	'--transactions=100000000');
$original->poll_query_until('postgres', 'SELECT ids_issued > 1000 FROM snowflake_status()')
  or die 'no load';
# stop it when its last report is older than its reservation's reach
$original->poll_query_until('postgres',
	q{SELECT clock_timestamp() - reported_at > interval '2500 ms' FROM snowflake_node_lease()})
  or die 'the original kept reporting';
$original->stop('fast');
$busy->{h}->kill_kill;
$copy->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'the copy did not take over';
pass('the original stopped cleanly: the copy takes its lease over at once');
$original->append_conf('postgresql.conf', "snowflake.peer_check_interval = '200ms'\n");
$original->start;
my $original_max = $original->safe_psql('postgres', 'SELECT max(id) FROM ids');
$copy->safe_psql('postgres', 'CREATE TABLE copy_ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
	INSERT INTO copy_ids SELECT FROM generate_series(1, 1000)');
is($copy->safe_psql('postgres', "SELECT min(id) > $original_max FROM copy_ids"), 't',
	'its clock 6 s behind, every ID it issues is above the original\'s last');
$original->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: Another server holds the lease of node ID %' FROM snowflake_status()})
  or die 'the restarted original does not wait for the copy';
pass('and the original, restarted, now waits for the copy');
my $copy_max = $copy->safe_psql('postgres', 'SELECT max(id) FROM copy_ids');
$copy->stop;
$original->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'the original did not take its lease back';
is($original->safe_psql('postgres', "SELECT snowflake_nextval() > $copy_max"), 't',
	'once the copy stops, the original takes the lease back, above the copy\'s IDs');

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
	"SELECT high_water_id FROM snowflake_node_lease WHERE node_id = $new_id AND released_at IS NOT NULL");
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
($ret, $out, $err) = $registry->psql('postgres', "SELECT snowflake_registry_reclaim($gone_id)");
like($err, qr/ERROR:  the holder of snowflake node ID $gone_id reported .* ago/,
	'reclaiming the node ID of a server that reported moments ago is refused');
my $reclaimed = $registry->safe_psql('postgres',
	"SELECT snowflake_registry_reclaim($gone_id, margin => '1 hour', min_silence => '0')");
cmp_ok($reclaimed, '>', 0, 'with min_silence => 0 it is reclaimed, its floor an hour ahead');
my $fresh = leased_node('fresh');
$fresh->start;
$fresh->safe_psql('postgres', 'CREATE EXTENSION snowflake');
isnt(wait_for_node_id($fresh), $gone_id,
	'a new server takes a node ID whose floor is not ahead, not the reclaimed one');
is($fresh->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't', 'and generates at once');
$fresh->stop;

# --- fencing: with snowflake.registry_fencing, no registry, no IDs -----------------
$original->append_conf('postgresql.conf', "snowflake.registry_fencing = on\n");
$original->reload;
$original->poll_query_until('postgres', q{SELECT current_setting('snowflake.registry_fencing') = 'on'})
  or die 'fencing not set';
$registry->stop;
$original->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: The registry has not taken a report of this server''s run in time, and "snowflake.registry_fencing" is on%' FROM snowflake_status()})
  or die 'the fenced server did not stop';
pass('with fencing on, a holder that cannot report stops once its time as the active run is out');
$registry->start;
$original->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'the fenced server did not come back';
is($original->safe_psql('postgres', 'SELECT snowflake_nextval() > (SELECT max(id) FROM ids)'), 't',
	'and generates again, above its IDs, once the registry takes its report');

# a start while the registry cannot be reached: with fencing, no IDs at all
# (without, the server would generate on its saved lease, unchecked)
$registry->stop;
$original->restart;
ok( $original->poll_query_until('postgres',
		q{SELECT problem LIKE 'no node ID: The registry could not confirm this server''s run as the active one of the lease of node ID %, and "snowflake.registry_fencing" is on: %' FROM snowflake_status()}),
	'with fencing on, a server that starts while the registry is down does not generate');
is(sqlstate_of($original, 'SELECT snowflake_nextval()'), '55000', 'snowflake_nextval() refuses');
$registry->start;
$original->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'the fenced server did not come back';
is($original->safe_psql('postgres', 'SELECT snowflake_nextval() > (SELECT max(id) FROM ids)'), 't',
	'and generates once the registry takes it as the active run');

# --- fencing: the holder stops before the registry hands its lease on -----------
# A holder reporting every 4 s (timeout 1.5 s) is cut off from the
# registry while it inserts; a copy of it waits for the lease.  The takeover
# margin is 10 ms (no borrowing, no waiting, a 10 ms reservation), so only
# the fence keeps the two apart: the holder must stop before the registry
# lets the copy take over, whenever its worker runs.
$registry->safe_psql('postgres', 'CREATE ROLE cut_off LOGIN IN ROLE snowflake_registry');
my $tight = qq{
snowflake.registry_fencing = on
snowflake.peer_check_interval = '4s'
snowflake.peer_timeout = '1500ms'
snowflake.max_borrow = 0
snowflake.clock_wait_timeout = 0
snowflake.reserve_ahead = '10ms'
};
my $holder = leased_node('holder', $tight . "snowflake.node_registry = '" .
	$registry->connstr . " dbname=postgres user=cut_off'\n");
$holder->start;
$holder->safe_psql('postgres', 'CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');
wait_for_node_id($holder);
$holder->backup('holder_copy');
my $successor = PostgreSQL::Test::Cluster->new('successor');
$successor->init_from_backup($holder, 'holder_copy');
$successor->append_conf('postgresql.conf', "snowflake.node_registry = '$registry_conn'\n");
$successor->start;
$successor->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: Another server holds the lease of node ID %' FROM snowflake_status()})
  or die 'the successor does not wait for the holder';
$successor->safe_psql('postgres',
	'CREATE TABLE successor_ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');
my $inserting = start_pgbench($holder, 'until_fenced', 'INSERT INTO ids DEFAULT VALUES;', 1, 0,
	'--rate=200 --transactions=100000000');
$holder->poll_query_until('postgres', 'SELECT ids_issued > 100 FROM snowflake_status()')
  or die 'no load';
$registry->safe_psql('postgres', q{ALTER ROLE cut_off NOLOGIN;
	SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'cut_off'});
$successor->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'the successor did not take over';
$successor->safe_psql('postgres', 'INSERT INTO successor_ids SELECT FROM generate_series(1, 1000)');
$holder->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: The registry has not taken a report of this server''s run in time%' FROM snowflake_status()})
  or die 'the holder was not fenced';
$inserting->{h}->kill_kill;
my $holder_max = $holder->safe_psql('postgres', 'SELECT max(id) FROM ids');
is($successor->safe_psql('postgres', "SELECT min(id) > $holder_max FROM successor_ids"), 't',
	'a holder cut off from the registry stops before its successor starts: every ID after the takeover is above its last');
$holder->stop;
$successor->stop;

# --- a takeover after a crash counts on the clock of the run that crashed --------
# The holder's clock is 20 s ahead of the registry's, which is longer than
# its time as the active run (3.6 s here) lasts: its IDs run ahead of the
# end of that time on the registry's clock.  It crashes while inserting; the
# copy that takes over (on the registry's clock) starts above the end of
# that time on the holder's clock.
my $quick = qq{
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '1s'
snowflake.max_borrow = 0
snowflake.clock_wait_timeout = 0
snowflake.reserve_ahead = '10ms'
};
my $ahead = leased_node('ahead', $quick);
start_with_faketime($ahead, '+20');
$ahead->safe_psql('postgres', 'CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');
wait_for_node_id($ahead);
$ahead->backup('ahead_copy');
my $behind = PostgreSQL::Test::Cluster->new('behind');
$behind->init_from_backup($ahead, 'ahead_copy');
$behind->start;
$behind->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: Another server holds the lease of node ID %' FROM snowflake_status()})
  or die 'the copy does not wait for the holder';
$behind->safe_psql('postgres',
	'CREATE TABLE behind_ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');
$inserting = start_pgbench($ahead, 'until_crash', 'INSERT INTO ids DEFAULT VALUES;', 1, 0,
	'--rate=500 --transactions=100000000');
$ahead->poll_query_until('postgres', 'SELECT ids_issued > 1000 FROM snowflake_status()')
  or die 'no load';
$ahead->stop('immediate');
$inserting->{h}->kill_kill;
# refused (58000) until its clock reaches the holder's
$behind->poll_query_until('postgres', 'SELECT snowflake_nextval() IS NOT NULL')
  or die 'the copy did not take over';
$behind->safe_psql('postgres', 'INSERT INTO behind_ids SELECT FROM generate_series(1, 1000)');
$ahead->start;
my $ahead_max = $ahead->safe_psql('postgres', 'SELECT max(id) FROM ids');
is($behind->safe_psql('postgres', "SELECT min(id) > $ahead_max FROM behind_ids"), 't',
	'after a crash of a holder 20 s ahead, the run that takes over issues IDs above all of its');
$ahead->stop;
$behind->stop;

# --- a registry that hangs hangs no server -------------------------------------
kill 'STOP', $registry->{_pid};
my $lonely = leased_node('lonely');
$lonely->start;
$lonely->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$lonely->poll_query_until('postgres',
	q{SELECT problem LIKE 'no node ID: No node ID could be claimed from "snowflake.node_registry" yet: %' FROM snowflake_status()})
  or die 'the new server does not say why it has no node ID';
pass('a first start with the registry hanging: no node ID, and snowflake_status() says why');
($ret, $out, $err) = $lonely->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  this server has no snowflake node ID\nDETAIL:  No node ID could be claimed/,
	'snowflake_nextval() refuses with the reason');
ok($lonely->stop('fast', fail_ok => 1), 'and it stops at once while the registry hangs');
kill 'CONT', $registry->{_pid};

$_->stop for ($servers[0], $servers[1], $strict, $registry);
done_testing();
