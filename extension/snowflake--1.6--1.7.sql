/* extension/snowflake--1.6--1.7.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.7'" to load this file. \quit

--
-- 1.7: snowflake_node_info() says whether this server claims its node ID
-- (claiming: a primary that asks its peers before its first ID) and
-- whether it is admitted to generate (admitted): the peers' claim-then-ask
-- rule (doc/protocol.md).  last_id is NULL until this server issues an ID
-- after its start or promotion.  Its row type grows, so it is made anew,
-- with the same comment and privileges (executable by everyone, as
-- created).
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
	OUT generating_since_ms pg_catalog.int8,
	OUT last_id pg_catalog.int8,
	OUT claiming pg_catalog.bool,
	OUT admitted pg_catalog.bool)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_node_info'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_node_info() IS 'this server''s node ID, layout, start time, clock and claim, for its peers';
