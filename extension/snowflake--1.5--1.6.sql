/* extension/snowflake--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.6'" to load this file. \quit

--
-- 1.6: snowflake_status() counts failed writes of the high-water mark
-- (hwm_write_failures) and says where the node ID comes from
-- (node_id_source).  Its row type grows, so it is made anew, with the same
-- privileges.
--
DROP FUNCTION snowflake_status();

CREATE FUNCTION snowflake_status(
	OUT node_id pg_catalog.int4,
	OUT epoch pg_catalog.timestamptz,
	OUT time_bits pg_catalog.int4,
	OUT node_bits pg_catalog.int4,
	OUT sequence_bits pg_catalog.int4,
	OUT time_runs_out_at pg_catalog.timestamptz,
	OUT clock_policy pg_catalog.text,
	OUT last_id snowflake,
	OUT last_id_time pg_catalog.timestamptz,
	OUT ids_issued pg_catalog.int8,
	OUT sequence_exhaustions pg_catalog.int8,
	OUT clock_waits pg_catalog.int8,
	OUT clock_errors pg_catalog.int8,
	OUT clock_lead_ms pg_catalog.int8,
	OUT max_clock_lead_ms pg_catalog.int8,
	OUT clock_steps_back pg_catalog.int8,
	OUT largest_step_back_ms pg_catalog.int8,
	OUT clock_jumps_forward pg_catalog.int8,
	OUT largest_jump_forward_ms pg_catalog.int8,
	OUT hwm_id snowflake,
	OUT hwm_time pg_catalog.timestamptz,
	OUT hwm_written_at pg_catalog.timestamptz,
	OUT hwm_writes pg_catalog.int8,
	OUT hwm_backend_writes pg_catalog.int8,
	OUT worker_pid pg_catalog.int4,
	OUT worker_checked_at pg_catalog.timestamptz,
	OUT problem pg_catalog.text,
	OUT clock_held_ms pg_catalog.int8,
	OUT clock_jumps_ignored pg_catalog.int8,
	OUT hwm_write_failures pg_catalog.int8,
	OUT node_id_source pg_catalog.text)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_status'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_status() IS 'state of the snowflake generator, its clock, high-water mark and worker';

REVOKE ALL ON FUNCTION snowflake_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION snowflake_status() TO pg_monitor;

--
-- 1.6: snowflake_adopt() checks the existing keys with row_security off:
-- a policy that hides rows from its caller makes the check fail instead of
-- letting hidden keys pass.
--
ALTER FUNCTION snowflake_adopt(pg_catalog.regclass, pg_catalog.name, pg_catalog.bool)
	SET row_security = off;

--
-- 1.6: the bigint-with-bigint members of snowflake's btree and hash
-- families become non-default operator classes for bigint in those
-- families (snowflake_int8_ops), so that every operator of a family has a
-- class for its left type, as PostgreSQL's opr_sanity checks expect.  The
-- members are the same operators and functions as before.
--
ALTER OPERATOR FAMILY snowflake_ops USING btree DROP
	OPERATOR 1 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 2 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 3 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 4 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 5 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 (pg_catalog.int8, pg_catalog.int8);

CREATE OPERATOR CLASS snowflake_int8_ops
	FOR TYPE pg_catalog.int8 USING btree FAMILY snowflake_ops AS
	OPERATOR 1 #<# ,
	OPERATOR 2 #<=# ,
	OPERATOR 3 #=# ,
	OPERATOR 4 #>=# ,
	OPERATOR 5 #># ,
	FUNCTION 1 pg_catalog.btint8cmp(pg_catalog.int8, pg_catalog.int8),
	FUNCTION 2 pg_catalog.btint8sortsupport(pg_catalog.internal),
	FUNCTION 4 pg_catalog.btequalimage(pg_catalog.oid);

ALTER OPERATOR FAMILY snowflake_ops USING hash DROP
	OPERATOR 1 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 2 (pg_catalog.int8, pg_catalog.int8);

CREATE OPERATOR CLASS snowflake_int8_ops
	FOR TYPE pg_catalog.int8 USING hash FAMILY snowflake_ops AS
	OPERATOR 1 #=# ,
	FUNCTION 1 pg_catalog.hashint8(pg_catalog.int8),
	FUNCTION 2 pg_catalog.hashint8extended(pg_catalog.int8, pg_catalog.int8);

--
-- 1.6: a comment on every object of the extension.
--
COMMENT ON OPERATOR = (snowflake, snowflake) IS 'equal';
COMMENT ON OPERATOR = (snowflake, pg_catalog.int8) IS 'equal, snowflake and bigint';
COMMENT ON OPERATOR = (pg_catalog.int8, snowflake) IS 'equal, bigint and snowflake';
COMMENT ON OPERATOR = (snowflake, pg_catalog.timestamptz) IS 'ID made in the millisecond of the time';
COMMENT ON OPERATOR = (pg_catalog.timestamptz, snowflake) IS 'time the millisecond in which the ID was made';
COMMENT ON OPERATOR <> (snowflake, snowflake) IS 'not equal';
COMMENT ON OPERATOR <> (snowflake, pg_catalog.int8) IS 'not equal, snowflake and bigint';
COMMENT ON OPERATOR <> (pg_catalog.int8, snowflake) IS 'not equal, bigint and snowflake';
COMMENT ON OPERATOR <> (snowflake, pg_catalog.timestamptz) IS 'ID not made in the millisecond of the time';
COMMENT ON OPERATOR <> (pg_catalog.timestamptz, snowflake) IS 'time not the millisecond in which the ID was made';
COMMENT ON OPERATOR < (snowflake, snowflake) IS 'less than';
COMMENT ON OPERATOR < (snowflake, pg_catalog.int8) IS 'less than, snowflake and bigint';
COMMENT ON OPERATOR < (pg_catalog.int8, snowflake) IS 'less than, bigint and snowflake';
COMMENT ON OPERATOR < (snowflake, pg_catalog.timestamptz) IS 'ID made before the time';
COMMENT ON OPERATOR < (pg_catalog.timestamptz, snowflake) IS 'time before the millisecond in which the ID was made';
COMMENT ON OPERATOR <= (snowflake, snowflake) IS 'less than or equal';
COMMENT ON OPERATOR <= (snowflake, pg_catalog.int8) IS 'less than or equal, snowflake and bigint';
COMMENT ON OPERATOR <= (pg_catalog.int8, snowflake) IS 'less than or equal, bigint and snowflake';
COMMENT ON OPERATOR <= (snowflake, pg_catalog.timestamptz) IS 'ID made before or in the millisecond of the time';
COMMENT ON OPERATOR <= (pg_catalog.timestamptz, snowflake) IS 'time before or in the millisecond in which the ID was made';
COMMENT ON OPERATOR > (snowflake, snowflake) IS 'greater than';
COMMENT ON OPERATOR > (snowflake, pg_catalog.int8) IS 'greater than, snowflake and bigint';
COMMENT ON OPERATOR > (pg_catalog.int8, snowflake) IS 'greater than, bigint and snowflake';
COMMENT ON OPERATOR > (snowflake, pg_catalog.timestamptz) IS 'ID made after the millisecond of the time';
COMMENT ON OPERATOR > (pg_catalog.timestamptz, snowflake) IS 'time after the millisecond in which the ID was made';
COMMENT ON OPERATOR >= (snowflake, snowflake) IS 'greater than or equal';
COMMENT ON OPERATOR >= (snowflake, pg_catalog.int8) IS 'greater than or equal, snowflake and bigint';
COMMENT ON OPERATOR >= (pg_catalog.int8, snowflake) IS 'greater than or equal, bigint and snowflake';
COMMENT ON OPERATOR >= (snowflake, pg_catalog.timestamptz) IS 'ID made in or after the millisecond of the time';
COMMENT ON OPERATOR >= (pg_catalog.timestamptz, snowflake) IS 'time in or after the millisecond in which the ID was made';
COMMENT ON OPERATOR #<># (pg_catalog.int8, pg_catalog.int8) IS 'bigint not equal, for snowflake''s operator families only';
COMMENT ON OPERATOR #<=# (pg_catalog.int8, pg_catalog.int8) IS 'bigint less than or equal, for snowflake''s operator families only';
COMMENT ON OPERATOR #># (pg_catalog.int8, pg_catalog.int8) IS 'bigint greater than, for snowflake''s operator families only';
COMMENT ON OPERATOR #>=# (pg_catalog.int8, pg_catalog.int8) IS 'bigint greater than or equal, for snowflake''s operator families only';
COMMENT ON OPERATOR @> (pg_catalog.tstzrange, snowflake) IS 'the range contains the time of the ID';
COMMENT ON FUNCTION snowflake_eq(snowflake, snowflake) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_eq(snowflake, pg_catalog.int8) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_eq(pg_catalog.int8, snowflake) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_int8_eq(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #=# operator';
COMMENT ON FUNCTION snowflake_time_eq(snowflake, pg_catalog.timestamptz) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_time_eq(pg_catalog.timestamptz, snowflake) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_ne(snowflake, snowflake) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_ne(snowflake, pg_catalog.int8) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_ne(pg_catalog.int8, snowflake) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_int8_ne(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #<># operator';
COMMENT ON FUNCTION snowflake_time_ne(snowflake, pg_catalog.timestamptz) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_time_ne(pg_catalog.timestamptz, snowflake) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_lt(snowflake, snowflake) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_lt(snowflake, pg_catalog.int8) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_lt(pg_catalog.int8, snowflake) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_int8_lt(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #<# operator';
COMMENT ON FUNCTION snowflake_time_lt(snowflake, pg_catalog.timestamptz) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_time_lt(pg_catalog.timestamptz, snowflake) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_le(snowflake, snowflake) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_le(snowflake, pg_catalog.int8) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_le(pg_catalog.int8, snowflake) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_int8_le(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #<=# operator';
COMMENT ON FUNCTION snowflake_time_le(snowflake, pg_catalog.timestamptz) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_time_le(pg_catalog.timestamptz, snowflake) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_gt(snowflake, snowflake) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_gt(snowflake, pg_catalog.int8) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_gt(pg_catalog.int8, snowflake) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_int8_gt(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #># operator';
COMMENT ON FUNCTION snowflake_time_gt(snowflake, pg_catalog.timestamptz) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_time_gt(pg_catalog.timestamptz, snowflake) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_ge(snowflake, snowflake) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_ge(snowflake, pg_catalog.int8) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_ge(pg_catalog.int8, snowflake) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_int8_ge(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #>=# operator';
COMMENT ON FUNCTION snowflake_time_ge(snowflake, pg_catalog.timestamptz) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_time_ge(pg_catalog.timestamptz, snowflake) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_time_contained(pg_catalog.tstzrange, snowflake) IS 'implementation of @> operator';
COMMENT ON FUNCTION snowflake_cmp(snowflake, snowflake) IS 'less-equal-greater';
COMMENT ON FUNCTION snowflake_cmp(snowflake, pg_catalog.int8) IS 'less-equal-greater';
COMMENT ON FUNCTION snowflake_cmp(pg_catalog.int8, snowflake) IS 'less-equal-greater';
COMMENT ON FUNCTION snowflake_hash(snowflake) IS 'hash';
COMMENT ON FUNCTION snowflake_hash_extended(snowflake, pg_catalog.int8) IS 'hash';
COMMENT ON FUNCTION snowflake_in(pg_catalog.cstring) IS 'I/O';
COMMENT ON FUNCTION snowflake_out(snowflake) IS 'I/O';
COMMENT ON FUNCTION snowflake_recv(pg_catalog.internal) IS 'I/O';
COMMENT ON FUNCTION snowflake_send(snowflake) IS 'I/O';
COMMENT ON FUNCTION snowflake_smaller(snowflake, snowflake) IS 'smaller of two';
COMMENT ON FUNCTION snowflake_larger(snowflake, snowflake) IS 'larger of two';
COMMENT ON FUNCTION snowflake_int8_support(pg_catalog.internal) IS 'planner support for comparisons of snowflake with bigint';
COMMENT ON FUNCTION snowflake_time_support(pg_catalog.internal) IS 'planner support for comparisons of IDs with times';
COMMENT ON FUNCTION snowflake_decode_support(pg_catalog.internal) IS 'planner support for snowflake_decode()';
COMMENT ON CAST (snowflake AS pg_catalog.int8) IS 'the same 8 bytes';
COMMENT ON CAST (pg_catalog.int8 AS snowflake) IS 'checks that the value is not negative';
COMMENT ON CAST (pg_catalog.int4 AS snowflake) IS 'checks that the value is not negative';
COMMENT ON CAST (snowflake AS pg_catalog.timestamptz) IS 'the time of the ID, as snowflake_timestamp()';
COMMENT ON OPERATOR FAMILY snowflake_ops USING btree IS 'btree operators of snowflake and bigint, with no core operator among them';
COMMENT ON OPERATOR FAMILY snowflake_ops USING hash IS 'hash operators of snowflake and bigint, with no core operator among them';
COMMENT ON OPERATOR FAMILY snowflake_minmax_ops USING brin IS 'BRIN minmax operators of snowflake and bigint';
COMMENT ON OPERATOR CLASS snowflake_ops USING btree IS 'default btree operator class for snowflake';
COMMENT ON OPERATOR CLASS snowflake_ops USING hash IS 'default hash operator class for snowflake';
COMMENT ON OPERATOR CLASS snowflake_minmax_ops USING brin IS 'default BRIN minmax operator class for snowflake';
COMMENT ON OPERATOR CLASS snowflake_int8_ops USING btree IS 'bigint in snowflake''s btree family, with its own operators; not the default for bigint';
COMMENT ON OPERATOR CLASS snowflake_int8_ops USING hash IS 'bigint in snowflake''s hash family, with its own operator; not the default for bigint';
COMMENT ON FUNCTION snowflake_time_contained(snowflake, pg_catalog.tstzrange) IS 'implementation of <@ operator';

--
-- 1.6: snowflake_node_info() tells since when this server generates IDs
-- (generating_since_ms): of two servers with one node ID, the one that
-- began generating later yields, not the one started later.  Its row type
-- grows, so it is made anew, with the same comment and privileges
-- (executable by everyone, as created).
--
DROP FUNCTION snowflake_node_info();

CREATE FUNCTION snowflake_node_info(
	OUT node_id pg_catalog.int4,
	OUT instance_token pg_catalog.int8,
	OUT started_at_ms pg_catalog.int8,
	OUT in_recovery pg_catalog.bool,
	OUT clock_ms pg_catalog.int8,
	OUT epoch_ms pg_catalog.int8,
	OUT node_bits pg_catalog.int4,
	OUT sequence_bits pg_catalog.int4,
	OUT generating_since_ms pg_catalog.int8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_node_info'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_node_info() IS 'this server''s node ID, layout, start time, clock and since when it generates, for its peers';
