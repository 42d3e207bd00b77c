# The start window: two servers given the same node ID by hand, each
# listing the other in snowflake.peers; the second is started while the
# first generates, and a client inserts into it from its first moment.  A
# server that lists peers at start generates nothing before its first
# round has asked them, so the two never hand out an ID in common.  The
# first round is made slow on purpose (a listed peer that never answers,
# asked first, costs it snowflake.peer_timeout), so that a server that
# generated before its round would have seconds to do so.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeFakePeer;
use SnowflakeTest;
use Test::More;

my $first = snowflake_node('first', conf => q{
snowflake.node_id = 5
snowflake.peer_check_interval = '300ms'
});
$first->start;
$first->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
});

my $second = snowflake_node('second', conf => q{
snowflake.node_id = 5
snowflake.peer_check_interval = '300ms'
snowflake.peer_timeout = '3s'
});
my $silent = SnowflakeFakePeer->new($second->basedir . '/silent');
$silent->set(attack => 'startup:hang');
$second->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $silent->connstr . '", "' . $first->connstr . qq{ dbname=postgres"'\n});
$first->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $second->connstr . qq{ dbname=postgres"'\n});
$first->reload;

# the first server generates all along, until the end of the test
my $load = start_pgbench($first, 'first_load', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
	'--transactions=100000000');
$first->poll_query_until('postgres', 'SELECT count(*) > 0 FROM ids')
  or die 'the first server does not generate';

# the second: a client inserts from the moment it accepts connections
$second->start;
$second->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY);
	CREATE TABLE refusals (n int);
});
my $first_before = $first->safe_psql('postgres', 'SELECT count(*) FROM ids');
my $tries = 0;
my $refused = 0;
my $waited = 0;
for (1 .. 400)
{
	my ($ret, $out, $err) = $second->psql('postgres',
		'INSERT INTO ids SELECT snowflake_nextval() FROM generate_series(1, 50)');
	$tries++;
	if ($ret != 0)
	{
		$refused++;
		$waited++ if $err =~ /waits for the first check of the peers/;
	}
	last if $err =~ /is also used by another server/;
}
cmp_ok($first->safe_psql('postgres', 'SELECT count(*) FROM ids'), '>', $first_before,
	'the first server generated meanwhile');

ok($waited > 0, 'the second server refused to generate while its first round ran')
  or diag("$tries tries, $refused refused");
like($second->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qr/^node ID conflict: peer ".*" \(conflict: same node ID 5, generating, this server not yet\)$/,
	'then its round found the first server generating with node ID 5, and it yields');
is($second->safe_psql('postgres', 'SELECT count(*) FROM ids'), '0',
	'it handed out no ID at all');

# no ID in common
my $second_ids = $second->safe_psql('postgres', q{SELECT coalesce(string_agg(id::text, ','), '') FROM ids});
is($first->safe_psql('postgres',
		"SELECT count(*) FROM ids WHERE id = ANY ('{$second_ids}'::bigint[])"),
	'0', 'the two servers have no ID in common');

$load->{h}->kill_kill;
$silent->stop;
$_->stop for ($first, $second);
done_testing();
