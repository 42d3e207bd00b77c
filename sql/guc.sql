--
-- The snowflake.* settings: values, contexts, and who may change them
--
SELECT name, setting, unit, vartype, context, boot_val
  FROM pg_settings WHERE name LIKE 'snowflake.%' ORDER BY name;

SHOW snowflake.node_id;
SHOW snowflake.epoch;

-- settings that decide what an ID means need a restart, for everyone
SET snowflake.node_id = 3;
SET snowflake.epoch = '2020-01-01';
SET snowflake.node_bits = 8;
SET snowflake.sequence_bits = 14;
ALTER SYSTEM SET snowflake.node_id = 3;
ALTER SYSTEM RESET snowflake.node_id;

-- clock settings are read from the configuration file only
SET snowflake.clock_policy = 'error';
SET snowflake.max_borrow = 0;
SET snowflake.clock_check_interval = 0;

-- and a non-superuser can change none of them
CREATE ROLE snowflake_guc_user;
SET ROLE snowflake_guc_user;
SET snowflake.node_id = 3;
SET snowflake.clock_policy = 'error';
SET snowflake.reserve_ahead = 10;
ALTER SYSTEM SET snowflake.node_id = 3;
RESET ROLE;
DROP ROLE snowflake_guc_user;

-- the prefix is reserved: a misspelt setting is an error, not a silent no-op
SET snowflake.nodeid = 3;

-- values are validated when they are set (here, for a reload)
ALTER SYSTEM SET snowflake.clock_policy = 'sometimes';
-- (out of range: core's message, whose wording differs between versions)
\set VERBOSITY sqlstate
ALTER SYSTEM SET snowflake.max_borrow = -1;
\set VERBOSITY default
ALTER SYSTEM SET snowflake.epoch = 'yesterday';
ALTER SYSTEM SET snowflake.epoch = '2025-02-30';
ALTER SYSTEM SET snowflake.epoch = '2999-01-01';
ALTER SYSTEM SET snowflake.epoch = '1969-12-31 23:59:59Z';
ALTER SYSTEM SET snowflake.node_id = 268435456;
ALTER SYSTEM SET snowflake.node_id = -2;
-- a node ID the layout in force (10 node bits) cannot hold is refused now,
-- not at the next start; the largest one it holds is accepted
ALTER SYSTEM SET snowflake.node_id = 5000;
ALTER SYSTEM SET snowflake.node_id = 1024;
ALTER SYSTEM SET snowflake.node_id = 1023;
ALTER SYSTEM SET snowflake.sequence_bits = 0;
ALTER SYSTEM SET snowflake.node_bits = 29;
ALTER SYSTEM SET snowflake.node_conflict = 'ignore';
-- where peers reach this server: host and/or hostaddr, perhaps port, nothing else
ALTER SYSTEM SET snowflake.advertise_address = 'host=db1 dbname=app';
ALTER SYSTEM SET snowflake.advertise_address = 'port=5433';
ALTER SYSTEM SET snowflake.advertise_address = 'host=db1 port';
-- one server, by name or by address, never both: libpq would look up the
-- password of the name and send it to the address
ALTER SYSTEM SET snowflake.advertise_address = 'host=db1 hostaddr=10.0.0.7';
ALTER SYSTEM SET snowflake.advertise_address = 'host=db1,db2';
ALTER SYSTEM SET snowflake.advertise_address = 'host=/var/run/postgresql';
ALTER SYSTEM SET snowflake.advertise_address = 'host=db1 port=70000';
SELECT 'host=' || repeat('d', 1020) AS long_address \gset
\set VERBOSITY sqlstate
ALTER SYSTEM SET snowflake.advertise_address = :'long_address';
\set VERBOSITY default
ALTER SYSTEM SET snowflake.advertise_address = 'hostaddr=10.0.0.7 port=5433';
ALTER SYSTEM SET snowflake.advertise_address = 'postgresql://db1:5433';
ALTER SYSTEM SET snowflake.advertise_address = '';
-- a "registry:" entry of snowflake.peers holds a connection string too
ALTER SYSTEM SET snowflake.peers = 'registry:';
ALTER SYSTEM SET snowflake.peers = 'registry:dbname';
-- the holders' addresses replace host, hostaddr and port: say so
ALTER SYSTEM SET snowflake.peers = '"registry:host=db2 dbname=app"';
ALTER SYSTEM SET snowflake.peers = '"registry:dbname=app user=checker", "host=db2 dbname=app"';
\set VERBOSITY sqlstate
ALTER SYSTEM SET snowflake.peer_check_interval = '50ms';
ALTER SYSTEM SET snowflake.peer_check_interval = '2h';
\set VERBOSITY default
ALTER SYSTEM RESET ALL;
