# Of two servers with one node ID, the one that began generating IDs later
# yields, whenever each started: B starts first and generates nothing, A
# starts later and generates, then B generates too, and B yields.  The
# case that matters: a primary restarted (so started last) keeps
# generating when a standby that has been up longer is promoted by
# mistake; the promoted one yields.  A peer whose SQL objects are still
# version 1.5 answers snowflake_node_info() with 8 columns and is judged
# by its start time; after ALTER EXTENSION ... UPDATE it answers 9.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $a = PostgreSQL::Test::Cluster->new('rule_a');
my $b = PostgreSQL::Test::Cluster->new('rule_b');
my $a_conn = $a->connstr . ' dbname=postgres';
my $b_conn = $b->connstr . ' dbname=postgres';
for my $t ([ $a, $b_conn ], [ $b, $a_conn ])
{
	my ($node, $peer) = @$t;
	$node->init;
	# "warn" lets the one that yields generate anyway, as a second server
	# that began later would have before the checker noticed
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 5
snowflake.node_conflict = warn
snowflake.peers = '"$peer"'
snowflake.peer_check_interval = '200ms'
});
}

sub started_at
{
	my ($node) = @_;
	return $node->safe_psql('postgres', 'SELECT started_at_ms FROM snowflake_node_info()');
}

sub status_of_peer
{
	my ($node) = @_;
	return $node->safe_psql('postgres', 'SELECT status FROM snowflake_peers()');
}

# B first, then A
$b->start;
$b->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is($b->safe_psql('postgres', 'SELECT generating_since_ms IS NULL FROM snowflake_node_info()'),
	't', 'a server that has not generated says so');

# A generates: B, which has not, yields to it
$a->safe_psql('postgres', 'SELECT snowflake_nextval()');
my $a_since = $a->safe_psql('postgres', 'SELECT generating_since_ms FROM snowflake_node_info()');
like($a_since, qr/^\d+$/, 'a server that generated tells since when');
$b->poll_query_until('postgres',
	q{SELECT status = 'conflict: same node ID 5, generating, this server not yet' FROM snowflake_peers()})
  or die 'B did not see A generating';
$a->poll_query_until('postgres',
	q{SELECT status = 'conflict: same node ID 5, not generating yet' FROM snowflake_peers()})
  or die 'A did not see B idle';
pass('a server that has not generated yields to one that has, though it started first');

# B generates later than A did (its clock is past A's first reservation)
$b->poll_query_until('postgres', qq{SELECT clock_ms > $a_since FROM snowflake_node_info()})
  or die 'B\'s clock did not pass A\'s';
$b->safe_psql('postgres', 'SELECT snowflake_nextval()');

# both refuse from now on: B, which began later, stops; A goes on
for my $node ($a, $b)
{
	$node->append_conf('postgresql.conf', "snowflake.node_conflict = refuse\n");
	$node->reload;
}
$b->poll_query_until('postgres', q{
	SELECT s.status = 'conflict: same node ID 5, began generating earlier'
	   AND st.problem LIKE 'node ID conflict: %'
	  FROM snowflake_peers() s, snowflake_status() st})
  or die 'B did not yield: ' . status_of_peer($b);
my ($ret, $out, $err) = $b->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'B, started first but generating later, stops generating');
$a->poll_query_until('postgres',
	q{SELECT status = 'conflict: same node ID 5, began generating later' FROM snowflake_peers()})
  or die 'A did not see B generating: ' . status_of_peer($a);
is($a->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'A, started later but generating first, goes on');
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't', 'and generates');
cmp_ok(started_at($a), '>', started_at($b), '(A did start after B)');

# --- a peer whose SQL is version 1.5 ---------------------------------------------------
# the library fills the 8 columns of the 1.5 declaration; the checker
# takes the peer to generate since its start, which is after A began
my $c = snowflake_node('rule_c', conf => "snowflake.node_id = 5\n");
$c->start;
$c->safe_psql('postgres', q{CREATE EXTENSION snowflake VERSION '1.5'});
is($c->safe_psql('postgres',
		'SELECT count(*) FROM snowflake_node_info() i, json_object_keys(row_to_json(i))'),
	'8', 'under the 1.5 SQL, snowflake_node_info() has its 8 columns');
my $c_conn = $c->connstr . ' dbname=postgres';
$a->append_conf('postgresql.conf', qq{snowflake.peers = '"$b_conn", "$c_conn"'\n});
$a->reload;
$a->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM snowflake_peers()
	 WHERE status = 'conflict: same node ID 5, began generating later (by its start time)'})
  or die 'A did not judge the 1.5 peer by its start time';
is($a->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'a 1.5 peer started after this server began generating yields to it');

$c->safe_psql('postgres', 'ALTER EXTENSION snowflake UPDATE');
is($c->safe_psql('postgres',
		'SELECT count(*) FROM snowflake_node_info() i, json_object_keys(row_to_json(i))'),
	'10', 'after ALTER EXTENSION ... UPDATE it has 10');
$a->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM snowflake_peers()
	 WHERE status = 'conflict: same node ID 5, not generating yet'})
  or die 'A did not read the updated peer';
pass('and the checker reads its generating_since_ms (NULL: not generating)');
$_->stop for ($a, $b, $c);

# --- a primary restarted, a standby promoted by mistake ---------------------------------
my $p = PostgreSQL::Test::Cluster->new('rule_primary');
my $s = PostgreSQL::Test::Cluster->new('rule_standby');
my $p_conn = $p->connstr . ' dbname=postgres';
my $s_conn = $s->connstr . ' dbname=postgres';
$p->init(allows_streaming => 1);
$p->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 9
snowflake.peers = '"$s_conn"'
snowflake.peer_check_interval = '200ms'
});
$p->start;
$p->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$p->safe_psql('postgres', 'SELECT snowflake_nextval()');
$p->backup('bk');
$s->init_from_backup($p, 'bk', has_streaming => 1);
$s->append_conf('postgresql.conf', qq{snowflake.peers = '"$p_conn"'\n});
$s->start;
$s->poll_query_until('postgres',
	q{SELECT status = 'ok: node 9' FROM snowflake_peers()})
  or die 'the standby did not check its primary';

# the primary restarts: it is now the one started last, and generates
$p->restart;
$p->safe_psql('postgres', 'SELECT snowflake_nextval()');
$p->poll_query_until('postgres',
	q{SELECT status = 'ok: node 9, standby' FROM snowflake_peers()})
  or die 'the primary did not check its standby';

# the standby is promoted while the primary runs
$s->promote;
$s->poll_query_until('postgres',
	q{SELECT problem LIKE 'node ID conflict: peer % (conflict: same node ID 9, generating, this server not yet)' FROM snowflake_status()})
  or die 'the promoted standby did not yield: ' . status_of_peer($s);
($ret, $out, $err) = $s->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  snowflake node ID 9 is also used by another server/,
	'a standby promoted by mistake, up longer than its restarted primary, does not generate');
$p->poll_query_until('postgres',
	q{SELECT status = 'conflict: same node ID 9, not generating yet' FROM snowflake_peers()})
  or die 'the primary did not see the promoted standby';
is($p->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'the restarted primary goes on generating');
is($p->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't', 'and generates');
cmp_ok(started_at($p), '>', started_at($s), '(the primary did start after the standby)');

$s->stop;
$p->stop;
done_testing();
