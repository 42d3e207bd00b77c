# Two windows of the node-identity layer (node IDs leased from a registry)
# that the model of 1.6's protocol, model/registry16.pml, finds with SPIN,
# on real servers.  A part whose window is still open EXPECTS the break
# and says so in the names of its checks: CI stays green, and says what
# the code does, until the node-identity layer is rebuilt (issue "The
# node-identity layer rebuilt on the model"); the fix then turns it into a
# check that expects none, as the second part already is.
#
#  - registry16_restore (SCEN_REUSE FAULT_RESTORE, with FENCING and
#    without): the registry is restored from a backup taken while its
#    lease table was empty.  Server A holds node ID 0 and generates; the
#    restored registry no longer knows its lease; server B, its clock
#    behind A's, claims node ID 0 at once, with no floor, and issues IDs
#    that A issued (I1: no two servers issue the same ID; I2 too, node ID
#    0's IDs go back).  With snowflake.registry_fencing off and on:
#    fencing confirms B's run with the registry, which has forgotten A's.
#    Expects the break.
#  - registry16_observe_closed_above (1.6's registry16_observe_worker_away):
#    A's node-ID worker is stopped (SIGTERM; the postmaster starts it again
#    after its restart interval, 5 s).  Its stop closes the generator
#    (snowflake_generator_close_nowait()) and gives the run's time up.  In
#    1.6 an ID observed meanwhile (snowflake_observe()) did not move the
#    closed generator, which answered that it was above the ID already;
#    once the worker was back, it opened the generator above the marks the
#    registry had, and the next ID was below the ID observed (I3: after a
#    server observes an ID, every ID it issues is larger).  Main has since
#    taken the rule observe-refused-when-closed: the observation is
#    refused, and once the worker is back the ID observed again moves the
#    generator, and every ID after is above it.  The ID observed is 2
#    minutes ahead of A's clock (snowflake.max_borrow = 5min lets it be
#    followed): one only a second ahead would be passed by the clock
#    during the restart interval.  To hold the window open whatever the
#    machine's speed, the registry lets no new connection of A's role in
#    while the worker is away; the stopping worker gives its time up on the
#    connection it has.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;
use Time::HiRes qw(time);

skip_all_without_faketime();

# A registry: a server with the extension and the role the servers use.
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
	my ($name, $conninfo, $extra) = @_;
	return snowflake_node($name, conf => qq{
snowflake.node_registry = '$conninfo'
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '2s'
} . ($extra // ''));
}

sub wait_for_node_id
{
	my ($node) = @_;
	$node->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()')
	  or die $node->name . ' got no node ID';
	return $node->safe_psql('postgres', 'SELECT node_id FROM snowflake_status()');
}

# The lease of node ID 0 in a registry: "active" while a run of its holder
# is the lease's active one (instance_token), "none active" when none is,
# "no lease" when the registry has no row for it.
sub active_run
{
	my ($registry) = @_;
	return $registry->safe_psql('postgres',
		q{SELECT COALESCE((SELECT CASE WHEN instance_token IS NULL THEN 'none active' ELSE 'active' END
		                     FROM snowflake_node_lease WHERE node_id = 0), 'no lease')});
}

# --- registry16_restore: a registry restored from a backup ----------------------
# A generates for 4 s of its clock.  The registry is restored to its
# backup, taken while its lease table was empty.  B starts and claims node
# ID 0; before it generates, its clock is set 1 s after A's first ID (a
# few seconds behind A's), so that every ID it makes falls within the time
# A generated in, however long its start took.  Then B generates.
sub restore_case
{
	my ($name, $label, $extra) = @_;
	my $registry = registry("registry_$name");
	my $conninfo = $registry->connstr . ' dbname=postgres user=snowflake_registry';

	my $backup = $registry->basedir . '/lease_backup.sql';
	command_ok(
		[ 'pg_dump', '--data-only', '--table=snowflake_node_lease',
			'-d', $registry->connstr('postgres'), '-f', $backup ],
		"restore, $label: the registry's lease table backed up with pg_dump");
	like(slurp_file($backup), qr/^COPY \S*snowflake_node_lease .*\n\\\.$/m,
		"restore, $label: the backup holds the table, empty");

	my $a = leased_node("a_$name", $conninfo, $extra);
	$a->start;
	$a->safe_psql('postgres', 'CREATE EXTENSION snowflake;
		CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');
	is(wait_for_node_id($a), '0', "restore, $label: A leases node ID 0");
	$a->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
	  or die 'A does not generate';
	my $load = start_pgbench($a, 'a_inserts', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
		'--rate=2000 --transactions=100000000');
	$a->poll_query_until('postgres',
		q{SELECT snowflake_timestamp(max(id)) - snowflake_timestamp(min(id)) > interval '4 s' FROM ids})
	  or die 'A does not generate';

	# the registry restored: its lease table as the backup has it
	$registry->safe_psql('postgres', 'TRUNCATE snowflake_node_lease');
	command_ok(
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $registry->connstr('postgres'),
			'-f', $backup ],
		"restore, $label: the registry restored from the backup while A generates");
	is(active_run($registry), 'no lease', "restore, $label: the restored registry knows no lease of node ID 0");

	my $a_first = $a->safe_psql('postgres',
		'SELECT extract(epoch FROM snowflake_timestamp(min(id))) FROM ids');
	my $b = leased_node("b_$name", $conninfo, $extra);
	start_with_faketime($b, sprintf('%+.3f', $a_first + 1 - time()));
	$b->safe_psql('postgres', 'CREATE EXTENSION snowflake;
		CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');
	is(wait_for_node_id($b), '0',
		"restore, $label: B, its clock behind, claims node ID 0 at once (the break)");
	is($a->safe_psql('postgres', q{SELECT state || ' ' || node_id FROM snowflake_node_lease()}),
		'held 0', "restore, $label: while A holds the lease of node ID 0");
	$b->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
	  or die 'B does not generate';

	# B's clock 1 s after A's first ID, then 1,000 transactions of 4 IDs
	set_clock_offset($b, sprintf('%+.3f', $a_first + 1 - time()));
	my $b_load = start_pgbench($b, 'b_inserts',
		'INSERT INTO ids SELECT FROM generate_series(1, 4);', 1, 0, '--transactions=1000');
	like(finish_pgbench($b_load), qr/number of transactions actually processed: 1000\/1000/,
		"restore, $label: B generates");
	$load->{h}->kill_kill;

	my $b_ids = $b->safe_psql('postgres', q{SELECT string_agg(id::text, ',') FROM ids});
	my $a_count = $a->safe_psql('postgres', 'SELECT count(*) FROM ids');
	my $common = $a->safe_psql('postgres',
		"SELECT count(*) FROM ids WHERE id = ANY('{$b_ids}'::bigint[])");
	note("restore, $label: A issued $a_count IDs, B 4000, $common of them both");
	cmp_ok($common, '>', 0, "restore, $label: A and B issued IDs in common (the break: I1)");
	is($b->safe_psql('postgres', 'SELECT count(*) FROM ids WHERE snowflake_node_id(id) <> 0'),
		'0', "restore, $label: B's IDs carry node ID 0, as A's do");

	$_->stop for ($a, $b, $registry);
	return;
}

restore_case('unfenced', 'fencing off', '');
restore_case('fenced', 'fencing on', "snowflake.registry_fencing = on\n");

# --- registry16_observe_closed_above: an ID observed while the worker is away --------
# A reports once an hour once its run is the active one: when the worker
# is stopped, it waits between reports, and no exchange is broken off (one
# would lose the connection the stop gives the run's time up on).
my $registry = registry('registry_observe');
$registry->safe_psql('postgres', 'CREATE ROLE observer_lease LOGIN IN ROLE snowflake_registry');
my $observer = leased_node('observer',
	$registry->connstr . ' dbname=postgres user=observer_lease',
	"snowflake.max_borrow = '5min'\nsnowflake.peer_check_interval = '1h'\n");
$observer->start;
$observer->safe_psql('postgres', 'CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
	CREATE TABLE after_return (id bigint PRIMARY KEY)');
is(wait_for_node_id($observer), '0', 'worker away: A leases node ID 0');
$observer->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
  or die 'A does not generate';
$observer->safe_psql('postgres', 'INSERT INTO ids SELECT FROM generate_series(1, 1000)');

# Two checks of the clock watcher after those IDs: the second began after
# the first ended, so it saw them all and wrote whatever renewal of the
# reservation they called for; no later check writes one.  So no mark is
# being written when the worker stops, and its stop closes the generator
# (a write under way would leave it open).
my $issued_at = $observer->safe_psql('postgres', 'SELECT clock_timestamp()');
$observer->poll_query_until('postgres',
	"SELECT worker_checked_at > '$issued_at' FROM snowflake_status()")
  or die 'the clock watcher does not check';
my $checked_at = $observer->safe_psql('postgres', 'SELECT worker_checked_at FROM snowflake_status()');
$observer->poll_query_until('postgres',
	"SELECT worker_checked_at > '$checked_at' FROM snowflake_status()")
  or die 'the clock watcher does not check';
$registry->poll_query_until('postgres',
	q{SELECT instance_token IS NOT NULL FROM snowflake_node_lease WHERE node_id = 0})
  or die 'A is not the active run';

# the worker's connection stays; no new one of A's role is let in
$registry->safe_psql('postgres', 'ALTER ROLE observer_lease NOLOGIN');
my $worker = worker_pid($observer, 'snowflake node ID worker')
  or die 'no node ID worker';
my $log_offset = -s $observer->logfile;
kill 'TERM', $worker;
$observer->wait_for_log(qr/snowflake node ID worker shutting down/, $log_offset);
is(active_run($registry), 'none active',
	'worker away: the stopped worker closed the generator and gave the run\'s time up');

# an ID of another server, 2 minutes ahead of A's clock
my $x = $observer->safe_psql('postgres',
	q{SELECT snowflake_from_parts(clock_timestamp() + interval '2 min', 1, 0)});
is(sqlstate_of($observer, "SELECT snowflake_observe($x)"), '55000',
	'worker away: observing an ID ahead of the closed generator is refused, not answered "above it already"');
is($observer->safe_psql('postgres',
		"SELECT last_id < $x AND observations_refused = 1 FROM snowflake_status()"),
	't', 'worker away: the generator, below the ID, counts the observation as refused');

# the worker back: the registry takes its report, and it opens the
# generator; until then the observation is refused again
$registry->safe_psql('postgres', 'ALTER ROLE observer_lease LOGIN');
$registry->poll_query_until('postgres',
	q{SELECT instance_token IS NOT NULL FROM snowflake_node_lease WHERE node_id = 0})
  or die 'the worker did not come back';
my $back = worker_pid($observer, 'snowflake node ID worker');
ok(defined $back && $back != $worker, 'worker away: the worker is back, a new process');
ok($observer->poll_query_until('postgres', "SELECT snowflake_observe($x)"),
	'worker away: once it has opened the generator, the ID observed again moves it');
$observer->safe_psql('postgres',
	'INSERT INTO after_return SELECT snowflake_nextval() FROM generate_series(1, 1000)');
is($observer->safe_psql('postgres', "SELECT min(id) > $x FROM after_return"), 't',
	'worker away: every ID issued after that is above the ID observed (I3 holds)');

$_->stop for ($observer, $registry);
done_testing();
