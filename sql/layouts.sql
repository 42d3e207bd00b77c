--
-- Decoding other systems' IDs, checked against IDs published with their
-- times by the systems' own documentation
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

SELECT * FROM snowflake_layouts() ORDER BY name;

-- Discord, developer documentation ("Snowflakes"): 175928847299117063 is
-- 2016-04-30 11:18:25.796 UTC, worker 1, process 0, increment 7
SELECT ts, node_id >> 5 AS worker, node_id & 31 AS process, seq AS increment
  FROM snowflake_decode(175928847299117063, 'discord');

-- Twitter, developer documentation: tweet objects with "id" and
-- "created_at" (which the API gives to the second)
SELECT id, ts, date_trunc('second', ts) = created_at AS matches_created_at,
       node_id >> 5 AS datacenter, node_id & 31 AS worker, seq
  FROM (VALUES (1050118621198921728, '2018-10-10 20:19:24+00'::timestamptz),
               (1307025659294674945, '2020-09-18 18:36:15+00'::timestamptz)) v(id, created_at),
       LATERAL snowflake_decode(id, 'twitter');

-- Mastodon, API documentation: statuses with "id" and "created_at".  The
-- ID takes the millisecond when the row is written, so they agree to the
-- second, not to the millisecond.
SELECT id, ts, abs(extract(epoch FROM ts - created_at)) < 1 AS within_a_second
  FROM (VALUES (103270115826048975, '2019-12-08 03:48:33.901+00'::timestamptz),
               (103186126728896492, '2019-11-23 07:49:01.940+00'::timestamptz),
               (103186046267791694, '2019-11-23 07:28:34.210+00'::timestamptz)) v(id, created_at),
       LATERAL snowflake_decode(id, 'mastodon');

-- Instagram: the fields of the engineering blog's worked example (time
-- field 1387263000, shard 1341, sequence 5001 % 1024); the blog gives no
-- consistent time for it, so only the fields are checked
SELECT ts - 'epoch'::timestamptz - interval '1314220021.721 s' = interval '1387263 s' AS time_field,
       node_id AS shard, seq
  FROM snowflake_decode((1387263000::bigint << 23) | (1341 << 10) | (5001 % 1024), 'instagram');

-- Sonyflake publishes no example; these follow its documented layout
-- (10 ms units, sequence above the machine ID, version 1 and 2 epochs)
SELECT * FROM snowflake_decode(494152093532487681, 'sonyflake');
SELECT * FROM snowflake_decode(52908628377927681, 'sonyflake_v2');

-- explicit parameters give the same as the named layouts
SELECT (SELECT d FROM snowflake_decode(175928847299117063, 'discord') d) =
       (SELECT d FROM snowflake_decode(175928847299117063, '2015-01-01 00:00:00+00', 10, 12) d) AS discord,
       (SELECT d FROM snowflake_decode(494152093532487681, 'sonyflake') d) =
       (SELECT d FROM snowflake_decode(494152093532487681, '2014-09-01 00:00:00+00', 16, 8,
                                        tick => '10 ms', sequence_first => true) d) AS sonyflake;
-- and 'snowflake' is this server's own layout
SELECT (SELECT d FROM snowflake_decode(snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5)::bigint, 'snowflake') d) =
       (SELECT d FROM snowflake_decode(snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5)) d) AS own_layout;

-- errors
SELECT * FROM snowflake_decode(1, 'flickr');
SELECT * FROM snowflake_decode(-1, 'twitter');
SELECT * FROM snowflake_decode(1, '2015-01-01', 40, 20);
SELECT * FROM snowflake_decode(1, '2015-01-01', 31, 31);
SELECT * FROM snowflake_decode(1, '2015-01-01', 10, -1);
SELECT * FROM snowflake_decode(1, '2015-01-01', 10, 12, tick => '1 month');
SELECT * FROM snowflake_decode(1, '2015-01-01', 10, 12, tick => '0.5 ms');
SELECT * FROM snowflake_decode(1, 'infinity', 10, 12);
SELECT * FROM snowflake_decode(9223372036854775807, '2015-01-01', 0, 1, tick => '1000 days');

-- the time alone, of an explicit layout: IMMUTABLE, so it may stand where
-- the layout settings may not be read (Citus's RETURNING, an index)
SELECT snowflake_timestamp(snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5),
                           '2025-01-01 00:00:00+00') AS default_layout,
       snowflake_timestamp(1050118621198921728::bigint, '2010-11-04 01:42:54.657+00') AS twitter,
       snowflake_timestamp(175928847299117063::bigint, '2015-01-01+00', 10, 12) AS discord;
SELECT p.oid::regprocedure, p.provolatile
  FROM pg_proc p WHERE proname = 'snowflake_timestamp' AND pronargs = 4
 ORDER BY p.oid::regprocedure::text;
CREATE TEMP TABLE explicit_idx (id snowflake);
CREATE INDEX ON explicit_idx (snowflake_timestamp(id, '2025-01-01 00:00:00+00'));
DROP TABLE explicit_idx;
SELECT snowflake_timestamp(1::bigint, '2025-01-01+00', 40, 40);
SELECT snowflake_timestamp(-1::bigint, '2025-01-01+00');

RESET TimeZone;
RESET DateStyle;
