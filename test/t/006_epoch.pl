# The time bits of a layout run out: the log warns ahead of time, IDs stay
# positive and increasing to the very last one of the layout, and after it
# every call fails with a clear error instead of wrapping around, also after
# kill -9, also with the clock past the end, also without node bits (where
# the last ID is 2^63 - 1).  The server's clock is set near the end with
# libfaketime, relative to an end a day away, so nothing depends on how
# long a start takes; the last IDs are reached with one block reservation.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use POSIX qw(strftime);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

# the epoch of a layout with 35 time bits (2^35 ms, about 398 days) whose
# time bits end at Unix second $end
sub epoch_for_end
{
	my ($end) = @_;
	my $epoch_ms = $end * 1000 - 2**35;
	return strftime('%Y-%m-%d %H:%M:%S', gmtime(int($epoch_ms / 1000)))
	  . sprintf('.%03d+00', $epoch_ms % 1000);
}

my $end = time() + 86400;    # a day from now, a whole second

# --- a layout that ran out long ago -------------------------------------------------
my $old = snowflake_node('exhausted', conf => q{
snowflake.node_id = 1
snowflake.node_bits = 16
snowflake.sequence_bits = 12
snowflake.epoch = '2020-01-01 00:00:00+00'
});
$old->start;
$old->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($old->log_contains('WARNING:  snowflake time bits ran out at 2021-02-0'),
	'the log says when the time bits ran out');
my ($ret, $stdout, $stderr) = $old->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT snowflake_nextval()");
like($stderr, qr/ERROR:  2200H: snowflake timestamp range exhausted/,
	'generation fails with sequence_generator_limit_exceeded (2200H)');
like($stderr, qr/DETAIL:  The 35 time bits of the ID layout ran out at 2021-02-0/,
	'saying when the time ran out');
is($old->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
	'the time bits of the layout are exhausted', 'snowflake_status() shows it');
$old->stop;

# runs a layout to its very last ID, and past it; $what names the layout
sub run_to_the_end
{
	my ($name, $node_bits, $seq_bits, $what) = @_;
	my $node = snowflake_node($name, conf => "snowflake.node_id = 0\n"
		  . "snowflake.node_bits = $node_bits\n"
		  . "snowflake.sequence_bits = $seq_bits\n"
		  . "snowflake.epoch = '" . epoch_for_end($end) . "'\n"
		  . "snowflake.max_borrow = '1h'\n"
		  . "restart_after_crash = on\n");
	# the clock ten minutes before the end
	start_with_faketime($node, '+' . (86400 - 600));
	ok($node->log_contains('WARNING:  snowflake time bits run out in 0 days'),
		"$what: the log warns that the time bits run out soon");
	$node->safe_psql('postgres', q{
		CREATE EXTENSION snowflake;
		CREATE TABLE ids (n bigserial, id snowflake NOT NULL);
		INSERT INTO ids (id) SELECT snowflake_nextval() FROM generate_series(1, 1000);
	});

	# a block reaching past the last ID is refused whole
	($ret, $stdout, $stderr) = $node->psql('postgres',
		"SELECT * FROM snowflake_reserve((2::bigint << $seq_bits) * 1000 * 700)");
	like($stderr, qr/ERROR:  snowflake timestamp range exhausted/,
		"$what: a block reaching past the end of the time bits is refused");
	is($node->safe_psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'), 't',
		"$what: and single IDs still come while time is left");

	# the block of every ID that is left: counted from the last ID issued,
	# which a first block puts five minutes ahead of the clock, so that the
	# clock cannot move the start of the block meanwhile.  Then, in the same
	# session (whose calls take the fast path), one more ID: with no node
	# bits the last slot is 2^63 - 1, and the next would wrap around.
	$node->safe_psql('postgres', "SELECT snowflake_reserve((1::bigint << $seq_bits) * 300000)");
	($ret, $stdout, $stderr) = $node->psql('postgres', qq{
		INSERT INTO ids (id)
		SELECT last_id FROM (SELECT snowflake_nextval() AS id) i,
		LATERAL snowflake_reserve(
		  (extract(epoch FROM (SELECT time_runs_out_at FROM snowflake_status())
		                      - snowflake_timestamp(i.id)) * 1000)::bigint * (1::bigint << $seq_bits)
		  - snowflake_seq(i.id) - 1);
		INSERT INTO ids (id) SELECT snowflake_nextval();});
	like($stderr, qr/ERROR:  snowflake timestamp range exhausted/,
		"$what: after the last ID, the session that took it gets the exhaustion error too");
	is($node->safe_psql('postgres', q{
		SELECT snowflake_timestamp(max(id)) = time_runs_out_at - interval '1 ms'
		   AND snowflake_seq(max(id)) = (1 << sequence_bits) - 1
		  FROM ids, snowflake_status() GROUP BY time_runs_out_at, sequence_bits}),
		't', "$what: the last ID of the layout is handed out");
	is($node->safe_psql('postgres', q{
		SELECT bool_and(id > prev) AND bool_and(id::bigint > 0)
		  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) s
		 WHERE prev IS NOT NULL}),
		't', "$what: every ID up to it is positive and larger than the one before");

	($ret, $stdout, $stderr) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT snowflake_nextval()");
	like($stderr, qr/ERROR:  2200H: snowflake timestamp range exhausted/,
		"$what: after the last ID, the exhaustion error");

	# kill -9: the generator resumes at the end, and stays there
	my $pid = $node->{_pid};
	$node->kill9;
	wait_for_exit($pid) or die 'postmaster did not exit';
	start_with_faketime($node, '+' . (86400 - 600));
	($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT snowflake_nextval()');
	like($stderr, qr/ERROR:  snowflake timestamp range exhausted/,
		"$what: after kill -9 as well, not a wrapped-around ID");

	# the clock past the end: no ID stamped with the last millisecond
	$node->stop;
	$node->append_conf('postgresql.conf', "snowflake.epoch = '" . epoch_for_end($end - 1200) . "'\n");
	unlink $node->data_dir . '/pg_snowflake/state';
	start_with_faketime($node, '+' . (86400 - 600));
	($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT snowflake_nextval()');
	like($stderr, qr/ERROR:  snowflake timestamp range exhausted/,
		"$what: with the clock past the end, generation fails at once");
	is($node->safe_psql('postgres', 'SELECT problem FROM snowflake_status()'),
		'the time bits of the layout are exhausted', "$what: snowflake_status() says so");
	$node->stop;
	return;
}

run_to_the_end('running_out', 16, 12, '16 node bits, 12 sequence bits');
# no node bits: the time and sequence fields fill all 63 bits, and the last
# ID is 2^63 - 1
run_to_the_end('no_node_bits', 0, 28, 'no node bits, 28 sequence bits');

done_testing();
