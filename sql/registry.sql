--
-- The node-ID registry, the extension snowflake_registry: what the servers
-- call (claim, report, release) and the operator's reclaim, on a database
-- of its own, and the move of a 1.6 registry's leases.
--
CREATE DATABASE snowflake_registry_regress;
\c snowflake_registry_regress
CREATE EXTENSION snowflake_registry;

SELECT pg_describe_object(classid, objid, objsubid) AS object
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_registry')
   -- from 17 on the row type of a table, with its array, is a member too
   AND NOT (classid = 'pg_type'::regclass AND
            objid IN (SELECT t.oid FROM pg_type t WHERE t.typrelid <> 0 OR t.typcategory = 'A'))
 ORDER BY 1;

-- claim-once: the same token gets the same lease; another server the next
SELECT * FROM snowflake_registry.claim(1001, 11, 'a', '1735689600000/10/12', 1023, false);
SELECT * FROM snowflake_registry.claim(1001, 11, 'a', '1735689600000/10/12', 1023, false);
SELECT * FROM snowflake_registry.claim(1002, 22, 'b', '1735689600000/10/12', 1023, false);
-- one layout per registry
SELECT * FROM snowflake_registry.claim(1003, 33, 'c', '1735689600000/8/14', 255, false);
-- a full registry
SELECT * FROM snowflake_registry.claim(1003, 33, 'c', '1735689600000/10/12', 1, false);

-- an unfenced lease: held, current, no grant
SELECT held, fenced, current, floor_id, granted_until_ms, other_run_ms, layout
  FROM snowflake_registry.report(0, 1001, 11, 7, 'host=a port=5432', 5432);
-- a token that is not the lease's
SELECT held FROM snowflake_registry.report(0, 1001, 12, 7, NULL, 5432);

-- release with the final mark; the next claimer starts above it
SELECT snowflake_registry.release(0, 1001, 11, 123456);
SELECT snowflake_registry.release(0, 1001, 11, 100);
SELECT held FROM snowflake_registry.report(0, 1001, 11, 7, NULL, 5432);
SELECT * FROM snowflake_registry.claim(1004, 44, 'd', '1735689600000/10/12', 1023, false);

-- a fenced lease: the first run to report is current, above every grant,
-- and granted 5 s past the registry's clock; another run waits
SELECT * FROM snowflake_registry.claim(1005, 55, 'e', '1735689600000/10/12', 1023, true);
SELECT held, fenced, current,
       floor_id = snowflake_registry.last_id_of(layout, granted_until_ms) AS floor_at_grant,
       granted_until_ms - (extract(epoch FROM clock_timestamp()) * 1000)::bigint BETWEEN 4000 AND 5000 AS grant_5s
  FROM snowflake_registry.report(2, 1005, 55, 1, NULL, 5432);
SELECT current, granted_until_ms IS NULL AS no_grant, other_run_ms BETWEEN 0 AND 5000 AS waits
  FROM snowflake_registry.report(2, 1005, 55, 2, NULL, 5432);
SELECT current FROM snowflake_registry.report(2, 1005, 55, 1, NULL, 5432);
-- the current run silent for longer than 5 s: the next run is current, above
UPDATE snowflake_registry.node_lease SET reported_at = reported_at - interval '6 s' WHERE node_id = 2;
SELECT current, floor_id > (SELECT floor_id FROM snowflake_registry.node_lease WHERE node_id = 2) AS above
  FROM snowflake_registry.report(2, 1005, 55, 2, NULL, 5432);

-- reclaim: refused while a fenced holder reports, else an hour ahead
SELECT snowflake_registry.reclaim(2);
SELECT snowflake_registry.reclaim(1) > snowflake_registry.last_id_of('1735689600000/10/12',
		(extract(epoch FROM now() + interval '59 min') * 1000)::bigint) AS an_hour_ahead;
SELECT snowflake_registry.reclaim(1);
SELECT node_id, holder, fenced, released_at IS NOT NULL AS released FROM snowflake_registry.node_lease ORDER BY 1;

-- the servers' role may call what it is granted, nothing else
CREATE ROLE regress_registry_server LOGIN;
GRANT USAGE ON SCHEMA snowflake_registry TO regress_registry_server;
GRANT SELECT, INSERT, UPDATE ON snowflake_registry.node_lease TO regress_registry_server;
GRANT EXECUTE ON FUNCTION snowflake_registry.claim, snowflake_registry.report,
	snowflake_registry.release TO regress_registry_server;
SET ROLE regress_registry_server;
SELECT node_id FROM snowflake_registry.claim(1006, 66, 'f', '1735689600000/10/12', 1023, false);
SELECT snowflake_registry.reclaim(3);
RESET ROLE;
DROP EXTENSION snowflake_registry;
DROP OWNED BY regress_registry_server;
DROP ROLE regress_registry_server;

-- a 1.6 registry: its update to 1.7 leaves the lease table out of the
-- extension; snowflake_registry moves its leases
CREATE EXTENSION snowflake VERSION '1.6';
INSERT INTO snowflake_node_lease (node_id, system_identifier, claim_token, holder, layout,
	floor_id, high_water_id, claimed_at, heartbeat_at, released_at)
VALUES (0, 1001, 11, 'a', '1735689600000/10/12', 5, 77, now(), now(), NULL),
       (1, 1002, 22, 'b', '1735689600000/10/12', -1, 99, now(), now(), now());
ALTER EXTENSION snowflake UPDATE TO '1.7';
CREATE EXTENSION snowflake_registry;
SELECT node_id, system_identifier, claim_token, fenced, floor_id, high_water_id,
       released_at IS NOT NULL AS released
  FROM snowflake_registry.node_lease ORDER BY 1;
SELECT held, current, floor_id FROM snowflake_registry.report(0, 1001, 11, 7, NULL, 5432);
DROP TABLE snowflake_node_lease;

-- an application database: its update drops the empty table
CREATE DATABASE snowflake_registry_regress_app;
\c snowflake_registry_regress_app
CREATE EXTENSION snowflake VERSION '1.6';
ALTER EXTENSION snowflake UPDATE TO '1.7';
SELECT to_regclass('snowflake_node_lease') IS NULL AS dropped;
\c contrib_regression
DROP DATABASE snowflake_registry_regress;
DROP DATABASE snowflake_registry_regress_app;
