# Failover: the high-water mark reaches a physical standby through WAL, so
# that after promotion, with its clock ten minutes behind the old
# primary's (libfaketime), the new primary never issues an ID the old one
# issued: the clock cannot have caught up by then, only the WAL records
# can keep it above.  A standby without the
# library preloaded cannot replay the records, and says so; preloaded and
# started again, it replays on.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

my $primary = snowflake_node('primary', init => { allows_streaming => 1 },
	conf => "snowflake.node_id = 1\nmax_connections = 40\nsnowflake.reserve_ahead = '500ms'\n"
	  . "snowflake.max_borrow = '1h'\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), origin text);
	INSERT INTO ids (origin) VALUES ('before backup');
});
$primary->backup('bk');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
start_with_faketime($standby, '-10m');
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'standby is streaming');

my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/cannot generate snowflake IDs during recovery/,
	'a standby refuses to generate: it shares its primary\'s node ID');

# the primary generates under load
sub load
{
	my ($node, $origin, $seconds) = @_;
	my $name = "insert_$origin" =~ s/\W/_/gr;
	return finish_pgbench(start_pgbench($node, $name,
		"INSERT INTO ids (origin) VALUES ('$origin');", 4, $seconds));
}
like(load($primary, 'old primary', 4), qr/number of failed transactions: 0 /,
	'the primary generated for 4 s under load');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

my $max_old = $primary->safe_psql('postgres', 'SELECT max(id) FROM ids');
is($standby->safe_psql('postgres', "SELECT hwm_id >= '$max_old' FROM snowflake_status()"),
	't', 'the standby\'s high-water mark covers every ID the primary issued');

# the one in the base backup does not: the bound came through WAL
open(my $fh, '<', $primary->backup_dir . '/bk/pg_snowflake/state') or die "state file: $!";
binmode $fh;
read($fh, my $buf, 16) == 16 or die 'short state file';
close $fh;
my $backup_hwm = unpack('q<', substr($buf, 8, 8));
cmp_ok($backup_hwm, '<', $max_old, 'the base backup\'s high-water mark alone would not have');

# a standby restart keeps it: redo wrote it into the standby's own file
$standby->stop;
start_with_faketime($standby, '-10m');
is($standby->safe_psql('postgres', "SELECT hwm_id >= '$max_old' FROM snowflake_status()"),
	't', 'and keeps it across its own restart');

# the primary dies; the standby, its clock ten minutes behind, takes over
$primary->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'promotion did not finish';
is($standby->safe_psql('postgres',
		"SELECT snowflake_timestamp('$max_old'::snowflake) > clock_timestamp() + interval '9 minutes'"),
	't', 'the new primary\'s clock is minutes behind the old primary\'s last ID');
like(load($standby, 'new primary', 3), qr/number of failed transactions: 0 /,
	'the promoted standby generates under load');

is($standby->safe_psql('postgres',
		"SELECT min(id) > '$max_old' FROM ids WHERE origin = 'new primary'"),
	't', 'every ID of the new primary is above every ID of the old one');
is($standby->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no duplicates across both');
is($standby->safe_psql('postgres', 'SELECT max_clock_lead_ms > 0 FROM snowflake_status()'),
	't', 'the new primary ran ahead of its own clock to stay above the old IDs');
my $rows = $standby->safe_psql('postgres',
	"SELECT count(*) FILTER (WHERE origin = 'old primary') || ' + ' || count(*) FILTER (WHERE origin = 'new primary') FROM ids");
note("rows: $rows (old primary + new primary)");

# --- a standby without the library cannot replay the records ---------------------
my $bare = PostgreSQL::Test::Cluster->new('standby_without_library');
$standby->backup('bk2');
$standby->safe_psql('postgres', "INSERT INTO ids (origin) VALUES ('after bk2')");
$bare->init_from_backup($standby, 'bk2', has_streaming => 1);
$bare->append_conf('postgresql.conf', "shared_preload_libraries = ''");
# generate a record the standby must replay, then watch it refuse
$bare->start(fail_ok => 1);
# (a block longer than the current reservation forces a new one)
$standby->safe_psql('postgres', 'SELECT snowflake_reserve(30000000)');
$bare->wait_for_log(qr/resource manager with ID 142 not registered/);
pass('a standby without snowflake preloaded stops replay, naming the resource manager');
for (1 .. 100)
{
	last unless -f $bare->data_dir . '/postmaster.pid';
	select(undef, undef, undef, 0.1);
}
$bare->_update_pid(-1);

# the fix the README gives: preload it there and start again; replay goes
# on past the record (a row written after it arrives)
$standby->safe_psql('postgres', "INSERT INTO ids (origin) VALUES ('after the record')");
$bare->append_conf('postgresql.conf', "shared_preload_libraries = 'snowflake'");
$bare->start;
$standby->wait_for_catchup($bare);
is($bare->safe_psql('postgres', "SELECT count(*) FROM ids WHERE origin = 'after the record'"),
	'1', 'preloaded and started again, the standby replays past the record');

$bare->stop;
$standby->stop;
done_testing();
