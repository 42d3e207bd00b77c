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
   -- from 17 on array types (snowflake[]), and the row type of a table
   -- with its array, are recorded as members too
   AND NOT (classid = 'pg_type'::regclass AND
            objid IN (SELECT t.oid FROM pg_type t
                       WHERE t.typrelid <> 0 OR t.typcategory = 'A'))
 ORDER BY 1;

-- every object carries a comment (\dx+ and \do+ describe them all)
SELECT pg_describe_object(classid, objid, objsubid) AS without_comment
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
   AND deptype = 'e'
   AND NOT (classid = 'pg_type'::regclass AND
            objid IN (SELECT t.oid FROM pg_type t
                       WHERE t.typrelid <> 0 OR t.typcategory = 'A'))
   AND obj_description(objid, classid::regclass::name) IS NULL
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
 ORDER BY p.oid::regprocedure::text;

-- update paths
SELECT source, target, path FROM pg_extension_update_paths('snowflake')
 ORDER BY source, target;

-- the first release, updated, equals a new install of the newest version
-- (which has its own script): every object, and for each one what matters
-- about it.  Printed are only the differences, so the expected output is
-- empty; a wrong or forgotten update step shows up as a row.
CREATE FUNCTION pg_temp.ext_signature() RETURNS SETOF text LANGUAGE sql AS $$
  WITH members AS (
    SELECT classid, objid, objsubid FROM pg_depend
     WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
       AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake'))
  SELECT 'object ' || pg_describe_object(classid, objid, objsubid)
         || coalesce(' comment ' || obj_description(objid, classid::regclass::name), '')
    FROM members
  UNION ALL
  SELECT format('function %s(%s) returns %s lang %s symbol %s vol %s par %s strict %s leak %s cost %s rows %s support %s acl %s config %s',
                p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
                l.lanname, p.prosrc, p.provolatile, p.proparallel, p.proisstrict,
                p.proleakproof, p.procost, p.prorows, p.prosupport::regproc, p.proacl,
                p.proconfig)
    FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
    JOIN pg_language l ON l.oid = p.prolang
  UNION ALL
  SELECT format('operator %s code %s com %s neg %s rest %s join %s hash %s merge %s',
                o.oid::regoperator, o.oprcode::regprocedure, o.oprcom::regoperator,
                o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge)
    FROM members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
  UNION ALL
  SELECT format('cast %s as %s with %s context %s method %s',
                c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure,
                c.castcontext, c.castmethod)
    FROM members m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
  UNION ALL
  SELECT format('type %s len %s byval %s align %s storage %s in %s out %s recv %s send %s category %s',
                t.typname, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typinput,
                t.typoutput, t.typreceive, t.typsend, t.typcategory)
    FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
  UNION ALL
  SELECT format('opclass %s %s for %s family %s default %s',
                a.amname, c.opcname, c.opcintype::regtype, f.opfname, c.opcdefault)
    FROM members m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
    JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_opfamily f ON f.oid = c.opcfamily
  UNION ALL
  SELECT format('family %s member %s (%s, %s) strategy %s purpose %s',
                f.opfname, ao.amopopr::regoperator, ao.amoplefttype::regtype,
                ao.amoprighttype::regtype, ao.amopstrategy, ao.amoppurpose)
    FROM members m JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
    JOIN pg_amop ao ON ao.amopfamily = f.oid
  UNION ALL
  SELECT format('family %s support %s (%s, %s) number %s',
                f.opfname, ap.amproc::regprocedure, ap.amproclefttype::regtype,
                ap.amprocrighttype::regtype, ap.amprocnum)
    FROM members m JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
    JOIN pg_amproc ap ON ap.amprocfamily = f.oid
$$;
CREATE TEMP TABLE signature_new AS SELECT * FROM pg_temp.ext_signature() s;
SELECT count(*) > 200 AS signature_covers_the_extension FROM signature_new;
DROP EXTENSION snowflake;
CREATE EXTENSION snowflake VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
CREATE TABLE kept (id snowflake PRIMARY KEY DEFAULT snowflake_nextval());
INSERT INTO kept DEFAULT VALUES;
ALTER EXTENSION snowflake UPDATE TO '1.7';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
SELECT s AS only_in_new_install FROM signature_new
EXCEPT SELECT * FROM pg_temp.ext_signature()
ORDER BY 1;
SELECT s AS only_after_update FROM pg_temp.ext_signature() s
EXCEPT SELECT * FROM signature_new
ORDER BY 1;
-- and the data and defaults made with 1.0 keep working
INSERT INTO kept DEFAULT VALUES;
SELECT count(*), count(DISTINCT id), min(id) < max(id) AS increasing FROM kept;
SELECT count(*) FROM kept WHERE id <@ tstzrange(now() - interval '1 hour', NULL);
DROP TABLE kept;

-- the same from 1.4, as most servers have it
DROP EXTENSION snowflake;
CREATE EXTENSION snowflake VERSION '1.4';
CREATE TABLE kept (id snowflake PRIMARY KEY DEFAULT snowflake_nextval());
INSERT INTO kept DEFAULT VALUES;
ALTER EXTENSION snowflake UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
SELECT s AS only_in_new_install FROM signature_new
EXCEPT SELECT * FROM pg_temp.ext_signature()
ORDER BY 1;
SELECT s AS only_after_update_from_1_4 FROM pg_temp.ext_signature() s
EXCEPT SELECT * FROM signature_new
ORDER BY 1;
INSERT INTO kept DEFAULT VALUES;
SELECT count(*), count(DISTINCT id) FROM kept;
DROP TABLE kept;

-- drop and create again, and relocate
DROP EXTENSION snowflake;
CREATE SCHEMA ids;
CREATE EXTENSION snowflake SCHEMA ids;
SELECT ids.snowflake_from_parts('2025-01-01 00:00:00.001+00', 1, 1);
ALTER EXTENSION snowflake SET SCHEMA public;
SELECT snowflake_from_parts('2025-01-01 00:00:00.001+00', 1, 1);
DROP SCHEMA ids;
