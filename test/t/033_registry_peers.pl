# The registry as the peer list: servers that share one configuration
# (snowflake.node_registry, snowflake.peers = 'registry:dbname=postgres')
# check each other, each at the address the registry saw it connect from;
# a server that joins later is checked by the others; with the registry
# down, the entry shows the failure and the holders read before are still
# checked; a holder's IDs 5 s ahead of another's clock do not move the
# other's generator (the checker does not follow its peers: with 1.6's
# following, checks 15 and 16 fail).  Rows the checker cannot use are used
# for nothing and hide no holder, but hold the gate of a server that
# starts while they are there (every listed peer must answer, or refuse
# the connection, before a server's first ID).  The registry lists every
# unreleased lease of a holder that reported its address, a fenced one
# only while it reports: a fenced holder that stops drops out.  A server
# with a node ID by hand, which the registry does not list, yields on any
# conflict with a holder, which cannot check it; a lease of its node ID,
# or of another layout, is a conflict whatever its address, until it is
# released.  A holder restarted with another layout generates nothing on
# its lease, whether the registry answers or not.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use SnowflakeFakePeer;
use Test::More;

skip_all_without_faketime();

# Every server listens on 127.0.0.1 too, so that the address the registry
# sees a server connect from reaches it.
sub listen_on_tcp
{
	my ($node) = @_;
	$node->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'\n");
	$node->append_conf('pg_hba.conf', "host all all 127.0.0.1/32 trust\n");
	return $node;
}

# --- the registry ---------------------------------------------------------------------
my $registry = listen_on_tcp(snowflake_node('registry'));
$registry->start;
setup_registry($registry);
my $registry_conn = 'host=127.0.0.1 port=' . $registry->port
  . ' dbname=postgres user=snowflake_registry';

# the one configuration every server shares
my $shared_conf = qq{
snowflake.node_registry = '$registry_conn'
snowflake.peers = 'registry:dbname=postgres'
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '2s'
};

sub holder
{
	my ($name, $extra) = @_;
	return listen_on_tcp(snowflake_node($name, conf => $shared_conf . ($extra // '')));
}

sub wait_for_node_id
{
	my ($node) = @_;
	$node->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()')
	  or die $node->name . ' got no node ID';
	return $node->safe_psql('postgres', 'SELECT node_id FROM snowflake_status()');
}

# What a server's last round says of the holders, in node ID order, and
# what it should say when the holders are those of @ids: every other one
# reachable with its node ID, itself as itself.
my $peer_list = q{SELECT string_agg(CASE WHEN reachable THEN status ELSE 'not reachable' END, ', '
                                    ORDER BY node_id) FROM snowflake_peers()};

sub expected_list
{
	my ($own, @ids) = @_;
	return join(', ', map { $_ == $own ? 'this server' : "ok: node $_" } sort { $a <=> $b } @ids);
}

sub sees
{
	my ($node, $own, @ids) = @_;
	my $want = expected_list($own, @ids);
	return $node->poll_query_until('postgres', $peer_list, $want);
}

# --- three servers, one configuration: each checks the other two ------------------------
# The first one's clock is 5 s ahead (for the check, below, that no holder follows another).
my @servers = map { holder("server_$_") } qw(a b c);
start_with_faketime($servers[0], '+5');
$servers[$_]->start for (1, 2);
$_->safe_psql('postgres', 'CREATE EXTENSION snowflake') for @servers;
my @ids = map { wait_for_node_id($_) } @servers;
is(join(',', sort @ids), '0,1,2', 'three servers with one configuration lease node IDs 0, 1 and 2');

my %port_of = map { ($ids[$_] => $servers[$_]->port) } 0 .. 2;
my $addresses = join(' AND ', map {
	"(SELECT address FROM snowflake_registry.node_lease WHERE node_id = $_ AND released_at IS NULL)"
	  . " = 'hostaddr=127.0.0.1 port=$port_of{$_}'" } sort keys %port_of);
ok($registry->poll_query_until('postgres', "SELECT $addresses"),
	'each holder\'s address in the registry is where the registry saw it connect from, with its port');

for my $i (0 .. 2)
{
	ok(sees($servers[$i], $ids[$i], @ids),
		"server " . ($i + 1) . " checks the other two holders, reachable with their node IDs, and finds itself");
}
is(join(',', map { $_->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()') } @servers),
	't,t,t', 'no conflict among them');

# --- a fourth server joins: the others check it from their next round on --------------
# (it says where to reach it itself, with snowflake.advertise_address; its
# lease is fenced, reported every second, for the check below that a
# holder that stops drops out of the list)
my $late = holder('server_d', "snowflake.registry_fencing = on\n");
$late->append_conf('postgresql.conf',
	"snowflake.advertise_address = 'host=127.0.0.1 port=" . $late->port . "'\n");
$late->start;
$late->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $late_id = wait_for_node_id($late);
is($late_id, '3', 'a fourth server leases node ID 3');
ok($registry->poll_query_until('postgres',
		"SELECT address = 'host=127.0.0.1 port=" . $late->port
		  . "' FROM snowflake_registry.node_lease WHERE node_id = 3 AND fenced"),
	'the registry keeps the address it advertises, with its fenced lease');
my @all_ids = (@ids, $late_id);
for my $i (0 .. 2)
{
	ok(sees($servers[$i], $ids[$i], @all_ids),
		"server " . ($i + 1) . " now checks the fourth too");
}
ok(sees($late, $late_id, @all_ids), 'and the fourth checks the first three');

# --- the registry down: the entry fails, the holders read before are still checked ------
$registry->stop;
my $registry_down = q{SELECT count(*) FILTER (WHERE NOT reachable
	  AND peer LIKE 'registry:host=127.0.0.1 port=% dbname=postgres'
	  AND status LIKE 'unreachable: could not read the registry''s lease list: %') = 1
	AND count(*) FILTER (WHERE reachable AND status LIKE 'ok: node %') = 3
	AND count(*) = 5
  FROM snowflake_peers()};
ok($servers[1]->poll_query_until('postgres', $registry_down),
	'with the registry down, the entry shows that its list could not be read, and the three other holders are still checked')
  or diag($servers[1]->safe_psql('postgres', 'SELECT peer, reachable, status FROM snowflake_peers()'));
$registry->start;
ok(sees($servers[1], $ids[1], @all_ids), 'once the registry is back, the list is read from it again');

# --- no following: a holder's IDs ahead of the clock do not move another --------------
# A's clock is 5 s ahead of B's; B's peer checker, which knows A only from
# the registry, reads A's last ID at each round.  In 1.6 it moved B's
# generator above it (5 s ahead of B's clock, within snowflake.max_borrow);
# the checker no longer follows (doc/protocol.md, "no following"): B's IDs
# stay at B's clock, and nothing moves its generator.  (032_causal_order
# checks it with a peer an hour ahead.)
my ($ahead, $behind) = @servers[ 0, 1 ];
$ahead->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'A does not generate';
my $x = $ahead->safe_psql('postgres', 'SELECT snowflake_nextval()');
is($ahead->safe_psql('postgres', "SELECT last_id = $x FROM snowflake_node_info()"), 't',
	'A reports the ID it made, 5 s ahead of B\'s clock, as its last_id');
# a round of B that asked A after x was made: the one after the first
# round that reached A after now, by B's clock
my $now = $behind->safe_psql('postgres', 'SELECT clock_timestamp()');
$behind->poll_query_until('postgres',
	"SELECT checked_at > '$now' AND reachable FROM snowflake_peers() WHERE node_id = $ids[0]")
  or die 'B did not check A again';
my $answered = $behind->safe_psql('postgres',
	"SELECT checked_at FROM snowflake_peers() WHERE node_id = $ids[0]");
$behind->poll_query_until('postgres',
	"SELECT checked_at > '$answered' FROM snowflake_peers() WHERE node_id = $ids[0]")
  or die 'B did not check A again';
is($behind->safe_psql('postgres', q{
		WITH g AS MATERIALIZED (SELECT snowflake_nextval() AS id)
		SELECT format('ID at the clock %s, observations %s, moved %s',
		              snowflake_timestamp(g.id) <= clock_timestamp(), s.observations, s.observations_moved)
		  FROM g, snowflake_status() s}),
	'ID at the clock t, observations 0, moved 0',
	'an ID made on B a round after A\'s is not moved ahead of B\'s clock: B\'s generator follows no peer');

# --- rows the checker must not trust ---------------------------------------------------
# Planted by the registry's superuser, as a forged or broken row would be:
# an address with more than an address in it, one with both a host name
# and a host address (libpq would send the password of the name to the
# address), one that reaches a server holding another node ID, and one of
# about 100 MB, more than the checker may hold.
my $port_a = $servers[0]->port;
$registry->safe_psql('postgres', qq{
	INSERT INTO snowflake_registry.node_lease (node_id, system_identifier, claim_token, holder, layout,
	                                           fenced, floor_id, high_water_id, claimed_at, reported_at,
	                                           address)
	SELECT id, 1, 1, 'planted', '1735689600000/10/12', false, 0, 0, now(), now(), a
	  FROM (VALUES (50, 'host=127.0.0.1 dbname=other'),
	               (51, 'host=db3.internal hostaddr=127.0.0.1 port=$port_a'),
	               (52, 'hostaddr=127.0.0.1 port=$port_a'),
	               (54, 'host=127.0.0.1 ' || repeat(md5('54'), 3200000))) v(id, a)});
my $planted = q{SELECT string_agg(peer || ' ' || status, E'\n' ORDER BY peer) FROM snowflake_peers()
	WHERE peer LIKE 'registry:node ID %' OR status LIKE '%node ID 52%'};
my $planted_want = join("\n",
	'host=127.0.0.1 port=' . $port_a . ' dbname=postgres unreachable: the registry\'s address for node ID 52 reaches the server of node ID ' . $ids[0],
	'registry:node ID 50 unreachable: the registry\'s address for node ID 50 is not usable: it sets "dbname"; an address sets only "host" or "hostaddr", and "port"',
	'registry:node ID 51 unreachable: the registry\'s address for node ID 51 is not usable: it sets both "host" and "hostaddr"',
	'registry:node ID 54 unreachable: the registry\'s address for node ID 54 is not usable: column "address" of snowflake_registry.node_lease is longer than 1024 bytes');
ok($servers[1]->poll_query_until('postgres', $planted, $planted_want),
	'a row with more than an address, one with a host name and a host address, and one of 100 MB are not used; a row that reaches another holder is not judged')
  or diag($servers[1]->safe_psql('postgres', $planted));
ok($servers[1]->poll_query_until('postgres',
		"SELECT count(*) = 4 FROM snowflake_peers() WHERE reachable AND (status LIKE 'ok: node %' OR status = 'this server')"),
	'the bad rows hide none of the real holders');
ok($servers[0]->poll_query_until('postgres',
		"SELECT status = 'unreachable: the registry''s address for node ID 52 reaches this server'"
		  . " FROM snowflake_peers() WHERE peer = 'host=127.0.0.1 port=$port_a dbname=postgres'"
		  . " AND status LIKE '%52%'"),
	'the holder that a planted row points at does not take it for itself');

# --- no password for a forged address ---------------------------------------------------
# A row that names a fake server by number only.  libpq looks up the
# password in ~/.pgpass by the host name; were it left unset, it would come
# from the environment (PGHOST: here the socket directory), and the
# password of that name would go to the forged address.
my $fake = SnowflakeFakePeer->new(PostgreSQL::Test::Utils::tempdir() . '/fake');
$fake->set(attack => 'startup:password');
my $passfile = PostgreSQL::Test::Utils::tempdir() . '/pgpass';
open(my $pf, '>', $passfile) or die "$passfile: $!";
print $pf $servers[1]->host . ":*:*:*:secret-of-the-socket-host\n";
print $pf "localhost:*:*:*:secret-of-localhost\n";
close $pf;
chmod 0600, $passfile;
$servers[1]->safe_psql('postgres', qq{
	ALTER SYSTEM SET snowflake.peers = 'registry:dbname=postgres passfile=$passfile';
	SELECT pg_reload_conf()});
$registry->safe_psql('postgres', "
	INSERT INTO snowflake_registry.node_lease (node_id, system_identifier, claim_token, holder, layout,
	                                           fenced, floor_id, high_water_id, claimed_at, address)
	VALUES (53, 0, 0, 'planted', '1735689600000/10/12', false, 0, 0, now(),
	        'hostaddr=127.0.0.1 port=" . $fake->port . "')");
ok($servers[1]->poll_query_until('postgres',
		"SELECT status LIKE 'unreachable: %' FROM snowflake_peers()"
		  . " WHERE peer = 'host=127.0.0.1 port=" . $fake->port . " dbname=postgres'"),
	'the checker tried the forged address');
unlike($fake->passwords, qr/secret-of/, 'and sent it no password of another host');
$registry->safe_psql('postgres', 'DELETE FROM snowflake_registry.node_lease WHERE node_id = 53');
$servers[1]->safe_psql('postgres', 'ALTER SYSTEM RESET snowflake.peers; SELECT pg_reload_conf()');
$fake->stop;

# --- a fenced holder that stops is no longer asked for ------------------------------------
# (1.6 dropped any holder at its clean stop, which it told the registry; an
# unfenced lease now stays listed until it is released, by design)
$late->stop;
ok($servers[1]->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM snowflake_peers() WHERE node_id = $late_id OR status LIKE '%node $late_id%'"
		  . " OR peer LIKE '%port=" . $late->port . " %'"),
	'a fenced holder that stopped drops out of the list once it no longer reports');

# --- a server the registry does not list yields: the holders cannot check it -----------
# It has node ID 4 by hand.  It starts while the planted rows are still
# in the registry: none of them can be asked (nor can the holder of node
# ID 52 at its planted address), but each is a lease of another node ID,
# which by the lease cannot be ours: they hold no gate, and it generates
# (a row of our own node ID would hold it: gate-all-answered).  Then a
# new holder leases node ID 4
# (the registry knows nothing of hand-set numbers).  Of two servers that
# check each other, the one that generates would go on and the newcomer
# wait; but the holder never asks the hand-set server, which would never
# be stopped: so the hand-set server, which the registry does not list,
# yields on any conflict with a holder.
my $manual = holder('manual', "snowflake.node_id = 4\n");
$manual->start;
$manual->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($manual->poll_query_until('postgres', q{
		SELECT count(*) FILTER (WHERE NOT reachable AND status LIKE 'unreachable: the registry''s address for node ID %') = 4
		   AND count(*) FILTER (WHERE reachable AND status LIKE 'ok: node %') = 3
		  FROM snowflake_peers()}),
	'a server started while the planted rows are there lists them, none usable, beside the three holders')
  or diag($manual->safe_psql('postgres', 'SELECT peer, reachable, status FROM snowflake_peers()'));
ok($manual->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()'),
	'and generates: a lease of another node ID, though its address cannot be asked, holds no gate')
  or diag($manual->safe_psql('postgres', 'SELECT peer, reachable, status FROM snowflake_peers()'));
$registry->safe_psql('postgres', 'DELETE FROM snowflake_registry.node_lease WHERE node_id IN (50, 51, 52, 54)');
$manual->safe_psql('postgres', 'SELECT snowflake_nextval()');
my $newcomer = holder('server_e');
$newcomer->start;
$newcomer->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(wait_for_node_id($newcomer), '4', 'a new holder leases node ID 4, which a server not in the registry has by hand');
ok($manual->poll_query_until('postgres',
		"SELECT status LIKE 'conflict: same node ID 4, which cannot check this server%'"
		  . " FROM snowflake_peers() WHERE node_id = 4 AND reachable"),
	'the hand-set server sees the conflict, and that the holder cannot see it');
is($manual->psql('postgres', 'SELECT snowflake_nextval()'), 3,
	'the hand-set server, though it generated first, steps back: the holder would never learn of the conflict');
ok($newcomer->poll_query_until('postgres', 'SELECT snowflake_nextval() > 0'),
	'the holder generates');
ok($manual->log_contains('the servers that find their peers in the snowflake registry cannot check this server'),
	'the hand-set server says that the registry does not list it');

# --- a lease proves a conflict without an address --------------------------------------
# A server with node ID 50 by hand, which the registry leases to a holder
# whose address cannot be used: the lease alone says that another server
# generates with node ID 50.
$registry->safe_psql('postgres', q{
	INSERT INTO snowflake_registry.node_lease (node_id, system_identifier, claim_token, holder, layout,
	                                           fenced, floor_id, high_water_id, claimed_at, reported_at,
	                                           address)
	VALUES (50, 1, 1, 'planted', '1735689600000/10/12', false, 0, 0, now(), now(),
	        'host=127.0.0.1 dbname=other')});
my $manual50 = holder('manual50', "snowflake.node_id = 50\n");
$manual50->start;
$manual50->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($manual50->poll_query_until('postgres',
		"SELECT status = 'conflict: the registry leases node ID 50 to another server, which cannot check this server'"
		  . " FROM snowflake_peers() WHERE peer = 'registry:node ID 50' AND status LIKE 'conflict%'"),
	'a server with a node ID by hand that the registry leases to another server sees the conflict in the lease');
is($manual50->psql('postgres', 'SELECT snowflake_nextval()'), 3,
	'and generates no ID, though the holder\'s address cannot be used');

# The lease is fenced and its holder has not reported for an hour: the
# registry no longer lists it as a holder to ask, but only a release ends
# a lease (the holder may be one cut off from the registry), so it still
# counts.  (1.6's active run lapsing is gone: 1.7 has no active run.)
# (Every other listed server answers, none in conflict: nothing else
# keeps the conflict alive.)
my $lapsed_at = $manual50->safe_psql('postgres', 'SELECT clock_timestamp()');
$registry->safe_psql('postgres',
	"UPDATE snowflake_registry.node_lease SET fenced = true, run_token = 1,"
	  . " reported_at = now() - interval '1 hour' WHERE node_id = 50");
ok($manual50->poll_query_until('postgres',
		"SELECT checked_at > '$lapsed_at' FROM snowflake_peers() WHERE peer = 'registry:node ID 50'"
		  . " AND status LIKE 'conflict%'"),
	'a round after the fenced holder went silent, the lease is still a conflict');
is($manual50->psql('postgres', 'SELECT snowflake_nextval()'), 3,
	'and the server still generates no ID');

# A claim whose first report never got through: the holder generates all
# the same (fencing off), so the lease counts.
my $unreported_at = $manual50->safe_psql('postgres', 'SELECT clock_timestamp()');
$registry->safe_psql('postgres',
	"UPDATE snowflake_registry.node_lease SET fenced = false, run_token = NULL, reported_at = NULL,"
	  . " address = NULL WHERE node_id = 50");
ok($manual50->poll_query_until('postgres',
		"SELECT checked_at > '$unreported_at' FROM snowflake_peers() WHERE peer = 'registry:node ID 50'"
		  . " AND status LIKE 'conflict%'"),
	'a lease never reported on is still a conflict');
is($manual50->psql('postgres', 'SELECT snowflake_nextval()'), 3,
	'and the server still generates no ID');

# The operator's reservation of a hand-set number (doc/operations.md,
# system identifier 0) is no holder: the conflict is lifted.
$registry->safe_psql('postgres',
	"UPDATE snowflake_registry.node_lease SET system_identifier = 0, claim_token = 0 WHERE node_id = 50");
ok($manual50->poll_query_until('postgres', 'SELECT snowflake_nextval() > 0'),
	'a reservation of a hand-set number is no conflict: the server generates');

# --- a lease of another layout is a conflict, whatever its address -----------------------
# A server with node ID 7 by hand and 12 node bits, 10 sequence bits: its
# IDs can equal the fleet's.  It yields while the holders run, and still
# once they have stopped (their leases are not released): a holder that
# stopped reporting may be one cut off from the registry, still generating.
my $other_layout = holder('other_layout',
	"snowflake.node_id = 7\nsnowflake.node_bits = 12\nsnowflake.sequence_bits = 10\n");
$other_layout->start;
$other_layout->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $layout_conflict = q{SELECT status = 'conflict: the registry leases a node ID to a server of another ID layout (1735689600000/10/12), which cannot check this server'
	FROM snowflake_peers() WHERE peer = 'registry:layout 1735689600000/10/12'};
ok($other_layout->poll_query_until('postgres', $layout_conflict),
	'a server of another layout sees the conflict in the leases');
$_->stop for (@servers, $manual, $newcomer);
my $stopped_at = $other_layout->safe_psql('postgres', 'SELECT clock_timestamp()');
ok($other_layout->poll_query_until('postgres',
		"SELECT checked_at > '$stopped_at' FROM snowflake_peers() WHERE peer = 'registry:layout 1735689600000/10/12'"
		  . " AND status LIKE 'conflict%'"),
	'a round after the holders stopped, the leases are still a conflict');
my ($layout_rc, $layout_out, $layout_err) = $other_layout->psql('postgres', 'SELECT snowflake_nextval()');
is($layout_rc, 3, 'and the server of another layout generates no ID');
like($layout_err, qr/ERROR:  another server generates snowflake IDs with a different ID layout/,
	'and says that the layouts differ, not that its node ID is taken');

# --- a holder restarted with another layout does not generate with its lease -----------
# Its lease file survives the restart, but the lease answers for the layout
# it was claimed with, which is what every other server judges it by.  The
# lease file says which: the registry is down meanwhile, and a holder that
# waited for its word would generate on its saved lease until then (with
# the IDs of another layout, which overlap other holders').
my $relayout = $servers[1];
$relayout->append_conf('postgresql.conf', "snowflake.node_bits = 8\nsnowflake.sequence_bits = 14\n");
$registry->stop;
my $log_offset = -s $relayout->logfile;
$relayout->start;
ok($relayout->wait_for_log(qr/snowflake node ID $ids[1] was leased for another ID layout; this server generates no IDs/, $log_offset),
	'a holder restarted with another layout, the registry down, says that its lease is for the old one');
my ($rc, $out, $err) = $relayout->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/The lease of node ID $ids[1] was claimed with the ID layout 1735689600000\/10\/12, and this server runs 1735689600000\/8\/14/,
	'and generates no ID');
# The registry back changes nothing: a restart uses the saved lease without
# asking the registry (1.6 asked it, and logged a second refusal "for the
# run" once it answered; gone with claim-once).  Its peer checker reading
# the registry again shows that the registry answers this server.
$registry->start;
ok($relayout->poll_query_until('postgres',
		"SELECT count(*) FILTER (WHERE status LIKE '%could not read the registry%') = 0"
		  . " AND count(*) FILTER (WHERE peer LIKE 'host=127.0.0.1 port=% dbname=postgres') > 0"
		  . " FROM snowflake_peers()"),
	'the registry back, the holder reads its list of holders again')
  or diag($relayout->safe_psql('postgres', 'SELECT peer, reachable, status FROM snowflake_peers()'));
($rc, $out, $err) = $relayout->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/The lease of node ID $ids[1] was claimed with the ID layout 1735689600000\/10\/12, and this server runs 1735689600000\/8\/14/,
	'and still generates no ID');

$_->stop for ($manual50, $other_layout, $relayout, $registry);
done_testing();
