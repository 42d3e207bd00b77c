--
-- Decoding and constructing IDs, on fixed vectors in the default layout
-- (epoch 2025-01-01 00:00:00+00, 41 time bits, 10 node bits, 12 sequence bits)
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- the corners of the layout
SELECT snowflake_from_parts('2025-01-01 00:00:00+00', 0, 0) AS zero,
       snowflake_from_parts('2025-01-01 00:00:00+00', 1023, 4095) AS last_of_first_ms,
       snowflake_from_parts('2025-01-01 00:00:00.001+00', 0, 0) AS first_of_second_ms,
       snowflake_from_parts('2025-01-01 00:00:00+00', 1, 0) AS node_1,
       snowflake_from_parts('2025-01-01 00:00:00+00', 0, 1) AS seq_1;

-- a vector checked against the same arithmetic written in SQL
SELECT snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5) AS id,
       snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5)::bigint =
         (extract(epoch FROM '2026-06-15 12:34:56.789+00'::timestamptz
                             - '2025-01-01 00:00:00+00'::timestamptz) * 1000)::bigint * 4194304
         + 7 * 4096 + 5 AS matches_sql;

-- decoding gives the parts back
SELECT * FROM snowflake_decode(snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5));
SELECT * FROM snowflake_decode(0::snowflake);
SELECT * FROM snowflake_decode(9223372036854775807::snowflake);
SELECT snowflake_timestamp(2284513813024768005::snowflake),
       snowflake_node_id(2284513813024768005::snowflake),
       snowflake_seq(2284513813024768005::snowflake);
-- (snowflake_decode(id)).* expands to one call per column, which the
-- planner reduces to the accessor each column needs
SELECT (snowflake_decode(2284513813024768005::snowflake)).*;
-- (on columns that cannot be NULL, like a primary key)
CREATE TEMP TABLE dec (id snowflake NOT NULL, big bigint NOT NULL);
INSERT INTO dec VALUES (snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5),
                        snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5));
EXPLAIN (VERBOSE, COSTS OFF) SELECT (snowflake_decode(id)).*, (snowflake_decode(big)).ts FROM dec;
SELECT (snowflake_decode(id)).*, (snowflake_decode(big)).ts AS big_ts FROM dec;
SELECT snowflake_decode(id) AS whole_record FROM dec;
SELECT d.* FROM dec, snowflake_decode(dec.id) d;
SELECT (snowflake_decode(NULL::snowflake)).ts IS NULL AS null_in_null_out;
-- the decoder is strict: a NULL ID gives a NULL record, not a record of
-- NULLs, rewritten or not; where the ID may be NULL the call stays as it is
SELECT snowflake_decode(NULL::bigint) IS NULL AS is_null,
       count(snowflake_decode(NULL::bigint)) AS counted;
CREATE TEMP TABLE maybe (id bigint);
INSERT INTO maybe VALUES (2284513813024768005), (NULL);
SELECT count(snowflake_decode(id)) AS counted, count(*) FILTER (WHERE snowflake_decode(id) IS NULL) AS null_records
  FROM maybe;
EXPLAIN (VERBOSE, COSTS OFF) SELECT snowflake_decode(id) FROM maybe;
-- a NOT NULL column on the nullable side of an outer join can be NULL too
SELECT count(snowflake_decode(d.id)) AS counted, count(*) AS rows
  FROM maybe m LEFT JOIN dec d ON d.big = m.id + 1;
SELECT count((snowflake_decode(d.id)).ts) AS counted_ts
  FROM maybe m LEFT JOIN dec d ON d.big = m.id + 1;
DROP TABLE dec, maybe;

-- the same on bigint
SELECT * FROM snowflake_decode(2284513813024768005::bigint);
SELECT snowflake_timestamp(2284513813024768005::bigint),
       snowflake_node_id(2284513813024768005::bigint),
       snowflake_seq(2284513813024768005::bigint);
SELECT snowflake_timestamp(4194304);

-- negative bigints are not IDs
SELECT snowflake_decode(-1::bigint);
SELECT snowflake_timestamp(-1::bigint);
SELECT snowflake_node_id((-9223372036854775808)::bigint);
SELECT snowflake_seq(-1::bigint);

-- round trip over many parts
SELECT bool_and(d.ts = t AND d.node_id = n AND d.seq = s) AS round_trip
  FROM (SELECT '2025-01-01 00:00:00+00'::timestamptz + g * interval '7 hours 3.141 seconds' AS t,
               (g * 37) % 1024 AS n, (g * 101) % 4096 AS s
          FROM generate_series(0, 5000) g) v,
       LATERAL snowflake_decode(snowflake_from_parts(t, n, s)) d;

-- from_timestamp is the smallest ID of the millisecond: sub-millisecond
-- digits are dropped (rounding down), node and sequence are 0
SELECT snowflake_from_timestamp('2026-06-15 12:34:56.789999+00') =
       snowflake_from_timestamp('2026-06-15 12:34:56.789+00') AS truncates,
       snowflake_from_timestamp('2026-06-15 12:34:56.789+00') =
       snowflake_from_parts('2026-06-15 12:34:56.789+00', 0, 0) AS node_0_seq_0;

-- so a pair of them selects exactly a time range
CREATE TABLE vec AS
  SELECT snowflake_from_parts('2026-01-01 00:00:00+00'::timestamptz + g * interval '1 ms', g % 1024, g % 4096) AS id,
         '2026-01-01 00:00:00+00'::timestamptz + g * interval '1 ms' AS t
    FROM generate_series(0, 9999) g;
SELECT count(*) = (SELECT count(*) FROM vec
                    WHERE t >= '2026-01-01 00:00:01.5+00' AND t < '2026-01-01 00:00:03.25+00') AS same_rows,
       count(*)
  FROM vec
 WHERE id >= snowflake_from_timestamp('2026-01-01 00:00:01.5+00')
   AND id < snowflake_from_timestamp('2026-01-01 00:00:03.25+00');
DROP TABLE vec;

-- the last representable millisecond, and the first that is not
SELECT snowflake_from_timestamp('2094-09-07 15:47:35.551+00') AS last_ms;
SELECT snowflake_from_timestamp('2094-09-07 15:47:35.552+00');
SELECT snowflake_from_timestamp('infinity');
-- before the epoch
SELECT snowflake_from_timestamp('2024-12-31 23:59:59.999+00');
SELECT snowflake_from_parts('-infinity', 0, 0);

-- parts out of range
SELECT snowflake_from_parts('2026-01-01+00', 1024, 0);
SELECT snowflake_from_parts('2026-01-01+00', -1, 0);
SELECT snowflake_from_parts('2026-01-01+00', 0, 4096);
SELECT snowflake_from_parts('2026-01-01+00', 0, -1);

-- NULL in, NULL out
SELECT snowflake_from_parts(NULL, 0, 0) IS NULL AS a,
       snowflake_from_timestamp(NULL) IS NULL AS b,
       snowflake_decode(NULL::snowflake) IS NULL AS c,
       snowflake_timestamp(NULL::bigint) IS NULL AS d;

-- a quoted literal must name its type, since bigint and snowflake both fit
\set VERBOSITY terse
SELECT * FROM snowflake_decode('2284513813024768005');
\set VERBOSITY default
SELECT * FROM snowflake_decode('2284513813024768005'::snowflake);

RESET TimeZone;
RESET DateStyle;
