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

# install the locked dependencies (package-lock.json) into the test copy
my ($out, $err) = ('', '');
my $installed =
  IPC::Run::run([ 'npm', 'ci', '--no-audit', '--no-fund', '--prefix', $client_dir ],
	'>', \$out, '2>', \$err);
# without the package this script cannot go on; it fails, the others still run
ok($installed, 'node-postgres installed from package-lock.json')
  or diag("npm ci failed: $err");
if (!$installed)
{
	done_testing();
	exit;
}

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
