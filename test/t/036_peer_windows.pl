# Windows of the peer checker in which a server with a node ID set by hand
# would hand out IDs that another server with that node ID hands out too.
# Each part sets up, against real servers, a counterexample that the model
# (model/peers.pml) found in 1.6 (model/checks, kind "break"), and checks
# that the rules of doc/protocol.md close it.
#
#	1. peers_16_crash_recovery_gate (FAULT_CRASH): a server A that yielded
#	   to a peer B with its node ID crashes and starts again; its new shared
#	   memory has forgotten the conflict and closes its gate again; a round
#	   of the peer checker runs while A is still in crash recovery.  (The
#	   crash is of the whole server.  After the crash of one backend the
#	   postmaster starts no background worker until crash recovery is over,
#	   so the checker's first round finds the server a primary.)  In 1.6
#	   that round judged A a standby, found no conflict and lifted the gate:
#	   once out of recovery A handed out IDs beside B until its next round.
#	   Closed by claim-then-ask: only a primary claims, so a round in
#	   recovery opens no gate; out of recovery A claims, and waits for a
#	   round begun while it claims.  Checks 4-8: the last round, run in
#	   recovery, left the gate closed; out of recovery A claims, and refuses
#	   to hand out an ID while B generates (no ID in common).  Then yield:
#	   the first round begun while A claims finds B admitted, and A steps
#	   back, still refusing rounds later (checks 9-12).  With the gate
#	   lifted at any round with the node ID known, as 1.6 did, checks 4-8
#	   fail: A's gate is open once it is out of recovery, and A hands out
#	   IDs, beside B until B's next round, which finds A admitted and steps
#	   B back (check 6).  (Without yield, A never steps back before its
#	   crash, and the part stops there.)
#	2. peers_16_promotion_gate (SCEN_STANDBY): a standby's rounds, run in
#	   recovery, lifted its gate in 1.6; promoted while its primary runs
#	   on, it handed out IDs at once, before any round judged it as a
#	   primary.  Closed by claim-then-ask: the standby's rounds leave its
#	   gate closed, and a standby claims nothing (check 13); promoted, it
#	   claims, and hands out no ID before its first round begun as a
#	   primary, while the primary generates on (checks 14-18: no round has
#	   judged it as a primary yet, it refuses, no ID in common).  Then yield:
#	   that round finds the primary admitted, and the promoted standby steps
#	   back, still refusing rounds later while the old primary generates
#	   (checks 19-23).  With a round in recovery lifting the gate, as 1.6
#	   did, checks 13, 14, 16 and 17 fail: the promoted standby hands out
#	   IDs at once, among them IDs of its old primary.  Without yield (no
#	   server steps back) checks 19-21 fail: the promoted standby keeps
#	   claiming, though it still hands out nothing (check 22: a round that
#	   finds a conflict opens no gate, which alone keeps P1).
#	3. peers_16_follows_standby (SCEN_STANDBY, observation): in 1.6 a
#	   primary that listed its own standby followed the standby's last_id,
#	   which was the end of the reservation the standby replayed, not an ID
#	   anyone issued: the primary's IDs ran ahead of its clock, further each
#	   round (I5, not steered).  Closed by no following: the checker never
#	   moves the generator to a peer's last_id; besides, a standby reports
#	   no last_id (NULL until it issues an ID after its start or promotion).
#	   Check 24: the standby reports none; checks 25-26: the primary hands
#	   out five IDs, each followed by two of its rounds that end after the
#	   standby replayed the primary's latest reservation; its IDs are no
#	   further ahead of its clock than one reservation, and nothing moved
#	   its generator.  With 1.6's following and 1.6's last_id (the replayed
#	   reservation), checks 24-26 fail: the primary's IDs run seconds ahead
#	   of its clock, its generator moved at most rounds.  With following alone back, the standby's NULL
#	   last_id gives nothing to follow: 032_causal_order checks that a
#	   listed peer's IDs ahead of this server's clock do not move it.
#
# None depends on the speed of the machine.  The windows are held open by
# the test, never hit by timing: crash recovery is held in the fsync of
# the state file (test/inject/failio.c, fsync = on) while the checker's
# rounds run, and the round under way when the window opens (at the end of
# recovery, or at the promotion) began before the server claimed and is
# held by a listed fake peer (test/perl/SnowflakeFakePeer.pm) that
# answers, then hangs until the test stops it (snowflake.peer_timeout =
# 1h), so that no round begun while claiming ends while the test looks
# into the window.  A server that must hand out nothing is asked for IDs
# until it refuses: at once.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeFakePeer;
use SnowflakeTest;
use Test::More;
use Time::HiRes qw(usleep);

skip_all_without_program('cc', 'gcc');

# One ID from $node: "ok", or the error it raised.
sub try_nextval
{
	my ($node) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL');
	return $ret == 0 && $out eq 't' ? 'ok' : "failed: $err";
}

# Starts $node, first started with start_with_failio(), without waiting
# for it to accept connections (its crash recovery may be held).
sub start_no_wait
{
	my ($node) = @_;
	local %ENV = $node->_get_env(PGAPPNAME => undef);
	local $ENV{LD_PRELOAD} = $node->basedir . '/failio.so';
	local $ENV{FAILIO_DIR} = $node->basedir . '/failio';
	PostgreSQL::Test::Utils::system_or_bail('pg_ctl', '-W', '-D', $node->data_dir,
		'-l', $node->logfile, '-o', '--cluster-name=' . $node->name, 'start');
	# the lock file, written first thing, names the postmaster to stop at the end
	my $pidfile = $node->data_dir . '/postmaster.pid';
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		last if -s $pidfile;
		usleep(100_000);
	}
	$node->_update_pid(1);
	return;
}

# While $loaded inserts into its table ids (a load running), $batcher hands
# out blocks of 200 IDs; each block is copied into $loaded's table peer_ids,
# and the IDs both servers issued are counted, until there is one, the
# batcher refuses, or the test timeout passes.  Returns the count, the
# number of blocks handed out, and the error of the refusal ('' if none).
# A batcher that refuses at once costs one query.
sub ids_in_common
{
	my ($batcher, $loaded) = @_;
	my $common = 0;
	my $blocks = 0;
	my $refusal = '';
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	$loaded->safe_psql('postgres', 'CREATE TABLE IF NOT EXISTS peer_ids (id bigint)');
	while (time() < $deadline)
	{
		my ($ret, $ids, $err) = $batcher->psql('postgres',
			q{SELECT string_agg(snowflake_nextval()::bigint::text, ',') FROM generate_series(1, 200)});
		if ($ret != 0)
		{
			$refusal = $err;
			last;
		}
		$blocks++;
		$loaded->safe_psql('postgres', "INSERT INTO peer_ids SELECT unnest('{$ids}'::bigint[])");
		$common = $loaded->safe_psql('postgres',
			'SELECT count(*) FROM ids JOIN peer_ids USING (id)');
		last if $common > 0;
	}
	return ($common, $blocks, $refusal);
}

# What $node's last published round found, each peer's status in order,
# and its problem.
sub round_and_problem
{
	my ($node) = @_;
	return $node->safe_psql('postgres', q{
		SELECT (SELECT string_agg(CASE WHEN status LIKE 'refused: %' THEN 'refused' ELSE status END,
		                          ' / ' ORDER BY status) FROM snowflake_peers())
		       || ' | ' || coalesce(problem, 'no problem')
		  FROM snowflake_status()});
}

# What $node says of its node ID to its peers.
sub claim_state
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		q{SELECT format('claiming %s, admitted %s', claiming, admitted) FROM snowflake_node_info()});
}


# --- 1. peers_16_crash_recovery_gate ----------------------------------------------------
# B generates with node ID 5 all along.  A, node ID 5 too, lists B and a
# fake server F (another node ID) that answers until told not to; A
# yields to B.  Then A crashes: it goes down without a checkpoint (an
# immediate shutdown, as the crash of its machine would), and starts
# again, so that its new postmaster runs crash recovery with the peer
# checker already at work.  (A crash of one backend does not do: the
# postmaster that reinitializes after it starts no background worker
# until crash recovery is over, so the checker's first round finds A a
# primary.)  A's fsyncs of pg_snowflake/ files stall from its start on: its
# startup process, which fsyncs the data directory before redo, stops at
# the state file, and A stays in recovery until the test lets it go.  A
# server that never generated has no state file: so A first runs once
# while B is down, and hands out an ID.
my $crash_a = snowflake_node('crash_a', conf => q{
snowflake.node_id = 5
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '1h'
fsync = on
});
my $crash_b = snowflake_node('crash_b', conf => q{
snowflake.node_id = 5
snowflake.peer_check_interval = '200ms'
});
my $fake = SnowflakeFakePeer->new($crash_a->basedir . '/fake');
$crash_a->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $crash_b->connstr . ' dbname=postgres", "' . $fake->connstr . qq{"'\n});
$crash_b->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $crash_a->connstr . qq{ dbname=postgres"'\n});

# A's first run, B down (its connection refused, F answering): A's gate
# opens, and its one ID writes its state file
start_with_failio($crash_a);
$crash_a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$crash_a->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'A\'s gate does not open while B is down: ' . round_and_problem($crash_a);
$crash_a->safe_psql('postgres', 'SELECT snowflake_nextval()');
$crash_a->stop;

# B's first round finds nothing where A listens (the connection refused):
# its gate opens, and B generates from now on
$crash_b->start;
$crash_b->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
});
$crash_b->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'B\'s gate does not open';
my $load = start_pgbench($crash_b, 'crash_b_load', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
	'--transactions=100000000');
$crash_b->poll_query_until('postgres', 'SELECT count(*) > 0 FROM ids')
  or die 'B does not generate';

# A again: it claims, finds B admitted, and steps back
start_with_failio($crash_a);
$crash_a->poll_query_until('postgres', q{
	SELECT problem LIKE 'node ID conflict: peer % (conflict: same node ID 5, generating)'
	  FROM snowflake_status()})
  or die 'A did not yield to B: ' . round_and_problem($crash_a);
like(try_nextval($crash_a), qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'crash_recovery_gate: before its crash, A yields to B, which holds node ID 5 and generates');
is($crash_a->safe_psql('postgres',
		q{SELECT string_agg(status, ' / ' ORDER BY status) FROM snowflake_peers()}),
	'conflict: same node ID 5, generating / ok: node 100',
	'crash_recovery_gate: A\'s rounds see B generating with node ID 5, and F with another node ID');

# the crash, and a start whose crash recovery is held
$crash_a->stop('immediate');
set_failio($crash_a, 'stall_fsync', 1);
unlink $crash_a->basedir . '/failio/stalled';
my $offset = -s $crash_a->logfile;
start_no_wait($crash_a);
ok(wait_for_stall($crash_a),
	'crash_recovery_gate: A\'s crash recovery is held in the fsync of its state file');

# a round of the checker asks F (answered), and a later one asks it again
# (no answer, until F stops): so a whole round ran, and was judged, in
# recovery; the round after it, begun in recovery too, waits for F, so
# that no round begun once A is out of recovery ends until F stops
$fake->set(node_id => 100);
$fake->wait_for_query('node_info') or die 'A\'s checker asked F nothing during recovery';
$fake->set(attack => 'node_info:hang');
$fake->wait_for_query('node_info') or die 'A\'s checker began no second round during recovery';
set_failio($crash_a, 'stall_fsync', 0);
$crash_a->wait_for_log(qr/database system is ready to accept connections/, $offset);

# the window of 1.6: out of recovery, before any round begun as a primary
is(round_and_problem($crash_a), 'ok: node 100 / ok: node 5 | waiting for every peer to answer',
	'crash_recovery_gate: the last round of A, run in recovery, found no conflict and left the gate closed');
is(claim_state($crash_a), 'claiming t, admitted f',
	'crash_recovery_gate: out of recovery, A claims node ID 5 and is not admitted');
is(try_nextval($crash_b), 'ok',
	'crash_recovery_gate: B, which holds node ID 5, generates meanwhile');
my ($common, $blocks, $refusal) = ids_in_common($crash_a, $crash_b);
like($refusal, qr/ERROR:  snowflake ID generation waits for the peers/,
	'crash_recovery_gate: A refuses to hand out an ID: no round begun while it claims has ended');
is("$blocks blocks, $common IDs in common", '0 blocks, 0 IDs in common',
	'crash_recovery_gate: A hands out no ID while B generates: none in common');

# F stops: the round that waited for it ends, and the next, begun while
# A claims, finds B admitted (F refuses the connection): A steps back
$fake->stop;
ok($crash_a->poll_query_until('postgres', q{
		SELECT problem LIKE 'node ID conflict: peer % (conflict: same node ID 5, generating)'
		  FROM snowflake_status()}),
	'crash_recovery_gate: the first rounds that end out of recovery find B generating: A steps back')
  or diag('A: ' . round_and_problem($crash_a));
is(claim_state($crash_a), 'claiming f, admitted f',
	'crash_recovery_gate: stepped back, A neither claims nor is admitted');
wait_for_peer_rounds($crash_a, 2);
($common, $blocks, $refusal) = ids_in_common($crash_a, $crash_b);
like($refusal, qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'crash_recovery_gate: rounds later, while B generates, A still refuses, for the conflict');
is("$blocks blocks, $common IDs in common", '0 blocks, 0 IDs in common',
	'crash_recovery_gate: and hands out no ID: none in common with B');
$load->{h}->kill_kill;
$_->stop for ($crash_a, $crash_b);

# --- 2. peers_16_promotion_gate ---------------------------------------------------------
# Primary P and its streaming standby S, node ID 5, list each other.  P
# checks its peers once an hour: its first round, before S exists, finds
# nothing there and opens its gate, and no other runs during the test, so
# that S's own rounds alone must keep the two apart.  S checks every
# 200 ms, and also lists a fake server F2 that answers, then hangs until
# the test stops it: the round of S under way when S is promoted began in
# recovery, and no round begun as a primary ends before F2 stops.
my $promo_p = PostgreSQL::Test::Cluster->new('promo_primary');
my $promo_s = PostgreSQL::Test::Cluster->new('promo_standby');
$promo_p->init(allows_streaming => 1);
$promo_p->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 5
snowflake.peer_check_interval = '1h'
snowflake.peers = '"} . $promo_s->connstr . qq{ dbname=postgres"'
});
$promo_p->start;
$promo_p->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
});
$promo_p->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'P\'s gate does not open';
$promo_p->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 100)');
$promo_p->backup('bk');
$promo_s->init_from_backup($promo_p, 'bk', has_streaming => 1);
my $fake2 = SnowflakeFakePeer->new($promo_s->basedir . '/fake');
$promo_s->append_conf('postgresql.conf',
	qq{snowflake.peer_check_interval = '200ms'\nsnowflake.peer_timeout = '1h'\n}
	  . qq{snowflake.peers = '"} . $promo_p->connstr . ' dbname=postgres", "' . $fake2->connstr . qq{"'\n});
$promo_s->start;
$promo_s->poll_query_until('postgres', q{
	SELECT string_agg(status, ' / ' ORDER BY status) = 'ok: node 100 / ok: node 5' FROM snowflake_peers()})
  or die 'the standby did not check its peers';
is(round_and_problem($promo_s) . ' | ' . claim_state($promo_s),
	'ok: node 100 / ok: node 5 | the server is in recovery | claiming f, admitted f',
	'promotion_gate: the rounds of S, run in recovery, leave its gate closed; a standby claims nothing');

# F2 hangs in a round of S begun in recovery
$fake2->set(attack => 'node_info:hang');
$fake2->wait_for_query('node_info') or die 'S began no round that asks F2';

# P generates all along
$load = start_pgbench($promo_p, 'promo_p_load', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
	'--transactions=100000000');
my $before_load = $promo_p->safe_psql('postgres', 'SELECT count(*) FROM ids');
$promo_p->poll_query_until('postgres', "SELECT count(*) > $before_load FROM ids")
  or die 'P does not generate';

my $before_promotion = $promo_s->safe_psql('postgres', 'SELECT clock_timestamp()');
$promo_s->promote;
$promo_s->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'promotion did not finish';

# the window of 1.6: promoted, before any round begun as a primary
is(claim_state($promo_s), 'claiming t, admitted f',
	'promotion_gate: promoted while P runs, S claims node ID 5 and is not admitted');
is($promo_s->safe_psql('postgres',
		"SELECT count(*) = 2 AND bool_and(checked_at < '$before_promotion') FROM snowflake_peers()"),
	't', 'promotion_gate: no round has judged S as a primary yet');
($common, $blocks, $refusal) = ids_in_common($promo_s, $promo_p);
like($refusal, qr/ERROR:  snowflake ID generation waits for the peers/,
	'promotion_gate: S refuses to hand out an ID before its first round as a primary');
is("$blocks blocks, $common IDs in common", '0 blocks, 0 IDs in common',
	'promotion_gate: S hands out no ID while P generates: none in common');
is($promo_p->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'promotion_gate: P generates on');

# F2 stops: the first round of S begun as a primary finds P admitted
$fake2->stop;
ok($promo_s->poll_query_until('postgres', q{
		SELECT problem LIKE 'node ID conflict: peer % (conflict: same node ID 5, generating)'
		  FROM snowflake_status()}),
	'promotion_gate: its first round as a primary finds P generating: S steps back')
  or diag('S: ' . round_and_problem($promo_s));
is(claim_state($promo_s), 'claiming f, admitted f',
	'promotion_gate: stepped back, S neither claims nor is admitted');
wait_for_peer_rounds($promo_s, 2);
($common, $blocks, $refusal) = ids_in_common($promo_s, $promo_p);
like($refusal, qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'promotion_gate: rounds later, while P generates, S still refuses, for the conflict');
is("$blocks blocks, $common IDs in common", '0 blocks, 0 IDs in common',
	'promotion_gate: and hands out no ID: none in common with P');
is($promo_p->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'promotion_gate: P still generates');
$load->{h}->kill_kill;
$_->stop for ($promo_s, $promo_p);

# --- 3. peers_16_follows_standby --------------------------------------------------------
# Primary P lists its streaming standby S (and S lists P).  S issued no
# ID; what it replayed is P's reservation.  In 1.6 S reported the end of
# that reservation as its last_id, P's rounds followed it, and each
# reservation P wrote to follow it was replayed by S and followed again.
my $follow_p = PostgreSQL::Test::Cluster->new('follow_primary');
my $follow_s = PostgreSQL::Test::Cluster->new('follow_standby');
$follow_p->init(allows_streaming => 1);
$follow_p->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'snowflake'
snowflake.node_id = 5
snowflake.peer_check_interval = '100ms'
snowflake.peers = '"} . $follow_s->connstr . qq{ dbname=postgres"'
});
$follow_p->start;
$follow_p->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	-- an ID, then the largest lead over the clock any ID had
	CREATE FUNCTION next_and_lead() RETURNS bigint LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM snowflake_nextval();
		RETURN (SELECT max_clock_lead_ms FROM snowflake_status());
	END $$;
});
$follow_p->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'P\'s gate does not open';
$follow_p->safe_psql('postgres', 'SELECT snowflake_nextval()');
$follow_p->backup('bk');
$follow_s->init_from_backup($follow_p, 'bk', has_streaming => 1);
$follow_s->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $follow_p->connstr . qq{ dbname=postgres"'\n});
$follow_s->start;
$follow_p->poll_query_until('postgres',
	q{SELECT status = 'ok: node 5, standby' FROM snowflake_peers()})
  or die 'P did not check its standby';

# P generates, one ID at a time; after each, S replays P's WAL (and so
# P's latest reservation), and P runs two rounds that end after that (the
# second begun after it), reading what S says of itself.  P's own IDs
# follow its clock, and it did not restart: nothing of its own puts them
# further ahead than one reservation reaches.
my $lead = 0;
for (1 .. 5)
{
	$lead = $follow_p->safe_psql('postgres', 'SELECT next_and_lead()');
	$follow_p->wait_for_catchup($follow_s, 'replay', $follow_p->lsn('insert'));
	wait_for_peer_rounds($follow_p, 2);
}
is($follow_s->safe_psql('postgres', q{
		SELECT format('last_id %s, ids issued %s', coalesce(i.last_id::text, 'none'), s.ids_issued)
		  FROM snowflake_node_info() i, snowflake_status() s}),
	'last_id none, ids issued 0',
	'follows_standby: S, which issued no ID, reports no last_id: the reservation it replayed is no ID');
my $reserve_ahead = $follow_p->safe_psql('postgres',
	q{SELECT setting::bigint FROM pg_settings WHERE name = 'snowflake.reserve_ahead'});
is($lead <= $reserve_ahead ? 'within' : 'beyond', 'within',
	'follows_standby: after rounds of P that read S, P\'s IDs are no further ahead of its clock than snowflake.reserve_ahead');
is($follow_p->safe_psql('postgres', q{
		SELECT format('observations %s, moved %s', observations, observations_moved) FROM snowflake_status()}),
	'observations 0, moved 0',
	'follows_standby: P\'s rounds never moved its generator');
$_->stop for ($follow_s, $follow_p);

done_testing();
