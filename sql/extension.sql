--
-- Installing, listing and removing the extension
--
CREATE EXTENSION snowflake;

-- every object the extension owns
SELECT pg_describe_object(classid, objid, objsubid) AS object
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
   AND deptype = 'e'
 ORDER BY 1;

-- the type is stored exactly like bigint
SELECT typlen, typbyval, typalign, typstorage, typcategory
  FROM pg_type WHERE typname = 'snowflake';

-- volatility, parallel safety, strictness and leakproofness of every function
SELECT p.oid::regprocedure AS function, provolatile, proparallel,
       proisstrict, proleakproof
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
 ORDER BY 1::text;

-- update paths
SELECT source, target, path FROM pg_extension_update_paths('snowflake')
 ORDER BY source, target;

-- the first release, updated, has exactly the objects of a new install
CREATE TEMP TABLE objects_new AS
SELECT pg_describe_object(classid, objid, objsubid) AS object
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake');
DROP EXTENSION snowflake;
CREATE EXTENSION snowflake VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
CREATE TABLE kept (id snowflake PRIMARY KEY DEFAULT snowflake_nextval());
INSERT INTO kept DEFAULT VALUES;
ALTER EXTENSION snowflake UPDATE TO '1.4';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
SELECT object AS missing_after_update FROM objects_new
EXCEPT
SELECT pg_describe_object(classid, objid, objsubid)
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake');
SELECT pg_describe_object(classid, objid, objsubid) AS extra_after_update
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
EXCEPT
SELECT object FROM objects_new;
-- and the data and defaults made with 1.0 keep working
INSERT INTO kept DEFAULT VALUES;
SELECT count(*), count(DISTINCT id), min(id) < max(id) AS increasing FROM kept;
SELECT count(*) FROM kept WHERE id <@ tstzrange(now() - interval '1 hour', NULL);
DROP TABLE kept;

-- drop and create again, and relocate
DROP EXTENSION snowflake;
CREATE SCHEMA ids;
CREATE EXTENSION snowflake SCHEMA ids;
SELECT ids.snowflake_from_parts('2025-01-01 00:00:00.001+00', 1, 1);
ALTER EXTENSION snowflake SET SCHEMA public;
SELECT snowflake_from_parts('2025-01-01 00:00:00.001+00', 1, 1);
DROP SCHEMA ids;
