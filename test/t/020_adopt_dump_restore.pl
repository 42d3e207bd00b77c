# A schema switched to snowflake IDs with snowflake_adopt(),
# dumped with pg_dump (plain and custom format) and restored into a fresh
# server: the rows, old and new keys among them, come back; the key
# columns are bigint with DEFAULT snowflake_nextval() and go on generating
# IDs of the new server, above the recorded boundary; the old sequences
# stay gone, except one that is still used; the foreign keys, including
# those of a partitioned table, are there and hold.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $old = snowflake_node('old', conf => "snowflake.node_id = 3\n");
$old->start;
$old->safe_psql('postgres', 'CREATE EXTENSION snowflake');

# the application as it was: serial and identity keys, referenced across
# schemas and from a partitioned table, a name that needs quoting, and a
# sequence that another table's default also uses
$old->safe_psql('postgres', q{
	CREATE SCHEMA shop;
	CREATE SCHEMA billing;
	CREATE TABLE shop.customers (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text);
	CREATE TABLE shop.orders (id serial PRIMARY KEY,
	                          customer_id integer NOT NULL REFERENCES shop.customers);
	CREATE TABLE billing.invoices (id bigserial PRIMARY KEY,
	                               order_id integer NOT NULL REFERENCES shop.orders);
	CREATE TABLE billing.payments (order_id integer NOT NULL REFERENCES shop.orders,
	                               paid date NOT NULL, amount numeric)
	  PARTITION BY RANGE (paid);
	CREATE TABLE billing.payments_2025 PARTITION OF billing.payments
	  FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
	CREATE TABLE billing.payments_2026 PARTITION OF billing.payments
	  FOR VALUES FROM ('2026-01-01') TO (MAXVALUE);
	CREATE TABLE shop."Gift Cards" ("Card No" serial PRIMARY KEY, "Order" integer REFERENCES shop.orders);
	CREATE TABLE shop.card_log (n integer DEFAULT nextval('shop."Gift Cards_Card No_seq"'));

	INSERT INTO shop.customers (name) SELECT 'c' || g FROM generate_series(1, 100) g;
	INSERT INTO shop.orders (customer_id) SELECT 1 + g % 100 FROM generate_series(1, 1000) g;
	INSERT INTO billing.invoices (order_id) SELECT id FROM shop.orders;
	INSERT INTO billing.payments SELECT id, date '2025-12-20' + id % 20, id FROM shop.orders;
	INSERT INTO shop."Gift Cards" ("Order") SELECT id FROM shop.orders WHERE id % 10 = 0;
	INSERT INTO shop.card_log DEFAULT VALUES;
});

# the switch, in one transaction, then the application goes on
$old->safe_psql('postgres', q{
	BEGIN;
	SELECT count(*) FROM snowflake_adopt('shop.customers', dry_run => false);
	SELECT count(*) FROM snowflake_adopt('shop.orders', dry_run => false);
	SELECT count(*) FROM snowflake_adopt('billing.invoices', dry_run => false);
	SELECT count(*) FROM snowflake_adopt('shop."Gift Cards"', 'Card No', dry_run => false);
	COMMIT;
	INSERT INTO shop.customers (name) VALUES ('new');
	INSERT INTO shop.orders (customer_id)
	  SELECT (SELECT max(id) FROM shop.customers) FROM generate_series(1, 50);
	INSERT INTO billing.invoices (order_id) SELECT id FROM shop.orders WHERE id > 1000;
	INSERT INTO billing.payments SELECT id, '2026-03-01', 1 FROM shop.orders WHERE id > 1000;
	INSERT INTO shop."Gift Cards" ("Order") SELECT max(id) FROM shop.orders;
	INSERT INTO shop.card_log DEFAULT VALUES;
});

my $fingerprint = q{
	SELECT string_agg(t || ':' || n || '/' || s, ' ' ORDER BY t)
	  FROM (SELECT 'customers' AS t, count(*) AS n, sum(hashint8(id)::bigint) AS s FROM shop.customers
	        UNION ALL SELECT 'orders', count(*), sum(hashint8(id) # hashint8(customer_id)) FROM shop.orders
	        UNION ALL SELECT 'invoices', count(*), sum(hashint8(id) # hashint8(order_id)) FROM billing.invoices
	        UNION ALL SELECT tableoid::regclass::text, count(*), sum(hashint8(order_id)) FROM billing.payments GROUP BY 1
	        UNION ALL SELECT 'cards', count(*), sum(hashint8("Card No") # hashint8("Order")) FROM shop."Gift Cards"
	        UNION ALL SELECT 'card_log', count(*), sum(n) FROM shop.card_log) f
};
# the key columns, their types and defaults, and what the comments record
my $schema = q{
	SELECT string_agg(format('%s.%s %s %s', a.attrelid::regclass, quote_ident(a.attname),
	                         format_type(a.atttypid, a.atttypmod),
	                         coalesce(pg_get_expr(d.adbin, d.adrelid), '-')),
	                  E'\n' ORDER BY a.attrelid::regclass::text, a.attnum)
	  FROM pg_attribute a
	  JOIN pg_class c ON c.oid = a.attrelid
	  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	 WHERE c.relnamespace IN ('shop'::regnamespace, 'billing'::regnamespace)
	   AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
	   AND a.atttypid IN ('int4'::regtype, 'int8'::regtype)
};
my $constraints = q{
	SELECT string_agg(conrelid::regclass || ' ' || pg_get_constraintdef(oid), E'\n'
	                  ORDER BY conrelid::regclass::text, pg_get_constraintdef(oid))
	  FROM pg_constraint
	 WHERE contype = 'f' AND connamespace IN ('shop'::regnamespace, 'billing'::regnamespace)
};
my $markers = q{
	SELECT string_agg(format('%s.%s %s', attrelid::regclass, attname,
	                         substring(col_description(attrelid, attnum) FROM 'keys below (\d+)')),
	                  ' ' ORDER BY attrelid::regclass::text)
	  FROM pg_attribute
	 WHERE col_description(attrelid, attnum) LIKE 'snowflake_adopt: %'
};
my $sequences = q{
	SELECT string_agg(oid::regclass::text, ' ' ORDER BY 1) FROM pg_class
	 WHERE relkind = 'S' AND relnamespace IN ('shop'::regnamespace, 'billing'::regnamespace)
};

my %before = map { $_->[0] => $old->safe_psql('postgres', $_->[1]) } (
	[ fingerprint => $fingerprint ], [ schema => $schema ],
	[ constraints => $constraints ], [ markers => $markers ],
	[ sequences => $sequences ]);

# what the switch left behind, before any dump
like($before{schema}, qr/^shop\.orders\.id bigint snowflake_nextval\(\)$/m,
	'shop.orders.id: bigint, DEFAULT snowflake_nextval()');
unlike($before{schema}, qr/^(?!shop\.card_log\.).* integer /m,
	'no integer key or foreign-key column is left');
is($before{sequences}, 'shop."Gift Cards_Card No_seq"',
	'only the sequence that shop.card_log still uses is kept');
is(scalar(() = $before{markers} =~ / \d{15,}/g), 4, 'four boundaries are recorded');
is($old->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE id < b) || '/' || count(*) FILTER (WHERE id >= b)
	  FROM shop.orders,
	       LATERAL (SELECT substring(col_description('shop.orders'::regclass, 1) FROM 'keys below (\d+)')::bigint) x(b)}),
	'1000/50', 'the boundary tells the 1000 adopted keys from the 50 snowflake IDs');

my $new = snowflake_node('new', conf => "snowflake.node_id = 4\n");
$new->start;

for my $format ('plain', 'custom')
{
	my $db = "restored_$format";
	dump_and_restore($old, $new, $format, $db);

	is($new->safe_psql($db, $fingerprint), $before{fingerprint},
		"$format: the same rows, with the same keys, in the same partitions");
	is($new->safe_psql($db, $schema), $before{schema},
		"$format: the same key types and defaults");
	is($new->safe_psql($db, $constraints), $before{constraints},
		"$format: the same foreign keys");
	is($new->safe_psql($db, $markers), $before{markers},
		"$format: the same boundaries in the column comments");
	is($new->safe_psql($db, $sequences), $before{sequences},
		"$format: no old sequence comes back");

	# the defaults generate this server's IDs, above the boundary and above
	# every key from the old server
	is($new->safe_psql($db, q{
		WITH c AS (INSERT INTO shop.customers (name) VALUES ('restored') RETURNING id),
		     o AS (INSERT INTO shop.orders (customer_id) SELECT id FROM c RETURNING id),
		     i AS (INSERT INTO billing.invoices (order_id) SELECT id FROM o RETURNING id),
		     p AS (INSERT INTO billing.payments SELECT id, '2026-06-01', 1 FROM o RETURNING order_id),
		     g AS (INSERT INTO shop."Gift Cards" ("Order") SELECT id FROM o RETURNING "Card No")
		SELECT (SELECT snowflake_node_id(id) = 4 FROM o)
		   AND (SELECT id > (SELECT max(id) FROM shop.orders) FROM o)
		   AND (SELECT id >= substring(col_description('shop.orders'::regclass, 1) FROM 'keys below (\d+)')::bigint FROM o)
		   AND (SELECT snowflake_node_id(id) = 4 FROM c)
		   AND (SELECT snowflake_node_id(id) = 4 FROM i)
		   AND (SELECT snowflake_node_id("Card No") = 4 FROM g)
		   AND (SELECT count(*) = 1 FROM p)}),
		't', "$format: new rows get snowflake IDs of the new server, related through the foreign keys");
	is($new->safe_psql($db, q{INSERT INTO shop.card_log DEFAULT VALUES RETURNING n}),
		'103', "$format: the kept sequence goes on where it was");

	# the foreign keys hold, on the partitions too
	my ($rc, $out, $err) = $new->psql($db,
		q{INSERT INTO billing.payments VALUES (42424242424242, '2025-06-01', 1)});
	like($err, qr/violates foreign key constraint "payments_order_id_fkey"/,
		"$format: a payment for no order is refused");
	($rc, $out, $err) = $new->psql($db,
		q{DELETE FROM shop.orders WHERE id = (SELECT max(id) FROM shop.orders WHERE id < 1000)});
	like($err, qr/violates foreign key constraint/,
		"$format: an order that is referenced cannot be deleted");
}

$new->stop;
$old->stop;
done_testing();
