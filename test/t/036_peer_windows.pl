# Windows of the peer checker in which a server with a node ID set by hand
# hands out IDs that another server with that node ID hands out too.  Each
# part reproduces, against real servers, a counterexample that the model
# (model/peers.pml, the code of 1.6 without its FIX_* switches) found:
#
#	1. peers_1.6_crash_recovery_gate (FAULT_CRASH): a server that yielded
#	   to a peer with its node ID crashes and starts again; its new shared
#	   memory has forgotten the conflict and sets the start gate again; a
#	   round of the peer checker that runs while the server is still in
#	   crash recovery judges it a standby (no conflict) and lifts the gate;
#	   once recovery ends, it hands out IDs until its next round.  (The
#	   crash is of the whole server.  After the crash of one backend the
#	   postmaster starts no background worker until crash recovery is over,
#	   so that the checker's first round finds the server a primary: that
#	   path does not break.)
#	2. peers_1.6_promotion_gate (SCEN_STANDBY): a standby's rounds, run
#	   in recovery, lift its start gate; promoted while its primary runs on,
#	   it hands out IDs at once, before any round judged it as a primary.
#	3. peers_1.6_follows_standby (SCEN_STANDBY, observation): a primary
#	   that lists its own standby follows the standby's last_id, which is
#	   the reservation the standby replayed, not an ID anyone issued; its
#	   IDs run ahead of its clock, further each round.
#
# Every part EXPECTS the break until the node-identity layer is rebuilt on
# the model (issue "The node-identity layer rebuilt on the model"): its
# checks named "BREAK ..." assert that the break happens, so that this
# script passes on the code of today and says what is wrong with it.  That
# change turns each part into a check that expects none: the BREAK checks
# fail on the fixed code, and are reversed with it.
#
# None depends on the speed of the machine.  The windows are held open by
# the test, never hit by timing: crash recovery is held in the fsync of
# the state file (test/inject/failio.c, fsync = on) while the checker's
# rounds run, and the next round is held by a listed peer that does not
# answer (test/perl/SnowflakeFakePeer.pm); the promoted standby checks its
# peers once an hour.  IDs in common are looked for in a loop, up to the
# test timeout.
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
# batcher refuses, or the test timeout passes.  Returns the count and the
# number of blocks.
sub ids_in_common
{
	my ($batcher, $loaded) = @_;
	my $common = 0;
	my $blocks = 0;
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	$loaded->safe_psql('postgres', 'CREATE TABLE peer_ids (id bigint)');
	while (time() < $deadline)
	{
		my ($ret, $ids, $err) = $batcher->psql('postgres',
			q{SELECT string_agg(snowflake_nextval()::bigint::text, ',') FROM generate_series(1, 200)});
		if ($ret != 0)
		{
			diag("the batcher refused: $err");
			last;
		}
		$blocks++;
		$loaded->safe_psql('postgres', "INSERT INTO peer_ids SELECT unnest('{$ids}'::bigint[])");
		$common = $loaded->safe_psql('postgres',
			'SELECT count(*) FROM ids JOIN peer_ids USING (id)');
		last if $common > 0;
	}
	return ($common, $blocks);
}

# --- 1. peers_1.6_crash_recovery_gate ---------------------------------------------------
# B, started first, generates with node ID 5 all along.  A, node ID 5
# too, lists B and a fake server F (another node ID) that answers until
# told not to; A yields to B.  Then A crashes: it goes down without a
# checkpoint (an immediate shutdown, as the crash of its machine would),
# and starts again, so that its new postmaster runs crash recovery with
# the peer checker already at work.  (A crash of one backend does not do:
# the postmaster that reinitializes after it starts no background worker
# until crash recovery is over, so the checker's first round finds A a
# primary.)  A's fsyncs of pg_snowflake/ files stall from its start on: its
# startup process, which fsyncs the data directory before redo, stops at
# the state file, and A stays in recovery until the test lets it go.
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

$crash_b->start;
$crash_b->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
});
my $load = start_pgbench($crash_b, 'crash_b_load', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
	'--transactions=100000000');
$crash_b->poll_query_until('postgres', 'SELECT count(*) > 0 FROM ids')
  or die 'B does not generate';

start_with_failio($crash_a);
$crash_a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$crash_a->poll_query_until('postgres', q{
	SELECT problem LIKE 'node ID conflict: peer % (conflict: same node ID 5, generating, this server not yet)'
	  FROM snowflake_status()})
  or die 'A did not yield to B';
like(try_nextval($crash_a), qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'peers_1.6_crash_recovery_gate: before its crash, A yields to B, which holds node ID 5 and generates');
is($crash_a->safe_psql('postgres',
		q{SELECT string_agg(status, ' / ' ORDER BY status) FROM snowflake_peers()}),
	'conflict: same node ID 5, generating, this server not yet / ok: node 100',
	'peers_1.6_crash_recovery_gate: A\'s rounds see B generating with node ID 5, and F with another node ID');

# the crash, and a start whose crash recovery is held
$crash_a->stop('immediate');
set_failio($crash_a, 'stall_fsync', 1);
unlink $crash_a->basedir . '/failio/stalled';
my $offset = -s $crash_a->logfile;
start_no_wait($crash_a);
ok(wait_for_stall($crash_a),
	'peers_1.6_crash_recovery_gate: A\'s crash recovery is held in the fsync of its state file');

# a round of the checker asks F (answered), and a later one asks it again
# (no answer, until F stops): so a whole round ran, and was judged, in
# recovery; the round after it waits for F, so that no round runs once A
# is out of recovery until F stops
$fake->set(node_id => 100);
$fake->wait_for_query('node_info') or die 'A\'s checker asked F nothing during recovery';
$fake->set(attack => 'node_info:hang');
$fake->wait_for_query('node_info') or die 'A\'s checker began no second round during recovery';
set_failio($crash_a, 'stall_fsync', 0);
$crash_a->wait_for_log(qr/database system is ready to accept connections/, $offset);

is($crash_a->safe_psql('postgres', q{
		SELECT string_agg(status, ' / ' ORDER BY status) || ' | ' || coalesce(problem, 'no problem')
		  FROM snowflake_peers(), snowflake_status() GROUP BY problem}),
	'ok: node 100 / ok: node 5 | no problem',
	'BREAK peers_1.6_crash_recovery_gate: the last round of A, judged in recovery, found no conflict with B and lifted the start gate');
is(try_nextval($crash_a), 'ok',
	'BREAK peers_1.6_crash_recovery_gate: after its crash A hands out an ID, though no round judged it as a primary');
is(try_nextval($crash_b), 'ok',
	'peers_1.6_crash_recovery_gate: B, which holds node ID 5, generates meanwhile');
my ($common, $blocks) = ids_in_common($crash_a, $crash_b);
cmp_ok($common, '>', 0, 'BREAK peers_1.6_crash_recovery_gate: A and B hand out IDs in common');
note("peers_1.6_crash_recovery_gate: $common IDs in common after $blocks blocks of 200 from A");

# F stops: the round that waited for it ends, and A yields (that round
# weighs B against A as A was when B answered, not generating yet; the
# next finds that A began generating after B); the window closes
$fake->stop;
$crash_a->poll_query_until('postgres', q{
	SELECT problem LIKE 'node ID conflict: peer % (conflict: same node ID 5, began generating earlier)'
	  FROM snowflake_status()})
  or diag('A did not yield: '
	  . $crash_a->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'));
like(try_nextval($crash_a), qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'peers_1.6_crash_recovery_gate: once a round judges A as a primary, A yields again');
$load->{h}->kill_kill;
$_->stop for ($crash_a, $crash_b);

# --- 2. peers_1.6_promotion_gate ---------------------------------------------------------
# Primary P and its streaming standby S, node ID 5, list each other and
# check their peers once an hour: after the first round of each, no round
# runs during the test.  S's first round runs in recovery.
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
	INSERT INTO ids SELECT FROM generate_series(1, 100);
});
$promo_p->backup('bk');
$promo_s->init_from_backup($promo_p, 'bk', has_streaming => 1);
$promo_s->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $promo_p->connstr . qq{ dbname=postgres"'\n});
$promo_s->start;
$promo_s->poll_query_until('postgres', q{SELECT status = 'ok: node 5' FROM snowflake_peers()})
  or die 'the standby did not check its primary';
is($promo_s->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	'the server is in recovery',
	'BREAK peers_1.6_promotion_gate: the first round of S, run in recovery, lifted its start gate');

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
is(try_nextval($promo_s), 'ok',
	'BREAK peers_1.6_promotion_gate: promoted while P runs, S hands out an ID at once');
is($promo_s->safe_psql('postgres',
		"SELECT count(*) = 1 AND bool_and(checked_at < '$before_promotion') FROM snowflake_peers()"),
	't', 'peers_1.6_promotion_gate: no round has judged S as a primary');
($common, $blocks) = ids_in_common($promo_s, $promo_p);
cmp_ok($common, '>', 0, 'BREAK peers_1.6_promotion_gate: P and S hand out IDs in common');
note("peers_1.6_promotion_gate: $common IDs in common after $blocks blocks of 200 from S");
is($promo_p->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'peers_1.6_promotion_gate: P generates on, unaware');
$load->{h}->kill_kill;
$_->stop for ($promo_s, $promo_p);

# --- 3. peers_1.6_follows_standby --------------------------------------------------------
# Primary P lists its streaming standby S (and S lists P).  S issued no
# ID, but its snowflake_node_info().last_id is the last ID of the
# reservation it replayed; P's rounds follow it, and each reservation P
# writes to follow it is replayed by S and followed again.
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
	SELECT snowflake_nextval();
	-- an ID, then the largest lead over the clock any ID had
	CREATE FUNCTION next_and_lead() RETURNS bigint LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM snowflake_nextval();
		RETURN (SELECT max_clock_lead_ms FROM snowflake_status());
	END $$;
});
$follow_p->backup('bk');
$follow_s->init_from_backup($follow_p, 'bk', has_streaming => 1);
$follow_s->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $follow_p->connstr . qq{ dbname=postgres"'\n});
$follow_s->start;
$follow_p->poll_query_until('postgres',
	q{SELECT status = 'ok: node 5, standby' FROM snowflake_peers()})
  or die 'P did not check its standby';

is($follow_s->safe_psql('postgres',
		'SELECT i.last_id IS NOT NULL AND s.ids_issued = 0 FROM snowflake_node_info() i, snowflake_status() s'),
	't', 'BREAK peers_1.6_follows_standby: S, which issued no ID, reports a last_id (the reservation it replayed)');

# P generates, one ID at a time, while its rounds run: its own IDs follow
# its clock, and it did not restart, so nothing of its own puts them
# further ahead than a reservation reaches
ok($follow_p->poll_query_until('postgres', q{
		SELECT next_and_lead() >
		       (SELECT setting::bigint FROM pg_settings WHERE name = 'snowflake.reserve_ahead')}),
	'BREAK peers_1.6_follows_standby: P\'s IDs run ahead of its clock by more than snowflake.reserve_ahead');
is($follow_p->safe_psql('postgres', 'SELECT observations_moved > 0 FROM snowflake_status()'),
	't', 'BREAK peers_1.6_follows_standby: P\'s rounds moved its generator to what S reported');
note('peers_1.6_follows_standby: P\'s observations, moved, refused, max move ms, max lead ms: '
	  . $follow_p->safe_psql('postgres', q{
		SELECT concat_ws(', ', observations, observations_moved, observations_refused,
		                 max_observed_move_ms, max_clock_lead_ms) FROM snowflake_status()}));
$_->stop for ($follow_s, $follow_p);

done_testing();
