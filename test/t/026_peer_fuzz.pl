# The peer checker against a peer that answers anything at all: a fake
# PostgreSQL server (test/perl/SnowflakeFakePeer.pm) listed in
# snowflake.peers attacks each of the checker's questions (the lookup of
# the extension's schema, snowflake_node_info(), the Citus node list) and
# the connection start-up, with a result of the wrong shape, types,
# formats, NULLs, numbers, COPY states, errors, endless or huge data,
# garbage, a connection closed midway, or no answer.  Each time the peer
# is reported unreachable or hanging with the reason, the checker and the
# server live on (no crash, the same checker process), and the bad answer
# holds the gate of the server, which has not generated since its start:
# it generates no ID ("waits for the peers") while that peer is listed,
# and does once the peer answers well; a fast shutdown completes while the
# peer hangs or is mid-COPY.  And claim-then-ask (doc/protocol.md) against
# the fake: a server started with a peer that answers an error, or hangs,
# waits until it answers well or is taken off the list by a reload; a peer
# claiming our node ID with a larger instance token leaves us claiming and
# waiting, with a smaller one makes us step back; a peer admitted with our
# node ID makes us step back until it steps back, and so does a primary of
# SQL 1.6 or 1.5 with our node ID (no claiming or admitted: taken as
# admitted); a standby with our node ID holds nothing; a peer claiming our
# node ID while this server generates is warned about once, and a
# reordered list keeps each peer's status and warning with that peer; the
# list's syntax errors name the entry.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeFakePeer;
use SnowflakeTest;
use Test::More;

# the largest instance token: a peer claiming our node ID with it leaves
# this server claiming it first, and holds its gate without making it
# step back
my $max_token = '9223372036854775807';
my $claims_first = 'conflict: same node ID 1, claiming it too; this server claims it first';
my $waits = '55000: snowflake ID generation waits for the peers';

my $node = snowflake_node('fuzzed', conf => qq{
snowflake.node_id = 1
snowflake.peer_check_interval = '100ms'
snowflake.peer_timeout = '1s'
});
my $fake = SnowflakeFakePeer->new($node->basedir . '/fake');
my $fake_name = 'host=127.0.0.1 port=' . $fake->port . ' dbname=postgres';
# a second fake, for the reordered list and a reload
my $other = SnowflakeFakePeer->new($node->basedir . '/other');
my $other_name = 'host=127.0.0.1 port=' . $other->port . ' dbname=postgres';
$fake->reset(node_id => 1, claiming => 't', admitted => 'f', instance_token => $max_token);
$node->append_conf('postgresql.conf', "snowflake.peers = '\"" . $fake->connstr . "\"'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

my $checker = worker_pid($node, 'snowflake peer checker');
ok($checker, 'the peer checker runs');

# --- helpers --------------------------------------------------------------------------
my $good = 100;

sub peers_text
{
	return $node->safe_psql('postgres',
		q{SELECT string_agg(peer || ': ' || status, '; ') FROM snowflake_peers()});
}

# Waits until a round begun after now has been published: every row
# checked after now.  The gate a round opens is open once the next round
# is published.
sub next_round
{
	my $now = $node->safe_psql('postgres', 'SELECT clock_timestamp()');
	$node->poll_query_until('postgres',
		qq{SELECT count(*) > 0 AND min(checked_at) > '$now' FROM snowflake_peers()})
	  or die 'the checker did not check its peers again: ' . peers_text();
	return;
}

# What snowflake_nextval() gives: "an ID", or its error as SQLSTATE and
# message (with the rest of the report when $full)
sub nextval_result
{
	my ($full) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT snowflake_nextval() > 0");
	return 'an ID' if $ret == 0 && $out eq 't';
	return $err if $full;
	return $err =~ /ERROR:  (\w{5}: [^\n]*)/ ? $1 : "?: $ret $out $err";
}

# snowflake_node_info()'s claiming and admitted, as "t|f"
sub claim_state
{
	return $node->safe_psql('postgres', 'SELECT claiming, admitted FROM snowflake_node_info()');
}

# Waits until the row $row of snowflake_peers() has the status $status in
# a check made after the fake saw its new scenario.
sub wait_for_status
{
	my ($row, $status) = @_;
	$fake->wait_for_query('node_info') or die "the fake peer was not asked for \"$status\"";
	my $seen = $node->safe_psql('postgres', 'SELECT clock_timestamp()');
	$node->poll_query_until('postgres', qq{
		SELECT count(*) = 1 FROM snowflake_peers()
		 WHERE peer = '$row' AND checked_at > '$seen' AND status = \$s\$$status\$s\$})
	  or die "the row $row did not say \"$status\": " . peers_text();
	return;
}

# The fake answers well again, as a new node ID; waits until the row of
# snowflake_peers() called $row says so.
sub peer_is_good
{
	my ($row, %values) = @_;
	$good++;
	$fake->reset(node_id => $good, %values);
	$node->poll_query_until('postgres',
		qq{SELECT count(*) = 1 FROM snowflake_peers() WHERE peer = '$row' AND status = 'ok: node $good'})
	  or die "the fake peer did not come back as node $good: " . peers_text();
	return;
}

# The fake answers well, but claims our node ID with the largest instance
# token: this server, which has not generated yet, goes on claiming it and
# waits.
sub peer_claims_too
{
	$fake->reset(node_id => 1, claiming => 't', admitted => 'f', instance_token => $max_token);
	wait_for_status($fake_name, $claims_first);
	return;
}

# One scenario: after a good answer claiming our node ID (which holds the
# gate), the fake attacks ($attack, or the values given), and once it has
# seen the question $asked, the row $row of snowflake_peers() must say the
# peer is not reachable, with a status matching $expect, from a check made
# after that.  Then the bad answer holds the gate alone: a round later,
# this server still generates no ID.  For a Citus entry (a row other than
# the fake's own), the fake answers well as a node of the list meanwhile.
sub check_attack
{
	my ($label, $row, $asked, $attack, $expect, %values) = @_;
	peer_claims_too();
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
	if ($row ne $fake_name)
	{
		$good++;
		$fake->set(node_id => $good, claiming => 'f', admitted => 't', instance_token => 77);
		wait_for_status($fake_name, "ok: node $good");
	}
	next_round();
	is(nextval_result(), $waits, "$label: and the server still generates no ID");
	return;
}

# --- a peer that claims our node ID first holds the gate at start ----------------------
$node->poll_query_until('postgres',
	qq{SELECT count(*) = 1 AND bool_and(status = '$claims_first') FROM snowflake_peers()})
  or die 'the fake peer was not checked: ' . peers_text();
next_round();
is(nextval_result(), $waits,
	'a peer that claims our node ID with a larger instance token: this server waits');
is($node->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	'waiting for every peer to answer', 'and says why');
is(claim_state(), 't|f', 'it claims its node ID, and is not admitted');

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
	[ 'wrong_type', qq{^unreachable: column "admitted" of $ni has type OID 20 instead of 16\$} ],
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
	[ in_recovery => 'true', qq{^unreachable: column "in_recovery" of $ni is not a boolean\$} ],
	[ in_recovery => '\N', qq{^unreachable: column "in_recovery" of $ni is NULL\$} ],
	[ claiming => 'true', qq{^unreachable: column "claiming" of $ni is not a boolean\$} ],
	[ admitted => '\N', qq{^unreachable: column "admitted" of $ni is NULL\$} ])
{
	my ($column, $value, $expect) = @$t;
	(my $shown = $value) =~ s/\0/\\0/g;
	check_attack("snowflake_node_info() with $column = '$shown'", $fake_name, 'node_info', '',
		$expect, $column => $value);
}

# --- the Citus node list ------------------------------------------------------------------
# the entry names the coordinator as coordinator.invalid (reached through
# hostaddr), the node list the fake itself as 127.0.0.1: one row, and while
# the list cannot be read, a row for the entry too
my $coord_name = 'host=coordinator.invalid port=' . $fake->port . ' dbname=postgres';
my $citus = 'citus:' . $fake->connstr(host => 'coordinator.invalid', hostaddr => '127.0.0.1');
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"$citus"'});
$node->reload;
peer_claims_too();
$fake->wait_for_query('citus') or die 'the Citus node list was not read';
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
	"the checker's peak resident size (kB) stayed below 64 MB through endless and huge answers");

# --- the gate opens once the peer answers well ------------------------------------------
# (as a node ID of its own, and admitted)
peer_is_good($fake_name);
$node->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
  or die 'the gate did not open: ' . peers_text();
is(nextval_result(), 'an ID', 'once every peer answers well, the server generates');
is(claim_state(), 'f|t', 'it no longer claims its node ID, and is admitted');

# a peer of SQL version 1.5 (8 columns), 1.6 (10) or of a later one (more)
# is read
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"} . $fake->connstr . q{"'});
$node->reload;
peer_is_good($fake_name, columns => 8);
pass('an answer without generating_since_ms (SQL version 1.5) is read');
peer_is_good($fake_name, columns => 10);
pass('an answer without claiming and admitted (SQL version 1.6) is read');
peer_is_good($fake_name, columns => 14);
pass('an answer with columns of a later version is read');

# --- a reordered list --------------------------------------------------------------------
# two fakes, answering well; once the checker works on that list, the
# first one claims our node ID while this server generates with it: a
# conflict this server wins, warned about once, which the list reordered
# keeps with that peer
$other->reset(node_id => 200, instance_token => 78);
$node->safe_psql('postgres',
	qq{ALTER SYSTEM SET snowflake.peers = '"} . $fake->connstr . '", "' . $other->connstr . q{"'});
$node->reload;
$node->poll_query_until('postgres', qq{
	SELECT count(*) = 2
	   AND count(*) FILTER (WHERE peer = '$other_name' AND status = 'ok: node 200') = 1
	  FROM snowflake_peers()})
  or die 'the list of two fake peers was not checked';
my $generates_with = 'conflict: same node ID 1, claiming it, which this server generates with';
my $warnings_from = -s $node->logfile;
$fake->reset(node_id => 1, claiming => 't', admitted => 'f', instance_token => 77);
$node->poll_query_until('postgres', qq{
	SELECT count(*) FILTER (WHERE peer = '$fake_name' AND status = '$generates_with') = 1
	   AND count(*) FILTER (WHERE peer = '$other_name' AND status = 'ok: node 200') = 1
	  FROM snowflake_peers()})
  or die 'the two peers were not checked: ' . peers_text();
pass('a peer claiming our node ID while this server generates with it is a conflict this server wins');
next_round();
is($node->safe_psql('postgres', 'SELECT problem IS NULL FROM snowflake_status()'), 't',
	'and this server goes on');
is(nextval_result(), 'an ID', 'and generates');
my $warning = qr/WARNING:  snowflake peer "\Q$fake_name\E" conflicts with this server/;
$node->wait_for_log($warning, $warnings_from) or die 'no warning';

sub warnings_about_fake
{
	my @w = slurp_file($node->logfile, $warnings_from) =~ /$warning/g;
	return scalar @w;
}

sub rounds_after_now
{
	my ($n) = @_;
	next_round() for 1 .. $n;
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
	"$other_name: ok: node 200; $fake_name: $generates_with",
	'after the list is reordered, the rows follow the list and each status stays with its peer');
is(warnings_about_fake(), 1, 'and the warning about the conflicting peer is not logged again');
unlike(slurp_file($node->logfile), qr/WARNING:  snowflake peer "\Q$other_name\E" conflicts/,
	'nor given to the other peer');

# --- a peer admitted with our node ID ----------------------------------------------------
# makes this server step back until it steps back itself; a peer of SQL
# 1.6 or 1.5 (no claiming or admitted) that is a primary with our node ID
# is taken as admitted if it has generated since its start (1.5, which
# does not say: always), as claiming if not; a standby is neither
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"} . $fake->connstr . q{"'});
$node->reload;
my $generating = qq{node ID conflict: peer "$fake_name" (conflict: same node ID 1, generating)};

sub steps_back_from
{
	my ($label) = @_;
	$node->poll_query_until('postgres',
		qq{SELECT problem = \$p\$$generating\$p\$ FROM snowflake_status()})
	  or die "this server did not step back from $label: " . peers_text();
	pass("this server steps back from $label");
	return;
}

sub goes_on_after
{
	my ($label, $status) = @_;
	$node->poll_query_until('postgres', q{SELECT problem IS NULL FROM snowflake_status()})
	  or die "this server did not go on after $label: " . peers_text();
	is($node->safe_psql('postgres', 'SELECT status FROM snowflake_peers()'), $status,
		"$label: $status");
	is(nextval_result(), 'an ID', "$label: this server generates again");
	return;
}

$fake->reset(node_id => 1, instance_token => 77);
steps_back_from('a peer admitted with its node ID');
like(nextval_result(1),
	qr/ERROR:  55000: snowflake node ID 1 is also used by another server\nDETAIL:  The conflict: peer "\Q$fake_name\E" \(conflict: same node ID 1, generating\)\. Of two servers with one node ID, the one that generates goes on; the other waits until no peer claims or uses its node ID\./m,
	'snowflake_nextval() says so, naming the peer');
is(claim_state(), 'f|f', 'stepped back, this server neither claims its node ID nor is admitted');
$fake->reset(node_id => 1, claiming => 'f', admitted => 'f', instance_token => 77);
goes_on_after('the peer stepped back', 'ok: node 1, stepped back');
is(claim_state(), 'f|t', 'admitted again');

$fake->reset(node_id => 1, columns => 10, generating_since_ms => '1700000000000',
	instance_token => 77);
steps_back_from('a primary of SQL 1.6 with its node ID that has generated');
$fake->reset(node_id => 1, columns => 10, in_recovery => 't', instance_token => 77);
goes_on_after('a standby of SQL 1.6 with its node ID', 'ok: node 1, standby');
# one of SQL 1.6 that has not generated since its start is taken as
# claiming: this server, admitted, goes on
$fake->reset(node_id => 1, columns => 10, instance_token => 77);
$node->poll_query_until('postgres',
	q{SELECT status = 'conflict: same node ID 1, claiming it, which this server generates with' FROM snowflake_peers()})
  or die 'a primary of SQL 1.6 that has not generated was not taken as claiming: ' . peers_text();
is(nextval_result(), 'an ID',
	'a primary of SQL 1.6 with its node ID that has not generated: taken as claiming, and this server goes on');

$fake->reset(node_id => 1, columns => 8, instance_token => 77);
steps_back_from('a primary of SQL 1.5 with its node ID');
$fake->reset(node_id => 200, columns => 8, instance_token => 77);
goes_on_after('a primary of SQL 1.5 with another node ID', 'ok: node 200');

# --- claim-then-ask at start ---------------------------------------------------------------
# started while the peer answers an error: the gate stays closed, and no
# ID was issued since the start
$node->stop;
$fake->reset(attack => 'node_info:error');
$node->start;
$node->poll_query_until('postgres',
	q{SELECT status = 'unreachable: ERROR:  fake error from the peer' FROM snowflake_peers()})
  or die 'the peer was not checked: ' . peers_text();
next_round();
is(nextval_result(), $waits, 'started while its peer answers an error, a server generates no ID');
is($node->safe_psql('postgres', 'SELECT last_id IS NULL FROM snowflake_node_info()'), 't',
	'and tells its peers it issued none since its start');
is(claim_state(), 't|f', 'it claims its node ID');

# a peer claiming our node ID too, with a larger instance token: this
# server claims it first, and still waits
$fake->reset(node_id => 1, claiming => 't', admitted => 'f', instance_token => $max_token);
wait_for_status($fake_name, $claims_first);
next_round();
is(nextval_result(), $waits,
	'a peer that claims our node ID too, with a larger instance token: this server waits');
is(claim_state(), 't|f', 'and goes on claiming it');

# with a smaller instance token: this server steps back
my $smaller = $node->safe_psql('postgres', 'SELECT instance_token - 1 FROM snowflake_node_info()');
$fake->reset(node_id => 1, claiming => 't', admitted => 'f', instance_token => $smaller);
$node->poll_query_until('postgres', qq{
	SELECT problem = \$p\$node ID conflict: peer "$fake_name" (conflict: same node ID 1, claiming it too, first by instance token)\$p\$
	  FROM snowflake_status()})
  or die 'this server did not step back: ' . peers_text();
pass('a peer that claims our node ID too, with a smaller instance token: this server steps back');
like(nextval_result(), qr/^55000: snowflake node ID 1 is also used by another server$/,
	'and generates no ID');
is(claim_state(), 'f|f', 'nor claims its node ID');

# the peer steps back: this server claims again, and generates
$fake->reset(node_id => 1, claiming => 'f', admitted => 'f', instance_token => $smaller);
goes_on_after('the peer claiming first stepped back', 'ok: node 1, stepped back');
is(claim_state(), 'f|t', 'admitted');

# a standby with our node ID holds nothing: the first round opens the gate
$node->stop;
$fake->reset(node_id => 1, in_recovery => 't', claiming => 'f', admitted => 'f', instance_token => 77);
$node->start;
goes_on_after('started beside a standby with its node ID', 'ok: node 1, standby');

# a peer that hangs holds the gate, until a reload takes it off the list
$node->safe_psql('postgres',
	qq{ALTER SYSTEM SET snowflake.peers = '"} . $fake->connstr . '", "' . $other->connstr . q{"'});
$node->stop;
$fake->reset(attack => 'startup:hang');
$other->reset(node_id => 200, instance_token => 78);
$node->start;
$node->poll_query_until('postgres', qq{
	SELECT count(*) FILTER (WHERE peer = '$fake_name' AND status ~ '^$hangs') = 1
	   AND count(*) FILTER (WHERE peer = '$other_name' AND status = 'ok: node 200') = 1
	  FROM snowflake_peers()})
  or die 'the two peers were not checked: ' . peers_text();
next_round();
is(nextval_result(), $waits, 'started while a peer hangs, a server generates no ID');
$node->safe_psql('postgres', qq{ALTER SYSTEM SET snowflake.peers = '"} . $other->connstr . q{"'});
$node->reload;
goes_on_after('the hanging peer taken off the list', 'ok: node 200');

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
$fake->reset;
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
