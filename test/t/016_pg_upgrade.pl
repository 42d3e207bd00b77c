# pg_upgrade moves the databases but not $PGDATA/pg_snowflake/state; the
# README says to copy it over before the new server starts.  The new server
# then starts with its clock ten minutes behind the old server's last ID
# (libfaketime), so only the copied high-water mark can keep its IDs above
# the old ones.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

my $old = snowflake_node('old', conf => "snowflake.node_id = 3\n");
$old->start;
$old->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), kind text);
	CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
	                     event snowflake REFERENCES events);
	INSERT INTO events (kind) SELECT 'k' || g FROM generate_series(1, 5000) g;
	INSERT INTO orders (event) SELECT id FROM events;
});
my $fingerprint = q{
	SELECT (SELECT count(*) || '/' || sum(hashint8(id::bigint)::bigint) FROM events) || ' '
	    || (SELECT count(*) || '/' || sum(hashint8(id)::bigint) FROM orders)
};
my $before = $old->safe_psql('postgres', $fingerprint);
my $max_before = $old->safe_psql('postgres',
	'SELECT greatest((SELECT max(id) FROM events), (SELECT max(id) FROM orders)::snowflake)');
$old->stop;

my $upgraded = snowflake_node('upgraded',
	conf => "snowflake.node_id = 3\nsnowflake.max_borrow = '1h'\n");
my $upgrade_dir = $upgraded->basedir . '/pg_upgrade';
mkdir $upgrade_dir;
chdir $upgrade_dir or die "chdir: $!";    # pg_upgrade writes its logs here
command_ok(
	[
		'pg_upgrade', '--no-sync',
		'-d', $old->data_dir, '-D', $upgraded->data_dir,
		'-b', $old->config_data('--bindir'), '-B', $upgraded->config_data('--bindir'),
		'-s', $upgraded->host, '-p', $old->port, '-P', $upgraded->port
	],
	'pg_upgrade of a cluster using snowflake');

# the step the README asks for
mkdir $upgraded->data_dir . '/pg_snowflake';
copy($old->data_dir . '/pg_snowflake/state', $upgraded->data_dir . '/pg_snowflake/state')
  or die "copy: $!";

start_with_faketime($upgraded, '-10m');
is($upgraded->safe_psql('postgres', $fingerprint), $before, 'pg_upgrade kept every row');
is($upgraded->safe_psql('postgres',
		"SELECT snowflake_timestamp('$max_before'::snowflake) > clock_timestamp() + interval '9 minutes'"),
	't', 'the new server\'s clock is ten minutes behind the old IDs');
is($upgraded->safe_psql('postgres', qq{
	INSERT INTO events (kind) VALUES ('after upgrade') RETURNING id > '$max_before'}),
	't', 'and yet its IDs continue above them');
ok($upgraded->log_contains('IDs resume above high-water mark'),
	'resuming from the copied high-water mark, as its log says');
$upgraded->stop;
done_testing();
