/* sql/snowflake--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.2'" to load this file. \quit

--
-- 1.2: many nodes.  Servers listed in snowflake.peers ask each other for
-- snowflake_node_info() to catch two primaries with one node ID, and to
-- measure clock skew; snowflake_peers() shows what this server found.
--

-- What a peer asks for: node ID, layout, start time, recovery state and
-- clock, nothing secret.  Executable by everyone, so that the peer checker
-- may connect as any role.  VOLATILE: it reads the clock.
CREATE FUNCTION snowflake_node_info(
	OUT node_id pg_catalog.int4,
	OUT instance_token pg_catalog.int8,
	OUT started_at_ms pg_catalog.int8,
	OUT in_recovery pg_catalog.bool,
	OUT clock_ms pg_catalog.int8,
	OUT epoch_ms pg_catalog.int8,
	OUT node_bits pg_catalog.int4,
	OUT sequence_bits pg_catalog.int4)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_node_info'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_node_info() IS 'this server''s node ID, layout, start time and clock, for its peers';

CREATE FUNCTION snowflake_peers(
	OUT peer pg_catalog.text,
	OUT reachable pg_catalog.bool,
	OUT node_id pg_catalog.int4,
	OUT in_recovery pg_catalog.bool,
	OUT clock_skew_ms pg_catalog.int8,
	OUT round_trip_ms pg_catalog.int8,
	OUT checked_at pg_catalog.timestamptz,
	OUT status pg_catalog.text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'snowflake_peers_report'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 4;

COMMENT ON FUNCTION snowflake_peers() IS 'what the last check of each peer in snowflake.peers found';

REVOKE ALL ON FUNCTION snowflake_peers() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION snowflake_peers() TO pg_monitor;
