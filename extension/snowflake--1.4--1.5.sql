/* extension/snowflake--1.4--1.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.5'" to load this file. \quit

--
-- 1.5: snowflake_status() shows forward jumps of the system clock that the
-- generator holds back (clock_held_ms) and those that ended while held
-- (clock_jumps_ignored).  Its row type grows, so it is made anew, with the
-- same privileges.
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
	OUT clock_jumps_ignored pg_catalog.int8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_status'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_status() IS 'state of the snowflake generator, its clock, high-water mark and worker';

REVOKE ALL ON FUNCTION snowflake_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION snowflake_status() TO pg_monitor;

--
-- 1.5: snowflake's operator families no longer hold core's bigint
-- operators.  Up to 1.4, core's int8 = int8, <, <=, >=, > and btint8cmp
-- were also members of the btree family snowflake_ops, and = with hashint8
-- of the hash family: an operator in two families changes the plans of
-- every bigint query in the database (PostgreSQL's regression suite showed
-- extra sorts and lost index scans).  Operators of the extension's own,
-- #=#, #<#, ..., take their place, so the families stay complete for
-- comparing, sorting, merging and hashing snowflake with bigint.
--
CREATE FUNCTION snowflake_int8_eq(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_ne(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_lt(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_le(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_gt(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_ge(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR #=# (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_eq,
	COMMUTATOR = #=#, NEGATOR = #<>#,
	RESTRICT = eqsel, JOIN = eqjoinsel, MERGES, HASHES);
CREATE OPERATOR #<># (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_ne,
	COMMUTATOR = #<>#, NEGATOR = #=#,
	RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR #<# (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_lt,
	COMMUTATOR = #>#, NEGATOR = #>=#,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR #<=# (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_le,
	COMMUTATOR = #>=#, NEGATOR = #>#,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR #># (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_gt,
	COMMUTATOR = #<#, NEGATOR = #<=#,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR #>=# (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_ge,
	COMMUTATOR = #<=#, NEGATOR = #<#,
	RESTRICT = scalargesel, JOIN = scalargejoinsel);

COMMENT ON OPERATOR #=# (pg_catalog.int8, pg_catalog.int8) IS 'bigint equality, for snowflake''s operator families only';
COMMENT ON OPERATOR #<# (pg_catalog.int8, pg_catalog.int8) IS 'bigint less-than, for snowflake''s operator families only';

COMMENT ON OPERATOR #=# (pg_catalog.int8, pg_catalog.int8) IS 'bigint equality, for snowflake''s operator families only';
COMMENT ON OPERATOR #<# (pg_catalog.int8, pg_catalog.int8) IS 'bigint less-than, for snowflake''s operator families only';

ALTER OPERATOR FAMILY snowflake_ops USING btree DROP
	OPERATOR 1 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 2 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 3 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 4 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 5 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 (pg_catalog.int8, pg_catalog.int8);

ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
	OPERATOR 1 #<# (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 2 #<=# (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 3 #=# (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 4 #>=# (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 5 #># (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 (pg_catalog.int8, pg_catalog.int8) pg_catalog.btint8cmp(pg_catalog.int8, pg_catalog.int8);

ALTER OPERATOR FAMILY snowflake_ops USING hash DROP
	OPERATOR 1 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 2 (pg_catalog.int8, pg_catalog.int8);

ALTER OPERATOR FAMILY snowflake_ops USING hash ADD
	OPERATOR 1 #=# (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 pg_catalog.hashint8(pg_catalog.int8),
	FUNCTION 2 pg_catalog.hashint8extended(pg_catalog.int8, pg_catalog.int8);

--
-- 1.5: min() and max() lose their COMBINEFUNC, so that Citus pushes them
-- down to each shard by name, where they read the shard's index, as it
-- does bigint's.
--
CREATE OR REPLACE AGGREGATE min(snowflake) (
	SFUNC = snowflake_smaller,
	STYPE = snowflake,
	SORTOP = <,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE max(snowflake) (
	SFUNC = snowflake_larger,
	STYPE = snowflake,
	SORTOP = >,
	PARALLEL = SAFE
);

--
-- 1.5: the time of an ID of an explicitly given layout, IMMUTABLE.
--
CREATE FUNCTION snowflake_timestamp(id snowflake, epoch pg_catalog.timestamptz,
	node_bits pg_catalog.int4 DEFAULT 10, sequence_bits pg_catalog.int4 DEFAULT 12)
	RETURNS pg_catalog.timestamptz
	AS 'MODULE_PATHNAME', 'snowflake_timestamp_custom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_timestamp(id pg_catalog.int8, epoch pg_catalog.timestamptz,
	node_bits pg_catalog.int4 DEFAULT 10, sequence_bits pg_catalog.int4 DEFAULT 12)
	RETURNS pg_catalog.timestamptz
	AS 'MODULE_PATHNAME', 'snowflake_timestamp_custom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_timestamp(snowflake, pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.int4) IS 'the time of an ID of the given layout (immutable)';
COMMENT ON FUNCTION snowflake_timestamp(pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.int4) IS 'the time of an ID stored as bigint, of the given layout (immutable)';
