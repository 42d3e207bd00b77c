/* extension/snowflake_registry--1.0.sql */
\echo Use "CREATE EXTENSION snowflake_registry" to load this file. \quit

-- The node-ID registry: doc/protocol.md, "Node IDs from a registry", whose
-- rules model/registry.pml checks ("model:").  One layout per registry.
-- Servers need USAGE on the schema, SELECT, INSERT and UPDATE on the table
-- and EXECUTE on claim, report and release (doc/operations.md).

CREATE TABLE node_lease (
	node_id int4 PRIMARY KEY CHECK (node_id >= 0),
	system_identifier numeric NOT NULL,	-- the holder's (pg_control), its standbys'
	claim_token int8 NOT NULL,			-- drawn by the holder before it claimed
	holder text NOT NULL,				-- cluster_name@host:port, for people
	layout text NOT NULL,				-- epoch in Unix ms/node bits/sequence bits
	fenced bool NOT NULL,				-- claimed with snowflake.registry_fencing
	floor_id int8 NOT NULL,				-- the holder (its current run) issues above it
	high_water_id int8 NOT NULL,		-- released: every ID of the node ID is <= it
	claimed_at timestamptz NOT NULL,
	run_token int8,						-- fenced: the run granted IDs
	reported_at timestamptz,			-- the holder's last report
	address text,						-- where peers reach the holder (conninfo)
	released_at timestamptz				-- set: free, the next holder above high_water_id
);
SELECT pg_catalog.pg_extension_config_dump('node_lease', '');
REVOKE ALL ON TABLE node_lease FROM PUBLIC;
COMMENT ON TABLE node_lease IS 'snowflake node IDs leased to the servers that name this database in snowflake.node_registry';

-- The last ID of millisecond unix_ms (Unix time) in layout.
CREATE FUNCTION last_id_of(layout text, unix_ms int8) RETURNS int8
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
RETURN ((unix_ms - split_part(layout, '/', 1)::int8)
		<< (split_part(layout, '/', 2)::int4 + split_part(layout, '/', 3)::int4))
	   | ((1::int8 << (split_part(layout, '/', 2)::int4 + split_part(layout, '/', 3)::int4)) - 1);

-- Claims the lowest free node ID for the server (system_identifier,
-- claim_token); the same token gets the same lease again (a claim whose
-- answer was lost).  floor_id: the claimer issues only IDs above it
-- (model: claim-once, release-mark, floor-at-change).
CREATE FUNCTION claim(system_identifier numeric, claim_token int8, holder text,
					  layout text, max_node int4, fenced bool,
					  OUT node_id int4, OUT floor_id int8)
	LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
AS $$
DECLARE other_layout text;
BEGIN
	LOCK TABLE @extschema@.node_lease IN EXCLUSIVE MODE;
	SELECT l.node_id, l.floor_id INTO node_id, floor_id FROM @extschema@.node_lease l
	 WHERE l.system_identifier = claim.system_identifier
	   AND l.claim_token = claim.claim_token AND l.released_at IS NULL;
	IF FOUND THEN RETURN; END IF;
	SELECT l.layout INTO other_layout FROM @extschema@.node_lease l
	 WHERE l.layout <> claim.layout LIMIT 1;
	IF FOUND THEN RAISE EXCEPTION 'the snowflake node-ID registry serves another ID layout'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('The registry holds leases of layout %s; this server''s layout is %s (epoch in Unix ms/node bits/sequence bits).', other_layout, layout),
				  HINT = 'Every server that takes node IDs from one registry must use the same snowflake.epoch, snowflake.node_bits and snowflake.sequence_bits.'; END IF;
	-- the lowest free node ID; last, one whose IDs run over a minute ahead
	SELECT g INTO node_id FROM generate_series(0, max_node) g
	  LEFT JOIN @extschema@.node_lease l ON l.node_id = g
	 WHERE l.node_id IS NULL OR l.released_at IS NOT NULL
	 ORDER BY COALESCE(l.high_water_id > @extschema@.last_id_of(claim.layout,
					   (EXTRACT(epoch FROM now()) * 1000)::int8 + 60000), false), g
	 LIMIT 1;
	IF node_id IS NULL THEN RAISE EXCEPTION 'no free snowflake node ID in the registry'
			USING ERRCODE = 'configuration_limit_exceeded',
				  DETAIL = format('All %s node IDs the layout holds are leased.', max_node + 1),
				  HINT = 'Release the node IDs of servers that are gone, with snowflake_release_node_id() on them or snowflake_registry.reclaim() here.'; END IF;
	INSERT INTO @extschema@.node_lease AS l
		   (node_id, system_identifier, claim_token, holder, layout, fenced,
			floor_id, high_water_id, claimed_at)
	VALUES (node_id, system_identifier, claim_token, holder, layout, fenced, -1, -1, now())
	ON CONFLICT ON CONSTRAINT node_lease_pkey DO UPDATE
	   SET system_identifier = EXCLUDED.system_identifier, claim_token = EXCLUDED.claim_token,
		   holder = EXCLUDED.holder, fenced = EXCLUDED.fenced, claimed_at = EXCLUDED.claimed_at,
		   -- above every grant a fenced lease had (GRANT_AHEAD, report())
		   floor_id = GREATEST(l.floor_id, l.high_water_id,
							   CASE WHEN l.fenced THEN @extschema@.last_id_of(l.layout,
								   (EXTRACT(epoch FROM clock_timestamp()) * 1000)::int8 + 5000) END),
		   high_water_id = -1, run_token = NULL, reported_at = NULL, address = NULL,
		   released_at = NULL
	RETURNING l.floor_id INTO floor_id;
END
$$;

-- A holder's report: once per start, every second for a fenced lease, whose
-- current run (the last to report, unless silent for TTL) alone is granted
-- IDs, up to 5 s past this registry's clock (model: grant-to-current-run,
-- grant-within-registry-clock), above a floor over every grant ever made,
-- sent each time (model: floor-at-change, floor-after-lapse,
-- floor-in-every-answer).  address NULL: this connection's, with port.
CREATE FUNCTION report(node_id int4, system_identifier numeric, claim_token int8,
					   run_token int8, address text, port int4,
					   OUT held bool, OUT fenced bool, OUT current bool,
					   OUT floor_id int8, OUT granted_until_ms int8,
					   OUT other_run_ms int8, OUT layout text)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	now_ms int8 := (EXTRACT(epoch FROM clock_timestamp()) * 1000)::int8;
	ttl CONSTANT int8 := 5000;
	grant_ahead CONSTANT int8 := 5000;
	l @extschema@.node_lease;
	last_ms int8;
BEGIN
	SELECT * INTO l FROM @extschema@.node_lease r
	 WHERE r.node_id = report.node_id AND r.system_identifier = report.system_identifier
	   AND r.claim_token = report.claim_token AND r.released_at IS NULL
	   FOR UPDATE;
	held := FOUND;
	IF NOT held THEN RETURN; END IF;
	SELECT l.fenced, l.layout, l.floor_id, NOT l.fenced INTO fenced, layout, floor_id, current;
	IF l.fenced THEN
		last_ms := (EXTRACT(epoch FROM l.reported_at) * 1000)::int8;
		IF l.run_token <> report.run_token AND last_ms + ttl >= now_ms THEN
			other_run_ms := last_ms + ttl - now_ms;
			RETURN;
		END IF;
		IF l.run_token IS DISTINCT FROM report.run_token OR last_ms + ttl < now_ms THEN
			floor_id := GREATEST(floor_id, @extschema@.last_id_of(layout, now_ms + grant_ahead));
		END IF;
		current := true;
		granted_until_ms := now_ms + grant_ahead;
	END IF;
	UPDATE @extschema@.node_lease r
	   SET floor_id = report.floor_id, reported_at = to_timestamp(now_ms / 1000.0),
		   run_token = CASE WHEN l.fenced THEN report.run_token END,
		   address = COALESCE(report.address,
					 CASE WHEN inet_client_addr() IS NOT NULL AND port BETWEEN 1 AND 65535
						  THEN format('hostaddr=%s port=%s', host(inet_client_addr()), port) END)
	 WHERE r.node_id = report.node_id;
END
$$;

-- Releases a lease with the holder's final mark, which the next holder
-- starts above (model: release-mark); true if released, now or before.
CREATE FUNCTION release(node_id int4, system_identifier numeric, claim_token int8,
						high_water_id int8) RETURNS bool
	LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	UPDATE @extschema@.node_lease l
	   SET high_water_id = GREATEST(l.floor_id, l.high_water_id, release.high_water_id),
		   run_token = NULL, released_at = COALESCE(l.released_at, now())
	 WHERE l.node_id = release.node_id AND l.system_identifier = release.system_identifier
	   AND l.claim_token = release.claim_token
	RETURNING true;
END;

-- For the operator: frees the node ID of a server gone for good, the next
-- holder above now() + margin (model: reclaim-margin): right if the dead
-- server's clock was less than margin ahead, less reserve_ahead and max_borrow.
CREATE FUNCTION reclaim(node_id int4, margin interval DEFAULT '1 hour') RETURNS int8
	LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
AS $$
DECLARE l @extschema@.node_lease; floor_id int8;
BEGIN
	SELECT * INTO l FROM @extschema@.node_lease r
	 WHERE r.node_id = reclaim.node_id AND r.released_at IS NULL FOR UPDATE;
	IF NOT FOUND THEN RAISE EXCEPTION 'snowflake node ID % is not leased', node_id USING ERRCODE = 'no_data_found'; END IF;
	IF l.fenced AND l.run_token IS NOT NULL AND l.reported_at > clock_timestamp() - interval '5 s' THEN RAISE EXCEPTION 'the holder of snowflake node ID % still reports', node_id
			USING ERRCODE = 'object_in_use',
				  HINT = 'Release the node ID of a live server with snowflake_release_node_id() on it.'; END IF;
	UPDATE @extschema@.node_lease r
	   SET high_water_id = GREATEST(l.floor_id, l.high_water_id, @extschema@.last_id_of(l.layout,
						   (EXTRACT(epoch FROM now() + margin) * 1000)::int8)),
		   released_at = now(), run_token = NULL
	 WHERE r.node_id = reclaim.node_id
	RETURNING r.high_water_id INTO STRICT floor_id;
	RETURN floor_id;
END
$$;

REVOKE ALL ON FUNCTION claim, report, release, reclaim FROM PUBLIC;

-- The leases of a 1.6 registry, left out of the snowflake extension by its
-- update to 1.7 (table snowflake_node_lease), move here.
DO $$
DECLARE
	old regclass := (SELECT c.oid FROM pg_catalog.pg_class c
					  WHERE c.relname = 'snowflake_node_lease' AND c.relkind = 'r'
						AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
										 WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
										   AND d.objid = c.oid AND d.deptype = 'e'));
BEGIN
	IF old IS NOT NULL THEN
		EXECUTE pg_catalog.format(
			'INSERT INTO @extschema@.node_lease
			 SELECT node_id, system_identifier, claim_token, holder, layout, false,
					GREATEST(floor_id, high_water_id), high_water_id, claimed_at,
					NULL, heartbeat_at, address, released_at FROM %s', old);
		RAISE WARNING 'the leases of table % are now in snowflake_registry.node_lease', old
			USING HINT = 'Drop the old table once every server runs snowflake 1.7.';
	END IF;
END
$$;
