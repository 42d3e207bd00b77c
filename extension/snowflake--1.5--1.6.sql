/* extension/snowflake--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.6'" to load this file. \quit

--
-- 1.6: snowflake_status() counts failed writes of the high-water mark
-- (hwm_write_failures).  Its row type grows, so it is made anew, with the
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
	OUT clock_jumps_ignored pg_catalog.int8,
	OUT hwm_write_failures pg_catalog.int8)
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
