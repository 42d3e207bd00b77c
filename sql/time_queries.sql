--
-- Comparing IDs with times: the same rows as a timestamp column, through
-- the primary key
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- IDs with their times in a real timestamp column, many per millisecond,
-- around a few millisecond edges
CREATE TABLE ev (id snowflake PRIMARY KEY, t timestamptz NOT NULL);
INSERT INTO ev
SELECT snowflake_from_parts(ts, node, seq), ts
  FROM (SELECT '2026-03-01 12:00:00+00'::timestamptz + (g / 7) * interval '1 ms' AS ts,
               g % 5 AS node, g % 7 AS seq
          FROM generate_series(0, 20000) g) s;
CREATE INDEX ON ev (t);
ANALYZE ev;

-- probe times: exact milliseconds, a microsecond either side, half a
-- millisecond, before the epoch, after the end of the time bits, infinities
CREATE TABLE probe (p timestamptz);
INSERT INTO probe VALUES
  ('2026-03-01 12:00:00+00'), ('2026-03-01 12:00:00.001+00'),
  ('2026-03-01 12:00:01.234+00'), ('2026-03-01 12:00:01.2339995+00'),
  ('2026-03-01 12:00:01.234001+00'), ('2026-03-01 12:00:01.2345+00'),
  ('2026-03-01 12:00:02.857+00'), ('2026-03-01 12:00:02.858+00'),
  ('2026-03-01 11:59:59.999999+00'), ('2024-12-31 23:59:59.999+00'),
  ('2025-01-01 00:00:00+00'), ('1999-01-01 00:00:00+00'),
  ('2094-09-07 15:47:35.552+00'), ('2200-01-01 00:00:00+00'),
  ('-infinity'), ('infinity');

-- every operator agrees with the timestamp column, for every probe
SELECT op, bool_and(by_id = by_time) AS same_rows, sum(by_id) AS rows_matched
  FROM probe,
       LATERAL (VALUES
         ('=',  (SELECT count(*) FROM ev WHERE id = p),  (SELECT count(*) FROM ev WHERE t = p)),
         ('<>', (SELECT count(*) FROM ev WHERE id <> p), (SELECT count(*) FROM ev WHERE t <> p)),
         ('<',  (SELECT count(*) FROM ev WHERE id < p),  (SELECT count(*) FROM ev WHERE t < p)),
         ('<=', (SELECT count(*) FROM ev WHERE id <= p), (SELECT count(*) FROM ev WHERE t <= p)),
         ('>',  (SELECT count(*) FROM ev WHERE id > p),  (SELECT count(*) FROM ev WHERE t > p)),
         ('>=', (SELECT count(*) FROM ev WHERE id >= p), (SELECT count(*) FROM ev WHERE t >= p)),
         ('ts op id', (SELECT count(*) FROM ev WHERE p <= id), (SELECT count(*) FROM ev WHERE p <= t))
       ) v(op, by_id, by_time)
 GROUP BY op ORDER BY op;

-- the operator functions themselves (used when the planner cannot rewrite,
-- as with a volatile argument) agree too
SELECT bool_and((SELECT count(*) FROM ev WHERE id = p + (random() * 0) * interval '1 s') =
                (SELECT count(*) FROM ev WHERE t = p)) AS eq_direct,
       bool_and((SELECT count(*) FROM ev WHERE id <@ tstzrange(p, p + interval '1 ms' + (random() * 0) * interval '1 s')) =
                (SELECT count(*) FROM ev WHERE t >= p AND t < p + interval '1 ms')) AS contained_direct
  FROM probe WHERE p > '2000-01-01' AND p < '2100-01-01';

-- ranges: every combination of bound inclusivity, empty and unbounded
SELECT r, (SELECT count(*) FROM ev WHERE id <@ r) = (SELECT count(*) FROM ev WHERE t <@ r) AS same_rows,
          (SELECT count(*) FROM ev WHERE id <@ r) AS rows_matched,
          (SELECT count(*) FROM ev WHERE r @> id) = (SELECT count(*) FROM ev WHERE id <@ r) AS commuted
  FROM (VALUES
    (tstzrange('2026-03-01 12:00:01.234+00', '2026-03-01 12:00:01.240+00', '[)')),
    (tstzrange('2026-03-01 12:00:01.234+00', '2026-03-01 12:00:01.240+00', '(]')),
    (tstzrange('2026-03-01 12:00:01.234+00', '2026-03-01 12:00:01.240+00', '[]')),
    (tstzrange('2026-03-01 12:00:01.234+00', '2026-03-01 12:00:01.240+00', '()')),
    (tstzrange('2026-03-01 12:00:01.2345+00', '2026-03-01 12:00:01.2395+00', '[]')),
    (tstzrange('2026-03-01 12:00:01.234+00', '2026-03-01 12:00:01.234+00', '[]')),
    (tstzrange('2026-03-01 12:00:01.234+00', '2026-03-01 12:00:01.234+00', '[)')),
    (tstzrange(NULL, '2026-03-01 12:00:00.500+00')),
    (tstzrange('2026-03-01 12:00:02.500+00', NULL)),
    (tstzrange(NULL, NULL)),
    (tstzrange('2020-01-01+00', '2026-03-01 12:00:00.010+00')),
    (tstzrange('2000-01-01+00', '2024-01-01+00')),
    (tstzrange('2026-03-01 12:00:02.800+00', '2300-01-01+00'))
  ) v(r);

-- the bounds themselves
SELECT snowflake_last_id_before('2025-01-01 00:00:00.001+00'::timestamptz) AS before_1ms,
       snowflake_last_id_at('2025-01-01 00:00:00.001+00') AS at_1ms,
       snowflake_last_id_before('2025-01-01 00:00:00+00'::timestamptz) AS before_epoch,
       snowflake_last_id_at('2024-06-01+00') AS at_before_epoch,
       snowflake_last_id_before('infinity'::timestamptz) AS before_infinity,
       snowflake_last_id_at('2200-01-01+00') AS at_after_end;

-- the planner turns time predicates into ID bounds on the primary key
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev WHERE id >= '2026-03-01 12:00:02+00'::timestamptz;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev WHERE id >= '2026-03-01 12:00:01+00'::timestamptz
                          AND id < '2026-03-01 12:00:01.5+00'::timestamptz;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev WHERE id = '2026-03-01 12:00:01.234+00'::timestamptz;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev WHERE id <@ tstzrange('2026-03-01 12:00:01+00', '2026-03-01 12:00:02+00');
EXPLAIN (COSTS OFF)
SELECT * FROM ev WHERE id >= now() - interval '1 hour' ORDER BY id LIMIT 10;
-- a parameter, as from an application
PREPARE since(timestamptz) AS SELECT count(*) FROM ev WHERE id >= $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE since('2026-03-01 12:00:02+00');
EXECUTE since('2026-03-01 12:00:02+00');
RESET plan_cache_mode;
DEALLOCATE since;
-- <> is not a range, so it is left as it is
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev WHERE id <> '2026-03-01 12:00:01.234+00'::timestamptz;

-- the same on a bigint key, written with a cast to snowflake
CREATE TABLE ev_big (id bigint PRIMARY KEY, t timestamptz NOT NULL);
INSERT INTO ev_big SELECT id, t FROM ev;
ANALYZE ev_big;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev_big WHERE id::snowflake >= '2026-03-01 12:00:02+00'::timestamptz;
SELECT (SELECT count(*) FROM ev_big WHERE id::snowflake >= '2026-03-01 12:00:02+00'::timestamptz) =
       (SELECT count(*) FROM ev_big WHERE t >= '2026-03-01 12:00:02+00') AS same_rows;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev_big WHERE id::snowflake <@ tstzrange('2026-03-01 12:00:01+00', '2026-03-01 12:00:02+00');
-- without the cast there is no such operator
SELECT count(*) FROM ev_big WHERE id >= '2026-03-01 12:00:02+00'::timestamptz;

-- a BRIN index serves them as well
CREATE TABLE ev_log (id snowflake);
INSERT INTO ev_log SELECT id FROM ev ORDER BY id;
CREATE INDEX ON ev_log USING brin (id) WITH (pages_per_range = 4);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev_log WHERE id <@ tstzrange('2026-03-01 12:00:01+00', '2026-03-01 12:00:02+00');
RESET enable_seqscan;

DROP TABLE ev, ev_big, ev_log, probe;
RESET TimeZone;
RESET DateStyle;
