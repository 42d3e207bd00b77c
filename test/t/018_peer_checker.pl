# The peer checker against peers that misbehave: a peer that stops
# answering is reported as hanging, does not stop a server that generates
# already, cannot hold up a fast shutdown, and holds a server started
# meanwhile back ("waits for the peers") until it answers again; a peer
# database whose owner plants a snowflake_node_info() of their own is not
# fooled by it; a multi-host connection string is one peer; a peer that
# generates nothing is no conflict, whatever its layout; and reloading the
# peer list over and over leaks no memory.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $b = snowflake_node('peer_b', conf => "snowflake.node_id = 2\n");
$b->start;
$b->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE ROLE checker LOGIN;
	CREATE ROLE app_owner LOGIN;
	CREATE DATABASE app OWNER app_owner;
});
$b->safe_psql('app', 'CREATE EXTENSION snowflake');

# the owner of the peer's database, no superuser, plants a function named
# like the one the checker calls, in a schema named like the checker's
# role (the first entry of the default search_path), answering that the
# peer is a primary admitted to generate with our node ID: believed, it
# would make us step back
$b->safe_psql('app', q{
	SET ROLE app_owner;
	CREATE SCHEMA checker;
	CREATE FUNCTION checker.snowflake_node_info(
		OUT node_id int, OUT instance_token bigint, OUT started_at_ms bigint,
		OUT in_recovery bool, OUT clock_ms bigint, OUT epoch_ms bigint,
		OUT node_bits int, OUT sequence_bits int, OUT generating_since_ms bigint,
		OUT last_id bigint, OUT claiming bool, OUT admitted bool)
	LANGUAGE sql AS $$
		SELECT 1, 42::bigint, 1767225600000::bigint, false,
		       (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
		       1735689600000::bigint, 10, 12, 1767225600000::bigint,
		       NULL::bigint, false, true $$;
});

my $b_conn = $b->connstr . ' dbname=app user=checker';
my $a = snowflake_node('peer_a', conf => qq{
snowflake.node_id = 1
snowflake.peers = '"$b_conn"'
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '1s'
});
$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');

$a->poll_query_until('postgres',
	q{SELECT status = 'ok: node 2' FROM snowflake_peers()})
  or die 'A did not check B';
pass('the planted function is not called: the peer shows its real node ID');
is($a->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'no conflict is made up');
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't', 'and A generates');

# --- a peer that stops answering ------------------------------------------------------
# B's postmaster and the backend serving the checker stop (SIGSTOP): the
# open connection gets no answer, and neither does a new one
my $serving = $b->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE application_name = 'snowflake peer checker'});
my $b_postmaster = $b->{_pid};
kill 'STOP', $serving, $b_postmaster;
$a->poll_query_until('postgres',
	q{SELECT status LIKE 'hanging: no answer within 1000 ms%' AND NOT reachable FROM snowflake_peers()})
  or die 'A did not report B as hanging';
pass('a peer that stops answering is reported as hanging, after snowflake.peer_timeout');
# A's gate opened at its first round: a peer that stops answering later
# does not close it
is($a->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'A, which generates already, is not held back by the hanging peer');
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't', 'and A generates');

# a fast shutdown does not wait for it
$a->stop('fast');
pass('a fast shutdown of A completes while B still does not answer');

# started again while B does not answer, A generates no ID: B may be a
# server with its node ID, for all A knows
$a->start;
$a->poll_query_until('postgres',
	q{SELECT status LIKE 'hanging: no answer within 1000 ms%' FROM snowflake_peers()})
  or die 'A did not report B as hanging after its start';
# and a round later (the gate a round opens is open by the next one)
my $now = $a->safe_psql('postgres', 'SELECT clock_timestamp()');
$a->poll_query_until('postgres', "SELECT checked_at > '$now' FROM snowflake_peers()")
  or die 'A did not check B again';
my ($ret, $out, $err) = $a->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT snowflake_nextval()");
like($err, qr/ERROR:  55000: snowflake ID generation waits for the peers/,
	'A, started while B does not answer, generates no ID');
is($a->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	'waiting for every peer to answer', 'and says why');
kill 'CONT', $b_postmaster, $serving;
$a->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'A still waits once B answers again';
is($a->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't',
	'once B answers again, A generates');
$a->stop;

# --- the list syntax: a multi-host connection string is one peer -----------------------
# the first host is a socket directory where no server listens; libpq
# moves on to the second, B
my $nowhere = $a->basedir . '/nowhere';
mkdir $nowhere;
my $multi = 'host=' . $nowhere . ',' . $b->host . ' port=' . $b->port . ',' . $b->port
  . ' dbname=postgres';
$a->append_conf('postgresql.conf', qq{snowflake.peers = '"$multi"'\n});
$a->start;
$a->poll_query_until('postgres',
	q{SELECT count(*) = 1 AND bool_and(status = 'ok: node 2') FROM snowflake_peers()})
  or die 'the multi-host entry was not one reachable peer';
pass('a multi-host connection string in double quotes is one peer, reached through its second host');

# --- a peer with another layout but no node ID generates nothing: no conflict ------------
my $c = snowflake_node('peer_c', conf => "snowflake.node_bits = 8\n");
$c->start;
$c->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $c_conn = $c->connstr . ' dbname=postgres';
$a->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"$multi", "$c_conn"'});
$a->reload;
$a->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM snowflake_peers() WHERE status = 'ok: no node ID, generates no IDs'})
  or die 'A did not check C';
is($a->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'a peer with another layout and no node ID is no conflict');

# --- reloads leak nothing -------------------------------------------------------------
# a long list (16 entries, about 4 kB), reloaded 100 times: the checker's
# heap, as the kernel reports it (VmData), grows by far less than the
# 400 kB a copy of the list per reload would take
my $pad = 'x' x 150;
my $entries = join(', ', map { qq{"$c_conn application_name=entry${_}_$pad"} } 1 .. 16);
$a->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '$entries'});
$a->reload;
$a->poll_query_until('postgres', 'SELECT count(*) = 16 FROM snowflake_peers()')
  or die 'the long list was not loaded';

# (a worker without a database connection is not in pg_stat_activity:
# find it among the postmaster's children by its process title)
sub proc_file
{
	my ($pid, $file) = @_;
	open(my $fh, '<', "/proc/$pid/$file") or return '';
	local $/;
	my $text = <$fh>;
	close $fh;
	return $text // '';
}
my ($checker) = grep {
	proc_file($_, 'cmdline') =~ /^postgres: .*snowflake peer checker/
	  && (split ' ', proc_file($_, 'stat'))[3] == $a->{_pid}
} map { m{/proc/(\d+)/} ? $1 : () } glob("/proc/[0-9]*/stat");
ok($checker, 'the peer checker is running');

sub checker_heap_kb
{
	my ($kb) = proc_file($checker, 'status') =~ /^VmData:\s+(\d+) kB/m;
	return $kb;
}

sub reload_and_wait
{
	$a->reload;
	# wait for a round after the reload, so that no reload is merged
	my $at = $a->safe_psql('postgres', 'SELECT max(checked_at) FROM snowflake_peers()');
	$a->poll_query_until('postgres', "SELECT max(checked_at) > '$at' FROM snowflake_peers()")
	  or die 'the checker stopped checking';
	return;
}

reload_and_wait() for 1 .. 20;    # let allocations settle
my $before = checker_heap_kb();
reload_and_wait() for 1 .. 100;
my $after = checker_heap_kb();
cmp_ok($after - $before, '<', 100,
	"100 reloads of a 4 kB list: the checker's heap grew by less than 100 kB")
  or diag("VmData $before kB before, $after kB after");

$a->stop;
$b->stop;
$c->stop;
done_testing();
