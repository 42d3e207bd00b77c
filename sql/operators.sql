--
-- Comparison operators, operator classes and index use
--

-- every comparison, between two snowflakes and across snowflake and bigint
SELECT a, b,
       a::snowflake = b::snowflake AS eq, a::snowflake <> b::snowflake AS ne,
       a::snowflake < b::snowflake AS lt, a::snowflake <= b::snowflake AS le,
       a::snowflake > b::snowflake AS gt, a::snowflake >= b::snowflake AS ge
  FROM (VALUES (1, 2), (2, 2), (3, 2)) v(a, b);

SELECT a, b,
       a::snowflake = b::bigint AS eq, a::snowflake <> b::bigint AS ne,
       a::snowflake < b::bigint AS lt, a::snowflake <= b::bigint AS le,
       a::snowflake > b::bigint AS gt, a::snowflake >= b::bigint AS ge
  FROM (VALUES (1, 2), (2, 2), (3, 2)) v(a, b);

SELECT a, b,
       a::bigint = b::snowflake AS eq, a::bigint <> b::snowflake AS ne,
       a::bigint < b::snowflake AS lt, a::bigint <= b::snowflake AS le,
       a::bigint > b::snowflake AS gt, a::bigint >= b::snowflake AS ge
  FROM (VALUES (1, 2), (2, 2), (3, 2)) v(a, b);

-- integer literals resolve to the cross-type operators without ambiguity
SELECT '42'::snowflake = 42 AS int_literal, 42 = '42'::snowflake AS commuted,
       '9000000000'::snowflake > 1 AS bigint_literal;

-- the operator classes are complete and valid
SELECT amname, opcname, amvalidate(c.oid)
  FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
 WHERE opcname LIKE 'snowflake%'
 ORDER BY 1, 2;

-- no core operator belongs to one of the extension's families: bigint
-- comparisons keep exactly the families they have without snowflake, so
-- the plans of bigint queries do not change (see the next test)
SELECT count(*) AS core_operators_in_snowflake_families
  FROM pg_amop a
  JOIN pg_opfamily f ON f.oid = a.amopfamily
  JOIN pg_operator o ON o.oid = a.amopopr
 WHERE f.opfname LIKE 'snowflake%'
   AND o.oprnamespace = 'pg_catalog'::regnamespace;
SELECT o.oid::regoperator AS bigint_operator, count(*) AS families
  FROM pg_operator o JOIN pg_amop a ON a.amopopr = o.oid
 WHERE o.oprleft = 'bigint'::regtype AND o.oprright = 'bigint'::regtype
   AND a.amopmethod = (SELECT oid FROM pg_am WHERE amname = 'btree')
   AND o.oprname IN ('=', '<')
 GROUP BY 1 ORDER BY 1;

-- a bigint query's plan, as PostgreSQL's own join test has it: the index
-- gives the order, no Sort
CREATE TABLE faults (fault bigint, n int);
INSERT INTO faults SELECT g % 200, g FROM generate_series(1, 2000) g;
CREATE INDEX faults_fault ON faults (fault);
ANALYZE faults;
EXPLAIN (COSTS OFF) SELECT * FROM faults WHERE fault = 122 ORDER BY fault;
DROP TABLE faults;

-- a table keyed by snowflake, one keyed by bigint, with the same IDs
CREATE TABLE sf_events (id snowflake PRIMARY KEY, n int);
CREATE TABLE big_orders (id bigint PRIMARY KEY, n int);
INSERT INTO sf_events
  SELECT snowflake_from_parts('2026-01-01 00:00:00+00'::timestamptz + g * interval '1 minute', g % 4, g % 7), g
    FROM generate_series(1, 5000) g;
INSERT INTO big_orders SELECT id, n FROM sf_events;
ANALYZE sf_events, big_orders;

-- equality with integer and bigint constants uses the snowflake btree
EXPLAIN (COSTS OFF) SELECT * FROM sf_events WHERE id = 42;
EXPLAIN (COSTS OFF) SELECT * FROM sf_events WHERE 42 = id;
EXPLAIN (COSTS OFF) SELECT * FROM sf_events WHERE id < 9990;
PREPARE by_bigint(bigint) AS SELECT n FROM sf_events WHERE id = $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE by_bigint(42);
EXECUTE by_bigint(132271822602244097);
RESET plan_cache_mode;
DEALLOCATE by_bigint;

-- a time range on the snowflake key, through its index
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sf_events
 WHERE id >= snowflake_from_timestamp('2026-01-02 00:00:00+00')
   AND id < snowflake_from_timestamp('2026-01-03 00:00:00+00');
SELECT count(*) FROM sf_events
 WHERE id >= snowflake_from_timestamp('2026-01-02 00:00:00+00')
   AND id < snowflake_from_timestamp('2026-01-03 00:00:00+00');

-- the same on a bigint key: the planner support function turns the
-- cross-type comparison into a bigint index condition
EXPLAIN (COSTS OFF)
SELECT count(*) FROM big_orders
 WHERE id >= snowflake_from_timestamp('2026-01-02 00:00:00+00')
   AND id < snowflake_from_timestamp('2026-01-03 00:00:00+00');
SELECT count(*) FROM big_orders
 WHERE id >= snowflake_from_timestamp('2026-01-02 00:00:00+00')
   AND id < snowflake_from_timestamp('2026-01-03 00:00:00+00');
-- with the snowflake on the left, and with equality
EXPLAIN (COSTS OFF)
SELECT n FROM big_orders WHERE snowflake_from_timestamp('2026-01-03 00:00:00+00') <= id
 ORDER BY id LIMIT 1;
EXPLAIN (COSTS OFF) SELECT n FROM big_orders WHERE id = '132271822602244097'::snowflake;
SELECT n FROM big_orders WHERE id = '132271822602244097'::snowflake;
-- and with a time computed at run time
EXPLAIN (COSTS OFF)
SELECT count(*) FROM big_orders WHERE id >= snowflake_from_timestamp(now() - interval '1 hour');

-- ORDER BY, GROUP BY, DISTINCT, min/max
SELECT id FROM sf_events ORDER BY id DESC LIMIT 3;
SELECT snowflake_node_id(id) AS node, count(*) FROM sf_events GROUP BY 1 ORDER BY 1;
SELECT count(DISTINCT id) = count(*) AS distinct_ok FROM sf_events;
SELECT count(*) FROM (SELECT DISTINCT id::bigint % 3 FROM sf_events) d;
SELECT min(id), max(id) FROM sf_events;
-- max() reads the end of the primary key (how EXPLAIN labels that plan
-- differs between versions, so only the index scan is checked)
CREATE FUNCTION pg_temp.plan_uses(query text, node text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF strpos(line, node) > 0 THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END $$;
SELECT pg_temp.plan_uses('SELECT max(id) FROM sf_events',
                         'Index Only Scan Backward using sf_events_pkey') AS max_uses_the_index;
SET enable_hashagg = off;
SELECT count(*) FROM (SELECT id FROM sf_events GROUP BY id) g;
RESET enable_hashagg;
SET enable_sort = off;
SELECT count(*) FROM (SELECT id FROM sf_events GROUP BY id) g;
RESET enable_sort;

-- joins between snowflake and bigint keys: hash, merge, nested loop
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sf_events e JOIN big_orders o ON e.id = o.id;
SELECT count(*) FROM sf_events e JOIN big_orders o ON e.id = o.id;
SET enable_hashjoin = off;
SET enable_mergejoin = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sf_events e JOIN big_orders o ON e.id = o.id;
SELECT count(*) FROM sf_events e JOIN big_orders o ON e.id = o.id;
-- nested loops probing one key's index with the other type's values.  The
-- snowflake key's index takes bigint values directly.  An inner equi-join
-- is an equivalence of snowflake's family, which the bigint key's index
-- (core's family) cannot serve; written with the snowflake side cast to
-- bigint it can, and outer joins and range conditions reach it through
-- the planner support function.
SET enable_mergejoin = off;
RESET enable_nestloop;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT id FROM big_orders b ORDER BY id LIMIT 3) o JOIN sf_events e ON e.id = o.id;
SELECT pg_temp.plan_uses('SELECT count(*) FROM (SELECT id FROM sf_events s ORDER BY id LIMIT 3) e
                           JOIN big_orders o ON o.id = e.id', 'big_orders_pkey') AS equijoin_probes_bigint_key;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT id FROM sf_events s ORDER BY id LIMIT 3) e JOIN big_orders o ON o.id = e.id::bigint;
SELECT count(*) FROM (SELECT id FROM sf_events s ORDER BY id LIMIT 3) e JOIN big_orders o ON o.id = e.id::bigint;
EXPLAIN (COSTS OFF)
SELECT count(o.id) FROM (SELECT id FROM sf_events s ORDER BY id LIMIT 3) e LEFT JOIN big_orders o ON o.id = e.id;
SELECT count(o.id) FROM (SELECT id FROM sf_events s ORDER BY id LIMIT 3) e LEFT JOIN big_orders o ON o.id = e.id;
RESET enable_mergejoin;
RESET enable_hashjoin;
-- on the snowflake key, compare the column itself: "id = $1" with a bigint
-- $1 is an index condition, "id::bigint = $1" a bigint comparison that the
-- key's index (snowflake's family) does not serve
SELECT pg_temp.plan_uses('SELECT n FROM sf_events WHERE id = 42::bigint', 'Index Cond') AS column_compared,
       pg_temp.plan_uses('SELECT n FROM sf_events WHERE id::bigint = 42::bigint', 'Index Cond') AS cast_compared;

-- hash index
CREATE INDEX sf_events_hash ON sf_events USING hash (id);
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT n FROM sf_events WHERE id = '132271822602244097'::snowflake;
SELECT n FROM sf_events WHERE id = '132271822602244097'::snowflake;
RESET enable_indexscan;
DROP INDEX sf_events_hash;

-- BRIN index on an append-only, time-ordered key
CREATE TABLE sf_log (id snowflake, n int);
INSERT INTO sf_log SELECT id, n FROM sf_events ORDER BY id;
CREATE INDEX sf_log_brin ON sf_log USING brin (id) WITH (pages_per_range = 2);
ANALYZE sf_log;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sf_log
 WHERE id >= snowflake_from_timestamp('2026-01-02 00:00:00+00')
   AND id < snowflake_from_timestamp('2026-01-03 00:00:00+00');
SELECT count(*) FROM sf_log
 WHERE id >= snowflake_from_timestamp('2026-01-02 00:00:00+00')
   AND id < snowflake_from_timestamp('2026-01-03 00:00:00+00');
EXPLAIN (COSTS OFF) SELECT n FROM sf_log WHERE id = 132271822602244097;
SELECT n FROM sf_log WHERE id = 132271822602244097;
RESET enable_seqscan;

DROP TABLE sf_events, big_orders, sf_log;
