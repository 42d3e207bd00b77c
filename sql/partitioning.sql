--
-- Partitioning a table by ID, by time: bounds from snowflake_from_timestamp(),
-- rows landing in the partition of their time, and pruning for time
-- predicates; then the same managed by pg_partman.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- one partition per day
CREATE TABLE events (id snowflake NOT NULL, t timestamptz NOT NULL, PRIMARY KEY (id))
  PARTITION BY RANGE (id);
CREATE TABLE events_20260301 PARTITION OF events
  FOR VALUES FROM (snowflake_from_timestamp('2026-03-01 00:00:00+00'))
             TO (snowflake_from_timestamp('2026-03-02 00:00:00+00'));
CREATE TABLE events_20260302 PARTITION OF events
  FOR VALUES FROM (snowflake_from_timestamp('2026-03-02 00:00:00+00'))
             TO (snowflake_from_timestamp('2026-03-03 00:00:00+00'));
CREATE TABLE events_20260303 PARTITION OF events
  FOR VALUES FROM (snowflake_from_timestamp('2026-03-03 00:00:00+00'))
             TO (snowflake_from_timestamp('2026-03-04 00:00:00+00'));

-- rows every 7 minutes over the three days, the last millisecond of each
-- day and the first of the next included
INSERT INTO events
SELECT snowflake_from_parts(t, 3, 0), t
  FROM (SELECT '2026-03-01 00:00:00+00'::timestamptz + g * interval '7 minutes' AS t
          FROM generate_series(0, 617) g
        UNION ALL VALUES ('2026-03-01 23:59:59.999+00'::timestamptz), ('2026-03-02 00:00:00+00')) s;

-- every row is in the partition of its day
SELECT tableoid::regclass AS partition, count(*),
       min(t) AS first_time, max(t) AS last_time,
       bool_and(tableoid::regclass::text = 'events_' || to_char(t, 'YYYYMMDD')) AS right_day
  FROM events GROUP BY 1 ORDER BY 1;

-- time predicates prune partitions (at executor start: the bounds are
-- STABLE functions of the configured epoch).  A lower bound that falls
-- exactly on a partition boundary still visits the partition before it,
-- whose index finds nothing: the bound is written "id > last ID before"
-- and pruning treats that as possibly inside the earlier partition.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM events
 WHERE id >= '2026-03-02 00:00:00+00'::timestamptz AND id < '2026-03-03 00:00:00+00'::timestamptz;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM events WHERE id <@ tstzrange('2026-03-03 01:00:00+00', '2026-03-03 02:00:00+00');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM events WHERE id >= snowflake_from_timestamp('2026-03-03 00:00:00+00');
-- and give the same rows as the time column
SELECT (SELECT count(*) FROM events
         WHERE id >= '2026-03-02 00:00:00+00'::timestamptz AND id < '2026-03-03 00:00:00+00'::timestamptz) =
       (SELECT count(*) FROM events WHERE t >= '2026-03-02 00:00:00+00' AND t < '2026-03-03 00:00:00+00')
       AS same_rows;

-- the size of a time span in IDs, for tools that partition integer ranges
SELECT snowflake_id_span('1 day') AS day,
       snowflake_id_span('1 hour') AS hour,
       snowflake_id_span('1 day') = snowflake_from_timestamp('2025-01-02 00:00:00+00')::bigint AS aligned_with_epoch;
SELECT snowflake_id_span('1 month');
SELECT snowflake_id_span('0.5 ms');
SELECT snowflake_id_span('-1 day');

DROP TABLE events;

--
-- pg_partman, with a bigint key: its ID partitioning cuts integer ranges
-- of a fixed size from 0, and snowflake_id_span('1 day') makes those UTC days
--
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
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM orders WHERE id::snowflake >= '2026-03-04 12:00:00+00'::timestamptz;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM orders WHERE id >= snowflake_from_timestamp('2026-03-04 12:00:00+00');

DROP TABLE orders;
DROP EXTENSION pg_partman;
DROP SCHEMA partman CASCADE;
RESET TimeZone;
RESET DateStyle;
