--
-- Partitioning a table by ID, by time: bounds from snowflake_from_timestamp(),
-- rows landing in the partition of their time, and pruning for time
-- predicates.  (pg_partman, when it is installed: partman.sql.)
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

-- time predicates prune partitions at executor start ("Subplans Removed"),
-- since the bounds are STABLE functions of the configured epoch.  A lower
-- bound that falls exactly on a partition boundary still visits the
-- partition before it, whose index finds nothing: the bound is written
-- "id > last ID before", which pruning places in the earlier partition.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events
 WHERE id >= '2026-03-02 00:00:00+00'::timestamptz AND id < '2026-03-03 00:00:00+00'::timestamptz;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events WHERE id <@ tstzrange('2026-03-03 01:00:00+00', '2026-03-03 02:00:00+00');
EXPLAIN (COSTS OFF)
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

RESET TimeZone;
RESET DateStyle;
