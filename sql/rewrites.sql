--
-- Every rewrite of the planner support functions (src/planner_support.c)
-- gives what the call it replaces gives.
--
-- A property test: each rewritten predicate and call is evaluated over the
-- same data as its unrewritten form, and their outcomes are compared.  The
-- data are pseudo-random keys plus the edges that matter (NULL, negative
-- bigints, 0, millisecond edges, the epoch, the end of the time bits,
-- 2^63-1) and probe times and ranges around them (infinities and NULL
-- included).  The unrewritten form calls the operator's C function through
-- a test-only declaration that has no support function, so the planner
-- cannot rewrite it.
--
-- A rewrite may never change a result.  The one allowed difference: where
-- the unrewritten predicate raises an error (a negative bigint cast to
-- snowflake), the rewritten one may leave the row out instead, as an index
-- scan that never visits the row does; it may never return it.
--
-- Only counts of disagreements (all 0) and booleans are printed; cases that
-- exist only on newer PostgreSQL versions run there and print the same.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
-- plans forced by enable_* = off look expensive, and JIT-compiling them
-- would cost far more than running them
SET jit = off;
\set VERBOSITY terse

-- the unrewritten forms
CREATE FUNCTION c_eq(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_eq' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_ne(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_ne' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_lt(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_lt' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_le(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_le' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_gt(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_gt' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_ge(snowflake, timestamptz) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_ge' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_eq(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_eq_commuted' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_ne(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_ne_commuted' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_lt(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_lt_commuted' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_le(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_le_commuted' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_gt(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_gt_commuted' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_ge(timestamptz, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_ge_commuted' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_in(snowflake, tstzrange) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_contained' LANGUAGE C STABLE STRICT;
CREATE FUNCTION c_in(tstzrange, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_time_contained_commuted' LANGUAGE C STABLE STRICT;
CREATE FUNCTION i_eq(bigint, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_ne(bigint, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_lt(bigint, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_le(bigint, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_gt(bigint, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_ge(bigint, snowflake) RETURNS bool AS '$libdir/snowflake', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_eq(snowflake, bigint) RETURNS bool AS '$libdir/snowflake', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_ne(snowflake, bigint) RETURNS bool AS '$libdir/snowflake', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_lt(snowflake, bigint) RETURNS bool AS '$libdir/snowflake', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_le(snowflake, bigint) RETURNS bool AS '$libdir/snowflake', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_gt(snowflake, bigint) RETURNS bool AS '$libdir/snowflake', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION i_ge(snowflake, bigint) RETURNS bool AS '$libdir/snowflake', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT;
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

-- ----------------------------------------------------------------------
-- The data
-- ----------------------------------------------------------------------
SELECT setseed(0.2026);

-- bigint keys: NULLs, negatives, the IDs at millisecond edges, the ends of
-- the range, and pseudo-random values
CREATE TABLE keys (id integer PRIMARY KEY, b bigint);
INSERT INTO keys
SELECT row_number() OVER (ORDER BY ord, b), b
  FROM (SELECT 1 AS ord, b
          FROM (VALUES (NULL::bigint), (NULL), (-9223372036854775808), (-4194304),
                       (-5), (-1), (0), (1), (4194303), (4194304), (4194305),
                       (9223372036854775806), (9223372036854775807)) v(b)
        UNION ALL
        SELECT 2, snowflake_from_parts(t, node, seq)::bigint + d
          FROM (VALUES ('2025-01-01 00:00:00.001+00'::timestamptz),
                       ('2026-03-01 12:00:01.234+00'), ('2094-09-07 15:47:35.551+00')) t(t),
               (VALUES (0, 0), (1023, 4095)) p(node, seq),
               (VALUES (-1), (0), (1)) d(d)
         WHERE snowflake_from_parts(t, node, seq)::bigint::numeric + d <= 9223372036854775807
        UNION ALL
        SELECT 3, (random() * 9.2e18)::bigint FROM generate_series(1, 24)
        UNION ALL
        SELECT 4, -(random() * 9.2e18)::bigint FROM generate_series(1, 4)) k;

-- probe times: NULL, infinities, before the epoch, the epoch, millisecond
-- edges and a microsecond either side, half milliseconds, the end of the
-- time bits, beyond it, and the times of some keys with small offsets
CREATE TABLE tprobes (pid integer PRIMARY KEY, p timestamptz);
INSERT INTO tprobes
SELECT row_number() OVER (ORDER BY ord, p), p
  FROM (SELECT 1 AS ord, p
          FROM (VALUES (NULL::timestamptz), ('-infinity'), ('infinity'),
                       ('1999-01-01 00:00:00+00'), ('2024-12-31 23:59:59.999+00'),
                       ('2024-12-31 23:59:59.999999+00'), ('2025-01-01 00:00:00+00'),
                       ('2025-01-01 00:00:00.000001+00'), ('2025-01-01 00:00:00.0005+00'),
                       ('2025-01-01 00:00:00.001+00'), ('2026-03-01 12:00:01.233999+00'),
                       ('2026-03-01 12:00:01.234+00'), ('2026-03-01 12:00:01.234001+00'),
                       ('2094-09-07 15:47:35.551+00'), ('2094-09-07 15:47:35.551999+00'),
                       ('2094-09-07 15:47:35.552+00'), ('2200-01-01 00:00:00+00')) v(p)
        UNION ALL
        SELECT 2, snowflake_timestamp(b) + off * interval '1 microsecond'
          FROM (SELECT b FROM keys WHERE b BETWEEN 0 AND 9e18 ORDER BY id DESC LIMIT 3) k,
               (VALUES (-1), (0), (500)) o(off)) s;

-- probe ranges: every kind of bound, empty, unbounded, NULL
CREATE TABLE rprobes (pid integer PRIMARY KEY, p tstzrange);
INSERT INTO rprobes
SELECT row_number() OVER (ORDER BY ord, p), p
  FROM (SELECT 1 AS ord, p
          FROM (VALUES (NULL::tstzrange), ('empty'), ('(,)'),
                       ('(,2025-01-01 00:00:00+00)'), ('[2025-01-01 00:00:00+00,)'),
                       ('(2024-01-01 00:00:00+00,2025-01-01 00:00:00.0005+00]'),
                       ('[2094-09-07 15:47:35.551+00,2200-01-01 00:00:00+00)'),
                       ('(2094-09-07 15:47:35.552+00,)')) v(p)
        UNION ALL
        SELECT 2, tstzrange(lo, lo + len, bounds)
          FROM (VALUES ('2025-01-01 00:00:00.001+00'::timestamptz),
                       ('2026-03-01 12:00:01.234+00'), ('2026-03-01 12:00:01.2335+00')) l(lo),
               (VALUES (interval '0'), (interval '1 ms')) n(len),
               (VALUES ('[)'), ('(]'), ('[]'), ('()')) b(bounds)
         WHERE len > interval '0' OR bounds = '[]') s;

-- snowflake probes for the comparisons with bigint, and bigint probes
CREATE TABLE sprobes (pid integer PRIMARY KEY, p snowflake);
INSERT INTO sprobes
SELECT row_number() OVER (ORDER BY ord, p), p
  FROM (SELECT 1 AS ord, b::snowflake AS p
          FROM keys WHERE b >= 0 AND id % 3 = 0
        UNION ALL
        SELECT 2, p::snowflake
          FROM (VALUES (NULL::bigint), (0), (1), (4194303), (4194304),
                       (9223372036854775807)) v(p)) s;
CREATE TABLE bprobes (pid integer PRIMARY KEY, p bigint);
INSERT INTO bprobes
SELECT row_number() OVER (ORDER BY p), p
  FROM (SELECT b AS p FROM keys WHERE id % 3 = 0
        UNION ALL
        SELECT p FROM (VALUES (NULL::bigint), (-1), (0), (9223372036854775807)) v(p)) s;

-- The tables the predicates run on, each with indexes:
--   kneg   bigint keys, negatives and NULLs included
--   kpos   the keys that are IDs (or NULL), as bigint and as snowflake
--   kpart  snowflake keys in a partitioned table, NULLs in its default partition
--   kpartb bigint keys in a table partitioned on them, a partition of negatives
--   kinh   snowflake keys in an inheritance parent and two children
CREATE TABLE kneg (id integer PRIMARY KEY, b bigint);
INSERT INTO kneg SELECT id, b FROM keys;
CREATE INDEX ON kneg (b);
CREATE TABLE kpos (id integer PRIMARY KEY, b bigint, s snowflake);
INSERT INTO kpos SELECT id, b, b::snowflake FROM keys WHERE b >= 0 OR b IS NULL;
CREATE INDEX ON kpos (b);
CREATE INDEX ON kpos (s);
CREATE TABLE kpart (id integer, s snowflake) PARTITION BY RANGE (s);
CREATE TABLE kpart_old PARTITION OF kpart
  FOR VALUES FROM (MINVALUE) TO (snowflake_from_timestamp('2026-01-01 00:00:00+00'));
CREATE TABLE kpart_2026 PARTITION OF kpart
  FOR VALUES FROM (snowflake_from_timestamp('2026-01-01 00:00:00+00'))
             TO (snowflake_from_timestamp('2027-01-01 00:00:00+00'));
CREATE TABLE kpart_rest PARTITION OF kpart DEFAULT;
INSERT INTO kpart SELECT id, s FROM kpos;
CREATE INDEX ON kpart (s);
CREATE TABLE kpartb (id integer, b bigint) PARTITION BY RANGE (b);
CREATE TABLE kpartb_neg PARTITION OF kpartb FOR VALUES FROM (MINVALUE) TO (0);
CREATE TABLE kpartb_low PARTITION OF kpartb
  FOR VALUES FROM (0) TO (snowflake_from_timestamp('2026-01-01 00:00:00+00'));
CREATE TABLE kpartb_rest PARTITION OF kpartb DEFAULT;
INSERT INTO kpartb SELECT id, b FROM keys;
CREATE INDEX ON kpartb (b);
CREATE TABLE kinh (id integer, s snowflake);
CREATE TABLE kinh_a () INHERITS (kinh);
CREATE TABLE kinh_b () INHERITS (kinh);
INSERT INTO kinh SELECT id, s FROM kpos WHERE id % 3 = 0;
INSERT INTO kinh_a SELECT id, s FROM kpos WHERE id % 3 = 1;
INSERT INTO kinh_b SELECT id, s FROM kpos WHERE id % 3 = 2;
CREATE INDEX ON kinh_a (s);
ANALYZE keys, kneg, kpos, kpart, kpartb, kinh;

-- ----------------------------------------------------------------------
-- The driver
-- ----------------------------------------------------------------------

-- Compares a rewritten predicate with its unrewritten form on one table,
-- for every probe.  The templates name the key expression {x} and the
-- probe {p}.  Counted as wrong:
--  - in the SELECT list, per row, the probes written as constants, and
--    again with the probes as a column of a join: a value differs from
--    the unrewritten one, or the rewritten form gives a value where the
--    unrewritten one raises an error (a value there could be negated);
--  - in WHERE, per probe, with a sequential scan, an index scan, a bitmap
--    scan and a generic plan: the rows returned differ from those for
--    which the unrewritten form is true, or the rewritten query raises an
--    error although the unrewritten form raises none.
-- raised: whether some rewritten query in WHERE raised the error; plan:
-- the plan of the rewritten query with an index scan, for the first probe
-- that is not NULL.
CREATE FUNCTION check_predicate(tab text, x text, rewritten text, reference text,
                                probes text, OUT wrong bigint, OUT raised boolean,
                                OUT plan text)
LANGUAGE plpgsql AS $$
DECLARE
  rw text := replace(rewritten, '{x}', x);
  ref text := replace(reference, '{x}', x);
  probe_type text := (SELECT format_type(atttypid, NULL) FROM pg_attribute
                       WHERE attrelid = probes::regclass AND attname = 'p');
  lits text[];
  rw_values text;
  ref_values text;
  -- (unordered: an ordered aggregate would let the planner prefer the
  -- order of another index)
  set_query text := 'SELECT coalesce(array_agg(id)::text, ''{}'') FROM %s WHERE %s';
  k record;
  pr record;
  mode text;
  rw_row text;
  ref_row text;
  expected text;
  any_error boolean;
  ref_one text;
  rw_one text;
  got text;
BEGIN
  wrong := 0;
  raised := false;
  EXECUTE format('SELECT array_agg(CASE WHEN p IS NULL THEN ''NULL::%s'' ELSE format(''%%L::%s'', p) END ORDER BY pid) FROM %s',
                 probe_type, probe_type, probes) INTO lits;
  -- one expression giving the values for all probes: "true,false,null,..."
  SELECT 'array_to_string(ARRAY[' ||
         string_agg(format('coalesce((%s)::text, ''null'')', replace(rw, '{p}', l)), ', ' ORDER BY n) ||
         '], '','')',
         'array_to_string(ARRAY[' ||
         string_agg(format('coalesce((%s)::text, ''null'')', replace(ref, '{p}', l)), ', ' ORDER BY n) ||
         '], '','')'
    INTO rw_values, ref_values
    FROM unnest(lits) WITH ORDINALITY u(l, n);
  CREATE TEMP TABLE ref_results (id integer, pid integer, v text);

  -- in the SELECT list, per row, probes as constants
  FOR k IN EXECUTE format('SELECT id FROM %s', tab) LOOP
    ref_row := outcome(format('SELECT %s FROM %s WHERE id = %s', ref_values, tab, k.id));
    rw_row := outcome(format('SELECT %s FROM %s WHERE id = %s', rw_values, tab, k.id));
    IF ref_row = 'error' THEN
      -- some probe raises: each probe alone, since a constant NULL probe
      -- may be folded away before the cast is evaluated
      IF rw_row <> 'error' THEN
        wrong := wrong + 1;
      END IF;
      FOR n IN 1 .. array_length(lits, 1) LOOP
        ref_one := outcome(format('SELECT coalesce((%s)::text, ''null'') FROM %s WHERE id = %s',
                                  replace(ref, '{p}', lits[n]), tab, k.id));
        rw_one := outcome(format('SELECT coalesce((%s)::text, ''null'') FROM %s WHERE id = %s',
                                 replace(rw, '{p}', lits[n]), tab, k.id));
        INSERT INTO ref_results VALUES (k.id, n, ref_one);
        IF rw_one IS DISTINCT FROM ref_one THEN
          wrong := wrong + 1;
        END IF;
      END LOOP;
    ELSE
      INSERT INTO ref_results
        SELECT k.id, n, v FROM unnest(string_to_array(ref_row, ',')) WITH ORDINALITY u(v, n);
      IF rw_row IS DISTINCT FROM ref_row THEN
        wrong := wrong + 1;
      END IF;
    END IF;
  END LOOP;
  SELECT coalesce(bool_or(v = 'error'), false) INTO any_error FROM ref_results;

  -- in the SELECT list, the probes as a column
  got := outcome(format('SELECT coalesce(string_agg(id || ''/'' || pid || ''/'' || coalesce((%s)::text, ''null''), '',''), '''') FROM %s, %s',
                        replace(rw, '{p}', 'p'), tab, probes));
  IF got = 'error' THEN
    wrong := wrong + (NOT any_error)::integer;
  ELSIF any_error THEN
    wrong := wrong + 1;
  ELSE
    wrong := wrong + (SELECT count(*)
                        FROM (SELECT split_part(e, '/', 1)::integer AS id,
                                     split_part(e, '/', 2)::integer AS pid,
                                     split_part(e, '/', 3) AS v
                                FROM unnest(string_to_array(got, ',')) e) g
                        FULL JOIN ref_results r USING (id, pid)
                       WHERE g.v IS DISTINCT FROM r.v);
  END IF;

  -- in WHERE, per probe
  EXECUTE format('PREPARE check_generic(%s) AS ', probe_type) ||
          format(set_query, tab, replace(rw, '{p}', '$1'));
  FOR pr IN EXECUTE format('SELECT pid, p::text AS p FROM %s ORDER BY pid', probes) LOOP
    SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') INTO expected
      FROM ref_results WHERE pid = pr.pid AND v = 'true';
    FOREACH mode IN ARRAY ARRAY['seq', 'index', 'bitmap', 'generic'] LOOP
      PERFORM set_config('enable_seqscan', (mode = 'seq')::text, true);
      PERFORM set_config('enable_indexscan', (mode IN ('index', 'generic'))::text, true);
      PERFORM set_config('enable_indexonlyscan', (mode IN ('index', 'generic'))::text, true);
      PERFORM set_config('enable_bitmapscan', (mode = 'bitmap')::text, true);
      PERFORM set_config('plan_cache_mode',
                         CASE mode WHEN 'generic' THEN 'force_generic_plan' ELSE 'auto' END, true);
      IF mode = 'generic' THEN
        got := outcome(format('EXECUTE check_generic(%L)', pr.p));
      ELSE
        got := outcome(format(set_query, tab, replace(rw, '{p}', lits[pr.pid])));
      END IF;
      IF mode = 'index' AND plan IS NULL AND pr.p IS NOT NULL THEN
        plan := plan_of(format(set_query, tab, replace(rw, '{p}', lits[pr.pid])));
      END IF;
      IF got = 'error' THEN
        raised := true;
        wrong := wrong + (NOT any_error)::integer;
      ELSIF (SELECT coalesce(string_agg(i::text, ',' ORDER BY i), '')
               FROM unnest(got::integer[]) i) <> expected THEN
        wrong := wrong + 1;
      END IF;
    END LOOP;
  END LOOP;
  DEALLOCATE check_generic;
  PERFORM set_config('enable_seqscan', 'on', true);
  PERFORM set_config('enable_indexscan', 'on', true);
  PERFORM set_config('enable_indexonlyscan', 'on', true);
  PERFORM set_config('enable_bitmapscan', 'on', true);
  PERFORM set_config('plan_cache_mode', 'auto', true);
  DROP TABLE ref_results;
END $$;

-- ----------------------------------------------------------------------
-- Comparisons of IDs with times (snowflake_time_support), both operand
-- orders, on snowflake keys and on bigint keys cast to snowflake
-- ----------------------------------------------------------------------
CREATE TABLE time_forms (form text, rewritten text, reference text, probes text);
INSERT INTO time_forms VALUES
  ('id = t',   '{x} = {p}',  'c_eq({x}, {p})', 'tprobes'),
  ('t = id',   '{p} = {x}',  'c_eq({p}, {x})', 'tprobes'),
  ('id <> t',  '{x} <> {p}', 'c_ne({x}, {p})', 'tprobes'),
  ('t <> id',  '{p} <> {x}', 'c_ne({p}, {x})', 'tprobes'),
  ('id < t',   '{x} < {p}',  'c_lt({x}, {p})', 'tprobes'),
  ('t > id',   '{p} > {x}',  'c_gt({p}, {x})', 'tprobes'),
  ('id <= t',  '{x} <= {p}', 'c_le({x}, {p})', 'tprobes'),
  ('t >= id',  '{p} >= {x}', 'c_ge({p}, {x})', 'tprobes'),
  ('id > t',   '{x} > {p}',  'c_gt({x}, {p})', 'tprobes'),
  ('t < id',   '{p} < {x}',  'c_lt({p}, {x})', 'tprobes'),
  ('id >= t',  '{x} >= {p}', 'c_ge({x}, {p})', 'tprobes'),
  ('t <= id',  '{p} <= {x}', 'c_le({p}, {x})', 'tprobes'),
  ('id <@ r',  '{x} <@ {p}', 'c_in({x}, {p})', 'rprobes'),
  ('r @> id',  '{p} @> {x}', 'c_in({p}, {x})', 'rprobes'),
  -- negated, and as a value: a lower bound a negative key fails must not
  -- turn into true
  ('NOT id > t',  'NOT ({x} > {p})',  'NOT c_gt({x}, {p})', 'tprobes'),
  ('NOT id >= t', 'NOT ({x} >= {p})', 'NOT c_ge({x}, {p})', 'tprobes'),
  ('NOT id = t',  'NOT ({x} = {p})',  'NOT c_eq({x}, {p})', 'tprobes'),
  ('NOT id <@ r', 'NOT ({x} <@ {p})', 'NOT c_in({x}, {p})', 'rprobes'),
  ('CASE id > t', 'CASE WHEN {x} > {p} THEN false ELSE true END',
                  'CASE WHEN c_gt({x}, {p}) THEN false ELSE true END', 'tprobes');
CREATE TABLE time_results AS
SELECT f.form, k.tab, k.x, c.*
  FROM time_forms f,
       (VALUES ('kneg', 'b::snowflake'), ('kpos', 'b::snowflake'), ('kpos', 's'),
               ('kpart', 's'), ('kpartb', 'b::snowflake'), ('kinh', 's')) k(tab, x),
       LATERAL check_predicate(k.tab, k.x, f.rewritten, f.reference, f.probes) c;

-- wrong: disagreements, all keys and probes; rewritten: the planner
-- replaced the operator by ID bounds (all but <>); bigint_index: the bounds
-- are index conditions on the bigint key; negative_raises: a negative
-- bigint key raises the cast's error in WHERE, as unrewritten, at least
-- where a scan reads it (every form: the guard is a filter); and no other
-- table raises an error
SELECT form, sum(wrong) AS wrong,
       bool_and(plan LIKE '%snowflake_last_id_%') FILTER (WHERE tab IN ('kneg', 'kpos'))
         AS rewritten,
       bool_and(plan ~ 'Index Cond: [^\n]*kpos\.b [^\n]*snowflake_last_id_')
         FILTER (WHERE tab = 'kpos' AND x = 'b::snowflake') AS bigint_index,
       bool_and(raised) FILTER (WHERE tab IN ('kneg', 'kpartb')) AS negative_raises,
       bool_or(raised) FILTER (WHERE tab NOT IN ('kneg', 'kpartb')) AS raised_elsewhere
  FROM time_results
 GROUP BY form ORDER BY min(ctid);

-- the guard that raises the cast's error is a filter on the rows of the
-- index condition, which stays the bigint key's
SELECT plan ~ 'Index Cond: \(kpos\.b <= snowflake_last_id_before\(' AS bound_is_index_condition,
       plan ~ 'Filter: \(\(\(kpos\.b\)::snowflake IS NOT NULL\) OR \(kpos\.b IS NULL\)\)'
         AS guard_is_filter
  FROM time_results WHERE form = 'id < t' AND tab = 'kpos' AND x = 'b::snowflake';

-- the same for the cast written as a call or with CAST
SELECT spelling, plan ~ 'snowflake_last_id_before' AND
                 plan ~ 'IS NOT NULL\) OR \(kneg\.b IS NULL\)' AS with_guard
  FROM (VALUES ('b::snowflake'), ('snowflake(b)'), ('CAST(b AS snowflake)')) v(spelling),
       LATERAL plan_of(format('SELECT * FROM kneg WHERE %s < now()', spelling)) plan;

-- a volatile bigint under the cast would be evaluated more than once by
-- the guard: the operator is then left as it is
SELECT plan_of($$SELECT * FROM kpos WHERE (b + (random() * 0)::bigint)::snowflake < now()$$)
         LIKE '%snowflake_last_id%' AS rewritten,
       outcome($$SELECT count(*)::text FROM kpos
                  WHERE (b + (random() * 0)::bigint)::snowflake < '2026-01-01 00:00:00+00'::timestamptz$$) =
       outcome($$SELECT count(*)::text FROM kpos
                  WHERE c_lt(b::snowflake, '2026-01-01 00:00:00+00'::timestamptz)$$) AS same_count;

-- a negative key through a CTE, which evaluates the cast before the
-- comparison; through a view and a SQL function, which the planner
-- inlines, so the comparison is rewritten: the cast's error in all four
CREATE VIEW kneg_ids AS SELECT id, b::snowflake AS s FROM kneg;
CREATE VIEW kpos_ids AS SELECT id, b::snowflake AS s FROM kpos;
CREATE FUNCTION earlier(b bigint, t timestamptz) RETURNS boolean
  LANGUAGE sql STABLE AS 'SELECT b::snowflake < t';
SELECT outcome($$WITH c AS MATERIALIZED (SELECT b::snowflake AS s FROM kneg)
                 SELECT count(*)::text FROM c WHERE s < '2026-01-01 00:00:00+00'::timestamptz$$) AS cte,
       outcome($$SELECT count(*)::text FROM kneg_ids
                  WHERE s < '2026-01-01 00:00:00+00'::timestamptz$$) AS view,
       outcome($$SELECT count(*)::text FROM kneg
                  WHERE earlier(b, '2026-01-01 00:00:00+00')$$) AS function,
       outcome($$SELECT count(*)::text FROM kneg
                  WHERE b::snowflake < '2026-01-01 00:00:00+00'::timestamptz$$) AS direct;
SELECT plan_of($$SELECT * FROM kneg_ids WHERE s < '2026-01-01 00:00:00+00'::timestamptz$$)
         LIKE '%snowflake_last_id_before%' AS view_rewritten,
       plan_of($$SELECT * FROM kneg WHERE earlier(b, '2026-01-01 00:00:00+00')$$)
         LIKE '%snowflake_last_id_before%' AS function_rewritten;
-- and without negative keys, the same rows all four ways
SELECT count(DISTINCT n) = 1 AS same_count
  FROM (VALUES ((WITH c AS MATERIALIZED (SELECT b::snowflake AS s FROM kpos)
                 SELECT count(*) FROM c WHERE s < '2026-01-01 00:00:00+00'::timestamptz)),
               ((SELECT count(*) FROM kpos_ids WHERE s < '2026-01-01 00:00:00+00'::timestamptz)),
               ((SELECT count(*) FROM kpos WHERE earlier(b, '2026-01-01 00:00:00+00'))),
               ((SELECT count(*) FROM kpos
                  WHERE b::snowflake < '2026-01-01 00:00:00+00'::timestamptz))) v(n);
DROP VIEW kneg_ids, kpos_ids;
DROP FUNCTION earlier;

-- ----------------------------------------------------------------------
-- Comparisons of snowflake with bigint (snowflake_int8_support)
-- ----------------------------------------------------------------------
CREATE TABLE int8_forms (form text, rewritten text, reference text);
INSERT INTO int8_forms VALUES
  ('big = sf',  '{x} = {p}',  'i_eq({x}, {p})'), ('sf = big',  '{p} = {x}',  'i_eq({p}, {x})'),
  ('big <> sf', '{x} <> {p}', 'i_ne({x}, {p})'), ('sf <> big', '{p} <> {x}', 'i_ne({p}, {x})'),
  ('big < sf',  '{x} < {p}',  'i_lt({x}, {p})'), ('sf > big',  '{p} > {x}',  'i_gt({p}, {x})'),
  ('big <= sf', '{x} <= {p}', 'i_le({x}, {p})'), ('sf >= big', '{p} >= {x}', 'i_ge({p}, {x})'),
  ('big > sf',  '{x} > {p}',  'i_gt({x}, {p})'), ('sf < big',  '{p} < {x}',  'i_lt({p}, {x})'),
  ('big >= sf', '{x} >= {p}', 'i_ge({x}, {p})'), ('sf <= big', '{p} <= {x}', 'i_le({p}, {x})');
CREATE TABLE int8_results AS
SELECT f.form, k.tab, k.x, c.*
  FROM int8_forms f,
       (VALUES ('kneg', 'b', 'sprobes'), ('kpartb', 'b', 'sprobes'), ('kpos', 's', 'bprobes'),
               ('kpart', 's', 'bprobes')) k(tab, x, probes),
       LATERAL check_predicate(k.tab, k.x, f.rewritten, f.reference, k.probes) c;

-- bigint_index: a bigint key compared with a snowflake value uses the
-- key's index (all but <>)
SELECT form, sum(wrong) AS wrong, bool_or(raised) AS raised,
       bool_and(plan ~ 'Index Cond: [^\n]*kneg\.b ')
         FILTER (WHERE tab = 'kneg') AS bigint_index
  FROM int8_results
 GROUP BY form ORDER BY min(ctid);

-- joins, where the index condition on the bigint key comes from
-- SupportRequestIndexCondition: an outer join probing the bigint index
-- with snowflake values, for every operator and both orders
CREATE FUNCTION check_join(op text, ref text, commuted boolean,
                           OUT wrong integer, OUT bigint_index boolean)
LANGUAGE plpgsql AS $$
DECLARE
  q text := 'SELECT coalesce(string_agg(p.id || '':'' || coalesce(k.id::text, ''-''), '','' ORDER BY p.id, k.id), '''') FROM kpos p LEFT JOIN kneg k ON %s';
  cond text := CASE WHEN commuted THEN format('p.s %s k.b', op) ELSE format('k.b %s p.s', op) END;
  refcond text := format('%s(k.b, p.s)', ref);
BEGIN
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_seqscan', 'off', true);
  wrong := (outcome(format(q, cond)) IS DISTINCT FROM outcome(format(q, refcond)))::integer;
  bigint_index := plan_of(format(q, cond)) ~ 'Index Cond: [^\n]*k\.b ';
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  PERFORM set_config('enable_seqscan', 'on', true);
END $$;
SELECT CASE WHEN c THEN 'sf ' || o.commutator || ' big' ELSE 'big ' || o.op || ' sf' END AS join_on,
       j.*
  FROM (VALUES (1, '=', 'i_eq', '='), (2, '<>', 'i_ne', '<>'), (3, '<', 'i_lt', '>'),
               (4, '<=', 'i_le', '>='), (5, '>', 'i_gt', '<'), (6, '>=', 'i_ge', '<='))
         o(n, op, ref, commutator),
       (VALUES (false), (true)) v(c),
       LATERAL check_join(CASE WHEN c THEN o.commutator ELSE o.op END, o.ref, c) j
 ORDER BY o.n, c;

SET client_min_messages = warning;
DROP TABLE keys, tprobes, rprobes, sprobes, bprobes, kneg, kpos, kpart, kpartb, kinh CASCADE;
DROP TABLE time_forms, time_results, int8_forms, int8_results, decode_cases, decode_results,
  dec_newer;
DROP TABLE dec_nn, dec_neg, dec_null, dec_parent, dec_parent2, dec_part, dec_solo, dec_dml CASCADE;
DROP TABLE IF EXISTS dec_src, dec_notvalid, dec_parent3, dec_part3 CASCADE;
DROP FUNCTION check_predicate, check_join, check_decode, decode_query, outcome, plan_of;
DROP FUNCTION c_eq(snowflake, timestamptz), c_ne(snowflake, timestamptz),
  c_lt(snowflake, timestamptz), c_le(snowflake, timestamptz),
  c_gt(snowflake, timestamptz), c_ge(snowflake, timestamptz),
  c_eq(timestamptz, snowflake), c_ne(timestamptz, snowflake),
  c_lt(timestamptz, snowflake), c_le(timestamptz, snowflake),
  c_gt(timestamptz, snowflake), c_ge(timestamptz, snowflake),
  c_in(snowflake, tstzrange), c_in(tstzrange, snowflake),
  i_eq(bigint, snowflake), i_ne(bigint, snowflake), i_lt(bigint, snowflake),
  i_le(bigint, snowflake), i_gt(bigint, snowflake), i_ge(bigint, snowflake),
  i_eq(snowflake, bigint), i_ne(snowflake, bigint), i_lt(snowflake, bigint),
  i_le(snowflake, bigint), i_gt(snowflake, bigint), i_ge(snowflake, bigint),
  c_decode(snowflake), c_decode(bigint);
RESET TimeZone;
RESET DateStyle;
RESET jit;
RESET client_min_messages;
