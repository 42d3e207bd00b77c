# What works and what fails, and how, depending on shared_preload_libraries,
# snowflake.node_id and the layout settings.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

# --- not preloaded: the type and decoding work, generation explains -----------
my $plain = PostgreSQL::Test::Cluster->new('not_preloaded');
$plain->init;
$plain->start;

$plain->safe_psql('postgres', 'CREATE EXTENSION snowflake');
pass('CREATE EXTENSION works without preloading');

is( $plain->safe_psql(
		'postgres',
		"SELECT snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5)::text,
		        (snowflake_decode('192255557271318533'::snowflake)).node_id"),
	'192255557271318533|7',
	'construct and decode work without preloading');

$plain->safe_psql('postgres',
	'CREATE TABLE t (id snowflake PRIMARY KEY DEFAULT snowflake_nextval())');
$plain->safe_psql('postgres', "INSERT INTO t VALUES ('42')");
is($plain->safe_psql('postgres', 'SELECT id FROM t WHERE id = 42'),
	'42', 'the type, its index and its operators work without preloading');

my ($ret, $stdout, $stderr) =
  $plain->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'snowflake_nextval() fails without preloading');
like($stderr, qr/ERROR:  snowflake must be loaded via "shared_preload_libraries"/,
	'the error names shared_preload_libraries');
like($stderr, qr/HINT:  Add snowflake to "shared_preload_libraries" and restart the server\./,
	'the hint says what to do');

($ret, $stdout, $stderr) = $plain->psql('postgres', 'INSERT INTO t DEFAULT VALUES');
like($stderr, qr/shared_preload_libraries/, 'a DEFAULT fails the same way');

($ret, $stdout, $stderr) = $plain->psql('postgres', 'SELECT * FROM snowflake_status()');
like($stderr, qr/shared_preload_libraries/, 'so does snowflake_status()');

# observing touches the generator's shared memory: it must say so, not
# crash the server (it did until the check moved before the first read)
($ret, $stdout, $stderr) = $plain->psql('postgres', 'SELECT snowflake_observe(1)');
like($stderr, qr/ERROR:  snowflake must be loaded via "shared_preload_libraries"/,
	'so does snowflake_observe()');
$plain->safe_psql('postgres', q{
	CREATE TABLE incoming (id bigint);
	CREATE TRIGGER observe BEFORE INSERT ON incoming
	  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger()});
($ret, $stdout, $stderr) = $plain->psql('postgres', 'INSERT INTO incoming VALUES (1)');
like($stderr, qr/ERROR:  snowflake must be loaded via "shared_preload_libraries"/,
	'and the observation trigger');
is($plain->safe_psql('postgres', 'SELECT 1'), '1', 'and the server is still up');

# without preloading the layout settings come from the configuration file
# only: they cannot be set in a session, and decoding follows them
# (a backend loads the library at its first use of a C function)
is($plain->safe_psql('postgres',
		"SELECT '1'::snowflake; SELECT context FROM pg_settings WHERE name = 'snowflake.node_id'"),
	"1\nsighup", 'layout settings are sighup when not preloaded');
($ret, $stdout, $stderr) = $plain->psql('postgres', "SELECT '1'::snowflake; SET snowflake.epoch = '2020-01-01'");
like($stderr, qr/parameter "snowflake.epoch" cannot be changed now/, 'and cannot be SET');
# not even before the library is loaded, when the name is still unknown
is($plain->safe_psql('postgres',
		"SET snowflake.epoch = '2020-01-01 00:00:00+00';
		 SET TimeZone = 'UTC';
		 SELECT snowflake_timestamp(0::snowflake)"),
	'2025-01-01 00:00:00+00', 'a session cannot change the epoch before loading the library either');
$plain->append_conf('postgresql.conf', "snowflake.epoch = '2020-01-01 00:00:00+00'");
$plain->reload;
$plain->poll_query_until('postgres', 'SHOW snowflake.epoch', '2020-01-01 00:00:00+00')
  or die 'reload not seen';
is($plain->safe_psql('postgres',
		"SET TimeZone = 'UTC'; SELECT snowflake_timestamp(0::snowflake)"),
	'2020-01-01 00:00:00+00', 'decoding follows the configured epoch');

# pg_dump and restore of a database using the type, without preloading
$plain->safe_psql('postgres', 'CREATE DATABASE copy');
my $dump = $plain->backup_dir . '/plain.sql';
command_ok([ 'pg_dump', '-d', $plain->connstr('postgres'), '-f', $dump ],
	'pg_dump works');
command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $plain->connstr('copy'), '-f', $dump ],
	'and the dump restores');
is($plain->safe_psql('copy', 'SELECT id FROM t'), '42', 'with its data');
$plain->stop;

# --- preloaded, node ID not set ------------------------------------------------
my $unset = snowflake_node('node_id_unset');
$unset->start;
$unset->safe_psql('postgres', 'CREATE EXTENSION snowflake');
($ret, $stdout, $stderr) = $unset->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'no IDs without a node ID');
like($stderr, qr/ERROR:  parameter "snowflake.node_id" is not set/,
	'the error names snowflake.node_id');
like($stderr, qr/HINT:  Set "snowflake.node_id" to a value from 0 to 1023/,
	'the hint gives the valid range');
is($unset->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	'"snowflake.node_id" is not set', 'snowflake_status() says why');
ok($unset->log_contains('parameter "snowflake.node_id" is not set, so no snowflake IDs will be generated'),
	'the server log warns at start');
$unset->stop;

# --- bad settings stop the server at start, saying why --------------------------
my $bad = snowflake_node('bad_settings');
my ($started, $log);

# a node ID the layout cannot hold: the server starts, decodes, and only
# refuses generation, as without a node ID; so changing node_bits or
# node_id alone (ALTER SYSTEM SET) never leaves a server that cannot start
$bad->append_conf('postgresql.conf', "snowflake.node_bits = 4\nsnowflake.node_id = 16");
$bad->start;
$bad->safe_psql('postgres', 'CREATE EXTENSION snowflake');
($ret, $stdout, $stderr) = $bad->psql('postgres', "\\set VERBOSITY verbose\nSELECT snowflake_nextval()");
like($stderr, qr/ERROR:  55000: this server has no snowflake node ID\nDETAIL:  "snowflake.node_id" is 16, which 4 node bits cannot hold \(0 to 15\)\./,
	'node ID beyond node_bits: the server starts, and refuses generation, saying why');
is($bad->safe_psql('postgres', 'SELECT node_id IS NULL AND problem LIKE \'no node ID: "snowflake.node_id" is 16%\' FROM snowflake_status()'),
	't', 'snowflake_status() says so');
ok($bad->log_contains('WARNING:  node ID 16 is out of range, so no snowflake IDs will be generated'),
	'the log warns at start');
ok($bad->log_contains('With "snowflake.node_bits" = 4, valid node IDs are 0 to 15.'),
	'with the valid range');
$bad->safe_psql('postgres', 'DROP EXTENSION snowflake');
$bad->stop;

$bad->append_conf('postgresql.conf', "snowflake.node_id = 1\nsnowflake.node_bits = 16\nsnowflake.sequence_bits = 16");
($started, $log) = start_fails($bad);
ok(!$started, 'too few time bits: server does not start');
like($log, qr/snowflake ID layout leaves too few bits for the time/, 'the log says so');
like($log, qr/leave 31 bits for the time; at least 35 are needed/, 'with the numbers');

# an epoch the clock has not reached (or a clock that reads before the
# epoch): the server starts and decodes, and only generation is refused,
# since it is the clock that may be wrong, not the setting
$bad->append_conf('postgresql.conf', "snowflake.node_bits = 10\nsnowflake.sequence_bits = 12\nsnowflake.epoch = '2999-01-01'");
$bad->start;
$bad->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is($bad->safe_psql('postgres',
		"SELECT snowflake_timestamp(snowflake_from_parts('2999-01-02+00', 1, 0)) = '2999-01-02+00'"),
	't', 'epoch in the future: the server starts and decodes');
($ret, $stdout, $stderr) = $bad->psql('postgres', "\\set VERBOSITY verbose\nSELECT snowflake_nextval()");
like($stderr, qr/ERROR:  58000: system clock is before the snowflake epoch/,
	'generation is refused, with SQLSTATE system_error');
like($stderr, qr/DETAIL:  The clock reads .*; "snowflake.epoch" is 2999-01-01 00:00:00\+00\./,
	'saying what the clock and the epoch are');
is($bad->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	'the system clock is before the epoch', 'snowflake_status() says why');
$bad->safe_psql('postgres', 'DROP EXTENSION snowflake');
$bad->stop;

$bad->append_conf('postgresql.conf', "snowflake.epoch = '2020-01-01'\nsnowflake.node_id = 5000");
$bad->start;
ok($bad->log_contains('node ID 5000 is out of range, so no snowflake IDs will be generated'),
	'node ID 5000 with 10 node bits: the server starts and the log says so');
# ALTER SYSTEM SET of a width that cannot hold the layout is refused at once
($ret, $stdout, $stderr) = $bad->psql('postgres', 'ALTER SYSTEM SET snowflake.sequence_bits = 26');
like($stderr, qr/ERROR:  invalid value for parameter "snowflake.sequence_bits": 26\nDETAIL:  "snowflake.node_bits" \(10\) plus "snowflake.sequence_bits" \(26\) leave 27 bits for the time; at least 35 are needed\./,
	'ALTER SYSTEM SET of a sequence width that leaves too few time bits is refused');
$bad->stop;

$bad->append_conf('postgresql.conf', "snowflake.node_id = 300000000");
($started, $log) = start_fails($bad);
ok(!$started, 'node ID beyond any layout: server does not start');
like($log, qr/FATAL:  300000000 is outside the valid range for parameter "snowflake.node_id"/,
	'the log gives the valid range');

$bad->append_conf('postgresql.conf', "snowflake.node_id = 3\nsnowflake.clock_policy = 'sometimes'");
($started, $log) = start_fails($bad);
ok(!$started, 'a bad value of any snowflake setting stops the server at start');
like($log, qr/FATAL:  invalid value for parameter "snowflake.clock_policy": "sometimes"/,
	'naming the setting and the value');
$bad->append_conf('postgresql.conf', "snowflake.clock_policy = 'borrow'");

# a valid non-default layout starts and is used
$bad->append_conf('postgresql.conf', "snowflake.node_id = 3\nsnowflake.node_bits = 5\nsnowflake.sequence_bits = 8");
$bad->start;
$bad->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is( $bad->safe_psql(
		'postgres',
		"SELECT n.node_id, n.seq >= 0,
		        n.ts BETWEEN date_trunc('milliseconds', pg_postmaster_start_time()) AND clock_timestamp(),
		        s.time_bits, s.epoch = '2020-01-01 00:00:00+00'
		   FROM snowflake_decode(snowflake_nextval()) n, snowflake_status() s"),
	'3|t|t|50|t',
	'a custom layout (50/5/8 bits, epoch 2020) is used for generation and decoding');
ok($bad->log_contains('snowflake IDs of node 3: epoch 2020-01-01 00:00:00\+00, 50 time bits, 5 node bits, 8 sequence bits'),
	'and logged at start');
$bad->stop;

done_testing();
