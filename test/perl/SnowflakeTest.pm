# SnowflakeTest.pm: helpers shared by the TAP tests of the snowflake
# extension.  The tests themselves stay in test/t/*.pl.
package SnowflakeTest;

use strict;
use warnings FATAL => 'all';

use Exporter 'import';
use File::Spec;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

our @EXPORT = qw(snowflake_node wait_for_exit start_fails start_with_faketime
  set_clock_offset start_pgbench finish_pgbench dump_and_restore
  skip_all_without_extension skip_all_without_program skip_all_without_faketime
  faketime_library start_with_failio set_failio wait_for_stall sqlstate_of
  worker_pid proc_status_kb setup_registry wait_for_crash_restart
  wait_for_peer_rounds poll_until_sqlstate);

# --- optional dependencies ------------------------------------------------------
# A script whose dependency is missing for the PostgreSQL under test ends
# at once with "skip_all" and the reason; test/run.sh counts it as skipped.

# The extension directory of the PostgreSQL under test (the first pg_config
# on the PATH, which the PGXS TAP driver puts there).
sub extension_dir
{
	my $sharedir = `pg_config --sharedir`;
	die "pg_config --sharedir failed" if $? != 0;
	chomp $sharedir;
	return "$sharedir/extension";
}

sub skip_all_without_extension
{
	my ($name) = @_;
	plan skip_all => "$name is not installed for this PostgreSQL"
	  unless -f extension_dir() . "/$name.control";
	return;
}

sub skip_all_without_program
{
	my ($program, $package) = @_;
	my $found = grep { -x "$_/$program" } split /:/, $ENV{PATH};
	plan skip_all => "$program is not installed (Debian package \"$package\")"
	  unless $found;
	return;
}

sub faketime_library
{
	my ($lib) = glob('/usr/lib/*/faketime/libfaketime.so.1');
	return $lib;
}

sub skip_all_without_faketime
{
	plan skip_all => 'libfaketime is not installed (Debian package "faketime")'
	  unless faketime_library();
	return;
}

# A new initialized cluster with the library preloaded and the given
# postgresql.conf lines (a node ID among them, unless the test wants none).
sub snowflake_node
{
	my ($name, %opts) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%{ $opts{init} // {} });
	$node->append_conf('postgresql.conf',
		"shared_preload_libraries = 'snowflake'\n" . ($opts{conf} // ''));
	return $node;
}

# Makes the started node a registry of node IDs as doc/operations.md sets
# one up: the extension snowflake_registry, and a login role
# snowflake_registry with the privileges the servers need and no more.
sub setup_registry
{
	my ($registry) = @_;
	$registry->safe_psql('postgres', q{
		CREATE EXTENSION snowflake_registry;
		CREATE ROLE snowflake_registry LOGIN;
		GRANT USAGE ON SCHEMA snowflake_registry TO snowflake_registry;
		GRANT SELECT, INSERT, UPDATE ON snowflake_registry.node_lease TO snowflake_registry;
		GRANT EXECUTE ON FUNCTION snowflake_registry.claim, snowflake_registry.report,
		                          snowflake_registry.release
		   TO snowflake_registry;
	});
	return;
}

# After kill9(), the postmaster lingers as a zombie for a moment, and the
# next start() would find its lock file "in use".  Wait until it is gone.
sub wait_for_exit
{
	my ($pid) = @_;
	for (1 .. 600)
	{
		return 1 unless kill(0, $pid);
		usleep(100_000);
	}
	return 0;
}

# After a process of the node was killed (a crash restart), waits until the
# postmaster says it accepts connections again, in the log past $offset
# (taken before the kill).  Polling with queries instead races: psql exits
# at once while the server refuses connections, and IPC::Run dies writing
# the query into the closed pipe ("ack Broken pipe").
sub wait_for_crash_restart
{
	my ($node, $offset) = @_;
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $offset);
	# from $offset too: the server was up when it was taken, so the first
	# "ready" past it is the end of this restart
	$node->wait_for_log(qr/database system is ready to accept connections/, $offset);
	return;
}

# Tries to start the node, expecting failure; returns the server log of the
# attempt so that the caller can check the message.
sub start_fails
{
	my ($node) = @_;
	my $offset = -s $node->logfile // 0;
	my $ok = $node->start(fail_ok => 1);
	my $log = slurp_file($node->logfile, $offset);
	$node->stop if $ok;
	return ($ok, $log);
}

# Starts the node with libfaketime preloaded into every server process.
# The clock offset is read from a file on every clock read, so that
# set_clock_offset() shifts the server's clock while it runs; the monotonic
# clock is left alone (FAKETIME_DONT_FAKE_MONOTONIC), as after a real step
# of the system clock.  The test's own clients are not affected.
sub start_with_faketime
{
	my ($node, $offset) = @_;
	my $lib = faketime_library();
	die 'libfaketime not found (Debian package "faketime")' unless $lib;

	set_clock_offset($node, $offset // '+0');
	local $ENV{LD_PRELOAD} = $lib;
	local $ENV{FAKETIME_TIMESTAMP_FILE} = $node->basedir . '/faketime.rc';
	local $ENV{FAKETIME_NO_CACHE} = '1';
	local $ENV{FAKETIME_DONT_FAKE_MONOTONIC} = '1';
	delete local $ENV{FAKETIME};
	return $node->start;
}

# Sets the offset of the faked clock: "+0", "-5" (seconds), "-1h", ...
sub set_clock_offset
{
	my ($node, $offset) = @_;
	my $file = $node->basedir . '/faketime.rc';
	open(my $fh, '>', "$file.tmp") or die "open $file.tmp: $!";
	print $fh "$offset\n";
	close($fh);
	rename("$file.tmp", $file) or die "rename $file: $!";
	return;
}

# Starts pgbench in the background: $clients clients run the one statement
# $sql against $node, for $seconds if it is not 0, with the further options
# in $extra (such as "--transactions=100").  finish_pgbench() waits for it
# and returns what it printed (the "number of failed transactions" and
# "processed" lines).
sub start_pgbench
{
	my ($node, $name, $sql, $clients, $seconds, $extra) = @_;
	my $script = $node->basedir . "/$name.sql";
	open(my $fh, '>', $script) or die "could not write $script: $!";
	print $fh "$sql\n";
	close $fh;
	my %run = (out => '', err => '');
	$run{h} = IPC::Run::start(
		[
			'pgbench', '--no-vacuum', "--client=$clients", '--jobs=2',
			($seconds ? ("--time=$seconds") : ()),
			($extra ? (split / /, $extra) : ()),
			'--file', $script, '--host', $node->host, '--port', $node->port, 'postgres'
		],
		'>', \$run{out}, '2>', \$run{err});
	return \%run;
}

sub finish_pgbench
{
	my ($run) = @_;
	$run->{h}->finish;
	return $run->{out};
}

# --- storage faults -----------------------------------------------------------------
# test/inject/failio.c, a test-only LD_PRELOAD library, makes writes and
# fsyncs of a server's pg_snowflake/ files fail or stall while a control
# file exists in the node's failio directory.

# Builds the library once per test script, in the node's base directory.
sub failio_library
{
	my ($node) = @_;
	my $src = File::Spec->rel2abs(__FILE__);
	$src =~ s{perl/SnowflakeTest\.pm$}{inject/failio.c};
	my $lib = $node->basedir . '/failio.so';
	return $lib if -f $lib;
	system('cc', '-shared', '-fPIC', '-O2', '-o', $lib, $src, '-ldl') == 0
	  or die "could not build $lib from $src";
	return $lib;
}

# Starts the node with failio preloaded into every server process.
sub start_with_failio
{
	my ($node, %opts) = @_;
	my $dir = $node->basedir . '/failio';
	mkdir $dir unless -d $dir;
	local $ENV{LD_PRELOAD} = failio_library($node);
	local $ENV{FAILIO_DIR} = $dir;
	return $node->start(%opts);
}

# Turns a fault on or off: "fail_write", "fail_fsync" or "stall_fsync".
sub set_failio
{
	my ($node, $fault, $on) = @_;
	my $file = $node->basedir . "/failio/$fault";
	if ($on)
	{
		open(my $fh, '>', $file) or die "could not create $file: $!";
		close $fh;
	}
	else
	{
		unlink $file;
	}
	return;
}

# Waits until a server process is stalled in fsync() by "stall_fsync".
sub wait_for_stall
{
	my ($node) = @_;
	my $file = $node->basedir . '/failio/stalled';
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		return 1 if -e $file;
		usleep(100_000);
	}
	return 0;
}

# Runs $sql and returns the SQLSTATE it fails with, "00000", or "timed out"
# when it did not end within the test timeout.
sub sqlstate_of
{
	my ($node, $sql, %opts) = @_;
	my $db = $opts{db} // 'postgres';
	my $timed_out;
	my ($ret, $out, $err) = $node->psql($db,
		"\\set VERBOSITY sqlstate\n$sql", on_error_stop => 1,
		timeout => $PostgreSQL::Test::Utils::timeout_default,
		timed_out => \$timed_out);
	return 'timed out' if $timed_out;
	return '00000' if $ret == 0;
	return $1 if $err =~ /(?:ERROR|FATAL):\s+([0-9A-Z]{5})/;
	return "?: $err";
}

# Runs $sql until it fails with $sqlstate, within the default timeout;
# true if it did.  For a state that is reached when something stops
# working (a fence, a grant that runs out), which poll_query_until, which
# waits for an answer, cannot wait for.
sub poll_until_sqlstate
{
	my ($node, $sql, $sqlstate) = @_;
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	while (time() < $deadline)
	{
		return 1 if sqlstate_of($node, $sql) eq $sqlstate;
		usleep(100_000);
	}
	return 0;
}

# --- processes -----------------------------------------------------------------
sub proc_file
{
	my ($pid, $file) = @_;
	open(my $fh, '<', "/proc/$pid/$file") or return '';
	local $/;
	my $text = <$fh>;
	close $fh;
	return $text // '';
}

# The PID of the postmaster's child whose process title names $title (a
# worker without a database connection is not in pg_stat_activity), or
# undef.
sub worker_pid
{
	my ($node, $title) = @_;
	my ($pid) = grep {
		proc_file($_, 'cmdline') =~ /^postgres: .*\Q$title\E/
		  && (split ' ', proc_file($_, 'stat'))[3] == $node->{_pid}
	} map { m{/proc/(\d+)/} ? $1 : () } glob("/proc/[0-9]*/stat");
	return $pid;
}

# A value in kB from /proc/<pid>/status, such as VmHWM (peak resident size).
sub proc_status_kb
{
	my ($pid, $field) = @_;
	my ($kb) = proc_file($pid, 'status') =~ /^\Q$field\E:\s+(\d+) kB/m;
	return $kb;
}

# --- dump and restore --------------------------------------------------------------
# Dumps database "postgres" of $from with pg_dump in $format ("plain" or
# "custom") and restores it into a new database $db of $to, with psql or
# pg_restore, stopping at the first error; two checks.
sub dump_and_restore
{
	my ($from, $to, $format, $db) = @_;
	my $file = $from->basedir . "/$db.$format";
	$to->safe_psql('postgres', "CREATE DATABASE $db");
	command_ok([ 'pg_dump', '-d', $from->connstr('postgres'), '--format', $format, '-f', $file ],
		"pg_dump, $format format");
	if ($format eq 'plain')
	{
		command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $to->connstr($db), '-f', $file ],
			'restore with psql');
	}
	else
	{
		command_ok([ 'pg_restore', '--exit-on-error', '-d', $to->connstr($db), $file ],
			'restore with pg_restore');
	}
	return;
}

# Waits until $node's peer checker has published $n more rounds, each
# finished after the one before (checked_at of its first peer, by $node's
# clock).
sub wait_for_peer_rounds
{
	my ($node, $n) = @_;
	for (1 .. $n)
	{
		my $last = $node->safe_psql('postgres',
			'SELECT coalesce(max(checked_at), clock_timestamp()) FROM snowflake_peers()');
		$node->poll_query_until('postgres',
			"SELECT min(checked_at) > '$last' FROM snowflake_peers()")
		  or die $node->name . ' published no further round';
	}
	return;
}

1;
