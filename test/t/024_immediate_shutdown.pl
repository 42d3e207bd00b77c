# An immediate shutdown while a backend holds the generator's spinlock.
# SIGQUIT can stop a backend inside that section, and the lock then stays
# held; the postmaster must not wait for it (it would spin until "stuck
# spinlock" and PANIC).  gdb sets the lock byte in a live backend, exactly
# as such a backend leaves it.  And an immediate shutdown behind a stalled
# disk: the postmaster lowers the high-water mark on its way out only after
# a clean shutdown, so nothing waits for storage; after an immediate one
# the reservation stays the bound.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_program('gdb', 'gdb');

# fsync on: the test framework turns it off, and a stalled fsync is the point
my $node = snowflake_node('immediate', conf => q{
snowflake.node_id = 8
snowflake.reserve_ahead = '5s'
fsync = on
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $last = $node->safe_psql('postgres',
	'SELECT max(id) FROM snowflake_nextval(1000) AS id');

# a backend that holds the spinlock, as if SIGQUIT had caught it inside
my $session = $node->background_psql('postgres');
my $pid = $session->query_safe('SELECT pg_backend_pid()');
my ($out, $err) = ('', '');
# "generator" is generator.c's pointer to the shared state, whose first
# member is the spinlock; the casts work with or without debug symbols
my $ok = IPC::Run::run(
	[
		'gdb', '--batch', '--nx', '-p', $pid,
		'-ex', q{set var *(unsigned char *) (*(void **) &'generator') = 1},
		'-ex', q{print *(unsigned char *) (*(void **) &'generator')},
		'-ex', 'detach'
	],
	'>', \$out, '2>', \$err);
plan skip_all => "gdb cannot attach to a backend here: $err"
  if !$ok && $err =~ /ptrace|Operation not permitted/;
like($out, qr/\$1 = 1/, 'gdb holds the spinlock in the backend') or diag($err);

ok($node->stop('immediate', fail_ok => 1),
	'an immediate shutdown completes while the spinlock is held');
my $log = slurp_file($node->logfile);
unlike($log, qr/stuck spinlock|PANIC/, 'no stuck spinlock, no PANIC');
ok(!-e $node->data_dir . '/postmaster.pid', 'the postmaster is gone');

# the reservation stayed the bound, which covers every ID issued
$node->start;
is($node->safe_psql('postgres', "SELECT snowflake_nextval() > $last"), 't',
	'after the restart IDs continue above every ID issued before');

# with no lock held, an immediate shutdown and crash recovery as usual
$last = $node->safe_psql('postgres', 'SELECT max(id) FROM snowflake_nextval(10) AS id');
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', "SELECT snowflake_nextval() > $last"), 't',
	'an immediate shutdown with no lock held: IDs continue above the last one');
$node->stop;

# --- what the mark on disk holds after each kind of shutdown ------------------
# the mark in pg_snowflake/state, read directly while the server is down
# (a restart would replay the reservation from WAL over it)
sub mark_on_disk
{
	open(my $fh, '<:raw', $node->data_dir . '/pg_snowflake/state') or die "open: $!";
	my $record = '';
	read($fh, $record, 56) == 56 or die 'short state file';
	close $fh;
	return unpack('q<', substr($record, 8, 8));
}
# the reservation reaches 5 s past the clock; after a clean shutdown the
# mark on disk is lowered to the millisecond of the last ID, after an
# immediate one it stays the reservation
sub mark_after_stop
{
	my ($mode) = @_;
	my ($last_id, $reserved) = split /\|/, $node->safe_psql('postgres',
		'SELECT max(id), (SELECT hwm_id FROM snowflake_status()) FROM snowflake_nextval(10) AS id');
	my $last_of_ms = $node->safe_psql('postgres',
		"SELECT snowflake_from_parts(snowflake_timestamp(${last_id}::snowflake), 1023, 4095)");
	$node->stop($mode);
	my $mark = mark_on_disk();
	$node->start;
	return ($mark, $reserved, $last_of_ms);
}
$node->start;
my ($mark, $reserved, $last_of_ms) = mark_after_stop('fast');
is($mark, $last_of_ms, 'after a clean shutdown the mark on disk is lowered to the last ID\'s millisecond');
($mark, $reserved, $last_of_ms) = mark_after_stop('immediate');
is($mark, $reserved, 'after an immediate shutdown the reservation stays the mark on disk');

# --- an immediate shutdown while the disk stalls ----------------------------------
$node->stop;
start_with_failio($node);
$last = $node->safe_psql('postgres', 'SELECT max(id) FROM snowflake_nextval(10) AS id');
set_failio($node, 'stall_fsync', 1);
ok($node->stop('immediate', fail_ok => 1),
	'an immediate shutdown completes while fsync of the state file stalls');
ok(!-e $node->data_dir . '/postmaster.pid', 'the postmaster is gone');
set_failio($node, 'stall_fsync', 0);
$node->start;
is($node->safe_psql('postgres', "SELECT snowflake_nextval() > $last"), 't',
	'after the restart IDs continue above every ID issued before');
$node->stop;

done_testing();
