# The start window: two servers given the same node ID by hand, each
# listing the other in snowflake.peers; the second is started while the
# first generates, and a client asks it for IDs from its first moment.  A
# server that lists peers at start has its gate closed: it generates no
# ID before a round, begun while it claimed its node ID, in which every
# peer answered or refused the connection and none used its node ID
# (doc/protocol.md: gate-at-start, claim-then-ask, gate-all-answered).
#
# The second's rounds are slow on purpose (a listed peer that accepts
# connections and never answers costs each round snowflake.peer_timeout),
# and at first they cannot read the first server either: it lists it with
# a role the first server does not have yet.  So:
#  - the second refuses with "waits for the peers" for as long as the test
#    keeps the first server unreadable, several rounds; once the role
#    exists, its next round finds the first server generating, and it
#    steps back with the conflict error.  It hands out no ID at all, none
#    in common with the first.  Run without the gate at start, the
#    second handed out 11,700 IDs from its first moment (and the first,
#    finding it generating, stepped back); run with a round that could not
#    read the first server counted, it handed out 8,100 from the end of
#    its first round;
#  - once the first server stops (refused), the conflict stays in force
#    while the silent peer is listed: only a round that heard from every
#    peer lifts it.  A reload that takes the silent peer off the list lets
#    a complete round lift the conflict, and the next one opens the gate;
#    its first ID comes only then, above every ID of the first server.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeFakePeer;
use SnowflakeTest;
use Test::More;
use Time::HiRes qw(time);

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
snowflake.peer_timeout = '2s'
});
my $silent = SnowflakeFakePeer->new($second->basedir . '/silent');
$silent->set(attack => 'startup:hang');
my $first_conn = $first->connstr . ' dbname=postgres';
my $first_name = 'host=' . $first->host . ' port=' . $first->port . ' dbname=postgres';
$second->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $silent->connstr . qq{", "$first_conn user=checker"'\n});
$first->append_conf('postgresql.conf',
	qq{snowflake.peers = '"} . $second->connstr . qq{ dbname=postgres"'\n});
$first->reload;

# the first server generates all along, until it stops
my $load = start_pgbench($first, 'first_load', 'INSERT INTO ids DEFAULT VALUES;', 2, 0,
	'--transactions=100000000');
$first->poll_query_until('postgres', 'SELECT count(*) > 0 FROM ids')
  or die 'the first server does not generate';

# the second: a client asks from the moment it accepts connections
$second->start;
$second->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE ids (id bigint PRIMARY KEY);
});
my $first_before = $first->safe_psql('postgres', 'SELECT count(*) FROM ids');
my %tries = (generated => 0, waits => 0, conflict => 0, other => 0);
sub try_second
{
	my ($ret, $out, $err) = $second->psql('postgres',
		'INSERT INTO ids SELECT snowflake_nextval() FROM generate_series(1, 50)');
	my $what = $ret == 0 ? 'generated'
	  : $err =~ /ERROR:  snowflake ID generation waits for the peers/ ? 'waits'
	  : $err =~ /ERROR:  snowflake node ID 5 is also used by another server/ ? 'conflict'
	  : 'other';
	diag("unexpected: $err") if $what eq 'other';
	$tries{$what}++;
	return $what;
}
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;

# while the first server cannot be read: until two rounds have ended
# that could not read it, and the client asked after them
my $unread = sub {
	return $second->safe_psql('postgres',
		"SELECT count(*) FROM snowflake_peers() WHERE peer = '$first_name' AND status LIKE 'unreachable: %role \"checker\" does not exist%'");
};
my $rounds = 0;
my $last_checked = '';
while (time() < $deadline && $rounds < 2)
{
	try_second();
	next unless $unread->();
	my $checked = $second->safe_psql('postgres',
		"SELECT checked_at FROM snowflake_peers() WHERE peer = '$first_name'");
	$rounds++ if $checked ne $last_checked;
	$last_checked = $checked;
}
is($rounds, 2, 'the second server could not read the first for two rounds');
my $waited = $tries{waits};
is(try_second(), 'waits', 'and refuses to generate, waiting for the peers');

# the role on the first server: the second's next round reads it
$first->safe_psql('postgres', 'CREATE ROLE checker LOGIN');
while (time() < $deadline)
{
	last if try_second() eq 'conflict';
}
cmp_ok($first->safe_psql('postgres', 'SELECT count(*) FROM ids'), '>', $first_before,
	'the first server generated meanwhile');
ok($tries{waits} > $waited && $tries{conflict} == 1 && $tries{other} == 0,
	'the second server refused with "waits for the peers" until its round found the first generating, then with the conflict error')
  or diag(join(', ', map { "$_: $tries{$_}" } sort keys %tries));
is($second->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	qq{node ID conflict: peer "$first_name" (conflict: same node ID 5, generating)},
	'snowflake_status() names the peer');
is($tries{generated}, 0, 'no attempt got an ID');
is($second->safe_psql('postgres', 'SELECT count(*) FROM ids'), '0',
	'it handed out no ID at all');

# no ID in common
my $second_ids = $second->safe_psql('postgres', q{SELECT coalesce(string_agg(id::text, ','), '') FROM ids});
is($first->safe_psql('postgres',
		"SELECT count(*) FROM ids WHERE id = ANY ('{$second_ids}'::bigint[])"),
	'0', 'the two servers have no ID in common');

# --- the first server stops: the silent peer keeps the conflict in force ---------------
$load->{h}->kill_kill;
my $first_max = $first->safe_psql('postgres', 'SELECT max(id) FROM ids');
$first->stop;
$second->poll_query_until('postgres',
	"SELECT status LIKE 'refused: %' FROM snowflake_peers() WHERE peer = '$first_name'")
  or die 'the second server did not find the first one gone';
# a round that found the first refused and the silent peer hanging has
# ended: without gate-all-answered it would have lifted the conflict
my $seen = $second->safe_psql('postgres', 'SELECT clock_timestamp()');
$second->poll_query_until('postgres', "SELECT min(checked_at) > '$seen' FROM snowflake_peers()")
  or die 'the second server did not check its peers again';
my ($ret, $out, $err) = $second->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  snowflake node ID 5 is also used by another server/,
	'a conflict outlives its peer while another listed peer never answers');

# the silent peer off the list: the next complete round lifts the conflict,
# the one after opens the gate
my $offset = -s $second->logfile;
$second->append_conf('postgresql.conf', qq{snowflake.peers = '"$first_conn user=checker"'\n});
$second->reload;
$second->poll_query_until('postgres', 'SELECT snowflake_nextval() > 0')
  or die 'the second server did not generate once every peer answered or refused';
pass('once every listed peer answers or refuses, it generates');
ok($second->log_contains(qr/LOG:  snowflake node ID conflict resolved/, $offset),
	'having logged that the conflict is resolved');
$second->safe_psql('postgres', 'INSERT INTO ids SELECT snowflake_nextval() FROM generate_series(1, 50)');
is($second->safe_psql('postgres', "SELECT min(id) > $first_max FROM ids"), 't',
	'every ID it hands out is above every ID of the first server');

$silent->stop;
$second->stop;
done_testing();
