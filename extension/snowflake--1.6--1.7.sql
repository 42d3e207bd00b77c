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

--
-- 1.7: the node-ID registry has a home of its own, the extension
-- snowflake_registry (schema snowflake_registry), with a simpler protocol
-- (doc/protocol.md): application databases keep only the type and the
-- functions.  The 1.6 registry functions go.  A database whose lease
-- table holds leases (a 1.6 registry) keeps it, out of the extension:
-- CREATE EXTENSION snowflake_registry moves its leases into the new
-- table; elsewhere the empty table is dropped.
--
DROP FUNCTION snowflake_registry_claim(pg_catalog.numeric, pg_catalog.int8, pg_catalog.text, pg_catalog.text, pg_catalog.int4);
DROP FUNCTION snowflake_registry_heartbeat(pg_catalog.int4, pg_catalog.numeric, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.text, pg_catalog.int4);
DROP FUNCTION snowflake_registry_deactivate(pg_catalog.int4, pg_catalog.numeric, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8);
DROP FUNCTION snowflake_registry_release(pg_catalog.int4, pg_catalog.numeric, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8);
DROP FUNCTION snowflake_registry_reclaim(pg_catalog.int4, pg_catalog.interval, pg_catalog.interval);
ALTER EXTENSION snowflake DROP TABLE snowflake_node_lease;
DO $$
BEGIN
	IF EXISTS (SELECT FROM snowflake_node_lease) THEN
		RAISE WARNING 'table snowflake_node_lease keeps the leases of this 1.6 node-ID registry'
			USING HINT = 'Run CREATE EXTENSION snowflake_registry in this database to move them into the 1.7 registry, then drop the table.';
	ELSE
		DROP TABLE snowflake_node_lease;
	END IF;
END
$$;

-- The lease gains "fenced", and loses the report of 1.6's heartbeat.
DROP FUNCTION snowflake_node_lease();

CREATE FUNCTION snowflake_node_lease(
	OUT state pg_catalog.text,
	OUT node_id pg_catalog.int4,
	OUT claim_token pg_catalog.int8,
	OUT floor_id snowflake,
	OUT fenced pg_catalog.bool,
	OUT reported_at pg_catalog.timestamptz,
	OUT granted_until pg_catalog.timestamptz,
	OUT registry_error pg_catalog.text)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_node_lease'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_node_lease() IS 'the node-ID lease this server holds, and what the registry last said';
REVOKE ALL ON FUNCTION snowflake_node_lease() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION snowflake_node_lease() TO pg_monitor;
