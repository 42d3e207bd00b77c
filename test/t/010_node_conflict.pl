# Two servers given the same node ID, the first listing both, under
# claim-then-ask (doc/protocol.md; the rule itself, and servers started
# together, are test/t/027_conflict_rule.pl's):
#  - the first starts while the second is down (its connection refused)
#    and generates;
#  - the second starts listing only a peer that never answers: it claims
#    the node ID and waits; the first sees the claim, goes on, and warns
#    once, not at every check;
#  - the second's list corrected by a reload, it finds the first
#    generating and steps back: an error that names the peer and says what
#    to do, snowflake_status(), snowflake_peers() and the log show it;
#  - "warn" lets the second generate anyway, and then the first, which
#    refuses, steps back from it;
#  - neither a reload nor a listed peer that never answers lifts the
#    first's conflict; a complete round that finds the second with a
#    distinct node ID does, and the first generates again;
#  - another ID layout conflicts too, with an error that names the
#    layouts; a standby sharing its primary's node ID does not.
# The same checks measure the peers' clock skew.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeFakePeer;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

my $a = PostgreSQL::Test::Cluster->new('node_a');
my $b = PostgreSQL::Test::Cluster->new('node_b');
my $a_conn = $a->connstr . ' dbname=postgres';
my $b_conn = $b->connstr . ' dbname=postgres';
my $a_name = 'host=' . $a->host . ' port=' . $a->port . ' dbname=postgres';
my $b_name = 'host=' . $b->host . ' port=' . $b->port . ' dbname=postgres';
my $silent = SnowflakeFakePeer->new(PostgreSQL::Test::Utils::tempdir() . '/silent');
$silent->set(attack => 'startup:hang');
my $silent_conn = $silent->connstr;
my $silent_name = 'host=127.0.0.1 port=' . $silent->port . ' dbname=postgres';

$a->init(allows_streaming => 1);
$a->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 5
snowflake.peers = '"$a_conn", "$b_conn"'
snowflake.peer_check_interval = '500ms'
snowflake.peer_timeout = '1s'
});
$b->init;
$b->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 5
snowflake.peers = '"$silent_conn"'
snowflake.peer_check_interval = '500ms'
snowflake.peer_timeout = '1s'
});

sub status_of
{
	my ($node, $name) = @_;
	return $node->safe_psql('postgres', "SELECT status FROM snowflake_peers() WHERE peer = '$name'");
}

sub problem_of
{
	my ($node) = @_;
	return $node->safe_psql('postgres', 'SELECT problem FROM snowflake_status()');
}


sub claim_state
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		q{SELECT CASE WHEN claiming THEN 'claiming' WHEN admitted THEN 'admitted' ELSE 'neither' END FROM snowflake_node_info()});
}

# A, alone: B's connection is refused, A itself answers
$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$a->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'A did not open its gate: ' . status_of($a, $b_name);
like(status_of($a, $b_name), qr/^refused: /, 'a peer that is down refuses the connection');
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't',
	'and holds no gate: the first server generates');
is(claim_state($a), 'admitted', 'snowflake_node_info() says it is admitted');

# B starts later, with its clock 3 s ahead of A's, listing only a peer
# that never answers: it claims node ID 5 and waits
start_with_faketime($b, '+3');
$b->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$a->poll_query_until('postgres',
	"SELECT status = 'conflict: same node ID 5, claiming it, which this server generates with' FROM snowflake_peers() WHERE peer = '$b_name'")
  or die 'A did not see B claim: ' . status_of($a, $b_name);
pass('the server that generates sees the other claim its node ID');
is(claim_state($b), 'claiming', 'which claims it');
is(problem_of($b), 'waiting for every peer to answer', 'and waits');
ok($a->log_contains(qr/WARNING:  snowflake peer "\Q$b_name\E" conflicts with this server \(conflict: same node ID 5, claiming it, which this server generates with\)/),
	'the first warns in its log');
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't', 'and goes on generating');
wait_for_peer_rounds($a, 1);
wait_for_peer_rounds($a, 1);
my $warnings = () = slurp_file($a->logfile) =~ /WARNING:  snowflake peer .* conflicts with this server/g;
is($warnings, 1, 'once, not at every check');

# B's list corrected: it finds A generating and steps back
$b->append_conf('postgresql.conf', qq{snowflake.peers = '"$a_conn"'\n});
$b->reload;
$b->poll_query_until('postgres', q{SELECT problem LIKE 'node ID conflict:%' FROM snowflake_status()})
  or die 'conflict not detected: ' . problem_of($b);
pass('the second server detects that its node ID is used');
my ($ret, $out, $err) = $b->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'it refuses to generate, with a clear error');
like($err, qr/DETAIL:  The conflict: peer "\Q$a_name\E" \(conflict: same node ID 5, generating\)\. Of two servers with one node ID, the one that generates goes on/,
	'naming the peer');
like($err, qr/HINT:  Give every server its own "snowflake.node_id"/, 'and saying what to do');
ok($b->log_contains('snowflake node ID 5 conflicts with peer'), 'it logs the conflict');
is(claim_state($b), 'neither', 'it neither claims nor generates');

$a->poll_query_until('postgres',
	"SELECT status = 'ok: node 5, stepped back' FROM snowflake_peers() WHERE peer = '$b_name'")
  or die 'A did not see B step back: ' . status_of($a, $b_name);
pass('the first server sees it step back');
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't',
	'and keeps generating');
is($a->safe_psql('postgres', q{SELECT count(*) FROM snowflake_peers() WHERE reachable AND checked_at IS NOT NULL AND round_trip_ms >= 0}),
	'2', 'snowflake_peers() lists both entries of A\'s list, checked and reachable');
is($a->safe_psql('postgres', q{SELECT count(*) FROM snowflake_peers() WHERE status = 'this server'}),
	'1', 'a server finding itself in the list skips itself');

# clock skew, measured both ways: B is 3 s ahead, within the measurement's
# own bound, half the round trip (plus the clocks' millisecond rounding)
is($a->safe_psql('postgres',
		"SELECT abs(clock_skew_ms - 3000) <= round_trip_ms / 2 + 2 FROM snowflake_peers() WHERE peer = '$b_name'"),
	't', 'A measures B\'s clock 3 s ahead, within half the round trip');
is($b->safe_psql('postgres',
		'SELECT abs(clock_skew_ms + 3000) <= round_trip_ms / 2 + 2 FROM snowflake_peers()'),
	't', 'B measures A\'s clock 3 s behind');

# "warn": B generates anyway; A, which refuses, steps back from it
$b->append_conf('postgresql.conf', "snowflake.node_conflict = warn\n");
$b->reload;
$b->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'warn mode not applied: ' . problem_of($b);
is($b->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't',
	'with snowflake.node_conflict = warn the second server generates');
$a->poll_query_until('postgres', qq{
	SELECT problem = 'node ID conflict: peer "$b_name" (conflict: same node ID 5, generating)' FROM snowflake_status()})
  or die 'A did not step back: ' . problem_of($a);
($ret, $out, $err) = $a->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/snowflake node ID 5 is also used by another server/,
	'and the first, which refuses, steps back from it');

# neither a reload nor a peer that never answers lifts A's conflict: B's
# entry replaced by the silent peer, as B would look cut off by the network
$a->append_conf('postgresql.conf', qq{snowflake.peers = '"$a_conn", "$silent_conn"'\n});
$a->reload;
$a->poll_query_until('postgres',
	"SELECT status LIKE 'hanging: %' FROM snowflake_peers() WHERE peer = '$silent_name'")
  or die 'A did not find the silent peer hanging';
wait_for_peer_rounds($a, 1);
like(problem_of($a), qr/^node ID conflict: /,
	'the conflict outlives a reload, and rounds in which a peer never answered');
($ret, $out, $err) = $a->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/snowflake node ID 5 is also used by another server/, 'and A still refuses');

# a distinct node ID resolves it: B restarted as node 6, A's list back
$b->stop;
$b->append_conf('postgresql.conf', "snowflake.node_id = 6\nsnowflake.node_conflict = refuse\n");
start_with_faketime($b, '+3');
my $offset = -s $a->logfile;
$a->append_conf('postgresql.conf', qq{snowflake.peers = '"$a_conn", "$b_conn"'\n});
$a->reload;
$a->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'A did not resolve the conflict: ' . problem_of($a);
is(status_of($a, $b_name), 'ok: node 6', 'A finds B with node ID 6');
ok($a->log_contains(qr/LOG:  snowflake node ID conflict resolved/, $offset),
	'and logs that the conflict is resolved');
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't', 'A generates again');
$b->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'B did not open its gate: ' . problem_of($b);
is($b->safe_psql('postgres', 'SELECT snowflake_node_id(snowflake_nextval())'), '6',
	'with its own node ID, the second server generates, as node 6');

# a server with another ID layout conflicts whatever its node ID: the
# fields of its IDs overlap ours
my $c = snowflake_node('node_c', conf => qq{
snowflake.node_id = 7
snowflake.node_bits = 8
snowflake.peers = '"$a_conn"'
snowflake.peer_check_interval = '500ms'
});
$c->start;
$c->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$c->poll_query_until('postgres',
	q{SELECT problem LIKE 'ID layout conflict:%' FROM snowflake_status()})
  or die 'layout conflict not detected';
is($c->safe_psql('postgres', 'SELECT status FROM snowflake_peers()'),
	'conflict: different ID layout, generating',
	'a server with another layout, started while one generates, steps back');
# the error names the layouts, not the node ID, which is not what differs
($ret, $out, $err) = $c->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  another server generates snowflake IDs with a different ID layout\n.*DETAIL:  The conflict: peer .* \(conflict: different ID layout, generating\)\. IDs of two layouts overlap.*\n.*HINT:  Give every server that generates IDs the same "snowflake.epoch", "snowflake.node_bits" and "snowflake.sequence_bits"/s,
	'and says that the layouts differ');
$c->stop;

# a standby shares its primary's node ID, and that is no conflict, seen
# from either side
$a->backup('bk');
my $s = PostgreSQL::Test::Cluster->new('standby_a');
$s->init_from_backup($a, 'bk', has_streaming => 1);
$s->start;
$s->poll_query_until('postgres',
	"SELECT status = 'ok: node 5' FROM snowflake_peers() WHERE peer = '$a_name'")
  or die 'the standby did not check its primary';
pass('the standby sees its primary with the same node ID as no conflict');
my $s_conn = $s->connstr . ' dbname=postgres';
$a->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"$a_conn", "$b_conn", "$s_conn"'});
$a->reload;
$a->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM snowflake_peers() WHERE status = 'ok: node 5, standby' AND in_recovery})
  or die 'the primary did not check its standby';
is($a->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'and the primary sees its standby as no conflict');
$s->stop;

$a->stop;
$b->stop;
$silent->stop;
done_testing();
