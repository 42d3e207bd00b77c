# The peer checker against a peer that answers anything at all: a fake
# PostgreSQL server (test/perl/SnowflakeFakePeer.pm) listed in
# snowflake.peers attacks each of the checker's questions (the lookup of
# the extension's schema, snowflake_node_info(), the Citus node list) and
# the connection start-up, with a result of the wrong shape, types,
# formats, NULLs, numbers, COPY states, errors, endless or huge data,
# garbage, a connection closed midway, or no answer.  Each time the peer
# is reported unreachable or hanging with the reason, the checker and the
# server live on (no crash, the same checker process), generation works,
# and a fast shutdown completes while the peer hangs or is mid-COPY.
# And a reordered list keeps each peer's status and warning with that
# peer; peers are judged by when they began generating, a peer whose
# snowflake_node_info() is the 1.5 one (no generating_since_ms) by its
# start time; the list's syntax errors name the entry.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeFakePeer;
use SnowflakeTest;
use Test::More;

my $node = snowflake_node('fuzzed', conf => qq{
snowflake.node_id = 1
snowflake.peer_check_interval = '100ms'
snowflake.peer_timeout = '1s'
});
my $fake = SnowflakeFakePeer->new($node->basedir . '/fake');
my $fake_name = 'host=127.0.0.1 port=' . $fake->port . ' dbname=postgres';
$node->append_conf('postgresql.conf', "snowflake.peers = '\"" . $fake->connstr . "\"'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

my $checker = worker_pid($node, 'snowflake peer checker');
ok($checker, 'the peer checker runs');

# --- helpers --------------------------------------------------------------------------
my $good = 100;

# The fake answers well again, as a new node ID; waits until the row of
# snowflake_peers() called $row says so.
sub peer_is_good
{
	my ($row, %values) = @_;
	$good++;
	$fake->reset(node_id => $good, %values);
	$node->poll_query_until('postgres',
		qq{SELECT count(*) = 1 FROM snowflake_peers() WHERE peer = '$row' AND status = 'ok: node $good'})
	  or die "the fake peer did not come back as node $good: "
	  . $node->safe_psql('postgres', 'SELECT string_agg(peer || \': \' || status, \'; \') FROM snowflake_peers()');
	return;
}

# One scenario: after a good answer, the fake attacks ($attack, or the
# values given), and once it has seen the question $asked, the row $row of
# snowflake_peers() must say the peer is not reachable, with a status
# matching $expect, from a check made after that.
sub check_attack
{
	my ($label, $row, $asked, $attack, $expect, %values) = @_;
	peer_is_good($fake_name);
	$fake->set(attack => $attack, %values);
	$fake->wait_for_query($asked) or die "$label: the fake peer was not asked";
	my $seen = $node->safe_psql('postgres', 'SELECT clock_timestamp()');
	my $ok = $node->poll_query_until('postgres', qq{
		SELECT count(*) = 1 FROM snowflake_peers()
		 WHERE peer = '$row' AND checked_at > '$seen' AND NOT reachable
		   AND status ~ \$re\$$expect\$re\$});
	ok($ok, "$label: reported as $expect")
	  or diag('status: ' . $node->safe_psql('postgres',
			  qq{SELECT status FROM snowflake_peers() WHERE peer = '$row'}));
	is($node->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't',
		"$label: and the server generates");
	return;
}

my $unexpected = 'unreachable: the peer answered with an unexpected result';
my $too_much = 'unreachable: the peer sent more than 1024 kB$';
# libpq sizes its buffer by what a message says: the allocation fails
my $too_large = 'unreachable: cannot allocate memory for input buffer$';
my $hangs = 'hanging: no answer within 1000 ms \("snowflake.peer_timeout"\)$';

# --- the connection start-up ------------------------------------------------------------
for my $t (
	[ 'hang', "^$hangs" ],
	[ 'close', '^unreachable: .*server closed the connection unexpectedly$' ],
	[ 'garbage', '^unreachable: ' ],
	[ 'fatal', '^unreachable: .*FATAL:  fake refusal$' ],
	[ 'endless_params', "^$too_much" ])
{
	my ($kind, $expect) = @$t;
	check_attack("start-up, $kind", $fake_name, 'startup', "startup:$kind", $expect);
}

# --- the first question, the extension's schema ------------------------------------------
my $lookup = 'the schema lookup';
for my $t (
	[ 'zero_columns', qq{^unreachable: $lookup returned no column "nspname"\$} ],
	[ 'wrong_columns', qq{^unreachable: $lookup returned 2 columns, more than the 1 expected\$} ],
	[ 'nulls', qq{^unreachable: column "nspname" of $lookup is NULL\$} ],
	[ 'text_types', qq{^unreachable: column "nspname" of $lookup has type OID 25 instead of 19\$} ],
	[ 'binary', qq{^unreachable: column "nspname" of $lookup is not in text format\$} ],
	[ 'control_chars', qq{^unreachable: column "nspname" of $lookup holds a character not allowed there\$} ],
	[ 'long_text', qq{^unreachable: column "nspname" of $lookup is longer than 255 bytes\$} ],
	[ 'two_rows', qq{^unreachable: $lookup returned 2 rows, not 0 to 1\$} ],
	[ 'zero_rows', '^unreachable: extension "snowflake" is not installed in database "postgres"$' ],
	[ 'copy_in', "^$unexpected \\(PGRES_COPY_IN\\)\$" ],
	[ 'copy_out', "^$unexpected \\(PGRES_COPY_OUT\\)\$" ],
	[ 'copy_both', "^$unexpected \\(PGRES_COPY_BOTH\\)\$" ],
	[ 'command_ok', "^$unexpected \\(PGRES_COMMAND_OK\\)\$" ],
	[ 'empty_query', "^$unexpected \\(PGRES_EMPTY_QUERY\\)\$" ],
	[ 'multi_result', '^unreachable: the peer answered with more than one result$' ],
	[ 'error', '^unreachable: ERROR:  fake error from the peer$' ],
	[ 'endless_rows', "^$too_much" ],
	[ 'huge_value', "^$too_large" ],
	[ 'notices', "^$too_much" ],
	[ 'garbage', '^unreachable: ' ],
	[ 'close_mid', '^unreachable: .*server closed the connection unexpectedly' ],
	[ 'hang', "^$hangs" ])
{
	my ($kind, $expect) = @$t;
	check_attack("schema lookup, $kind", $fake_name, 'schema', "schema:$kind", $expect);
}

# --- the second question, snowflake_node_info() ------------------------------------------
my $ni = 'snowflake_node_info\(\)';
for my $t (
	[ 'zero_columns', qq{^unreachable: $ni returned no column "node_id"\$} ],
	[ 'wrong_columns', qq{^unreachable: $ni returned no column "in_recovery"\$} ],
	[ 'nulls', qq{^unreachable: column "node_bits" of $ni is NULL\$} ],
	[ 'text_types', qq{^unreachable: column "node_id" of $ni has type OID 25 instead of 23\$} ],
	[ 'wrong_type', qq{^unreachable: column "generating_since_ms" of $ni has type OID 16 instead of 20\$} ],
	[ 'binary', qq{^unreachable: column "node_id" of $ni is not in text format\$} ],
	[ 'duplicate_column', qq{^unreachable: $ni returned column "node_id" twice\$} ],
	[ 'two_rows', qq{^unreachable: $ni returned 2 rows instead of 1\$} ],
	[ 'zero_rows', qq{^unreachable: $ni returned 0 rows instead of 1\$} ],
	[ 'non_numeric', qq{^unreachable: column "node_bits" of $ni is not an integer\$} ],
	[ 'out_of_range', qq{^unreachable: column "node_bits" of $ni is out of range \\(0 to 28\\)\$} ],
	[ 'copy_in', "^$unexpected \\(PGRES_COPY_IN\\)\$" ],
	[ 'copy_out', "^$unexpected \\(PGRES_COPY_OUT\\)\$" ],
	[ 'copy_both', "^$unexpected \\(PGRES_COPY_BOTH\\)\$" ],
	[ 'command_ok', "^$unexpected \\(PGRES_COMMAND_OK\\)\$" ],
	[ 'multi_result', '^unreachable: the peer answered with more than one result$' ],
	[ 'error', '^unreachable: ERROR:  fake error from the peer$' ],
	[ 'endless_rows', "^$too_much" ],
	[ 'huge_value', "^$too_large" ],
	[ 'notices', "^$too_much" ],
	[ 'garbage', '^unreachable: ' ],
	[ 'close_mid', '^unreachable: .*server closed the connection unexpectedly' ],
	[ 'hang', "^$hangs" ])
{
	my ($kind, $expect) = @$t;
	check_attack("snowflake_node_info(), $kind", $fake_name, 'node_info', "node_info:$kind", $expect);
}

# values of the right type that are not what int4, int8 and bool print,
# or out of range
my $range = sub { qq{^unreachable: column "$_[0]" of $ni is out of range \\($_[1] to $_[2]\\)\$} };
my $not_int = sub { qq{^unreachable: column "$_[0]" of $ni is not an integer\$} };
for my $t (
	[ node_id => '5abc', $not_int->('node_id') ],
	[ node_id => ' 5', $not_int->('node_id') ],
	[ node_id => '+5', $not_int->('node_id') ],
	[ node_id => '-', $not_int->('node_id') ],
	[ instance_token => '', $not_int->('instance_token') ],
	[ node_id => '5\0', qq{^unreachable: column "node_id" of $ni holds a zero byte\$} ],
	[ node_id => '0' x 21, qq{^unreachable: column "node_id" of $ni is longer than 20 bytes\$} ],
	[ node_id => '1024', $range->('node_id', -1, 1023) ],
	[ node_id => '-2', $range->('node_id', -1, 1023) ],
	[ node_bits => '-1', $range->('node_bits', 0, 28) ],
	[ sequence_bits => '19', $range->('sequence_bits', 1, 18) ],
	[ instance_token => '9223372036854775808',
		$range->('instance_token', '-9223372036854775808', '9223372036854775807') ],
	[ instance_token => '-9223372036854775809',
		$range->('instance_token', '-9223372036854775808', '9223372036854775807') ],
	[ started_at_ms => '0', $range->('started_at_ms', 1, 253402300799999) ],
	[ clock_ms => '-1', $range->('clock_ms', 1, 253402300799999) ],
	[ epoch_ms => '253402300800000', $range->('epoch_ms', 0, 253402300799999) ],
	[ generating_since_ms => '0', $range->('generating_since_ms', 1, 253402300799999) ],
	[ in_recovery => 'true', qq{^unreachable: column "in_recovery" of $ni is not a boolean\$} ],
	[ in_recovery => '\N', qq{^unreachable: column "in_recovery" of $ni is NULL\$} ])
{
	my ($column, $value, $expect) = @$t;
	(my $shown = $value) =~ s/\0/\\0/g;
	check_attack("snowflake_node_info() with $column = '$shown'", $fake_name, 'node_info', '',
		$expect, $column => $value);
}

# a peer of SQL version 1.5 (8 columns) or of a later one (more) is read
peer_is_good($fake_name, columns => 8);
pass('an answer without generating_since_ms (SQL version 1.5) is read');
peer_is_good($fake_name, columns => 12);
pass('an answer with columns of a later version is read');

# --- the Citus node list ------------------------------------------------------------------
# the entry names the coordinator as coordinator.invalid (reached through
# hostaddr), the node list the fake itself as 127.0.0.1: two rows
my $coord_name = 'host=coordinator.invalid port=' . $fake->port . ' dbname=postgres';
my $citus = 'citus:' . $fake->connstr(host => 'coordinator.invalid', hostaddr => '127.0.0.1');
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"$citus"'});
$node->reload;
peer_is_good($fake_name);
pass('a Citus entry is checked through its node list');
my $dist = 'pg_dist_node';
my $no_list = 'could not read the Citus node list: ';
for my $t (
	[ 'zero_columns', qq{^unreachable: ${no_list}$dist returned no column "nodename"\$} ],
	[ 'wrong_columns', qq{^unreachable: ${no_list}$dist returned no column "nodeport"\$} ],
	[ 'nulls', qq{^unreachable: ${no_list}column "nodename" of $dist is NULL\$} ],
	[ 'text_types', qq{^unreachable: ${no_list}column "nodeport" of $dist has type OID 25 instead of 23\$} ],
	[ 'binary', qq{^unreachable: ${no_list}column "nodename" of $dist is not in text format\$} ],
	[ 'non_numeric', qq{^unreachable: ${no_list}column "nodeport" of $dist is not an integer\$} ],
	[ 'out_of_range', qq{^unreachable: ${no_list}column "nodeport" of $dist is out of range \\(1 to 65535\\)\$} ],
	[ 'control_chars', qq{^unreachable: ${no_list}column "nodename" of $dist holds a character not allowed there\$} ],
	[ 'long_text', qq{^unreachable: ${no_list}column "nodename" of $dist is longer than 1024 bytes\$} ],
	[ 'copy_in', "^unreachable: ${no_list}the peer answered with an unexpected result \\(PGRES_COPY_IN\\)\$" ],
	[ 'copy_out', "^unreachable: ${no_list}the peer answered with an unexpected result \\(PGRES_COPY_OUT\\)\$" ],
	[ 'copy_both', "^unreachable: ${no_list}the peer answered with an unexpected result \\(PGRES_COPY_BOTH\\)\$" ],
	[ 'error', "^unreachable: ${no_list}ERROR:  fake error from the peer\$" ],
	[ 'endless_rows', "^unreachable: ${no_list}the peer sent more than 1024 kB\$" ],
	[ 'huge_value', "^unreachable: ${no_list}cannot allocate memory for input buffer\$" ],
	[ 'notices', "^unreachable: ${no_list}the peer sent more than 1024 kB\$" ],
	[ 'garbage', "^unreachable: ${no_list}" ],
	[ 'close_mid', "^unreachable: ${no_list}.*server closed the connection unexpectedly" ],
	[ 'hang', "^hanging: ${no_list}no answer within 1000 ms" ])
{
	my ($kind, $expect) = @$t;
	check_attack("Citus node list, $kind", $coord_name, 'citus', "citus:$kind", $expect);
}
# the node read before stays a target while the list cannot be read
is($node->safe_psql('postgres',
		qq{SELECT status FROM snowflake_peers() WHERE peer = '$fake_name'}),
	"ok: node $good", 'the nodes read last time are still checked while the list cannot be read');

# --- no crash, no restart, no log flood, bounded memory ------------------------------------
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|was terminated|server processes terminated/,
	'no process of the server crashed');
is(worker_pid($node, 'snowflake peer checker'), $checker,
	'the peer checker is the same process as at the start');
unlike($log, qr/fake notice from the peer/, 'the peer\'s notices are not logged');
unlike($log, qr/forged line/, 'nor the second line of its error message');
my $hwm = proc_status_kb($checker, 'VmHWM');
cmp_ok($hwm, '<', 64 * 1024,
	"the checker's peak resident size stayed below 64 MB ($hwm kB) through endless and huge answers");

# --- a reordered list --------------------------------------------------------------------
# a second fake peer; the list reordered keeps each peer's status and
# warning with that peer
my $other = SnowflakeFakePeer->new($node->basedir . '/other');
my $other_name = 'host=127.0.0.1 port=' . $other->port . ' dbname=postgres';
my $ours = $node->safe_psql('postgres', 'SELECT generating_since_ms FROM snowflake_node_info()');
like($ours, qr/^\d+$/, 'this server reports since when it generates');

# both fakes listed, answering well; once the checker works on that
# list, the first one takes our node ID, and began generating later than
# this server
$other->reset(node_id => 200, instance_token => 78);
$node->safe_psql('postgres',
	qq{ALTER SYSTEM SET snowflake.peers = '"} . $fake->connstr . '", "' . $other->connstr . q{"'});
$node->reload;
$node->poll_query_until('postgres', qq{
	SELECT count(*) = 2
	   AND count(*) FILTER (WHERE peer = '$other_name' AND status = 'ok: node 200') = 1
	  FROM snowflake_peers()})
  or die 'the list of two fake peers was not checked';
$fake->reset(node_id => 1, generating_since_ms => $ours + 1000, instance_token => 77);
$node->poll_query_until('postgres', qq{
	SELECT count(*) FILTER (WHERE peer = '$fake_name'
	                          AND status = 'conflict: same node ID 1, began generating later') = 1
	   AND count(*) FILTER (WHERE peer = '$other_name' AND status = 'ok: node 200') = 1
	  FROM snowflake_peers()})
  or die 'the two peers were not checked';
pass('a peer with our node ID that began generating later is a conflict it loses');
is($node->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'and this server goes on generating');
my $warning = qr/WARNING:  snowflake peer "\Q$fake_name\E" conflicts with this server/;
$node->wait_for_log($warning) or die 'no warning';

sub warnings_about_fake
{
	my @w = slurp_file($node->logfile) =~ /$warning/g;
	return scalar @w;
}

sub rounds_after_now
{
	my ($n) = @_;
	for (1 .. $n)
	{
		my $now = $node->safe_psql('postgres', 'SELECT clock_timestamp()');
		$node->poll_query_until('postgres',
			qq{SELECT count(*) = 2 AND min(checked_at) > '$now' FROM snowflake_peers()})
		  or die 'the checker did not check both peers again';
	}
	return;
}
rounds_after_now(2);
is(warnings_about_fake(), 1, 'the conflict is logged once');

$node->safe_psql('postgres',
	qq{ALTER SYSTEM SET snowflake.peers = '"} . $other->connstr . '", "' . $fake->connstr . q{"'});
$node->reload;
rounds_after_now(3);
is($node->safe_psql('postgres', q{
		SELECT string_agg(peer || ': ' || status, '; ' ORDER BY n)
		  FROM snowflake_peers() WITH ORDINALITY
		       AS p(peer, reachable, node_id, in_recovery, skew, rtt, checked_at, status, n)}),
	"$other_name: ok: node 200; $fake_name: conflict: same node ID 1, began generating later",
	'after the list is reordered, the rows follow the list and each status stays with its peer');
is(warnings_about_fake(), 1, 'and the warning about the conflicting peer is not logged again');
unlike(slurp_file($node->logfile), qr/WARNING:  snowflake peer "\Q$other_name\E" conflicts/,
	'nor given to the other peer');

# --- judging by when each began generating ------------------------------------------------
# a peer of SQL version 1.5 reports no generating_since_ms: taken to
# generate since its start
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"} . $fake->connstr . q{"'});
$node->reload;
$fake->reset(node_id => 1, columns => 8, started_at_ms => $ours - 60000, instance_token => 77);
$node->poll_query_until('postgres',
	q{SELECT problem LIKE 'node ID conflict: peer % (conflict: same node ID 1, began generating earlier (by its start time))' FROM snowflake_status()})
  or die 'this server did not yield to a 1.5 peer started before it began generating';
pass('a 1.5 peer started before this server began generating: this server yields');
$fake->reset(node_id => 1, columns => 8, started_at_ms => $ours + 60000, instance_token => 77);
$node->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'the conflict with the 1.5 peer was not resolved';
is($node->safe_psql('postgres', 'SELECT status FROM snowflake_peers()'),
	'conflict: same node ID 1, began generating later (by its start time)',
	'a 1.5 peer started after this server began generating yields to it');

# a peer of 1.6 with our node ID that has not generated yields to us; one
# that began earlier does not
$fake->reset(node_id => 1, instance_token => 77);
$node->poll_query_until('postgres',
	q{SELECT status = 'conflict: same node ID 1, not generating yet' FROM snowflake_peers()})
  or die 'a peer not generating was not seen as such';
is($node->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'a peer with our node ID that has not generated yields to this server');
$fake->reset(node_id => 1, generating_since_ms => $ours - 1000, instance_token => 77);
$node->poll_query_until('postgres',
	q{SELECT problem LIKE 'node ID conflict: %began generating earlier)' FROM snowflake_status()})
  or die 'this server did not yield to a peer that began generating earlier';
pass('this server yields to a peer that began generating before it');
$fake->reset(node_id => 200, instance_token => 77);
$node->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'the conflict was not resolved';

# --- the list syntax ---------------------------------------------------------------------
# parsed once, by the setting's check hook; an entry is named by its
# position, not by its text
for my $t (
	[ q{"hostaddr=127.0.0.1 port=1}, 'A list entry in double quotes is not closed, or is not followed by a comma\.' ],
	[ q{"hostaddr=127.0.0.1 port=1", ""}, 'Entry 2 of the list is empty\.' ],
	[ q{"hostaddr=127.0.0.1 port=1", "citus:"}, 'Entry 2 of the list is empty\.' ],
	[ q{"hostaddr=127.0.0.1 port=1", "citus:dbname=a nonsense"},
		'Entry 2 of the list is not a valid connection string: missing "=" after "nonsense" in connection info string' ])
{
	my ($value, $detail) = @$t;
	my ($ret, $out, $err) = $node->psql('postgres', "ALTER SYSTEM SET snowflake.peers = '$value'");
	like($err, qr/ERROR:  invalid value for parameter "snowflake\.peers".*\nDETAIL:  $detail/,
		"the list $value is refused");
}
# the unquoted form of version 1.4 is read, with a warning at each reload
$node->safe_psql('postgres',
	q{ALTER SYSTEM SET snowflake.peers = 'hostaddr=127.0.0.1 port=1 dbname=a, hostaddr=127.0.0.1 port=2 dbname=b'});
my $offset = -s $node->logfile;
$node->reload;
$node->wait_for_log(qr/WARNING:  parameter "snowflake\.peers" uses the unquoted list form of version 1\.4/,
	$offset);
$node->poll_query_until('postgres', q{
	SELECT string_agg(peer, '; ' ORDER BY peer)
	       = 'host=127.0.0.1 port=1 dbname=a; host=127.0.0.1 port=2 dbname=b'
	  FROM snowflake_peers()})
  or die 'the list of version 1.4 was not read';
pass('a list of version 1.4 is read, with a warning');

# --- a fast shutdown while the peer hangs, or is mid-COPY -----------------------------------
# with a deadline of an hour, only the shutdown request can end the wait
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"} . $fake->connstr . q{"'});
$node->safe_psql('postgres', q{ALTER SYSTEM SET snowflake.peer_timeout = '1h'});
$node->reload;
for my $attack ('node_info:hang', 'schema:copy_out', 'node_info:copy_both', 'startup:hang')
{
	my ($asked) = split /:/, $attack;
	peer_is_good($fake_name);
	$fake->set(attack => $attack);
	$fake->wait_for_query($asked) or die "$attack: the fake peer was not asked";
	my $offset = -s $node->logfile;
	ok($node->stop('fast', fail_ok => 1), "a fast shutdown completes while the peer does $attack");
	like(slurp_file($node->logfile, $offset), qr/LOG:  snowflake peer checker shutting down/,
		'and the peer checker says it exits');
	# a good peer again, or the next checker would wait the hour
	$fake->reset;
	$node->start;
}

$log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|was terminated|server processes terminated/,
	'no process of the server crashed, from start to end');

$node->stop;
$fake->stop;
$other->stop;
done_testing();
