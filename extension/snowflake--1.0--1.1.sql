/* sql/snowflake--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.1'" to load this file. \quit

--
-- 1.1: time predicates on IDs, bulk reservation, other systems' layouts,
-- the UUIDv7 bridge, and a helper for partitioning by ID.
--

------------------------------------------------------------------------
-- Comparing IDs with times
--
-- "id OP ts" means "snowflake_timestamp(id) OP ts".  The planner support
-- function rewrites each of these into comparisons of the ID with ID
-- bounds (snowflake_last_id_before/at/in below), which are in snowflake's
-- btree family: so they use the primary key, BRIN indexes and partition
-- pruning.  The operators themselves are in no operator family: "id = ts"
-- holds for every ID of a millisecond, which no btree equality can be.
-- STABLE, because they depend on snowflake.epoch and the field widths.
------------------------------------------------------------------------

CREATE FUNCTION snowflake_last_id_before(ts pg_catalog.timestamptz)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_last_id_before'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_last_id_at(ts pg_catalog.timestamptz)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_last_id_at'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_last_id_before(period pg_catalog.tstzrange)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_last_id_before_range'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_last_id_in(period pg_catalog.tstzrange)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_last_id_in_range'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_last_id_before(pg_catalog.timestamptz) IS 'the largest ID value whose time is before ts (-1 if none)';
COMMENT ON FUNCTION snowflake_last_id_at(pg_catalog.timestamptz) IS 'the largest ID value whose time is at or before ts (-1 if none)';
COMMENT ON FUNCTION snowflake_last_id_before(pg_catalog.tstzrange) IS 'the largest ID value below every ID whose time is in the range';
COMMENT ON FUNCTION snowflake_last_id_in(pg_catalog.tstzrange) IS 'the largest ID value whose time is in the range or before it';

CREATE FUNCTION snowflake_time_support(pg_catalog.internal)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'snowflake_time_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_time_eq(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_eq'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_ne(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_ne'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_lt(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_lt'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_le(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_le'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_gt(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_gt'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_ge(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_ge'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;

CREATE FUNCTION snowflake_time_eq(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_eq_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_ne(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_ne_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_lt(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_lt_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_le(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_le_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_gt(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_gt_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_ge(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_ge_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;

CREATE FUNCTION snowflake_time_contained(snowflake, pg_catalog.tstzrange) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_contained'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_contained(pg_catalog.tstzrange, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_contained_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;

CREATE OPERATOR = (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR = (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR <@ (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.tstzrange, FUNCTION = snowflake_time_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel);
CREATE OPERATOR @> (
	LEFTARG = pg_catalog.tstzrange, RIGHTARG = snowflake, FUNCTION = snowflake_time_contained,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel);

COMMENT ON OPERATOR >= (snowflake, pg_catalog.timestamptz) IS 'ID generated at or after the time';
COMMENT ON OPERATOR <@ (snowflake, pg_catalog.tstzrange) IS 'ID generated within the time range';

------------------------------------------------------------------------
-- Partitioning by ID
------------------------------------------------------------------------

CREATE FUNCTION snowflake_id_span(span pg_catalog.interval) RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_id_span'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_id_span(pg_catalog.interval) IS 'number of ID values in an interval of time, for ID-range partitioning';

------------------------------------------------------------------------
-- Bulk reservation for loaders
--
-- VOLATILE and PARALLEL RESTRICTED, like snowflake_nextval().
------------------------------------------------------------------------

CREATE FUNCTION snowflake_nextval(n pg_catalog.int8) RETURNS SETOF snowflake
	AS 'MODULE_PATHNAME', 'snowflake_nextval_n'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 1000;

CREATE FUNCTION snowflake_reserve(n pg_catalog.int8,
	OUT first_id snowflake, OUT last_id snowflake,
	OUT ids pg_catalog.int8, OUT lead_ms pg_catalog.int8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_reserve'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION snowflake_nextval(pg_catalog.int8) IS 'n new snowflake IDs, reserved in one step';
COMMENT ON FUNCTION snowflake_reserve(pg_catalog.int8) IS 'reserve n consecutive snowflake IDs for a loader; reports how far ahead of the clock they run';

------------------------------------------------------------------------
-- Other systems' IDs
------------------------------------------------------------------------

CREATE FUNCTION snowflake_decode(id pg_catalog.int8, layout pg_catalog.text,
	OUT ts pg_catalog.timestamptz, OUT node_id pg_catalog.int4, OUT seq pg_catalog.int4)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_decode_layout'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_decode(id pg_catalog.int8, epoch pg_catalog.timestamptz,
	node_bits pg_catalog.int4, sequence_bits pg_catalog.int4,
	tick pg_catalog.interval DEFAULT '1 millisecond',
	sequence_first pg_catalog.bool DEFAULT false,
	OUT ts pg_catalog.timestamptz, OUT node_id pg_catalog.int4, OUT seq pg_catalog.int4)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_decode_custom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_layouts(
	OUT name pg_catalog.text, OUT epoch pg_catalog.timestamptz,
	OUT tick pg_catalog.interval, OUT time_bits pg_catalog.int4,
	OUT node_bits pg_catalog.int4, OUT sequence_bits pg_catalog.int4,
	OUT sequence_first pg_catalog.bool, OUT fields pg_catalog.text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'snowflake_layouts'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 7;

COMMENT ON FUNCTION snowflake_decode(pg_catalog.int8, pg_catalog.text) IS 'decode an ID of a named layout: twitter, discord, instagram, sonyflake, sonyflake_v2, mastodon, or snowflake (this server)';
COMMENT ON FUNCTION snowflake_decode(pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.int4, pg_catalog.interval, pg_catalog.bool) IS 'decode an ID of an explicitly described layout';
COMMENT ON FUNCTION snowflake_layouts() IS 'the named layouts snowflake_decode() knows';

------------------------------------------------------------------------
-- UUIDv7
------------------------------------------------------------------------

CREATE FUNCTION snowflake_to_uuid(id snowflake) RETURNS pg_catalog.uuid
	AS 'MODULE_PATHNAME', 'snowflake_to_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_to_uuid(id pg_catalog.int8) RETURNS pg_catalog.uuid
	AS 'MODULE_PATHNAME', 'snowflake_to_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_from_uuid(u pg_catalog.uuid) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_from_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_to_uuid(snowflake) IS 'the UUIDv7 of the same millisecond, carrying the node and sequence';
COMMENT ON FUNCTION snowflake_to_uuid(pg_catalog.int8) IS 'the UUIDv7 of the same millisecond, carrying the node and sequence';
COMMENT ON FUNCTION snowflake_from_uuid(pg_catalog.uuid) IS 'the snowflake ID a snowflake_to_uuid() UUID came from';
