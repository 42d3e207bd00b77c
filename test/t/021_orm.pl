# Real applications adopt snowflake IDs: an Alembic migration
# creates the extension and switches a serial key with snowflake_adopt();
# SQLAlchemy inserts and gets the keys back through RETURNING; the
# migration goes down to the sequence and up again.  A Django application
# does the same through its own migrations.  The checks are in
# test/orm/sa_app.py and test/orm/django_check.py.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $orm_dir = "$FindBin::RealBin/../orm";

skip_all_without_program('python3', 'python3');
for my $module (
	[ 'sqlalchemy', 'python3-sqlalchemy' ],
	[ 'alembic',    'python3-alembic' ],
	[ 'django',     'python3-django' ],
	[ 'psycopg2',   'python3-psycopg2' ])
{
	my ($name, $package) = @$module;
	plan skip_all =>
	  "Python module \"$name\" is not installed (Debian package \"$package\")"
	  unless IPC::Run::run([ 'python3', '-c', "import $name" ],
		'>', \my $out, '2>', \my $err);
}

my $node = snowflake_node('orm', conf => "snowflake.node_id = 5\n");
$node->start;

# Runs a Python program with the libpq environment pointing at $db;
# returns whether it succeeded, and what it printed.
sub python
{
	my ($db, @args) = @_;
	local $ENV{PGHOST}                  = $node->host;
	local $ENV{PGPORT}                  = $node->port;
	local $ENV{PGDATABASE}              = $db;
	local $ENV{PGUSER}                  = $ENV{USER} // 'postgres';
	local $ENV{PYTHONDONTWRITEBYTECODE} = '1';
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'python3', @args ], '>', \$out, '2>', \$err);
	note($out) if $out ne '';
	note($err) if $err ne '';
	return ($ok, $out, $err);
}

# Runs a program of TAP checks: all passed, and as many as expected.
sub python_checks
{
	my ($db, $script, $expected) = @_;
	my ($ok, $out) = python($db, "$orm_dir/$script");
	ok($ok, "$script: every check passed");
	my $passed = () = $out =~ /^ok \d+ - /mg;
	my $failed = () = $out =~ /^not ok/mg;
	is($failed, 0, "$script: no failed check");
	is($passed, $expected, "$script: all $expected checks ran");
	return;
}

my @alembic = ('-m', 'alembic', '-c', "$orm_dir/alembic.ini");

# --- Alembic and SQLAlchemy -------------------------------------------------
$node->safe_psql('postgres', 'CREATE DATABASE alembic_app');
my ($ok, $out, $err) = python('alembic_app', @alembic, 'upgrade', '0001');
ok($ok, 'alembic upgrade 0001: the application as it was');
$node->safe_psql('alembic_app', q{
	INSERT INTO customers (name) VALUES ('Ada'), ('Grace');
	INSERT INTO orders (customer_id) VALUES (1), (2);
	INSERT INTO order_lines (order_id, sku) VALUES (1, 'pen'), (2, 'ink');
});

($ok, $out, $err) = python('alembic_app', @alembic, 'upgrade', 'head');
ok($ok, 'alembic upgrade head: CREATE EXTENSION and snowflake_adopt()');
like($err, qr/snowflake_adopt: ALTER TABLE public\.orders ALTER COLUMN id SET DEFAULT public\.snowflake_nextval\(\);/,
	'the migration logs the statements it ran');
my $keys = q{
	SELECT string_agg(format('%s.%s %s %s', attrelid::regclass, attname,
	                         format_type(atttypid, atttypmod),
	                         coalesce(pg_get_expr(adbin, adrelid), '-')), ', ' ORDER BY attrelid::regclass::text, attnum)
	  FROM pg_attribute LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
	 WHERE attrelid IN ('orders'::regclass, 'order_lines'::regclass)
	   AND attname IN ('id', 'order_id')};
is($node->safe_psql('alembic_app', $keys),
	'order_lines.id integer nextval(\'order_lines_id_seq\'::regclass), '
	  . 'order_lines.order_id bigint -, orders.id bigint snowflake_nextval()',
	'orders.id is bigint with the new default; the column referring to it is bigint');
is($node->safe_psql('alembic_app', q{SELECT to_regclass('orders_id_seq') IS NULL}),
	't', 'the old sequence is gone');

python_checks('alembic_app', 'sa_app.py', 12);

($ok, $out, $err) = python('alembic_app', @alembic, 'downgrade', '0001');
ok($ok, 'alembic downgrade 0001');
is($node->safe_psql('alembic_app', $keys),
	'order_lines.id integer nextval(\'order_lines_id_seq\'::regclass), '
	  . 'order_lines.order_id bigint -, orders.id bigint nextval(\'orders_id_seq\'::regclass)',
	'orders.id is back on a sequence (and stays bigint)');
is($node->safe_psql('alembic_app', q{
	SELECT count(*) FROM pg_extension WHERE extname = 'snowflake'}),
	'0', 'the extension is dropped');
is($node->safe_psql('alembic_app', q{
	INSERT INTO orders (customer_id) VALUES (1) RETURNING id}),
	'3', 'the sequence resumes after the keys from before the upgrade');
is($node->safe_psql('alembic_app', q{SELECT count(*) FROM orders}),
	'7', 'no order was lost');

($ok, $out, $err) = python('alembic_app', @alembic, 'upgrade', 'head');
ok($ok, 'alembic upgrade head again');
is($node->safe_psql('alembic_app', q{
	WITH n AS (INSERT INTO orders (customer_id) VALUES (1) RETURNING id)
	SELECT (SELECT id FROM n) > (SELECT max(id) FROM orders)}),
	't', 'a snowflake key again, above every earlier one');

# --- Django -----------------------------------------------------------------
$node->safe_psql('postgres', 'CREATE DATABASE django_app');
python_checks('django_app', 'django_check.py', 18);

$node->stop;
done_testing();
