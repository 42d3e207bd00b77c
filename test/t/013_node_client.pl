# A real client: node-postgres (the "pg" package from the npm registry)
# inserts and reads IDs as text, as JSON and as BigInt without losing a
# digit.  The checks are in test/client/client.js.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $client_dir = "$FindBin::RealBin/../client";

skip_all_without_program('node', 'nodejs');
skip_all_without_program('npm', 'npm');

# install the locked dependencies (package-lock.json) into the test copy;
# without the npm registry there is no client to test
my ($out, $err) = ('', '');
IPC::Run::run([ 'npm', 'ci', '--no-audit', '--no-fund', '--prefix', $client_dir ],
	'>', \$out, '2>', \$err)
  or plan skip_all => 'could not install node-postgres from the npm registry: '
  . (split /\n/, $err)[0];

my $node = snowflake_node('client', conf => "snowflake.node_id = 7\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

($out, $err) = ('', '');
my $ok = IPC::Run::run(
	[ 'node', "$client_dir/client.js", $node->host, $node->port, 'postgres' ],
	'>', \$out, '2>', \$err);
note($out);
note($err) if $err ne '';
ok($ok, 'client.js: every check passed');
my $passed = () = $out =~ /^ok \d+ - /mg;
my $failed = () = $out =~ /^not ok/mg;
is($failed, 0, 'no failed check');
is($passed, 16, 'all 16 checks ran');

$node->stop;
done_testing();
