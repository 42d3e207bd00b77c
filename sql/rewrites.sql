--
-- Every rewrite of the planner support functions (src/planner_support.c)
-- gives what the call it replaces gives.
--
-- A property test: each rewritten call is evaluated over the same data as
-- its unrewritten form, and their outcomes are compared.  The unrewritten
-- form calls the C function through a test-only declaration that has no
-- support function, so the planner cannot rewrite it.
--
-- Only counts of disagreements (all 0) and booleans are printed; cases that
-- exist only on newer PostgreSQL versions run there and print the same.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
\set VERBOSITY terse

-- the unrewritten forms
CREATE FUNCTION c_decode(snowflake, OUT ts timestamptz, OUT node_id integer, OUT seq integer)
  RETURNS record AS '$libdir/snowflake', 'snowflake_decode' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_decode(bigint, OUT ts timestamptz, OUT node_id integer, OUT seq integer)
  RETURNS record AS '$libdir/snowflake', 'snowflake_decode' LANGUAGE C STABLE STRICT;

-- The outcome of a query that returns one text value: that value, '(null)',
-- or 'error' for the error of a negative snowflake ("out of range"; any
-- other error fails the test).  Whatever the query changed is undone.
CREATE FUNCTION outcome(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  result text;
BEGIN
  BEGIN
    EXECUTE q INTO result;
    RAISE EXCEPTION USING ERRCODE = 'SFUND';
  EXCEPTION
    WHEN SQLSTATE 'SFUND' THEN
      RETURN coalesce(result, '(null)');
    WHEN numeric_value_out_of_range THEN
      RETURN 'error';
  END;
END $$;

CREATE FUNCTION plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  result text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    result := result || line || E'\n';
  END LOOP;
  RETURN result;
END $$;

-- ----------------------------------------------------------------------
-- snowflake_decode() (snowflake_decode_support), which becomes
-- ROW(snowflake_timestamp(id), ...) only where id cannot be NULL
-- ----------------------------------------------------------------------

-- Runs query q (a template: DECODE stands for the function) with
-- snowflake_decode and with the unrewritten c_decode, and records whether
-- the outcomes differ and whether the planner rewrote the call.
-- expect_rewritten NULL: either is right.  The cases common to all
-- versions are collected in decode_cases and run together.
CREATE TABLE decode_cases (label text, q text, expect_rewritten boolean);
CREATE TABLE decode_results (label text, wrong integer, rewritten boolean,
                             expect_rewritten boolean);
CREATE FUNCTION check_decode(label text, q text, expect_rewritten boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  rw text := replace(q, 'DECODE', 'snowflake_decode');
  got text := outcome(rw);
  expected text := outcome(replace(q, 'DECODE', 'c_decode'));
BEGIN
  IF got IS DISTINCT FROM expected THEN
    RAISE NOTICE '%: % instead of %', label, got, expected;
  END IF;
  INSERT INTO decode_results
    VALUES (label, (got IS DISTINCT FROM expected)::integer,
            plan_of(rw) NOT LIKE '%snowflake_decode(%', expect_rewritten);
END $$;

-- The standard question about a column expression col over from: the
-- count of decoded values, and every value as a record, its node_id field
-- and whether it IS NULL (NULL and a row of NULLs both are).
CREATE FUNCTION decode_query(col text, from_clause text) RETURNS text
LANGUAGE sql AS $$
  SELECT format('SELECT count(DECODE(%1$s)) || '';'' || coalesce(string_agg('
                'coalesce(DECODE(%1$s)::text, ''null'') || ''/'' || '
                'coalesce((DECODE(%1$s)).node_id::text, ''null'') || ''/'' || '
                '(DECODE(%1$s) IS NULL)::text, '','' ORDER BY %1$s::text), '''') FROM %2$s',
                col, from_clause)
$$;

-- IDs from the first millisecond to the last, every node and sequence
-- number reached; the same as bigint, with negative values; with NULLs
CREATE TABLE dec_nn (id snowflake NOT NULL, big bigint NOT NULL);
INSERT INTO dec_nn
SELECT id, id::bigint
  FROM (SELECT snowflake_from_parts('2025-01-01 00:00:00+00'::timestamptz +
                                    g * interval '1 day 17 min 13.217 s', g * 37 % 1024,
                                    g * 1031 % 4096) AS id
          FROM generate_series(0, 40) g
        UNION ALL VALUES ('0'::snowflake), ('9223372036854775807'::snowflake)) v;
CREATE TABLE dec_neg (big bigint NOT NULL);
INSERT INTO dec_neg SELECT big FROM dec_nn UNION ALL VALUES (-1), (-5), (-9223372036854775808);
CREATE TABLE dec_null (id snowflake);
INSERT INTO dec_null SELECT id FROM dec_nn WHERE big % 3 = 0
  UNION ALL VALUES (NULL::snowflake), (NULL);

INSERT INTO decode_cases VALUES
  ('NOT NULL snowflake column', decode_query('id', 'dec_nn'), true),
  ('NOT NULL bigint column', decode_query('big', 'dec_nn'), true),
  ('NOT NULL bigint column, negative keys', decode_query('big', 'dec_neg'), true),
  ('all fields', 'SELECT string_agg(ROW((DECODE(id)).*)::text, '','' ORDER BY id) FROM dec_nn', true),
  ('nullable column', decode_query('id', 'dec_null'), false),
  ('constant', decode_query('''4194305''::snowflake', 'dec_nn'), true),
  ('NULL constant', decode_query('NULL::snowflake', 'dec_nn'), NULL),
  ('outer join', decode_query('d.id', 'dec_null n LEFT JOIN dec_nn d ON d.id = n.id'), false),
  ('subquery under an outer join',
   decode_query('d.id', 'dec_null n LEFT JOIN (SELECT id FROM dec_nn) d ON d.id = n.id'), NULL),
  ('grouping sets',
   'SELECT count(DECODE(id)) || '';'' || string_agg(coalesce(DECODE(id)::text, ''null''), '','' ORDER BY id) FROM dec_nn GROUP BY GROUPING SETS ((id), ())',
   false),
  ('lateral',
   'SELECT count(d.*) || '';'' || string_agg(d::text, '','' ORDER BY d::text) FROM dec_null n, DECODE(n.id) d',
   NULL);

-- parameters: generic and custom plans, NULL and negative arguments
PREPARE dec_param(bigint) AS
  SELECT coalesce(snowflake_decode($1)::text, 'null') || '/' || (snowflake_decode($1) IS NULL)::text;
PREPARE dec_param_ref(bigint) AS
  SELECT coalesce(c_decode($1)::text, 'null') || '/' || (c_decode($1) IS NULL)::text;
SELECT mode, count(*) FILTER (WHERE outcome(format('EXECUTE dec_param(%L)', v)) IS DISTINCT FROM
                                    outcome(format('EXECUTE dec_param_ref(%L)', v))) AS wrong
  FROM (VALUES ('force_generic_plan'), ('force_custom_plan')) m(mode),
       LATERAL (SELECT set_config('plan_cache_mode', m.mode, false)) s,
       (VALUES (NULL::bigint), (-5), (0), (4194305), (9223372036854775807)) v(v)
 GROUP BY mode ORDER BY mode;
RESET plan_cache_mode;
DEALLOCATE dec_param;
DEALLOCATE dec_param_ref;

-- Inheritance: a parent column is NOT NULL, a child holds NULLs in it.
-- Before 18 the child drops the inherited NOT NULL; from 18 on that is
-- refused, but a parent constraint declared NO INHERIT leaves children
-- unconstrained.  A parent with children is never trusted, not even when
-- every child is NOT NULL today; read with ONLY, it is.
CREATE TABLE dec_parent (id bigint);
DO $$
BEGIN
  IF current_setting('server_version_num')::integer >= 180000 THEN
    EXECUTE 'ALTER TABLE dec_parent ADD CONSTRAINT dec_parent_nn NOT NULL id NO INHERIT';
    EXECUTE 'CREATE TABLE dec_child () INHERITS (dec_parent)';
  ELSE
    ALTER TABLE dec_parent ALTER id SET NOT NULL;
    CREATE TABLE dec_child () INHERITS (dec_parent);
    ALTER TABLE dec_child ALTER id DROP NOT NULL;
  END IF;
END $$;
INSERT INTO dec_parent VALUES (4194305);
INSERT INTO dec_child VALUES (NULL), (4194306);
CREATE TABLE dec_parent2 (id bigint NOT NULL);
CREATE TABLE dec_child2 () INHERITS (dec_parent2);
INSERT INTO dec_child2 VALUES (4194307);
INSERT INTO decode_cases VALUES
  ('inheritance parent, nullable child', decode_query('id', 'dec_parent'), false),
  ('inheritance parent, NOT NULL child', decode_query('id', 'dec_parent2'), false),
  ('inheritance parent, ONLY', decode_query('id', 'ONLY dec_parent'), true),
  ('inheritance child, own NOT NULL', decode_query('id', 'dec_child2'), true);

-- Partitions: before 18 PostgreSQL refuses every way of giving a partition
-- a NULL in a column that is NOT NULL in the partitioned table, so the
-- call is rewritten there; from 18 on it is not (see below)
CREATE TABLE dec_part (id bigint NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE dec_part_low PARTITION OF dec_part FOR VALUES FROM (MINVALUE) TO (1000000000);
CREATE TABLE dec_part_rest PARTITION OF dec_part DEFAULT;
INSERT INTO dec_part SELECT big FROM dec_neg WHERE big >= 0;
INSERT INTO decode_cases VALUES
  ('partitioned table', decode_query('id', 'dec_part'),
   current_setting('server_version_num')::integer < 180000),
  ('partition', decode_query('id', 'dec_part_rest'), true);

-- A generic plan made while a table had no children is made again when a
-- child arrives, since that changes the parent's pg_class row; the child
-- here holds a NULL
CREATE TABLE dec_solo (id bigint);
DO $$
BEGIN
  IF current_setting('server_version_num')::integer >= 180000 THEN
    EXECUTE 'ALTER TABLE dec_solo ADD CONSTRAINT dec_solo_nn NOT NULL id NO INHERIT';
  ELSE
    ALTER TABLE dec_solo ALTER id SET NOT NULL;
  END IF;
END $$;
INSERT INTO dec_solo VALUES (4194305);
SET plan_cache_mode = force_generic_plan;
PREPARE dec_solo_count AS SELECT count(snowflake_decode(id)) FROM dec_solo;
PREPARE dec_solo_ref AS SELECT count(c_decode(id)) FROM dec_solo;
SELECT outcome('EXECUTE dec_solo_count') AS rewritten, outcome('EXECUTE dec_solo_ref') AS reference;
DO $$
BEGIN
  CREATE TABLE dec_solo_child () INHERITS (dec_solo);
  IF current_setting('server_version_num')::integer < 180000 THEN
    ALTER TABLE dec_solo_child ALTER id DROP NOT NULL;
  END IF;
END $$;
INSERT INTO dec_solo_child VALUES (NULL);
SELECT outcome('EXECUTE dec_solo_count') AS rewritten, outcome('EXECUTE dec_solo_ref') AS reference;
DEALLOCATE dec_solo_count;
DEALLOCATE dec_solo_ref;
RESET plan_cache_mode;

-- DML: the columns of the row written or deleted
CREATE TABLE dec_dml (id bigint PRIMARY KEY, v integer);
INSERT INTO dec_dml VALUES (4194305, 1), (4194306, 2);
INSERT INTO decode_cases VALUES
  ('UPDATE RETURNING',
   'WITH r AS (UPDATE dec_dml SET v = v + 1 RETURNING DECODE(id) AS d) SELECT count(d) || '';'' || string_agg(d::text, '','' ORDER BY d::text) FROM r',
   true),
  ('DELETE RETURNING',
   'WITH r AS (DELETE FROM dec_dml RETURNING DECODE(id) AS d) SELECT count(d) || '';'' || string_agg(d::text, '','' ORDER BY d::text) FROM r',
   true);
DO $$
BEGIN
  PERFORM check_decode(label, q, expect_rewritten) FROM decode_cases;
END $$;

-- Cases of newer versions: each runs where it exists; the totals are
-- printed on every version.  17: MERGE ... RETURNING, where a source
-- column is NULL for a target row without a source (WHEN NOT MATCHED BY
-- SOURCE).  18: a NOT NULL constraint added NOT VALID, which leaves NULLs
-- in place; RETURNING old and new, NULL where that row does not exist;
-- SET NOT NULL on a parent or partitioned table adopting a child's NOT
-- VALID constraint, which stays not validated.
CREATE TABLE dec_newer (label text PRIMARY KEY);
DO $$
DECLARE
  v integer := current_setting('server_version_num')::integer;
  ret text := ' SELECT count(d) || '';'' || coalesce(string_agg(coalesce(d::text, ''null'') || ''/'' || coalesce(n::text, ''null''), '','' ORDER BY d::text), '''') FROM r';
BEGIN
  IF v >= 170000 THEN
    CREATE TABLE dec_src (id bigint PRIMARY KEY);
    INSERT INTO dec_src VALUES (4194305);
    PERFORM check_decode('17: MERGE RETURNING, NOT MATCHED BY SOURCE',
      'WITH r AS (MERGE INTO dec_dml t USING dec_src s ON t.id = s.id'
      ' WHEN MATCHED THEN UPDATE SET v = 0 WHEN NOT MATCHED BY SOURCE THEN DELETE'
      ' RETURNING DECODE(s.id) AS d, (DECODE(s.id)).node_id AS n)' || ret, false);
    PERFORM check_decode('17: MERGE RETURNING target',
      'WITH r AS (MERGE INTO dec_dml t USING dec_src s ON t.id = s.id'
      ' WHEN MATCHED THEN UPDATE SET v = 0 WHEN NOT MATCHED BY SOURCE THEN DELETE'
      ' RETURNING DECODE(t.id) AS d, (DECODE(t.id)).node_id AS n)' || ret, true);
    INSERT INTO dec_newer VALUES ('MERGE');
  END IF;
  IF v >= 180000 THEN
    -- NOT VALID, then validated
    EXECUTE 'CREATE TABLE dec_notvalid (id bigint)';
    EXECUTE 'INSERT INTO dec_notvalid VALUES (NULL), (4194305)';
    EXECUTE 'ALTER TABLE dec_notvalid ADD CONSTRAINT dec_notvalid_nn NOT NULL id NOT VALID';
    PERFORM check_decode('18: NOT NULL NOT VALID', decode_query('id', 'dec_notvalid'), false);
    EXECUTE 'DELETE FROM dec_notvalid WHERE id IS NULL';
    EXECUTE 'ALTER TABLE dec_notvalid VALIDATE CONSTRAINT dec_notvalid_nn';
    PERFORM check_decode('18: NOT NULL validated', decode_query('id', 'dec_notvalid'), true);
    -- RETURNING old and new
    PERFORM check_decode('18: INSERT RETURNING old',
      'WITH r AS (INSERT INTO dec_dml VALUES (1, 0) RETURNING DECODE(old.id) AS d, (DECODE(old.id)).node_id AS n)' || ret, false);
    PERFORM check_decode('18: INSERT RETURNING new',
      'WITH r AS (INSERT INTO dec_dml VALUES (1, 0) RETURNING DECODE(new.id) AS d, (DECODE(new.id)).node_id AS n)' || ret, false);
    PERFORM check_decode('18: DELETE RETURNING new',
      'WITH r AS (DELETE FROM dec_dml RETURNING DECODE(new.id) AS d, (DECODE(new.id)).node_id AS n)' || ret, false);
    PERFORM check_decode('18: DELETE RETURNING old',
      'WITH r AS (DELETE FROM dec_dml RETURNING DECODE(old.id) AS d, (DECODE(old.id)).node_id AS n)' || ret, false);
    PERFORM check_decode('18: UPDATE RETURNING old',
      'WITH r AS (UPDATE dec_dml SET id = id + 10 RETURNING DECODE(old.id) AS d, (DECODE(old.id)).node_id AS n)' || ret, false);
    PERFORM check_decode('18: UPSERT RETURNING old',
      'WITH r AS (INSERT INTO dec_dml VALUES (4194305, 0), (7, 0) ON CONFLICT (id) DO UPDATE SET v = 9 RETURNING DECODE(old.id) AS d, (DECODE(old.id)).node_id AS n)' || ret, false);
    PERFORM check_decode('18: MERGE RETURNING old',
      'WITH r AS (MERGE INTO dec_dml t USING (VALUES (4194305::bigint), (8)) s(id) ON t.id = s.id'
      ' WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (s.id, 0)'
      ' RETURNING DECODE(old.id) AS d, (DECODE(new.id)).node_id AS n)' || ret, false);
    PERFORM check_decode('18: INSERT RETURNING',
      'WITH r AS (INSERT INTO dec_dml VALUES (1, 0) RETURNING DECODE(id) AS d, (DECODE(id)).node_id AS n)' || ret, true);
    -- a child's NOT VALID constraint adopted by SET NOT NULL on the parent
    EXECUTE 'CREATE TABLE dec_parent3 (id bigint)';
    EXECUTE 'CREATE TABLE dec_child3 (id bigint)';
    EXECUTE 'INSERT INTO dec_child3 VALUES (NULL), (4194305)';
    EXECUTE 'ALTER TABLE dec_child3 ADD CONSTRAINT dec_child3_nn NOT NULL id NOT VALID';
    EXECUTE 'ALTER TABLE dec_child3 INHERIT dec_parent3';
    EXECUTE 'ALTER TABLE dec_parent3 ALTER id SET NOT NULL';
    PERFORM check_decode('18: inheritance parent, NOT VALID child', decode_query('id', 'dec_parent3'), false);
    -- the same with a partition
    EXECUTE 'CREATE TABLE dec_part3 (id bigint) PARTITION BY LIST (id)';
    EXECUTE 'CREATE TABLE dec_part3_rest PARTITION OF dec_part3 DEFAULT';
    EXECUTE 'INSERT INTO dec_part3 VALUES (NULL), (4194305)';
    EXECUTE 'ALTER TABLE dec_part3_rest ADD CONSTRAINT dec_part3_rest_nn NOT NULL id NOT VALID';
    EXECUTE 'ALTER TABLE dec_part3 ALTER id SET NOT NULL';
    PERFORM check_decode('18: partitioned table, NOT VALID partition', decode_query('id', 'dec_part3'), false);
    PERFORM check_decode('18: the NOT VALID partition', decode_query('id', 'dec_part3_rest'), false);
    INSERT INTO dec_newer VALUES ('18');
  END IF;
END $$;

SELECT label, wrong, rewritten IS NOT DISTINCT FROM coalesce(expect_rewritten, rewritten) AS as_expected
  FROM decode_results WHERE label !~ '^1[0-9]:' ORDER BY label;
SELECT coalesce(sum(wrong), 0) AS newer_versions_wrong,
       coalesce(bool_and(rewritten = expect_rewritten), true) AS newer_versions_as_expected
  FROM decode_results WHERE label ~ '^1[0-9]:';
-- the cases of newer versions ran where they exist
SELECT count(*) = CASE WHEN current_setting('server_version_num')::integer >= 180000 THEN 2
                       WHEN current_setting('server_version_num')::integer >= 170000 THEN 1
                       ELSE 0 END AS newer_cases_ran
  FROM dec_newer;

SET client_min_messages = warning;
DROP TABLE decode_cases, decode_results, dec_newer, dec_nn, dec_neg, dec_null, dec_parent,
  dec_parent2, dec_part, dec_solo, dec_dml CASCADE;
DROP TABLE IF EXISTS dec_src, dec_notvalid, dec_parent3, dec_part3 CASCADE;
DROP FUNCTION check_decode, decode_query, outcome, plan_of;
DROP FUNCTION c_decode(snowflake), c_decode(bigint);
RESET TimeZone;
RESET DateStyle;
RESET client_min_messages;
