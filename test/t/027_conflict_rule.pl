# Claim-then-ask (doc/protocol.md, "The rules"): of two servers with one
# node ID, the one that generates goes on and the other steps back; a
# server that lists peers generates its first ID only after a round,
# begun while it claimed its node ID, in which every peer answered or
# refused the connection and none claimed or used its node ID.
#
#  1. Two servers with node ID 5 started together, each listing the other
#     and a fake peer that accepts connections and never answers.  Both
#     claim; the one with the larger instance token steps back; the silent
#     peer holds the other's gate.  Once a reload takes the silent peer off
#     both lists, exactly one generates, while a client on each server
#     asks for IDs all along: the other hands out none.
#  2. The one that generates stops (its socket is gone: refused): the
#     other opens its gate and generates, every ID above the first's.
#  3. The stopped one starts again: it finds the other generating and
#     steps back, with the conflict error; the other goes on.
#  4. The one generating is killed with kill -9 (its socket file stays:
#     "Connection refused"): a peer that is down hard holds no gate.
#  5. A peer whose SQL is still version 1.6 does not say whether it
#     claims: as a primary with a node ID it is taken to generate.
#  6. Entries that hold the gate although libpq's message mentions a
#     refusal: two hosts, the first refusing, the second answering with an
#     error; a server whose error ends like a missing socket file's.  A
#     reload that empties snowflake.peers opens the gate.
#  7. The server's standby, promoted while it generates, steps back.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeFakePeer;
use SnowflakeTest;
use Test::More;

my $a = PostgreSQL::Test::Cluster->new('rule_a');
my $b = PostgreSQL::Test::Cluster->new('rule_b');
my $silent = SnowflakeFakePeer->new(PostgreSQL::Test::Utils::tempdir() . '/silent');
$silent->set(attack => 'startup:hang');
my $silent_conn = $silent->connstr;
my $silent_name = 'host=127.0.0.1 port=' . $silent->port . ' dbname=postgres';

sub conn_of { return $_[0]->connstr . ' dbname=postgres'; }
sub name_of { return 'host=' . $_[0]->host . ' port=' . $_[0]->port . ' dbname=postgres'; }

# the status that $node's last round gave the peer named $name
sub status_of
{
	my ($node, $name) = @_;
	return $node->safe_psql('postgres', "SELECT status FROM snowflake_peers() WHERE peer = '$name'");
}


sub nextval_error
{
	my ($node) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
	return $ret == 0 ? 'generated' : $err;
}

# claiming, admitted, as the server says it to its peers
sub claim_state
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		q{SELECT CASE WHEN claiming THEN 'claiming' WHEN admitted THEN 'admitted' ELSE 'neither' END FROM snowflake_node_info()});
}

for my $t ([ $a, $b ], [ $b, $a ])
{
	my ($node, $peer) = @$t;
	$node->init;
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 5
snowflake.peers = '"} . conn_of($peer) . qq{", "$silent_conn"'
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '2s'
});
}

# --- 1. two servers started together ---------------------------------------------------
$a->start;
$b->start;
for my $node ($a, $b)
{
	# a client that asks for an ID at every turn until told to stop,
	# counting its attempts and keeping the IDs it got; the sleep only
	# limits its rate
	$node->safe_psql('postgres', q{
		CREATE EXTENSION snowflake;
		CREATE TABLE ids (id bigint PRIMARY KEY);
		CREATE TABLE loader (stop boolean NOT NULL, attempts bigint NOT NULL);
		INSERT INTO loader VALUES (false, 0);
		CREATE PROCEDURE load() LANGUAGE plpgsql AS $$
		BEGIN
			LOOP
				BEGIN
					INSERT INTO ids VALUES (snowflake_nextval());
				EXCEPTION WHEN object_not_in_prerequisite_state THEN
					NULL;
				END;
				UPDATE loader SET attempts = attempts + 1;
				COMMIT;
				EXIT WHEN (SELECT stop FROM loader);
				PERFORM pg_sleep(0.001);
			END LOOP;
		END $$;
	});
}
my ($token_a, $token_b) = map { $_->safe_psql('postgres', 'SELECT instance_token FROM snowflake_node_info()') } ($a, $b);
my $a_first = $a->safe_psql('postgres', "SELECT ${token_a}::bigint < ${token_b}::bigint") eq 't';
my ($w, $l) = $a_first ? ($a, $b) : ($b, $a);    # the one that generates, the one that steps back

for my $node ($a, $b)
{
	$node->poll_query_until('postgres',
		"SELECT status LIKE 'hanging: %' FROM snowflake_peers() WHERE peer = '$silent_name'")
	  or die $node->name . ' did not find the silent peer hanging';
}
# the larger instance token steps back: a round saw the other claim too.
# Without that order (yield), or with claims hidden from the peers
# (claim-then-ask), neither steps back and this poll times out; with a
# hung peer counted (gate-all-answered), one opens its gate at once and
# the other steps back from it as from a server that generates.
$l->poll_query_until('postgres', q{
	SELECT problem = 'node ID conflict: peer "} . name_of($w) . q{" (conflict: same node ID 5, claiming it too, first by instance token)'
	  FROM snowflake_status()})
  or die 'the server with the larger instance token did not step back: '
  . $l->safe_psql('postgres', 'SELECT problem FROM snowflake_status()');
pass('of two servers that claim one node ID, the one with the larger instance token steps back');
is(claim_state($l), 'neither', 'it neither claims nor generates');
like(nextval_error($l), qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'and refuses to generate with the conflict error');

# the other claims on, held by the silent peer: a round counts only if
# every peer answered or refused (gate-all-answered), and this one found
# the other stepped back and nothing else in the way
$w->poll_query_until('postgres', "SELECT status = 'ok: node 5, stepped back' FROM snowflake_peers() WHERE peer = '" . name_of($l) . "'")
  or die 'the other did not see it step back: ' . status_of($w, name_of($l));
wait_for_peer_rounds($w, 1);
like(status_of($w, $silent_name), qr/^hanging: /,
	'the other finds the silent peer hanging at every round');
is(claim_state($w), 'claiming', 'and claims the node ID');
is($w->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'), 'waiting for every peer to answer',
	'snowflake_status() says what it waits for');
like(nextval_error($w), qr/ERROR:  snowflake ID generation waits for the peers\n.*DETAIL:  "snowflake.peers" lists other servers; this server generates no ID before every one of them has answered, or refused the connection, and none uses its node ID\./s,
	'a peer that accepts connections and never answers holds the gate');
is(sqlstate_of($w, 'SELECT snowflake_nextval()'), '55000', 'with SQLSTATE 55000');

# a client on each, then the silent peer off both lists
my %session;
for my $node ($a, $b)
{
	$session{ $node->name } = $node->background_psql('postgres');
	$session{ $node->name }->query_until(qr/loading/, "\\echo loading\nCALL load();\n");
}
for my $t ([ $a, $b ], [ $b, $a ])
{
	my ($node, $peer) = @$t;
	$node->append_conf('postgresql.conf', q{snowflake.peers = '"} . conn_of($peer) . qq{"'\n});
	$node->reload;
}
$w->poll_query_until('postgres', 'SELECT count(*) > 0 FROM ids')
  or die 'no server generates once the silent peer is off the lists';
pass('once a reload takes the silent peer off its list, the server generates');
my $l_attempts = $l->safe_psql('postgres', 'SELECT attempts FROM loader');
# the one that stepped back has since seen it generate, and stays back
my $seen = $l->safe_psql('postgres', 'SELECT clock_timestamp()');
$l->poll_query_until('postgres', qq{
	SELECT checked_at > '$seen' AND status = 'conflict: same node ID 5, generating'
	  FROM snowflake_peers()})
  or die 'the other did not see it generate: ' . status_of($l, name_of($w));
is(claim_state($w), 'admitted', 'snowflake_node_info() says that it is admitted');

# the one that generates stops (its client first): a clean stop removes
# its socket, so that its peer's connection is refused
$w->safe_psql('postgres', 'UPDATE loader SET stop = true');
$session{ $w->name }->quit;
my $w_max = $w->safe_psql('postgres', 'SELECT max(id) FROM ids');
is($l->safe_psql('postgres', "SELECT attempts > $l_attempts FROM loader"), 't',
	'the client of the other asked for IDs meanwhile');
# P1, the peer checker's promise: of two primaries with one node ID that
# check each other, never both hand out IDs at once.  This client asked
# all along, through the reload that let the other one generate
is($l->safe_psql('postgres', 'SELECT count(*) FROM ids'), '0',
	'and got none: of two servers started together, exactly one generates');

# --- 2. it stops: the other opens its gate ---------------------------------------------
# a refused connection counts as an answer (nothing runs there); were it
# counted as silence, the other would wait for ever and this poll time out
my $offset = -s $l->logfile;
$w->stop;
$l->poll_query_until('postgres', 'SELECT count(*) > 0 FROM ids')
  or die 'the other did not generate once the first stopped: ' . status_of($l, name_of($w));
pass('once the server that generates stops, the other opens its gate and generates');
like(status_of($l, name_of($w)), qr/^refused: /, 'its peer refused the connection');
ok($l->log_contains(qr/LOG:  snowflake node ID conflict resolved/, $offset),
	'and it logs that the conflict is resolved');
is($l->safe_psql('postgres', "SELECT min(id) > $w_max FROM ids"), 't',
	'the IDs of the two never interleave: every ID of the second is above every ID of the first');

# --- 3. the stopped one starts again: it steps back ------------------------------------
# (without yield, it would not step back but wait for the peers, its gate
# closed by the conflict: this poll times out)
my $l_count = $l->safe_psql('postgres', 'SELECT count(*) FROM ids');
$w->start;
$w->poll_query_until('postgres', q{
	SELECT problem = 'node ID conflict: peer "} . name_of($l) . q{" (conflict: same node ID 5, generating)' FROM snowflake_status()})
  or die 'the restarted server did not step back: ' . $w->safe_psql('postgres', 'SELECT problem FROM snowflake_status()');
like(nextval_error($w),
	qr/ERROR:  snowflake node ID 5 is also used by another server\n.*DETAIL:  The conflict: peer "\Q@{[name_of($l)]}\E" \(conflict: same node ID 5, generating\)\. Of two servers with one node ID, the one that generates goes on; the other waits until no peer claims or uses its node ID\./s,
	'a server started while another generates with its node ID steps back, naming the peer');
is(claim_state($w), 'neither', 'it neither claims nor generates');
is($w->safe_psql('postgres', 'SELECT last_id IS NULL FROM snowflake_node_info()'), 't',
	'its last_id is NULL: it issued IDs before its restart, none since');
$l->poll_query_until('postgres', "SELECT status = 'ok: node 5, stepped back' FROM snowflake_peers()")
  or die 'the server that generates did not see the other step back: ' . status_of($l, name_of($w));
$l->poll_query_until('postgres', "SELECT count(*) > $l_count FROM ids")
  or die 'the server that generates stopped';
is($l->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'the one that generates goes on');

# --- 4. the one that generates is killed: a peer down hard holds no gate ---------------
$l->safe_psql('postgres', 'UPDATE loader SET stop = true');
$session{ $l->name }->quit;
my $l_pid = $l->{_pid};
$l->kill9;
ok(wait_for_exit($l_pid), 'the server that generates is killed with kill -9');
$w->poll_query_until('postgres', 'SELECT snowflake_nextval() > 0')
  or die 'the other did not generate once the first was killed: ' . status_of($w, name_of($l));
pass('a peer down hard does not hold the gate: the other generates');
like(status_of($w, name_of($l)), qr/^refused: .*Connection refused/s,
	'its socket file left behind refuses the connection');

# --- 5. a peer whose SQL is version 1.6 -------------------------------------------------
# the library fills the 10 columns of the 1.6 declaration, without
# claiming and admitted; the checker takes a primary with a node ID to be
# admitted.  Without that, the restarted server would read it as stepped
# back and generate beside it.
$w->safe_psql('postgres', q{DROP EXTENSION snowflake; CREATE EXTENSION snowflake VERSION '1.6'});
is($w->safe_psql('postgres',
		'SELECT count(*) FROM snowflake_node_info() i, json_object_keys(row_to_json(i))'),
	'10', 'under the 1.6 SQL, snowflake_node_info() has its 10 columns');
$l->start;
$l->poll_query_until('postgres', q{
	SELECT problem = 'node ID conflict: peer "} . name_of($w) . q{" (conflict: same node ID 5, generating)' FROM snowflake_status()})
  or die 'a server did not step back from a 1.6 peer: ' . $l->safe_psql('postgres', 'SELECT problem FROM snowflake_status()');
pass('a server steps back from a peer on SQL 1.6 that generates with its node ID');
like(nextval_error($l), qr/ERROR:  snowflake node ID 5 is also used by another server/, 'and refuses to generate');
$w->safe_psql('postgres', 'ALTER EXTENSION snowflake UPDATE');
is($w->safe_psql('postgres',
		'SELECT count(*) FROM snowflake_node_info() i, json_object_keys(row_to_json(i))'),
	'12', 'after ALTER EXTENSION ... UPDATE it has 12, claiming and admitted among them');

# --- 6. entries that hold the gate; a reload that empties the list -------------------
# Only a refusal at every address an entry names proves that no server
# runs there.  The first entry names two hosts: a socket directory where
# nothing listens, then the server that generates, which answers that the
# role does not exist.  The second reaches that server as a role whose
# session_preload_libraries names a missing library: its error ends in
# "No such file or directory", as a missing socket file's does.  (Read
# from libpq's message as a whole, both were taken for refusals, and the
# gate opened beside a server that generates.)
my $nothing = PostgreSQL::Test::Utils::tempdir_short() . '/nothing';
$w->safe_psql('postgres', q{
	CREATE ROLE checker LOGIN;
	ALTER ROLE checker SET session_preload_libraries = 'no_such_library';
});
my $two_hosts = "host=$nothing," . $w->host . ' port=' . $w->port . ',' . $w->port . ' dbname=postgres user=nosuchrole';
my $p = PostgreSQL::Test::Cluster->new('rule_primary');
my $s = PostgreSQL::Test::Cluster->new('rule_standby');
$p->init(allows_streaming => 1);
$p->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 9
snowflake.peers = '"$two_hosts", "} . conn_of($w) . qq{ user=checker"'
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '2s'
});
$p->start;
$p->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$p->poll_query_until('postgres', "SELECT count(*) = 2 FROM snowflake_peers() WHERE checked_at IS NOT NULL")
  or die 'the primary did not check its peers';
wait_for_peer_rounds($p, 1);
is($p->safe_psql('postgres', q{SELECT string_agg(split_part(status, ':', 1), ', ' ORDER BY status) FROM snowflake_peers()}),
	'unreachable, unreachable', 'an address that refuses does not make the answer of another a refusal, nor does an error that ends like one');
like(nextval_error($p), qr/ERROR:  snowflake ID generation waits for the peers/,
	'the gate stays closed');
$_->stop for ($a, $b);

# the reload opens the gate (checker_reload()), and so would the round
# with nobody to ask that follows it; with both taken away, this check
# times out
$p->append_conf('postgresql.conf', "snowflake.peers = ''\n");
$p->reload;
$p->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'a reload that empties the list did not open the gate';
is($p->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't',
	'a reload that empties snowflake.peers opens the gate');

# --- 7. a standby promoted by mistake while its primary generates ----------------------
$p->backup('bk');
$s->init_from_backup($p, 'bk', has_streaming => 1);
$s->append_conf('postgresql.conf', q{snowflake.peers = '"} . conn_of($p) . qq{"'\n});
$s->start;
$p->append_conf('postgresql.conf', q{snowflake.peers = '"} . conn_of($s) . qq{"'\n});
$p->reload;
$s->poll_query_until('postgres', "SELECT status = 'ok: node 9' FROM snowflake_peers()")
  or die 'the standby did not check its primary';
$p->poll_query_until('postgres', "SELECT status = 'ok: node 9, standby' FROM snowflake_peers()")
  or die 'the primary did not check its standby';
is(claim_state($s), 'neither', 'a standby claims nothing');

# the standby is promoted while the primary generates: it claims, asks,
# finds the primary admitted and steps back
$s->promote;
$s->poll_query_until('postgres', q{
	SELECT problem = 'node ID conflict: peer "} . name_of($p) . q{" (conflict: same node ID 9, generating)' FROM snowflake_status()})
  or die 'the promoted standby did not step back: ' . status_of($s, name_of($p));
like(nextval_error($s), qr/ERROR:  snowflake node ID 9 is also used by another server/,
	'a standby promoted by mistake while its primary generates does not generate');
is($s->safe_psql('postgres', 'SELECT last_id IS NULL FROM snowflake_node_info()'), 't',
	'its last_id is NULL: what it replayed is no ID it issued');
$p->poll_query_until('postgres', "SELECT status = 'ok: node 9, stepped back' FROM snowflake_peers()")
  or die 'the primary did not see the promoted standby step back: ' . status_of($p, name_of($s));
is($p->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'the primary goes on');
is($p->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't', 'and generates');

$s->stop;
$p->stop;
$silent->stop;
done_testing();
