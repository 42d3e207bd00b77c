--
-- Partitioning by ID with pg_partman.  The Makefile runs this test only
-- where pg_partman is installed for the PostgreSQL under test (Debian
-- packages it for 15 only); elsewhere it is reported as skipped.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- A bigint key: pg_partman's ID partitioning cuts integer ranges of a fixed
-- size from 0, and snowflake_id_span('1 day') makes those UTC days.
CREATE SCHEMA partman;
CREATE EXTENSION pg_partman SCHEMA partman;
CREATE TABLE orders (id bigint NOT NULL DEFAULT snowflake_nextval(), t timestamptz NOT NULL,
                     PRIMARY KEY (id))
  PARTITION BY RANGE (id);
SELECT partman.create_parent('public.orders', 'id', 'native',
         p_interval := snowflake_id_span('1 day')::text,
         p_start_partition := snowflake_from_timestamp('2026-03-01 00:00:00+00')::text,
         p_premake := 2);

-- rows over five days, then the maintenance run creates partitions ahead
-- of the newest ID and moves nothing
INSERT INTO orders
SELECT snowflake_from_parts(t, 5, 0), t
  FROM (SELECT '2026-03-01 00:00:00+00'::timestamptz + g * interval '11 minutes' AS t
          FROM generate_series(0, 650) g) s
 WHERE t < '2026-03-04 00:00:00+00';
SELECT partman.run_maintenance('public.orders');
INSERT INTO orders
SELECT snowflake_from_parts(t, 5, 0), t
  FROM (SELECT '2026-03-04 00:00:00+00'::timestamptz + g * interval '11 minutes' AS t
          FROM generate_series(0, 261) g) s;

-- each partition holds one UTC day, and each row sits in the day of its time
SELECT c.relname AS partition,
       snowflake_timestamp(substring(pg_get_expr(c.relpartbound, c.oid) FROM '\(''(\d+)''\)')::bigint) AS starts_at
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'orders'::regclass AND c.relname <> 'orders_default'
 ORDER BY 1;
SELECT tableoid::regclass AS partition, count(*), min(t)::date AS day,
       min(t)::date = max(t)::date AS one_day,
       bool_and(snowflake_timestamp(id) = t) AS id_time_is_row_time
  FROM orders GROUP BY tableoid ORDER BY 1;
SELECT count(*) AS rows_in_default FROM orders_default;

-- time predicates on the bigint key, through a cast to snowflake, prune too
EXPLAIN (COSTS OFF)
SELECT count(*) FROM orders WHERE id::snowflake >= '2026-03-04 12:00:00+00'::timestamptz;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM orders WHERE id >= snowflake_from_timestamp('2026-03-04 12:00:00+00');

DROP TABLE orders;
DROP EXTENSION pg_partman;
DROP SCHEMA partman CASCADE;
RESET TimeZone;
RESET DateStyle;
