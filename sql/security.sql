--
-- Security: what each role may do, and install scripts that nothing in
-- the schema can capture
--

-- an ordinary role can generate and decode, not reserve blocks or read status
CREATE ROLE snowflake_app;
CREATE TABLE app_table (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), n int);
GRANT INSERT, SELECT ON app_table TO snowflake_app;
SET ROLE snowflake_app;
INSERT INTO app_table (n) VALUES (1);
SELECT snowflake_node_id(id) AS node, snowflake_currval() = id AS currval FROM app_table;
SELECT (snowflake_node_info()).node_id;
SELECT count(*) FROM snowflake_nextval(10);
SELECT * FROM snowflake_reserve(10);
SELECT * FROM snowflake_status();
SELECT * FROM snowflake_peers();
-- (core's wording of this refusal differs between versions: SQLSTATE only)
\set VERBOSITY sqlstate
SHOW snowflake.peers;
\set VERBOSITY default
RESET ROLE;

-- an administrator grants bulk reservation to a loader role
CREATE ROLE snowflake_loader;
GRANT EXECUTE ON FUNCTION snowflake_reserve(bigint), snowflake_nextval(bigint) TO snowflake_loader;
SET ROLE snowflake_loader;
SELECT ids FROM snowflake_reserve(10);
SELECT count(*) FROM snowflake_nextval(10);
RESET ROLE;

-- who, besides the owner (whoever installed the extension), may execute
-- every function that is not executable by everyone
SELECT p.oid::regprocedure AS function, array_agg(g.name ORDER BY g.name) AS executable_by
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e',
       LATERAL aclexplode(p.proacl) a,
       LATERAL (SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END) g(name)
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
   AND p.proacl IS NOT NULL
   AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner
 GROUP BY p.oid
 ORDER BY p.oid::regprocedure::text;

-- settings: a role cannot change any, and cannot read the peer list
-- (connection strings may hold passwords)
SET ROLE snowflake_app;
SET snowflake.node_id = 1;
SET snowflake.node_conflict = 'warn';
SELECT count(*) FROM pg_settings WHERE name = 'snowflake.peers';
RESET ROLE;

DROP TABLE app_table;
DROP ROLE snowflake_app;
DROP OWNED BY snowflake_loader;
DROP ROLE snowflake_loader;

-- a hostile schema: objects named like every function and operator the
-- install scripts refer to, placed where the extension is installed, must
-- capture nothing
CREATE SCHEMA hostile;
CREATE FUNCTION hostile.eqsel(internal, oid, internal, integer) RETURNS float8
  LANGUAGE internal AS 'neqsel';
CREATE FUNCTION hostile.scalarltsel(internal, oid, internal, integer) RETURNS float8
  LANGUAGE internal AS 'scalargtsel';
CREATE FUNCTION hostile.btint8cmp(bigint, bigint) RETURNS integer
  LANGUAGE sql AS 'SELECT 0';
CREATE FUNCTION hostile.hashint8(bigint) RETURNS integer LANGUAGE sql AS 'SELECT 0';
CREATE FUNCTION hostile.hostile_eq(bigint, bigint) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR hostile.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = hostile.hostile_eq);
CREATE OPERATOR hostile.< (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = hostile.hostile_eq);
DROP EXTENSION snowflake;
SET search_path = hostile, public;
CREATE EXTENSION snowflake SCHEMA hostile;
RESET search_path;
-- every operator and support function the extension uses is its own or core's
SELECT count(*) AS captured
  FROM pg_depend d
  JOIN pg_amop o ON d.classid = 'pg_amop'::regclass AND d.objid = o.oid
  JOIN pg_operator op ON op.oid = o.amopopr
 WHERE d.refobjid IN (SELECT oid FROM pg_opfamily WHERE opfname LIKE 'snowflake%')
   AND op.oprcode::regproc::text LIKE 'hostile.hostile%';
SELECT count(*) AS captured_estimators
  FROM pg_operator
 WHERE oprnamespace = 'hostile'::regnamespace
   AND (oprrest::text LIKE 'hostile.%' OR oprjoin::text LIKE 'hostile.%');
SELECT count(*) AS captured_support
  FROM pg_amproc
 WHERE amproc::oid IN (SELECT oid FROM pg_proc WHERE pronamespace = 'hostile'::regnamespace
                                                AND proname IN ('btint8cmp', 'hashint8'));
DROP EXTENSION snowflake;

-- an object squatting on one of the extension's own names makes CREATE
-- EXTENSION fail, rather than be adopted
CREATE FUNCTION hostile.snowflake_seq(bigint) RETURNS integer
  LANGUAGE sql AS 'SELECT 0';
\set VERBOSITY terse
CREATE EXTENSION snowflake SCHEMA hostile;
\set VERBOSITY default
DROP SCHEMA hostile CASCADE;
CREATE EXTENSION snowflake;
