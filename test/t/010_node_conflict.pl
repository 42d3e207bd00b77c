# Two servers given the same node ID, each listing the other in
# snowflake.peers: neither generating yet, the one started later stops
# generating within seconds, says why, and snowflake_status() and
# snowflake_peers() show it (test/t/027_conflict_rule.pl: once they
# generate, the one that began later stops); "warn"
# only logs; a distinct node ID resolves it; an unreachable peer or a
# reload does not; another ID layout conflicts too; a standby sharing its
# primary's node ID does not.  The same checks measure the peers' clock
# skew.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

my $a = PostgreSQL::Test::Cluster->new('node_a');
my $b = PostgreSQL::Test::Cluster->new('node_b');
my $a_conn = $a->connstr . ' dbname=postgres';
my $b_conn = $b->connstr . ' dbname=postgres';

$a->init(allows_streaming => 1);
$a->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 5
snowflake.peers = '"$a_conn", "$b_conn"'
snowflake.peer_check_interval = '500ms'
});
$b->init;
$b->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 5
snowflake.peers = '"$a_conn"'
snowflake.peer_check_interval = '500ms'
});

$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
# B starts later, with its clock 3 s ahead of A's
sleep 1;
start_with_faketime($b, '+3');
$b->safe_psql('postgres', 'CREATE EXTENSION snowflake');

$b->poll_query_until('postgres',
	q{SELECT problem LIKE 'node ID conflict:%' FROM snowflake_status()})
  or die 'conflict not detected';
pass('the later server detects that its node ID is taken');

my ($ret, $out, $err) = $b->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'it refuses to generate, with a clear error');
like($err, qr/DETAIL:  The conflict: peer "host=\S+ port=\d+ dbname=postgres" \(conflict: same node ID 5, started earlier\)/,
	'naming the peer');
like($err, qr/HINT:  Give every server its own "snowflake.node_id"/, 'and saying what to do');
ok($b->log_contains('snowflake node ID 5 conflicts with peer'), 'it logs the conflict');

is($a->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't',
	'the server started first keeps generating');
# (A generates now, B does not)
$a->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM snowflake_peers() WHERE status = 'conflict: same node ID 5, not generating yet'})
  or die 'A did not see the conflict';
pass('and its snowflake_peers() shows the conflict too');
ok($a->log_contains('WARNING:  snowflake peer .* conflicts with this server'), 'and warns in its log');
my $later = $a->safe_psql('postgres', q{SELECT clock_timestamp() + interval '1.1 s'});
$a->poll_query_until('postgres', qq{SELECT min(checked_at) > '$later' FROM snowflake_peers()})
  or die 'A did not check again';
my $warnings = () = slurp_file($a->logfile) =~ /WARNING:  snowflake peer .* conflicts with this server/g;
is($warnings, 1, 'once, not at every check');
is($a->safe_psql('postgres', q{SELECT count(*) FROM snowflake_peers() WHERE reachable AND checked_at IS NOT NULL AND round_trip_ms >= 0}),
	'2', 'snowflake_peers() lists both entries of A\'s list, checked and reachable');
is($a->safe_psql('postgres', q{SELECT count(*) FROM snowflake_peers() WHERE status = 'this server'}),
	'1', 'a server finding itself in the list skips itself');

# clock skew, measured both ways: B is 3 s ahead, within the measurement's
# own bound, half the round trip (plus the clocks' millisecond rounding)
is($a->safe_psql('postgres',
		q{SELECT abs(clock_skew_ms - 3000) <= round_trip_ms / 2 + 2 FROM snowflake_peers() WHERE status LIKE 'conflict%'}),
	't', 'A measures B\'s clock 3 s ahead, within half the round trip');
is($b->safe_psql('postgres',
		'SELECT abs(clock_skew_ms + 3000) <= round_trip_ms / 2 + 2 FROM snowflake_peers()'),
	't', 'B measures A\'s clock 3 s behind');

# "warn" only logs
$b->append_conf('postgresql.conf', "snowflake.node_conflict = warn");
$b->reload;
$b->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'warn mode not applied';
is($b->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't',
	'with snowflake.node_conflict = warn the later server keeps generating');

# neither losing sight of the peer nor reloading the peer list lifts the
# conflict: B stays refused while A is down
$a->stop;
$b->append_conf('postgresql.conf', "snowflake.node_conflict = refuse");
$b->reload;
$b->poll_query_until('postgres',
	q{SELECT bool_and(NOT reachable AND status LIKE 'unreachable: %') FROM snowflake_peers()})
  or die 'B did not notice that A is down';
pass('a peer that is down is reported unreachable');
my $seen = $b->safe_psql('postgres', 'SELECT clock_timestamp()');
$b->poll_query_until('postgres', qq{SELECT checked_at > '$seen' FROM snowflake_peers()})
  or die 'B did not check again';
is($b->safe_psql('postgres', q{SELECT problem LIKE 'node ID conflict:%' FROM snowflake_status()}),
	't', 'the conflict outlives a reload while the peer is unreachable');
($ret, $out, $err) = $b->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/snowflake node ID 5 is also used by another server/, 'and B still refuses');

# A comes back: it has not generated since its start, B generated (in
# "warn" mode), so A yields and B's conflict is over
my $offset = -s $b->logfile;
$a->start;
$b->wait_for_log(qr/LOG:  snowflake node ID conflict resolved/, $offset);
pass('B logs that the conflict is resolved once A is back and not generating');
$a->poll_query_until('postgres',
	q{SELECT problem LIKE 'node ID conflict:%generating, this server not yet)' FROM snowflake_status()})
  or die 'A did not yield';
pass('and A, not generating since its restart, yields');
is($b->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't', 'B generates again');

# a distinct node ID resolves it
$b->stop;
$b->append_conf('postgresql.conf', "snowflake.node_id = 6\nsnowflake.node_conflict = refuse");
start_with_faketime($b, '+3');
$a->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM snowflake_peers() WHERE status = 'ok: node 6'})
  or die 'A did not see node 6';
$a->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'A did not resolve the conflict';
pass('A resolves the conflict once B has node 6');
is($b->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'with its own node ID, the second server generates');
is($b->safe_psql('postgres', 'SELECT snowflake_node_id(snowflake_nextval())'), '6',
	'as node 6');

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
	'conflict: different ID layout, started earlier',
	'a server with another layout, started later, stops generating');
# the error names the layouts, not the node ID, which is not what differs
($ret, $out, $err) = $c->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  another server generates snowflake IDs with a different ID layout\n.*DETAIL:  The conflict: peer .* \(conflict: different ID layout, started earlier\)\. IDs of two layouts overlap.*\n.*HINT:  Give every server that generates IDs the same "snowflake.epoch", "snowflake.node_bits" and "snowflake.sequence_bits"/s,
	'and says that the layouts differ');
$c->stop;

# a standby shares its primary's node ID, and that is no conflict, seen
# from either side
$a->backup('bk');
my $s = PostgreSQL::Test::Cluster->new('standby_a');
$s->init_from_backup($a, 'bk', has_streaming => 1);
$s->start;
$s->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM snowflake_peers() WHERE status = 'ok: node 5'})
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
done_testing();
