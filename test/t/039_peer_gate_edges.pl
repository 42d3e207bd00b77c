# Two edges of the peers' gate that the protocol review and the committer
# review of the 1.7 peer checker found on real servers, each a duplicate of
# IDs in a draft of it, kept here as checks that fail without their fix:
#
#	1. A standby started with an empty snowflake.peers, whose list a
#	   reload sets before it is promoted while its primary still
#	   generates: the gate must be closed for a server that starts as a
#	   standby, whatever its list says then (gate-at-start), and no reload
#	   may open it.  Without the fix (the gate closed at start only when
#	   peers are listed then) the promoted standby is admitted at once and
#	   check 1 finds its first ID handed out (the review counted 12,104 IDs
#	   in common with the primary).
#	2. A peer listed at two addresses, the first of which refuses and the
#	   second answers 57P03 (a smart shutdown whose open session still
#	   generates): a refusal counts only when every address libpq tried
#	   refused (gate-all-answered).  Without the fix (a refusal found
#	   anywhere in libpq's message) check 2 finds the restarted server
#	   generating (the reviews counted up to 57,655 IDs in common).
#
# Nothing here depends on the speed of the machine: each server is polled
# until it reaches the state a check is about, with the test timeout.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

sub conn_of
{
	my ($node, $host) = @_;
	return "host=" . ($host // $node->host) . " port=" . $node->port . " dbname=postgres";
}

# --- 1. a standby listed peers by a reload, then promoted -------------------
my $primary = snowflake_node('edge_primary', init => { allows_streaming => 1 },
	conf => "snowflake.node_id = 3\n");
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('edge_standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);

# the primary lists its standby; the standby lists nobody yet
$primary->append_conf('postgresql.conf',
	"snowflake.peers = '\"" . conn_of($standby) . "\"'\n");
$primary->reload;
$primary->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM snowflake_peers() WHERE status LIKE 'ok: node 3, standby%'})
  or die 'the primary did not see its standby';
is($primary->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't',
	'the primary generates');

my (undef, undef, $standby_err) = $standby->psql('postgres', 'SELECT snowflake_nextval()',
	extra_params => ['-v', 'VERBOSITY=verbose']);
like($standby_err, qr/ERROR:  25006: cannot generate snowflake IDs during recovery/,
	'a standby generates nothing, with its own error (25006), although its gate is closed');

# a reload lists the primary on the standby; then the promotion
$standby->append_conf('postgresql.conf',
	"snowflake.peers = '\"" . conn_of($primary) . "\"'\n");
$standby->reload;
$standby->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM snowflake_peers() WHERE status LIKE 'ok: node 3%'})
  or die 'the standby did not check its listed primary';
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby was not promoted';

# check 1: the promoted standby claims, finds the primary admitted, and
# steps back; it never hands out an ID while the primary generates
my ($ret, $out, $err) = $standby->psql('postgres',
	'SELECT claiming OR NOT admitted FROM snowflake_node_info()');
is($out, 't', 'check 1: the promoted standby is not admitted at its promotion');
$standby->poll_query_until('postgres',
	q{SELECT problem LIKE 'node ID conflict: %same node ID 3, generating%' FROM snowflake_status()})
  or die 'the promoted standby did not step back';
($ret, $out, $err) = $standby->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/snowflake node ID 3 is also used by another server/,
	'check 1: it steps back from the primary, which generates');
is($primary->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't',
	'and the primary goes on');
$standby->stop;
$primary->stop;

# --- 2. a peer at two addresses: one refuses, one answers 57P03 --------------
# B listens on 127.0.0.1 only; 127.0.0.2 (loopback too) refuses at B's port
my $b = snowflake_node('edge_b', conf => "snowflake.node_id = 4\nlisten_addresses = '127.0.0.1'\n");
$b->start;
$b->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is($b->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't', 'B generates');

# a session of B that stays open through B's smart shutdown, and generates
my $session = $b->background_psql('postgres');
$session->query_safe('SELECT snowflake_nextval()');

my $a = snowflake_node('edge_a', conf => "snowflake.node_id = 4\n"
	  . "snowflake.peers = '\"host=127.0.0.2,127.0.0.1 port=" . $b->port . " dbname=postgres\"'\n"
	  . "snowflake.peer_check_interval = '200ms'\n");

# B's smart shutdown: it waits for the session, refusing new connections
my $stopper = IPC::Run::start(['pg_ctl', '-D', $b->data_dir, '-m', 'smart', '-w', '-t', '600', 'stop'],
	'>', \my $stop_out, '2>', \my $stop_err);
my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
my $refusing = 0;
while (time < $deadline)
{
	my (undef, undef, $e) = $b->psql('postgres', 'SELECT 1');
	if ($e =~ /shutting down/) { $refusing = 1; last; }
	select(undef, undef, undef, 0.1);
}
ok($refusing, 'B is in a smart shutdown: it answers new connections with 57P03');
$session->query_safe('SELECT snowflake_nextval()');

$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
# wait for a round that asked B at both addresses
$a->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM snowflake_peers() WHERE checked_at IS NOT NULL})
  or die 'A did not check B';
# and a round begun after A claimed (200 ms each) while B's session generates
my $t0 = $a->safe_psql('postgres', 'SELECT clock_timestamp()');
$a->poll_query_until('postgres',
	qq{SELECT checked_at > '$t0' FROM snowflake_peers()})
  or die 'A checked no more';
$session->query_safe('SELECT snowflake_nextval()');
($ret, $out, $err) = $a->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/snowflake ID generation waits for the peers/,
	'check 2: a peer that refuses at one address and answers 57P03 at the other holds the gate');
is($a->safe_psql('postgres',
		q{SELECT status NOT LIKE 'refused:%' FROM snowflake_peers()}), 't',
	'and is not shown as refused');

# B's last session ends, B is down: both addresses refuse; A generates
$session->quit;
$stopper->finish;
$b->_update_pid(0);		# stopped outside the Cluster object
$a->poll_query_until('postgres',
	q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'A did not open its gate once B was down';
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't',
	'once B is down at both addresses, A generates');
$a->stop;

done_testing();
