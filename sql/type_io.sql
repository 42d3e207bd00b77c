--
-- Text and binary I/O of the snowflake type, and its casts
--

-- valid text input, with white space and signs
SELECT '0'::snowflake, '42'::snowflake, '  +17  '::snowflake, '-0'::snowflake,
       '9223372036854775807'::snowflake;

-- invalid input names the type
SELECT ''::snowflake;
SELECT '   '::snowflake;
SELECT 'abc'::snowflake;
SELECT '12abc'::snowflake;
SELECT '1 2'::snowflake;
SELECT '1.5'::snowflake;
SELECT '0x10'::snowflake;
SELECT '+'::snowflake;
SELECT '--1'::snowflake;
-- text that looks like a date or time is read as an ID too, and fails with
-- a hint: compared with a snowflake, an untyped literal is one
CREATE TABLE t_when (id snowflake PRIMARY KEY);
SELECT count(*) FROM t_when WHERE id >= '2026-11-25';
SELECT count(*) FROM t_when WHERE id < '2026-11-25 10:30:00+00';
SELECT '2026/11/25'::snowflake;
SELECT '25.11.2026'::snowflake;
SELECT '10:30'::snowflake;
SELECT ' Today '::snowflake;
SELECT 'now'::snowflake;
-- (no hint where the text is no time: '1.5' above, and these)
SELECT '2026-11'::snowflake;
SELECT '1.2/3'::snowflake;
SELECT 'nowhere'::snowflake;
-- typed, the time compares with IDs
SELECT count(*) FROM t_when WHERE id >= '2026-11-25'::timestamptz;
DROP TABLE t_when;
-- negative and too large values are out of range
SELECT '-1'::snowflake;
SELECT '-9223372036854775808'::snowflake;
SELECT '9223372036854775808'::snowflake;
SELECT '99999999999999999999999999999'::snowflake;

-- output is plain decimal and round-trips
SELECT x::snowflake::text = x AS round_trip
  FROM (VALUES ('0'), ('1'), ('4194304'), ('9223372036854775807')) v(x);

-- casts with bigint, both ways
SELECT 42::bigint::snowflake, '42'::snowflake::bigint;
SELECT (-1)::bigint::snowflake;
SELECT (-1)::integer::snowflake;
SELECT 9223372036854775807::bigint::snowflake::bigint = 9223372036854775807 AS max_ok;
SELECT snowflake(42::bigint), snowflake(7);

-- assignment casts: integers into snowflake columns, snowflake into bigint
CREATE TABLE t_sf (id snowflake);
CREATE TABLE t_big (id bigint);
INSERT INTO t_sf VALUES (42), (43::bigint), ('44');
INSERT INTO t_sf VALUES (-1);
INSERT INTO t_big SELECT id FROM t_sf;
SELECT id FROM t_big ORDER BY id;
-- but no implicit casts: arithmetic is not defined on IDs
-- (terse: the wording of core's hint differs between versions)
\set VERBOSITY terse
SELECT '1'::snowflake + 1;
\set VERBOSITY default

-- binary send/receive: COPY in binary format round-trips through a file
-- in the server's data directory
SELECT current_setting('data_directory') || '/snowflake_type_io.bin' AS binfile
\gset
COPY t_sf TO :'binfile' WITH (FORMAT binary);
CREATE TABLE t_sf2 (id snowflake);
COPY t_sf2 FROM :'binfile' WITH (FORMAT binary);
SELECT count(*) AS rows, bool_and(a.id = b.id) AS same
  FROM t_sf a JOIN t_sf2 b USING (id);
SELECT snowflake_send('258'::snowflake);
-- bigint's binary format is the same, so negative values must be refused
CREATE TABLE t_neg (id bigint);
INSERT INTO t_neg VALUES (-5);
COPY t_neg TO :'binfile' WITH (FORMAT binary);
COPY t_sf2 FROM :'binfile' WITH (FORMAT binary);

-- JSON: IDs become strings, since JavaScript numbers lose precision
SELECT to_json('9007199254740993'::snowflake) AS to_json,
       to_jsonb('9007199254740993'::snowflake) AS to_jsonb;
SELECT row_to_json(t) FROM (SELECT '9007199254740993'::snowflake AS id, 1 AS n) t;
SELECT json_agg(id ORDER BY id) FROM t_sf;
SELECT jsonb_build_object('id', '123'::snowflake);
-- and back
SELECT ('{"id": "9007199254740993"}'::jsonb ->> 'id')::snowflake;

-- the time of an ID, as a cast
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SELECT snowflake_from_parts('2026-03-01 12:00:00.123+00', 3, 9)::timestamptz;

RESET TimeZone;
RESET DateStyle;

DROP TABLE t_sf, t_sf2, t_big, t_neg;
