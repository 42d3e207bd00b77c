# A lease serves the ID layout it was claimed with, which the registry
# records (033 covers a holder restarted with another layout while the
# registry is down):
#  - a claim saved while the registry was down, by a run with the wrong
#    layout, and sent again after the settings were corrected, leases the
#    corrected layout, which then generates; and back at the first layout
#    the lease is refused (by the layout saved with it: a restart does not
#    ask the registry);
#  - a holder that moves with its fleet to another layout and a new,
#    empty registry claims there anew and generates.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $relayout = "snowflake.node_bits = 8\nsnowflake.sequence_bits = 14\n";

sub registry
{
	my ($name) = @_;
	my $registry = snowflake_node($name);
	$registry->start;
	setup_registry($registry);
	return ($registry, $registry->connstr . ' dbname=postgres user=snowflake_registry');
}

sub server
{
	my ($name, $conninfo) = @_;
	return snowflake_node($name, conf => qq{
snowflake.node_registry = '$conninfo'
snowflake.peer_check_interval = '200ms'
snowflake.peer_timeout = '2s'
});
}

# --- a claim saved with one layout, sent with another --------------------------------
my ($registry, $conninfo) = registry('registry');
$registry->stop;
my $x = server('claimer', $conninfo);
$x->start;
$x->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($x->poll_query_until('postgres',
		q{SELECT state = 'claiming' AND registry_error IS NOT NULL FROM snowflake_node_lease()}),
	'the registry down, the claim is saved and waits');
$x->stop;
$x->append_conf('postgresql.conf', $relayout);
$registry->start;
$x->start;
ok($x->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()'),
	'with the layout corrected and the registry up, the server gets its node ID');
is(($x->psql('postgres', 'SELECT snowflake_nextval() IS NOT NULL'))[1], 't', 'and generates');
is($registry->safe_psql('postgres', 'SELECT layout FROM snowflake_registry.node_lease'),
	'1735689600000/8/14', 'the registry leases the layout the server runs');

# back at the first layout, the lease is refused (1.6 stopped at the
# registry's answer to its first report; 1.7 does not wait for it)
$x->stop;
$x->append_conf('postgresql.conf', "snowflake.node_bits = 10\nsnowflake.sequence_bits = 12\n");
my $offset = -s $x->logfile;
$x->start;
ok($x->wait_for_log(qr/snowflake node ID \d+ was leased for another ID layout; this server generates no IDs/, $offset),
	'restarted with the first layout, the server refuses its lease');
my ($rc, $out, $err) = $x->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/claimed with the ID layout 1735689600000\/8\/14, and this server runs 1735689600000\/10\/12/,
	'and says which layout its lease serves');
$x->stop;
$registry->stop;

# --- a fleet moves to another layout with a new registry -----------------------------
my ($old_registry, $old_conninfo) = registry('old_registry');
my ($new_registry, $new_conninfo) = registry('new_registry');
my $y = server('mover', $old_conninfo);
$y->start;
$y->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($y->poll_query_until('postgres', 'SELECT snowflake_nextval() IS NOT NULL'),
	'a holder of the old registry generates');
$y->stop;
$y->append_conf('postgresql.conf', "snowflake.node_registry = '$new_conninfo'\n$relayout");
$y->start;
ok($y->poll_query_until('postgres', 'SELECT node_id IS NOT NULL FROM snowflake_status()'),
	'moved to a new registry and another layout, it claims there anew');
is($new_registry->safe_psql('postgres', 'SELECT layout FROM snowflake_registry.node_lease'),
	'1735689600000/8/14', 'with the layout it runs');
$y->stop;
$_->stop for ($old_registry, $new_registry);
done_testing();
