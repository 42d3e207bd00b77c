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

-- the C functions behind the operators, in both argument orders.  The
-- planner rewrites nearly every use of the operators into ID bounds, so
-- these test-only declarations call them directly, on the IDs around the
-- probed milliseconds
CREATE FUNCTION c_eq(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_eq' LANGUAGE C STRICT;
CREATE FUNCTION c_ne(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_ne' LANGUAGE C STRICT;
CREATE FUNCTION c_lt(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_lt' LANGUAGE C STRICT;
CREATE FUNCTION c_le(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_le' LANGUAGE C STRICT;
CREATE FUNCTION c_gt(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_gt' LANGUAGE C STRICT;
CREATE FUNCTION c_ge(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_ge' LANGUAGE C STRICT;
CREATE FUNCTION c_eq(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_eq_commuted' LANGUAGE C STRICT;
CREATE FUNCTION c_ne(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_ne_commuted' LANGUAGE C STRICT;
CREATE FUNCTION c_lt(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_lt_commuted' LANGUAGE C STRICT;
CREATE FUNCTION c_le(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_le_commuted' LANGUAGE C STRICT;
CREATE FUNCTION c_gt(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_gt_commuted' LANGUAGE C STRICT;
CREATE FUNCTION c_ge(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_ge_commuted' LANGUAGE C STRICT;
CREATE FUNCTION c_in(snowflake, tstzrange) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_contained' LANGUAGE C STRICT;
CREATE FUNCTION c_in(tstzrange, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_contained_commuted' LANGUAGE C STRICT;
SELECT op, count(*) AS pairs, count(*) FILTER (WHERE c IS DISTINCT FROM ref) AS wrong
  FROM (SELECT id, t FROM ev
         WHERE t < '2026-03-01 12:00:00.003+00'
            OR t BETWEEN '2026-03-01 12:00:01.232+00' AND '2026-03-01 12:00:01.236+00'
            OR t > '2026-03-01 12:00:02.855+00') e,
       probe,
       LATERAL (VALUES
         ('id = p',  c_eq(id, p), t = p),   ('p = id',  c_eq(p, id), p = t),
         ('id <> p', c_ne(id, p), t <> p),  ('p <> id', c_ne(p, id), p <> t),
         ('id < p',  c_lt(id, p), t < p),   ('p < id',  c_lt(p, id), p < t),
         ('id <= p', c_le(id, p), t <= p),  ('p <= id', c_le(p, id), p <= t),
         ('id > p',  c_gt(id, p), t > p),   ('p > id',  c_gt(p, id), p > t),
         ('id >= p', c_ge(id, p), t >= p),  ('p >= id', c_ge(p, id), p >= t),
         ('id <@ [p, p+1ms)', c_in(id, tstzrange(p, p + interval '1 ms', '[)')),
                              t <@ tstzrange(p, p + interval '1 ms', '[)')),
         ('[p-1ms, p] @> id', c_in(tstzrange(p - interval '1 ms', p, '(]'), id),
                              tstzrange(p - interval '1 ms', p, '(]') @> t)
       ) v(op, c, ref)
 GROUP BY op ORDER BY op;
DROP FUNCTION c_eq(snowflake, timestamptz), c_ne(snowflake, timestamptz),
  c_lt(snowflake, timestamptz), c_le(snowflake, timestamptz),
  c_gt(snowflake, timestamptz), c_ge(snowflake, timestamptz),
  c_eq(timestamptz, snowflake), c_ne(timestamptz, snowflake),
  c_lt(timestamptz, snowflake), c_le(timestamptz, snowflake),
  c_gt(timestamptz, snowflake), c_ge(timestamptz, snowflake),
  c_in(snowflake, tstzrange), c_in(tstzrange, snowflake);

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
-- a negative bigint is no ID, and the cast rejects it however it is
-- written.  The rewritten comparison keeps the cast as a guard in front of
-- the bounds: it raises the cast's error on every row a scan reads, as it
-- does where the planner cannot rewrite the comparison, and under NOT
CREATE TEMP TABLE neg (id bigint PRIMARY KEY);
INSERT INTO neg VALUES (-5), (snowflake_from_parts('2026-03-01 12:00:00+00', 1, 0));
SELECT count(*) FROM neg WHERE id::snowflake >= '2026-03-01 12:00:00+00'::timestamptz;
SELECT count(*) FROM neg WHERE id::snowflake <@ tstzrange(NULL, '2026-03-01 12:00:01+00');
SELECT count(*) FROM neg WHERE id::snowflake < '2026-03-01 12:00:01+00'::timestamptz;
SELECT count(*) FROM neg WHERE snowflake(id) <= '2026-03-01 12:00:01+00'::timestamptz;
SELECT count(*) FROM neg WHERE '2026-03-01 12:00:01+00'::timestamptz > CAST(id AS snowflake);
WITH c AS MATERIALIZED (SELECT id::snowflake AS id FROM neg)
SELECT count(*) FROM c WHERE id < '2026-03-01 12:00:01+00'::timestamptz;
SELECT count(*) FROM neg WHERE NOT (id::snowflake > '2026-03-01 12:00:01+00'::timestamptz);
SELECT count(*) FILTER (WHERE id::snowflake >= '2026-03-01 12:00:00+00'::timestamptz) FROM neg;
DROP TABLE neg;
-- (the cast is evaluated on the rows of the index condition only)
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev_big WHERE id::snowflake < '2026-03-01 12:00:00.1+00'::timestamptz;
SELECT (SELECT count(*) FROM ev_big WHERE id::snowflake >= '2026-03-01 12:00:02+00'::timestamptz) =
       (SELECT count(*) FROM ev_big WHERE t >= '2026-03-01 12:00:02+00') AS same_rows;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev_big WHERE id::snowflake <@ tstzrange('2026-03-01 12:00:01+00', '2026-03-01 12:00:02+00');
-- without the cast there is no such operator
\set VERBOSITY terse
SELECT count(*) FROM ev_big WHERE id >= '2026-03-01 12:00:02+00'::timestamptz;
\set VERBOSITY default

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
