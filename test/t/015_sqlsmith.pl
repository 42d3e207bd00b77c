# A bounded sqlsmith run, as an unprivileged role, against a database whose
# tables use the extension: random queries mixing snowflake functions,
# operators and types with everything else in the catalog.  No backend may
# crash; the query of a crash, if any, is printed from the server log.
# SNOWFLAKE_SQLSMITH_QUERIES sets the number of queries (2,000 by default;
# test/fuzz.sh runs a long one).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_program('sqlsmith', 'sqlsmith');

my $queries = $ENV{SNOWFLAKE_SQLSMITH_QUERIES} // 2000;
my $seed = $ENV{SNOWFLAKE_SQLSMITH_SEED} // 1;

my $node = snowflake_node('sqlsmith', conf => q{
snowflake.node_id = 11
track_activity_query_size = 1MB
log_min_messages = log
log_min_error_statement = panic
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE smith');
$node->safe_psql('smith', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(),
	                     ref bigint, at timestamptz, note text);
	INSERT INTO events (ref, at, note)
	  SELECT snowflake_nextval(), clock_timestamp(), md5(g::text) FROM generate_series(1, 1000) g;
	CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), event snowflake, period tstzrange);
	INSERT INTO orders (event, period)
	  SELECT id, tstzrange(at, at + interval '1 hour') FROM events;
	CREATE INDEX ON events USING brin (id);
	CREATE VIEW decoded AS SELECT e.id, d.* FROM events e, snowflake_decode(e.id) d;
	ANALYZE;
	CREATE ROLE smith LOGIN;
	GRANT USAGE ON SCHEMA public TO smith;
	GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO smith;
});

my ($out, $err) = ('', '');
my $t0 = time;
IPC::Run::run(
	[ 'sqlsmith', '--target=host=' . $node->host . ' port=' . $node->port . ' dbname=smith user=smith',
	  "--max-queries=$queries", "--seed=$seed", '--exclude-catalog',
	  '--verbose', '--dump-all-queries' ],
	'>', \$out, '2>', \$err, IPC::Run::timeout(1800));
my $seconds = time - $t0;

my @rates = $err =~ /error rate: ([\d.]+)/g;
my $error_rate = @rates ? $rates[-1] : '?';
# the queries (on stdout) that used the extension's objects
my $ours = () = $out =~ /snowflake/g;
note("sqlsmith: $queries queries (seed $seed) in $seconds s, error rate $error_rate, "
	  . "$ours mentions of snowflake objects");
cmp_ok($ours, '>', $queries / 10, 'the queries exercised the extension\'s functions, operators and type');
my $log = slurp_file($node->logfile);
my @crashes = $log =~ /(server process \(PID \d+\) was terminated by signal \d+.*)/g;
my @queries = $log =~ /DETAIL:  Failed process was running: (.*?)\n\d{4}-/sg;
note("crashing query:\n$_") for @queries;
is(scalar(@crashes), 0, "$queries random queries, no backend crash");
is($node->safe_psql('smith', 'SELECT count(*) > 0 FROM events'), 't', 'the server is up at the end');
$node->stop;
done_testing();
