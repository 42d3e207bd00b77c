# The windows of 1.6's node-ID registry that the model of its protocol,
# model/registry16.pml, finds with SPIN (doc/protocol.md, "Version 1.6
# against the model"), on real servers, against the registry of 1.7
# (doc/protocol.md, "Node IDs from a registry": the snowflake_registry extension, claim-once,
# and fencing fixed per lease, granted by the registry).  Each part runs
# the scenario of a counterexample with two servers generating at once,
# counts the IDs they issued in common, and checks that the later holder
# of the node ID issues only IDs above every ID of the earlier one (I1 and
# I2).  One part shows a documented assumption instead of a window: it
# expects IDs in common, and says so in the names of its checks.
#
#  1. restore, fencing on (registry16_restore; rules floor-at-change,
#     grant-within-registry-clock): the registry is restored from a backup
#     taken while its lease table was empty, while A, fenced, holds node ID
#     0 and generates.  A's next report finds its lease gone: A stops, its
#     lease taken back.  B, fenced too, its clock set 1 s after A's first
#     ID (behind A), claims node ID 0 at once; its run starts above every
#     grant the registry ever made, so above every ID of A's, whatever the
#     restored registry forgot.  snowflake.max_borrow = 1min on B lets it
#     run that far ahead of its clock.
#  2. restore, fencing off: the same without fencing is assumption A3 of
#     doc/protocol.md (a registry without fencing is durable; model check
#     registry_unfenced_restore), not a bug: B claims node ID 0 with no
#     floor while A goes on, and the two issue IDs in common.  The part
#     expects that, so that the test says what the code does.
#  3. a stalled holder (registry16_fence_at_worker_tick,
#     registry16_call_in_flight; rules reservation-within-grant,
#     takeover-after-silence): A, fenced, generates; its node-ID worker is
#     stopped (SIGSTOP) and never ticks again.  A stops issuing IDs by
#     itself when the registry's last grant runs out.  B, a copy of A's data
#     directory (pg_basebackup taken before the stall, started as a
#     primary: same system identifier, same pg_snowflake/lease), waits
#     while A's run is current, and takes over once A's run has been
#     silent for 5 s, above A's last grant.  When A's worker runs again, A
#     stays without IDs: B's run is current.
#  4. intervals raised by a reload during a partition
#     (registry16_reload_moves_fence; rule reservation-within-grant): A,
#     fenced, generates; its role is refused by the registry (NOLOGIN, its
#     connections ended), then A reloads snowflake.peer_check_interval and
#     snowflake.peer_timeout of an hour.  No interval is part of the fence:
#     A stops when its last grant runs out, every ID it issued at or below
#     that grant.
#  5. fencing turned on by a reload (registry16_fencing_reload_ignored;
#     assumption A7): snowflake.registry_fencing can only be set at a
#     start, and a lease keeps the fencing it was claimed with: a reload
#     changes nothing, and after a restart the unfenced lease stays
#     unfenced (it generates with the registry down), with a WARNING.
#  6. an ID observed while the node-ID worker is away
#     (registry16_observe_closed_above; rule observe-refused-when-closed):
#     the worker's stop (SIGTERM; the postmaster starts it again after 5 s)
#     no longer closes the generator, so an ID observed meanwhile, 2
#     minutes ahead (snowflake.max_borrow = 5min lets it be followed),
#     moves the generator at once, and every later ID is above it.
#
# A part that stops before its end (a poll that timed out) fails a check of
# its own, "<part>: the part runs to its end", with the reason as a
# diagnostic; the other parts run all the same.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;
use Time::HiRes qw(time usleep);

skip_all_without_faketime();

# A registry: a server with the extension snowflake_registry and the role
# the servers use.
sub registry
{
	my ($name) = @_;
	my $registry = snowflake_node($name);
	$registry->start;
	setup_registry($registry);
	return $registry;
}

sub leased_node
{
	my ($name, $conninfo, $extra, %opts) = @_;
	return snowflake_node($name, conf => qq{
snowflake.node_registry = '$conninfo'
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '2s'
} . ($extra // ''), %opts);
}

# The extension, a table of the IDs issued, and insert_id(): one ID into
# it, 'ok' or the SQLSTATE and message of the failure (a query that fails
# cannot be polled for).
sub setup_ids
{
	my ($node) = @_;
	$node->safe_psql('postgres', q{
		CREATE EXTENSION snowflake;
		CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
		CREATE FUNCTION insert_id() RETURNS text LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO ids DEFAULT VALUES;
			RETURN 'ok';
		EXCEPTION WHEN OTHERS THEN
			RETURN SQLSTATE || ' ' || SQLERRM;
		END
		$$;
	});
	return;
}

sub wait_for_node_id
{
	my ($node) = @_;
	$node->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()')
	  or die $node->name . ' got no node ID';
	return $node->safe_psql('postgres', 'SELECT node_id FROM snowflake_status()');
}

# Until the node issues an ID (a fenced run that became current issues its
# first once a grant reaches past its floor).
sub wait_for_ids
{
	my ($node) = @_;
	$node->poll_query_until('postgres', q{SELECT insert_id() = 'ok'})
	  or die $node->name . ' does not generate';
	return;
}

# Until the node's IDs fail, then the failure ('ok' if they never did).
sub wait_for_failure
{
	my ($node) = @_;
	$node->poll_query_until('postgres', q{SELECT insert_id() <> 'ok'});
	return $node->safe_psql('postgres', 'SELECT insert_id()');
}

# Waits for a pgbench run of start_pgbench() to end by itself (every client
# aborted at its first failing transaction, or all done), within the test
# timeout; false if it had to be killed.
sub pgbench_ends
{
	my ($run) = @_;
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	while ($run->{h}->pumpable)
	{
		if (time() > $deadline)
		{
			$run->{h}->kill_kill;
			return 0;
		}
		$run->{h}->pump_nb;
		usleep(100_000);
	}
	$run->{h}->finish;
	return 1;
}

# The IDs of $earlier's table ids that $later's table $table also holds.
sub ids_in_common
{
	my ($earlier, $later, $table) = @_;
	my $later_ids = $later->safe_psql('postgres',
		"SELECT coalesce(string_agg(id::text, ','), '') FROM $table");
	return $earlier->safe_psql('postgres',
		"SELECT count(*) FROM ids WHERE id = ANY('{$later_ids}'::bigint[])");
}

# True ('t') when every ID of $later's $table is above every ID of
# $earlier's table ids.
sub all_above
{
	my ($earlier, $later, $table) = @_;
	my $earlier_max = $earlier->safe_psql('postgres', 'SELECT max(id) FROM ids');
	return $later->safe_psql('postgres', "SELECT min(id) > $earlier_max FROM $table");
}

# Runs one part; a part that dies (a poll that timed out) fails a check of
# its own, and the next part runs all the same.  Its servers are left to
# the end of the script, which stops them, a worker it stopped (SIGSTOP)
# let go on first.
my @stopped_workers;

sub run_part
{
	my ($name, $code) = @_;
	my $ok = eval { $code->(); 1 };
	my $error = $@;
	kill 'CONT', @stopped_workers if @stopped_workers;
	@stopped_workers = ();
	return if $ok;
	fail("$name: the part runs to its end");
	diag("$name: stopped: $error");
	return;
}

# --- 1 and 2: a registry restored from a backup -------------------------------------
# A generates; the registry is restored to its backup, taken while its
# lease table was empty.  B starts and claims node ID 0; before it
# generates, its clock is set 1 s after A's first ID (behind A's), so that
# without a floor every ID it makes would fall within the time A generated
# in, however long its start took.  Then B generates.
sub restore_case
{
	my ($name, $label, $fenced) = @_;
	my $registry = registry("registry_$name");
	my $conninfo = $registry->connstr . ' dbname=postgres user=snowflake_registry';
	my $fencing = $fenced ? "snowflake.registry_fencing = on\n" : '';

	my $backup = $registry->basedir . '/lease_backup.sql';
	command_ok(
		[ 'pg_dump', '--data-only', '--table=snowflake_registry.node_lease',
			'-d', $registry->connstr('postgres'), '-f', $backup ],
		"$label: the registry's lease table backed up with pg_dump");
	like(slurp_file($backup), qr/^COPY snowflake_registry\.node_lease .*\n\\\.$/m,
		"$label: the backup holds the table, empty");

	# B initialized now, started later: its initdb is not part of the time
	# B's floor runs ahead of its clock
	my $a = leased_node("a_$name", $conninfo, $fencing);
	my $b = leased_node("b_$name", $conninfo, $fencing . "snowflake.max_borrow = '1min'\n");
	$a->start;
	setup_ids($a);
	is(wait_for_node_id($a), '0', "$label: A leases node ID 0");
	is($a->safe_psql('postgres', 'SELECT fenced FROM snowflake_node_lease()'),
		$fenced ? 't' : 'f', "$label: A's lease is " . ($fenced ? 'fenced' : 'not fenced'));
	wait_for_ids($a);
	my $load = start_pgbench($a, 'a_inserts', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
		'--rate=2000 --transactions=100000000');
	$a->poll_query_until('postgres',
		q{SELECT snowflake_timestamp(max(id)) - snowflake_timestamp(min(id)) > interval '3 s' FROM ids})
	  or die 'A does not generate';

	# the registry restored: its lease table as the backup has it
	my $a_log = -s $a->logfile;
	$registry->safe_psql('postgres', 'TRUNCATE snowflake_registry.node_lease');
	command_ok(
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $registry->connstr('postgres'),
			'-f', $backup ],
		"$label: the registry restored from the backup while A generates");
	is($registry->safe_psql('postgres', 'SELECT count(*) FROM snowflake_registry.node_lease'),
		'0', "$label: the restored registry knows no lease");

	my $a_first = $a->safe_psql('postgres',
		'SELECT extract(epoch FROM snowflake_timestamp(min(id))) FROM ids');
	start_with_faketime($b, sprintf('%+.3f', $a_first + 1 - time()));
	setup_ids($b);
	is(wait_for_node_id($b), '0', "$label: B, its clock behind A's, claims node ID 0");

	# B's clock 1 s after A's first ID, then 1,000 transactions of 4 IDs
	set_clock_offset($b, sprintf('%+.3f', $a_first + 1 - time()));
	wait_for_ids($b);
	my $b_load = start_pgbench($b, 'b_inserts',
		'INSERT INTO ids SELECT FROM generate_series(1, 4);', 1, 0, '--transactions=1000');
	like(finish_pgbench($b_load), qr/number of transactions actually processed: 1000\/1000/,
		"$label: B generates");
	is($b->safe_psql('postgres', 'SELECT count(*) FROM ids WHERE snowflake_node_id(id) <> 0'),
		'0', "$label: B's IDs carry node ID 0, as A's do");

	if ($fenced)
	{
		$a->wait_for_log(
			qr/WARNING:  snowflake node ID 0 was taken back by the registry; this server stops generating IDs/,
			$a_log);
		pass("$label: A logs that its lease was taken back by the registry");
		is(sqlstate_of($a, 'SELECT snowflake_nextval()'), '55000',
			"$label: and A generates no more");
		ok(pgbench_ends($load), "$label: A's inserts fail and end by themselves");
	}
	else
	{
		is($a->safe_psql('postgres', q{SELECT state || ' ' || node_id FROM snowflake_node_lease()}),
			'held 0', "$label (assumption A3): A still holds the lease of node ID 0");
		is($a->safe_psql('postgres', q{SELECT insert_id()}), 'ok',
			"$label (assumption A3): and still generates while B does");
		$load->{h}->kill_kill;
	}

	my $common = ids_in_common($a, $b, 'ids');
	note("$label: A issued " . $a->safe_psql('postgres', 'SELECT count(*) FROM ids')
		  . " IDs, B " . $b->safe_psql('postgres', 'SELECT count(*) FROM ids')
		  . ", $common of them both");
	if ($fenced)
	{
		is($common, '0', "$label: A and B issued no ID in common (I1)");
		is(all_above($a, $b, 'ids'), 't',
			"$label: every ID of B is above every ID of A (I2: floor-at-change)");
	}
	else
	{
		cmp_ok($common, '>', 0,
			"$label (assumption A3: an unfenced registry is durable): A and B issued IDs in common");
		is(all_above($a, $b, 'ids'), 'f',
			"$label (assumption A3): B's IDs go below A's");
	}

	$_->stop for ($a, $b, $registry);
	return;
}

run_part('restore, fencing on', sub { restore_case('fenced', 'restore, fencing on', 1) });
run_part('restore, fencing off', sub { restore_case('unfenced', 'restore, fencing off', 0) });

# The registry of the other parts; each server claims the lowest free node
# ID in turn.
my $registry = registry('registry');
my $registry_conn = $registry->connstr . ' dbname=postgres user=snowflake_registry';

# --- 3: a stalled holder --------------------------------------------------------------
run_part('stalled holder', sub {
	my $a = leased_node('stalled', $registry_conn, "snowflake.registry_fencing = on\n",
		init => { allows_streaming => 1 });
	$a->start;
	setup_ids($a);
	my $node_id = wait_for_node_id($a);
	wait_for_ids($a);

	# the copy: pg_basebackup of A while its run is current, started as a
	# primary (no standby.signal), the same system identifier and lease
	$a->backup('stalled_copy');
	my $b = PostgreSQL::Test::Cluster->new('stalled_copy');
	$b->init_from_backup($a, 'stalled_copy');
	ok(!-e $b->data_dir . '/standby.signal' && !-e $b->data_dir . '/recovery.signal'
		  && -e $b->data_dir . '/pg_snowflake/lease',
		'stalled holder: B is a copy of A with its lease, to start as a primary');
	$b->start;
	is($b->safe_psql('postgres', q{SELECT system_identifier FROM pg_control_system()}),
		$a->safe_psql('postgres', q{SELECT system_identifier FROM pg_control_system()}),
		'stalled holder: B has A\'s system identifier');
	is($b->safe_psql('postgres', q{SELECT state || ' ' || node_id || ' ' || fenced FROM snowflake_node_lease()}),
		"held $node_id true", 'stalled holder: and holds A\'s fenced lease');
	ok( $b->poll_query_until('postgres',
			qq{SELECT problem LIKE 'no node ID: Another run of a server with the lease of node ID $node_id is current at the registry%' FROM snowflake_status()}),
		'stalled holder: B waits while A\'s run is current');
	is(sqlstate_of($b, 'SELECT snowflake_nextval()'), '55000',
		'stalled holder: and refuses to generate');
	$b->safe_psql('postgres', 'CREATE TABLE b_ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');

	my $load = start_pgbench($a, 'stalled_inserts', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
		'--rate=1000 --transactions=100000000');
	my $before = $a->safe_psql('postgres', 'SELECT count(*) FROM ids');
	$a->poll_query_until('postgres', "SELECT count(*) > $before + 500 FROM ids")
	  or die 'A does not generate';

	# the stall: A's worker never ticks again, nor reports
	my $worker = worker_pid($a, 'snowflake node ID worker') or die 'no node ID worker';
	kill 'STOP', $worker;
	push @stopped_workers, $worker;
	is(wait_for_failure($a), '55000 snowflake ID generation waits for the registry',
		'stalled holder: A stops issuing IDs by itself when its grant runs out, its worker stopped');

	# A's run silent for 5 s: B's is current, above every grant; A's
	# inserts go on trying meanwhile
	ok($b->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()'),
		'stalled holder: once A\'s run is silent, B\'s becomes current');
	$b->poll_query_until('postgres',
		'WITH i AS (INSERT INTO b_ids DEFAULT VALUES RETURNING true) SELECT * FROM i')
	  or die 'B does not generate';
	my $b_load = start_pgbench($b, 'copy_inserts',
		'INSERT INTO b_ids SELECT FROM generate_series(1, 4);', 1, 0, '--transactions=1000');
	like(finish_pgbench($b_load), qr/number of transactions actually processed: 1000\/1000/,
		'stalled holder: B generates');
	ok(pgbench_ends($load), 'stalled holder: A\'s inserts fail and end by themselves');
	is($a->safe_psql('postgres',
			'SELECT (SELECT snowflake_timestamp(max(id)) FROM ids) <= granted_until FROM snowflake_node_lease()'),
		't', 'stalled holder: every ID of A is within the last grant A got');

	my $common = ids_in_common($a, $b, 'b_ids');
	note('stalled holder: A issued ' . $a->safe_psql('postgres', 'SELECT count(*) FROM ids')
		  . ' IDs, B ' . $b->safe_psql('postgres', 'SELECT count(*) FROM b_ids')
		  . ", $common of them both");
	is($common, '0', 'stalled holder: A and B issued no ID in common (I1)');
	is(all_above($a, $b, 'b_ids'), 't',
		'stalled holder: every ID of B is above every ID of A (I2)');

	# A's worker runs again: B's run is current, A's is not
	kill 'CONT', $worker;
	@stopped_workers = ();
	ok( $a->poll_query_until('postgres',
			qq{SELECT problem LIKE 'no node ID: Another run of a server with the lease of node ID $node_id is current at the registry%' FROM snowflake_status()}),
		'stalled holder: its worker back, A finds B\'s run current');
	is(sqlstate_of($a, 'SELECT snowflake_nextval()'), '55000',
		'stalled holder: and A stays without IDs');

	$_->stop for ($b, $a);
});

# --- 4: intervals raised by a reload during a partition --------------------------------
run_part('reload during a partition', sub {
	$registry->safe_psql('postgres', 'CREATE ROLE partitioned_lease LOGIN IN ROLE snowflake_registry');
	my $a = leased_node('partitioned',
		$registry->connstr . ' dbname=postgres user=partitioned_lease',
		"snowflake.registry_fencing = on\n");
	$a->start;
	setup_ids($a);
	wait_for_node_id($a);
	wait_for_ids($a);
	my $load = start_pgbench($a, 'partitioned_inserts', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
		'--rate=1000 --transactions=100000000');
	$a->poll_query_until('postgres', 'SELECT count(*) > 500 FROM ids')
	  or die 'A does not generate';

	# the partition: the registry refuses A's role and ends its connections
	$registry->safe_psql('postgres', q{ALTER ROLE partitioned_lease NOLOGIN;
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'partitioned_lease'});
	$a->append_conf('postgresql.conf',
		"snowflake.peer_check_interval = '1h'\nsnowflake.peer_timeout = '1h'\n");
	$a->reload;
	$a->poll_query_until('postgres',
		q{SELECT current_setting('snowflake.peer_check_interval') = '1h'
		     AND current_setting('snowflake.peer_timeout') = '1h'})
	  or die 'the intervals were not reloaded';

	is(wait_for_failure($a), '55000 snowflake ID generation waits for the registry',
		'reload during a partition: A stops when its grant runs out, its intervals an hour');
	ok(pgbench_ends($load), 'reload during a partition: A\'s inserts fail and end by themselves');
	like($a->safe_psql('postgres', 'SELECT registry_error FROM snowflake_node_lease()'),
		qr/^snowflake_registry\.report\(\): /,
		'reload during a partition: A cannot reach the registry');
	is($a->safe_psql('postgres',
			'SELECT (SELECT snowflake_timestamp(max(id)) FROM ids) <= granted_until FROM snowflake_node_lease()'),
		't', 'reload during a partition: every ID of A carries a time within the last grant it got');
	is(sqlstate_of($a, 'SELECT snowflake_nextval()'), '55000',
		'reload during a partition: and new calls fail');
	$a->stop;
});

# --- 5: fencing turned on by a reload ---------------------------------------------------
run_part('fencing by reload', sub {
	my $a = leased_node('refenced', $registry_conn);
	$a->start;
	setup_ids($a);
	my $node_id = wait_for_node_id($a);
	wait_for_ids($a);
	is($a->safe_psql('postgres', 'SELECT fenced FROM snowflake_node_lease()'), 'f',
		'fencing by reload: A holds a lease claimed without fencing');

	my $offset = -s $a->logfile;
	$a->safe_psql('postgres',
		'ALTER SYSTEM SET snowflake.registry_fencing = on; SELECT pg_reload_conf()');
	$a->wait_for_log(
		qr/parameter "snowflake\.registry_fencing" cannot be changed without restarting the server/,
		$offset);
	pass('fencing by reload: the reload says the setting cannot be changed without a restart');
	is($a->safe_psql('postgres', 'SHOW snowflake.registry_fencing'), 'off',
		'fencing by reload: and leaves it off');

	# restarted with the registry down: a fenced lease would wait for a grant
	$registry->stop;
	$offset = -s $a->logfile;
	$a->restart;
	is($a->safe_psql('postgres', 'SHOW snowflake.registry_fencing'), 'on',
		'fencing by reload: after a restart the setting is on');
	is($a->safe_psql('postgres', 'SELECT fenced FROM snowflake_node_lease()'), 'f',
		'fencing by reload: and the lease stays unfenced (A7)');
	like(slurp_file($a->logfile, $offset),
		qr/WARNING:  the lease of snowflake node ID $node_id was claimed with "snowflake\.registry_fencing" off, and keeps it/,
		'fencing by reload: the start says that the lease keeps its fencing');
	wait_for_ids($a);
	pass('fencing by reload: the unfenced lease generates with the registry down');
	$a->stop;
	$registry->start;
});

# --- 6: an ID observed while the node-ID worker is away ----------------------------------
run_part('worker away', sub {
	my $a = leased_node('observer', $registry_conn, "snowflake.max_borrow = '5min'\n");
	$a->start;
	setup_ids($a);
	my $node_id = wait_for_node_id($a);
	wait_for_ids($a);
	$a->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 1000);
		CREATE TABLE worker_away (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
		CREATE TABLE worker_back (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');

	# a session connected before the stop, so that its queries come quickly
	my $session = $a->background_psql('postgres');
	my $worker = worker_pid($a, 'snowflake node ID worker') or die 'no node ID worker';
	my $offset = -s $a->logfile;
	kill 'TERM', $worker;
	$a->wait_for_log(qr/snowflake node ID worker shutting down/, $offset);

	# an ID of another server, 2 minutes ahead of A's clock (kept in a
	# table: the session's queries are printed, and it changes every run)
	my $other = $node_id == 1 ? 2 : 1;
	$session->query_safe(
		"CREATE TABLE observed AS SELECT snowflake_from_parts(clock_timestamp() + interval '2 min', $other, 0)::bigint AS id");
	is($session->query_safe('SELECT snowflake_observe(id) FROM observed'), 't',
		'worker away: observing an ID 2 minutes ahead moves the generator at once');
	$session->query_safe('INSERT INTO worker_away SELECT FROM generate_series(1, 1000)');
	ok(!defined worker_pid($a, 'snowflake node ID worker'),
		'worker away: the worker was away while the ID was observed and IDs issued');
	is($session->query_safe(
			"SELECT problem IS NULL AND observations_moved = 1 FROM snowflake_status()"),
		't', 'worker away: the generator stayed open, and counts the observation as a move');
	$session->quit;
	is($a->safe_psql('postgres', 'SELECT count(*) = 1000 AND min(id) > (SELECT id FROM observed) FROM worker_away'), 't',
		'worker away: every ID issued after it is above the ID observed (I3)');

	# the worker back
	$a->wait_for_log(qr/snowflake node ID worker started/, $offset);
	$a->safe_psql('postgres', 'INSERT INTO worker_back SELECT FROM generate_series(1, 1000)');
	is($a->safe_psql('postgres', 'SELECT count(*) = 1000 AND min(id) > (SELECT id FROM observed) FROM worker_back'), 't',
		'worker away: once the worker is back, every ID is still above it');
	$a->stop;
});

$registry->stop;
done_testing();
