# The excuse of the restart lead is spent once the clock has passed it,
# also by a session whose calls take the fast path of snowflake_nextval().
# After a crash the generator resumes above its reservation R, ahead of
# the clock, and a call may wait that lead out whatever the policy.  Once
# the clock is past R that excuse is gone: a later step back of the clock
# is a lead like any other, refused at once when it is more than the
# policy waits for.  The session below generates before the clock reaches
# R (the excuse stays), then after it, and then the clock steps back 20 s:
# its next call must fail, not wait the 20 s out.  The clock is moved with
# libfaketime, relative to R as the server reports it.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;
use Time::HiRes qw(usleep);

skip_all_without_faketime();

my $node = snowflake_node('excuse', conf => q{
snowflake.node_id = 4
snowflake.clock_policy = 'borrow'
snowflake.max_borrow = '60s'
snowflake.clock_wait_timeout = '10s'
snowflake.reserve_ahead = '30s'
snowflake.clock_jump_hold = 0
});
start_with_faketime($node, '+0');
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake; SELECT snowflake_nextval()');

# a crash: the next run resumes above the reservation R, 30 s ahead
$node->stop('immediate');
start_with_faketime($node, '+0');
my $r = $node->safe_psql('postgres', 'SELECT extract(epoch FROM hwm_time) FROM snowflake_status()');
cmp_ok($r - time(), '>', 0, 'after the crash, the generator resumes ahead of the clock');

# sets the faked clock to R + $seconds (whole seconds, give or take one)
sub clock_at_r
{
	my ($seconds) = @_;
	my $offset = int($r - time()) + $seconds;
	set_clock_offset($node, ($offset < 0 ? '' : '+') . $offset);
	return;
}

# waits until the session $s sees $setting = $value
sub session_sees
{
	my ($s, $setting, $value) = @_;
	for (1 .. 1800)
	{
		return 1 if $s->query_safe("SELECT current_setting('$setting')") eq $value;
		usleep(100_000);
	}
	return 0;
}

# the session's first ID: borrowed under "borrow", the clock before R
my $s = $node->background_psql('postgres', on_error_stop => 0);
# the clock's steps are logged to the client as warnings
$s->query_safe('SET client_min_messages = error');
$s->query_safe('SELECT snowflake_nextval()');

# the clock just before R, then the policy that waits at most 10 s
clock_at_r(-1);
$node->safe_psql('postgres', q{ALTER SYSTEM SET snowflake.clock_policy = 'wait'});
$node->reload;
ok(session_sees($s, 'snowflake.clock_policy', 'wait'), 'the session runs under "wait"');
$s->query_safe('SELECT snowflake_nextval()');

# the clock past R: the session's calls may take the fast path now
clock_at_r(2);
$s->query_safe('SELECT snowflake_nextval() FROM generate_series(1, 100)');

# the clock steps back 20 s, within reserve_ahead of R: no restart lead
clock_at_r(-18);
my ($out, $ret) = $s->query(q{SET statement_timeout = '120s'; SELECT snowflake_nextval()});
like($s->{stderr}, qr/ERROR:  snowflake generator is \d+ ms ahead of the system clock/,
	'a step back after the clock passed the restart lead is refused, not waited out');
is($node->safe_psql('postgres', 'SELECT clock_errors > 0 FROM snowflake_status()'), 't',
	'and counted as a clock error');
$s->quit;

$node->stop;
done_testing();
