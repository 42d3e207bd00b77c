# Bulk reservation for loaders: a million rows loaded with COPY from a
# reservation, and a million from snowflake_nextval(n), while other
# sessions generate IDs one by one: no collision.  Then the UUIDv7 bridge
# on RFC 9562's example timestamp, which needs an epoch before 2022.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $node = snowflake_node('bulk', conf => q{
snowflake.node_id = 4
snowflake.epoch = '2020-01-01 00:00:00+00'
max_connections = 30
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), source text);
});

# other sessions insert with the DEFAULT meanwhile
my $pgbench = start_pgbench($node, 'insert',
	"INSERT INTO events (source) VALUES ('single');", 4, 8);
$node->poll_query_until('postgres', 'SELECT count(*) > 0 FROM events')
  or die 'pgbench did not start inserting';

# a loader reserves a million IDs and numbers its rows itself: slot k of
# the block is (time field << 12 | sequence) of the first ID plus k
my ($first, $last, $ids, $lead) = split /\|/, $node->safe_psql('postgres',
	'SELECT first_id, last_id, ids, lead_ms FROM snowflake_reserve(1000000)');
is($ids, '1000000', 'a million IDs reserved in one call');
ok($lead >= 200 && $lead <= 10000,
	"the reservation reports how far ahead of the clock it runs ($lead ms; a million IDs fill 245 ms)");

my $slot = (($first >> 22) << 12) | ($first & 4095);
my $rows = '';
for my $k (0 .. 999_999)
{
	my $s = $slot + $k;
	$rows .= ((($s >> 12) << 22) | (4 << 12) | ($s & 4095)) . "\treserved\n";
}
my ($copy_out, $copy_err) = ('', '');
IPC::Run::run(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
	  '-c', 'COPY events (id, source) FROM STDIN' ],
	'<', \$rows, '>', \$copy_out, '2>', \$copy_err)
  or die "COPY failed: $copy_err";
is($node->safe_psql('postgres', "SELECT count(*) FROM events WHERE source = 'reserved'"),
	'1000000', 'COPY loaded a million rows with reserved IDs');
is($node->safe_psql('postgres',
		"SELECT min(id) = '$first' AND max(id) = '$last' FROM events WHERE source = 'reserved'"),
	't', 'the loader\'s numbering matches the reserved block exactly');

# the set-returning form, through COPY too
my $file = $node->basedir . '/bulk.tsv';
$node->safe_psql('postgres',
	"COPY (SELECT id, 'srf' FROM snowflake_nextval(1000000) id) TO '$file'");
$node->safe_psql('postgres', "COPY events (id, source) FROM '$file'");
is($node->safe_psql('postgres', "SELECT count(*) FROM events WHERE source = 'srf'"),
	'1000000', 'a million IDs from snowflake_nextval(1000000), loaded with COPY');

like(finish_pgbench($pgbench), qr/number of failed transactions: 0 \(0\.000%\)/,
	'the concurrent single-row inserts never failed (no key collision)');
is($node->safe_psql('postgres', q{
	SELECT count(*) = count(DISTINCT id) AND count(*) FILTER (WHERE source = 'single') > 0
	  FROM events}),
	't', 'no duplicate among bulk and single IDs');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM events s
	 WHERE source = 'single'
	   AND id BETWEEN (SELECT min(id) FROM events WHERE source = 'reserved')
	              AND (SELECT max(id) FROM events WHERE source = 'reserved')}),
	'0', 'no single ID falls inside the reserved block');
is($node->safe_psql('postgres',
		"SELECT max_clock_lead_ms >= $lead AND clock_errors = 0 FROM snowflake_status()"),
	't', 'snowflake_status() records the lead, without clock errors');

# --- UUIDv7: RFC 9562, appendix A.6: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F,
# whose timestamp 0x017F22E279B0 is 1645557742000 ms, 2022-02-22 19:22:22 UTC
like($node->safe_psql('postgres',
		"SELECT snowflake_to_uuid(snowflake_from_parts('2022-02-22 19:22:22+00', 4, 0))"),
	qr/^017f22e2-79b0-7/,
	'an ID of the RFC example\'s millisecond gives a UUIDv7 with the RFC\'s timestamp');
is($node->safe_psql('postgres', q{
	SET TimeZone = 'UTC';
	SELECT snowflake_timestamp(snowflake_from_uuid('017f22e2-79b0-7000-8000-000000000000'))}),
	'2022-02-22 19:22:22+00', 'and the reverse recovers that time');
my ($ret, $o, $e) = $node->psql('postgres',
	"SELECT snowflake_from_uuid('017F22E2-79B0-7CC3-98C4-DC0C0C07398F')");
like($e, qr/UUID does not correspond to a snowflake ID/,
	'the RFC example itself (random bits) has no snowflake ID');
is($node->safe_psql('postgres', q{
	SELECT bool_and(snowflake_from_uuid(snowflake_to_uuid(id)) = id)
	  FROM events WHERE source = 'reserved'}),
	't', 'every loaded ID round-trips through its UUID');

$node->stop;
done_testing();
