--
-- Adopting snowflake IDs in an existing schema: snowflake_adopt() on
-- serial, bigserial and identity keys, integer keys referenced from other
-- schemas and from a partitioned table, names that need quoting, dry runs,
-- and every refusal.  Neither IDs nor the boundary are printed: masked()
-- hides the boundary in the statements, and rows are checked with booleans.
--
SET TimeZone = 'UTC';
-- PL/pgSQL context lines carry line numbers of the function: not shown
\set SHOW_CONTEXT never

CREATE FUNCTION masked(s text) RETURNS text LANGUAGE sql IMMUTABLE
  RETURN regexp_replace(s, 'keys below \d+ predate snowflake IDs \(switched [^)]*\)',
                        'keys below <boundary> predate snowflake IDs (switched <time>)');
-- the boundary recorded in the column's comment, as README describes
CREATE FUNCTION boundary_of(t regclass, c name DEFAULT 'id') RETURNS bigint LANGUAGE sql STABLE
  RETURN (SELECT substring(col_description(t, attnum) FROM 'keys below (\d+)')::bigint
            FROM pg_attribute WHERE attrelid = t AND attname = c);
-- integer columns, their defaults and identities, in the schemas below
CREATE VIEW key_columns AS
SELECT c.oid::regclass AS "table", a.attname AS "column",
       format_type(a.atttypid, a.atttypmod) AS type,
       pg_get_expr(d.adbin, d.adrelid) AS "default", a.attidentity AS identity
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
 WHERE c.relkind IN ('r', 'p')
   AND n.nspname IN ('shop', 'billing', 'metrics', 'archive', 'Sales Dept', 'crm', 'hr')
   AND a.atttypid IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype);

------------------------------------------------------------------------
-- serial, referenced from two tables in another schema
------------------------------------------------------------------------
CREATE SCHEMA shop;
CREATE SCHEMA billing;
CREATE TABLE shop.orders (id serial PRIMARY KEY, placed date NOT NULL);
CREATE TABLE billing.invoices (id bigserial PRIMARY KEY,
                               order_id integer NOT NULL REFERENCES shop.orders);
CREATE TABLE billing.shipments (id bigint PRIMARY KEY,
                                order_id integer REFERENCES shop.orders);
INSERT INTO shop.orders (placed) SELECT date '2026-01-01' + g FROM generate_series(1, 3) g;
INSERT INTO billing.invoices (order_id) VALUES (1), (2), (3);
INSERT INTO billing.shipments VALUES (1, 1), (2, 3);

-- a dry run returns the statements and changes nothing
SELECT masked(s) AS statement FROM snowflake_adopt('shop.orders') s;
SELECT * FROM key_columns WHERE "table" IN ('shop.orders'::regclass, 'billing.shipments')
 ORDER BY 1, 2;
SELECT to_regclass('shop.orders_id_seq') AS sequence,
       col_description('shop.orders'::regclass, 1) AS comment;

-- dry_run => false runs the same statements in this transaction
BEGIN;
SELECT masked(s) AS statement FROM snowflake_adopt('shop.orders', dry_run => false) s;
SELECT * FROM key_columns WHERE "table" IN ('shop.orders'::regclass, 'billing.invoices', 'billing.shipments')
 ORDER BY 1, 2;
SELECT to_regclass('shop.orders_id_seq') AS sequence,
       pg_get_serial_sequence('shop.orders', 'id') AS serial_sequence;
COMMIT;

-- old rows keep their keys; new rows get snowflake IDs of this node, at
-- or above the boundary and above every old key; foreign keys hold them
SELECT array_agg(id ORDER BY id) AS old_keys FROM shop.orders;
INSERT INTO shop.orders (placed) VALUES ('2026-02-01'), ('2026-02-02');
SELECT count(*) AS new_rows,
       bool_and(id >= boundary_of('shop.orders')) AS at_or_above_boundary,
       bool_and(id > 3) AS above_old_keys,
       bool_and(snowflake_node_id(id) = current_setting('snowflake.node_id')::int) AS this_node
  FROM shop.orders WHERE placed >= '2026-02-01';
SELECT count(*) FILTER (WHERE id < boundary_of('shop.orders')) AS adopted_keys,
       count(*) FILTER (WHERE id >= boundary_of('shop.orders')) AS snowflake_keys
  FROM shop.orders;
INSERT INTO billing.invoices (order_id) SELECT max(id) FROM shop.orders;
INSERT INTO billing.shipments SELECT 3, max(id) FROM shop.orders;
INSERT INTO billing.shipments VALUES (4, 42);  -- fails: the foreign key is still there
SELECT conrelid::regclass AS "table", pg_get_constraintdef(oid) AS constraint
  FROM pg_constraint WHERE confrelid = 'shop.orders'::regclass ORDER BY 1;

-- done once: asking again is refused
SELECT * FROM snowflake_adopt('shop.orders');

------------------------------------------------------------------------
-- bigserial: nothing to widen in its own table, but an integer column
-- that references it would not hold snowflake IDs
------------------------------------------------------------------------
CREATE TABLE billing.credit_notes (id serial PRIMARY KEY,
                                   invoice_id integer REFERENCES billing.invoices);
INSERT INTO billing.credit_notes (invoice_id) VALUES (1);
SELECT masked(s) AS statement FROM snowflake_adopt('billing.invoices', dry_run => false) s;
INSERT INTO billing.credit_notes (invoice_id)
  SELECT id FROM billing.invoices WHERE id >= boundary_of('billing.invoices');
SELECT count(*) AS credit_notes FROM billing.credit_notes;

------------------------------------------------------------------------
-- identity columns, BY DEFAULT and ALWAYS; a smallint key with a
-- self-reference: one ALTER TABLE changes both columns
------------------------------------------------------------------------
CREATE TABLE billing.refunds (id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                              invoice_id bigint REFERENCES billing.invoices);
CREATE TABLE shop.categories (id smallint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                              parent_id smallint REFERENCES shop.categories, name text);
INSERT INTO billing.refunds (invoice_id) VALUES (1), (2);
INSERT INTO shop.categories (parent_id, name) VALUES (NULL, 'all'), (1, 'books');
SELECT masked(s) AS statement FROM snowflake_adopt('billing.refunds', dry_run => false) s;
SELECT masked(s) AS statement FROM snowflake_adopt('shop.categories', dry_run => false) s;
SELECT * FROM key_columns WHERE "table" IN ('billing.refunds'::regclass, 'shop.categories')
 ORDER BY 1, 2;
SELECT count(*) AS identity_sequences FROM pg_class
 WHERE oid IN (to_regclass('billing.refunds_id_seq'), to_regclass('shop.categories_id_seq'));
-- an ALWAYS identity refused explicit keys; the new default does not
INSERT INTO shop.categories (parent_id, name) VALUES (2, 'novels') RETURNING id >= boundary_of('shop.categories') AS snowflake_key;
INSERT INTO shop.categories (id, parent_id, name) VALUES (100, 1, 'music');
INSERT INTO billing.refunds (invoice_id) VALUES (3) RETURNING id >= boundary_of('billing.refunds') AS snowflake_key;

------------------------------------------------------------------------
-- an integer key referenced from a partitioned table, one of whose
-- partitions is in another schema: the parent is altered, and
-- ALTER TABLE carries the change to every partition
------------------------------------------------------------------------
CREATE SCHEMA metrics;
CREATE SCHEMA archive;
CREATE TABLE metrics.sensors (id serial PRIMARY KEY, name text);
CREATE TABLE metrics.readings (sensor_id integer NOT NULL REFERENCES metrics.sensors,
                               at timestamptz NOT NULL, value float8)
  PARTITION BY RANGE (at);
CREATE TABLE archive.readings_2025 PARTITION OF metrics.readings
  FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE metrics.readings_2026 PARTITION OF metrics.readings
  FOR VALUES FROM ('2026-01-01') TO (MAXVALUE);
INSERT INTO metrics.sensors (name) VALUES ('north'), ('south');
INSERT INTO metrics.readings VALUES (1, '2025-06-01', 1.5), (2, '2026-06-01', 2.5);
SELECT masked(s) AS statement FROM snowflake_adopt('metrics.sensors', dry_run => false) s;
SELECT * FROM key_columns WHERE "column" = 'sensor_id' ORDER BY 1, 2;
INSERT INTO metrics.sensors (name) VALUES ('east');
INSERT INTO metrics.readings SELECT id, '2026-07-01', 3.5 FROM metrics.sensors WHERE name = 'east';
SELECT tableoid::regclass AS partition, count(*) FROM metrics.readings GROUP BY 1 ORDER BY 1;

------------------------------------------------------------------------
-- names that need quoting; the column's own comment is kept under the
-- boundary line
------------------------------------------------------------------------
CREATE SCHEMA "Sales Dept";
CREATE TABLE "Sales Dept"."Order Items" ("Item ID" serial PRIMARY KEY, "Label" text);
CREATE TABLE "Sales Dept"."Item Notes" ("Note" text,
                                        "Item ID" integer REFERENCES "Sales Dept"."Order Items");
COMMENT ON COLUMN "Sales Dept"."Order Items"."Item ID" IS 'assigned at checkout';
INSERT INTO "Sales Dept"."Order Items" ("Label") VALUES ('pen');
SELECT masked(s) AS statement
  FROM snowflake_adopt('"Sales Dept"."Order Items"', 'Item ID', dry_run => false) s;
SELECT masked(col_description('"Sales Dept"."Order Items"'::regclass, 1)) AS comment;
INSERT INTO "Sales Dept"."Order Items" ("Label") VALUES ('ink')
  RETURNING "Item ID" >= boundary_of('"Sales Dept"."Order Items"', 'Item ID') AS snowflake_key;

------------------------------------------------------------------------
-- old sequences: kept (and released) when something else uses them,
-- left alone when the column does not own them; statements run with
-- \gexec after review
------------------------------------------------------------------------
CREATE TABLE shop.tickets (id serial PRIMARY KEY);
CREATE TABLE shop.ticket_archive (id integer DEFAULT nextval('shop.tickets_id_seq'));
CREATE SEQUENCE shop.shared_seq;
CREATE TABLE shop.coupons (id integer PRIMARY KEY DEFAULT nextval('shop.shared_seq'));
SELECT masked(s) AS statement FROM snowflake_adopt('shop.tickets') s;
-- (the statements run by \gexec carry the boundary: not echoed)
BEGIN;
\set ECHO none
SELECT s FROM snowflake_adopt('shop.tickets') s \gexec
\set ECHO all
SELECT pg_get_serial_sequence('shop.tickets', 'id') AS serial_sequence,
       to_regclass('shop.tickets_id_seq') AS sequence;
INSERT INTO shop.ticket_archive DEFAULT VALUES RETURNING id;
COMMIT;
SELECT masked(s) AS statement FROM snowflake_adopt('shop.coupons') s;

-- a key with no default at all gets one
CREATE SCHEMA crm;
CREATE TABLE crm.regions (id integer PRIMARY KEY, name text);
SELECT masked(s) AS statement FROM snowflake_adopt('crm.regions') s;

------------------------------------------------------------------------
-- refusals
------------------------------------------------------------------------
-- objects that block the type change are named: a view on a referencing
-- column, and a partition key
CREATE TABLE crm.contacts (id serial PRIMARY KEY);
CREATE TABLE crm.calls (contact_id integer REFERENCES crm.contacts, at timestamptz);
CREATE VIEW crm.calls_per_contact AS SELECT contact_id, count(*) FROM crm.calls GROUP BY 1;
CREATE TABLE crm.visits (contact_id integer REFERENCES crm.contacts, at date)
  PARTITION BY HASH (contact_id);
CREATE TABLE crm.visits_0 PARTITION OF crm.visits FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE crm.visits_1 PARTITION OF crm.visits FOR VALUES WITH (MODULUS 2, REMAINDER 1);
SELECT * FROM snowflake_adopt('crm.contacts');
\echo :LAST_ERROR_SQLSTATE
DROP TABLE crm.visits;
SELECT * FROM snowflake_adopt('crm.contacts');
-- as the hint says: drop the view, switch, create it again
BEGIN;
DROP VIEW crm.calls_per_contact;
SELECT count(*) AS statements FROM snowflake_adopt('crm.contacts', dry_run => false);
CREATE VIEW crm.calls_per_contact AS SELECT contact_id, count(*) FROM crm.calls GROUP BY 1;
COMMIT;
SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
 WHERE attrelid = 'crm.calls_per_contact'::regclass AND attname = 'contact_id';

-- columns of other types; already snowflake
CREATE TABLE crm.tags (code text PRIMARY KEY, uid snowflake DEFAULT snowflake_nextval(),
                       n integer GENERATED ALWAYS AS (length(code)) STORED);
SELECT * FROM snowflake_adopt('crm.tags', 'code');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM snowflake_adopt('crm.tags', 'uid');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM snowflake_adopt('crm.tags', 'n');
SELECT * FROM snowflake_adopt('crm.tags', 'missing');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM snowflake_adopt('crm.calls_per_contact', 'contact_id');
\echo :LAST_ERROR_SQLSTATE

-- a default it would not silently replace
CREATE TABLE crm.batches (id integer PRIMARY KEY DEFAULT 0);
SELECT * FROM snowflake_adopt('crm.batches');
\echo :LAST_ERROR_SQLSTATE

-- an identity whose sequence is used elsewhere
CREATE TABLE crm.leads (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY);
CREATE TABLE crm.lead_log (lead_no bigint DEFAULT nextval('crm.leads_id_seq'));
SELECT * FROM snowflake_adopt('crm.leads');
\echo :LAST_ERROR_SQLSTATE

-- keys already in the range of snowflake IDs; the detail names the
-- boundary, masked here
CREATE FUNCTION adopt_error(t regclass)
  RETURNS TABLE (sqlstate text, message text, detail text, hint text)
LANGUAGE plpgsql AS $$
DECLARE
  st text; msg text; det text; hnt text;
BEGIN
  PERFORM snowflake_adopt(t);
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                          det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
  RETURN QUERY SELECT st, msg, regexp_replace(det, 'start at \d+', 'start at <boundary>'), hnt;
END
$$;
CREATE TABLE crm.imports (id bigint PRIMARY KEY);
INSERT INTO crm.imports VALUES (1), (9000000000000000000);
\x on
SELECT * FROM adopt_error('crm.imports');
\x off
-- a snowflake ID from a node whose clock runs a minute ahead is refused;
-- one from a minute ago is below the boundary, and accepted
TRUNCATE crm.imports;
INSERT INTO crm.imports SELECT snowflake_from_timestamp(now() + interval '1 minute');
SELECT sqlstate, message FROM adopt_error('crm.imports');
TRUNCATE crm.imports;
INSERT INTO crm.imports SELECT snowflake_from_timestamp(now() - interval '1 minute');
SELECT count(*) AS refusals FROM adopt_error('crm.imports');

-- a caller who does not own the table, or a table that references it
CREATE SCHEMA hr;
CREATE TABLE hr.staff (id serial PRIMARY KEY);
CREATE TABLE hr.reviews (staff_id integer REFERENCES hr.staff);
CREATE ROLE snowflake_clerk;
GRANT USAGE ON SCHEMA hr TO snowflake_clerk;
GRANT SELECT ON hr.staff, hr.reviews TO snowflake_clerk;
SET ROLE snowflake_clerk;
SELECT * FROM snowflake_adopt('hr.staff');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
ALTER TABLE hr.staff OWNER TO snowflake_clerk;
SET ROLE snowflake_clerk;
SELECT * FROM snowflake_adopt('hr.staff', dry_run => false);
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
-- owning both, the clerk can switch
ALTER TABLE hr.reviews OWNER TO snowflake_clerk;
SET ROLE snowflake_clerk;
SELECT count(*) AS statements FROM snowflake_adopt('hr.staff', dry_run => false);
RESET ROLE;
SELECT * FROM key_columns WHERE "table" IN ('hr.staff'::regclass, 'hr.reviews') ORDER BY 1, 2;

-- row-level security cannot hide a key from the check: an owner subject to
-- FORCE ROW LEVEL SECURITY, whose policy hides a key already in the range
-- of snowflake IDs, gets PostgreSQL's row security error, not a switch
CREATE TABLE hr.badges (id bigint PRIMARY KEY, holder text);
INSERT INTO hr.badges VALUES (1, 'clerk'), (snowflake_from_timestamp(now() + interval '1 minute'), 'hidden');
ALTER TABLE hr.badges OWNER TO snowflake_clerk;
ALTER TABLE hr.badges ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY mine ON hr.badges USING (holder = 'clerk');
SET ROLE snowflake_clerk;
SELECT count(*) AS visible_rows FROM hr.badges;
SELECT * FROM snowflake_adopt('hr.badges');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
-- the superuser sees every row, and the key in the range is refused
SELECT sqlstate, message FROM adopt_error('hr.badges');

------------------------------------------------------------------------
-- the extension's schema is looked up when the function runs, and the
-- caller's search_path changes nothing in the statements
------------------------------------------------------------------------
CREATE TABLE shop.returns (id serial PRIMARY KEY);
CREATE SCHEMA ids;
ALTER EXTENSION snowflake SET SCHEMA ids;
SELECT pronamespace::regnamespace AS adopt_schema FROM pg_proc WHERE proname = 'snowflake_adopt' \gset
SET search_path = shop, billing;
SELECT public.masked(s) AS statement FROM :adopt_schema.snowflake_adopt('returns') s;
RESET search_path;
ALTER EXTENSION snowflake SET SCHEMA public;

-- clean up
SET client_min_messages = warning;
DROP SCHEMA shop, billing, metrics, archive, "Sales Dept", crm, hr, ids CASCADE;
DROP ROLE snowflake_clerk;
DROP VIEW key_columns;
DROP FUNCTION masked(text), boundary_of(regclass, name), adopt_error(regclass);
RESET client_min_messages;
