# Every SQLSTATE that doc/operations.md ("Errors") lists for generation,
# each raised here the way an application meets it, so that the table and
# the code cannot drift apart.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

# --- 55000: not preloaded ---------------------------------------------------------
my $plain = PostgreSQL::Test::Cluster->new('plain');
$plain->init;
$plain->start;
$plain->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(sqlstate_of($plain, 'SELECT snowflake_nextval()'), '55000', 'not preloaded: 55000');
$plain->stop;

# --- 55000: no node ID; 25006: a standby -------------------------------------------
my $node = snowflake_node('codes', init => { allows_streaming => 1 });
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(sqlstate_of($node, 'SELECT snowflake_nextval()'), '55000', 'no node ID: 55000');
$node->append_conf('postgresql.conf', "snowflake.node_id = 1\nsnowflake.max_borrow = '1min'\n");
$node->restart;
$node->safe_psql('postgres', 'SELECT snowflake_nextval()');

$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('codes_standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
is(sqlstate_of($standby, 'SELECT snowflake_nextval()'), '25006', 'in recovery: 25006');
$standby->stop;

# --- 22023 and 54000: the size of a block ----------------------------------------
is(sqlstate_of($node, 'SELECT snowflake_reserve(0)'), '22023', 'a block of 0 IDs: 22023');
is(sqlstate_of($node, 'SELECT snowflake_reserve(1000000000000)'), '54000',
	'a block longer than the policy allows: 54000');

# --- 58000: too far ahead of the clock --------------------------------------------
# A block 50 s long runs the generator 50 s ahead (max_borrow is 1 min);
# with the bound then lowered to nothing, the next call is refused.
$node->safe_psql('postgres', 'SELECT snowflake_reserve(4096 * 50000)');
$node->append_conf('postgresql.conf', "snowflake.max_borrow = 0\nsnowflake.clock_wait_timeout = 0\n");
$node->reload;
$node->poll_query_until('postgres', q{SELECT current_setting('snowflake.max_borrow') = '0'})
  or die 'the reload was not seen';
is(sqlstate_of($node, 'SELECT snowflake_nextval()'), '58000',
	'IDs ahead of the clock beyond the policy: 58000');

# --- 58030: the state file cannot be written ----------------------------------------
$node->append_conf('postgresql.conf', "snowflake.max_borrow = '2min'\n");
$node->reload;
$node->poll_query_until('postgres', q{SELECT current_setting('snowflake.max_borrow') = '2min'})
  or die 'the reload was not seen';
my $dir = $node->data_dir . '/pg_snowflake';
chmod(0444, "$dir/state") or die "chmod: $!";
chmod(0555, $dir) or die "chmod: $!";
is(sqlstate_of($node, 'SELECT snowflake_reserve(4096 * 5000)'), '58030',
	'a mark that cannot be written: 58030');
chmod(0755, $dir) or die "chmod: $!";
chmod(0644, "$dir/state") or die "chmod: $!";
is(sqlstate_of($node, 'SELECT snowflake_reserve(4096 * 5000)'), '00000', 'and the same call succeeds once it can');
$node->stop;

# --- 55000: the state file cannot be trusted ----------------------------------------
open(my $fh, '>', "$dir/state") or die "open: $!";
print $fh "not a state file";
close $fh;
$node->start;
is(sqlstate_of($node, 'SELECT snowflake_nextval()'), '55000', 'a corrupt state file: 55000');
$node->stop;

# --- 58000: the clock before the epoch; 2200H: the time bits ran out -----------------
my $early = snowflake_node('early_epoch', conf => q{
snowflake.node_id = 1
snowflake.epoch = '2999-01-01'
});
$early->start;
$early->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(sqlstate_of($early, 'SELECT snowflake_nextval()'), '58000', 'the clock before the epoch: 58000');
$early->stop;

my $old = snowflake_node('spent_epoch', conf => q{
snowflake.node_id = 1
snowflake.epoch = '2020-01-01'
snowflake.node_bits = 16
});
$old->start;
$old->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(sqlstate_of($old, 'SELECT snowflake_nextval()'), '2200H',
	'the time bits of the layout ran out: 2200H');
$old->stop;

# --- 55000: a node ID conflict -------------------------------------------------------
my $first = snowflake_node('first', conf => "snowflake.node_id = 2\n");
$first->start;
$first->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$first->safe_psql('postgres', 'SELECT snowflake_nextval()');
my $second = snowflake_node('second', conf => "snowflake.node_id = 2\n"
	  . "snowflake.peer_check_interval = 100\n"
	  . "snowflake.peers = '\"" . $first->connstr . " dbname=postgres\"'\n");
$second->start;
$second->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$second->poll_query_until('postgres',
	q{SELECT problem LIKE 'node ID conflict:%' FROM snowflake_status()})
  or die 'the conflict was not found';
is(sqlstate_of($second, 'SELECT snowflake_nextval()'), '55000', 'a node ID conflict: 55000');
$second->stop;
$first->stop;

done_testing();
