# SnowflakeTest.pm: helpers shared by the TAP tests of the snowflake
# extension.  The tests themselves stay in test/t/*.pl.
package SnowflakeTest;

use strict;
use warnings FATAL => 'all';

use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

our @EXPORT = qw(snowflake_node wait_for_exit start_fails);

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

1;
