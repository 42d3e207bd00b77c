--
-- The UUIDv7 bridge
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- the UUID carries the ID's time as Unix milliseconds in its first 48 bits
-- (2026-06-15 12:34:56.789 UTC is 1781526896789 = 0x019ECB472095), then
-- version 7, then the node and sequence, then variant 10
SELECT snowflake_to_uuid(snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5)) AS uuid,
       to_hex((extract(epoch FROM '2026-06-15 12:34:56.789+00'::timestamptz) * 1000)::bigint) AS unix_ms_hex;
SELECT snowflake_to_uuid(snowflake_from_parts('2026-06-15 12:34:56.789+00', 1023, 4095)) AS all_ones,
       snowflake_to_uuid(snowflake_from_parts('2025-01-01 00:00:00+00', 0, 0)) AS epoch;
-- the bigint form is the same
SELECT snowflake_to_uuid(snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5)::bigint) =
       snowflake_to_uuid(snowflake_from_parts('2026-06-15 12:34:56.789+00', 7, 5)) AS same;

-- it is one-to-one and keeps the order
CREATE TEMP TABLE u AS
  SELECT id, snowflake_to_uuid(id) AS uuid
    FROM (SELECT snowflake_from_parts('2025-01-01+00'::timestamptz + g * interval '3.7 ms', g % 1024, g % 4096) AS id
            FROM generate_series(0, 20000) g) s;
SELECT count(DISTINCT uuid) = count(*) AS distinct_uuids,
       bool_and(snowflake_from_uuid(uuid) = id) AS round_trip,
       bool_and(substr(uuid::text, 15, 1) = '7') AS version_7,
       bool_and(substr(uuid::text, 20, 1) IN ('8', '9', 'a', 'b')) AS variant_10
  FROM u;
SELECT bool_and(prev_uuid < uuid) AS same_order
  FROM (SELECT uuid, lag(uuid) OVER (ORDER BY id) AS prev_uuid FROM u) s
 WHERE prev_uuid IS NOT NULL;
DROP TABLE u;

-- the reverse is defined only for UUIDv7 values made from IDs
SELECT snowflake_from_uuid('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');	-- RFC 9562 A.6: random bits
SELECT snowflake_from_uuid('00000000-0000-4000-8000-000000000000');	-- version 4
SELECT snowflake_from_uuid('017f22e2-79b0-7000-8000-000000000000');	-- 2022: before the epoch

RESET TimeZone;
RESET DateStyle;
