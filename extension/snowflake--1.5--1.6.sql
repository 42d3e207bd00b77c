/* extension/snowflake--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.6'" to load this file. \quit

--
-- 1.6: snowflake_status() counts failed writes of the high-water mark
-- (hwm_write_failures) and says where the node ID comes from
-- (node_id_source).  Its row type grows, so it is made anew, with the same
-- privileges.
--
DROP FUNCTION snowflake_status();

CREATE FUNCTION snowflake_status(
	OUT node_id pg_catalog.int4,
	OUT epoch pg_catalog.timestamptz,
	OUT time_bits pg_catalog.int4,
	OUT node_bits pg_catalog.int4,
	OUT sequence_bits pg_catalog.int4,
	OUT time_runs_out_at pg_catalog.timestamptz,
	OUT clock_policy pg_catalog.text,
	OUT last_id snowflake,
	OUT last_id_time pg_catalog.timestamptz,
	OUT ids_issued pg_catalog.int8,
	OUT sequence_exhaustions pg_catalog.int8,
	OUT clock_waits pg_catalog.int8,
	OUT clock_errors pg_catalog.int8,
	OUT clock_lead_ms pg_catalog.int8,
	OUT max_clock_lead_ms pg_catalog.int8,
	OUT clock_steps_back pg_catalog.int8,
	OUT largest_step_back_ms pg_catalog.int8,
	OUT clock_jumps_forward pg_catalog.int8,
	OUT largest_jump_forward_ms pg_catalog.int8,
	OUT hwm_id snowflake,
	OUT hwm_time pg_catalog.timestamptz,
	OUT hwm_written_at pg_catalog.timestamptz,
	OUT hwm_writes pg_catalog.int8,
	OUT hwm_backend_writes pg_catalog.int8,
	OUT worker_pid pg_catalog.int4,
	OUT worker_checked_at pg_catalog.timestamptz,
	OUT problem pg_catalog.text,
	OUT clock_held_ms pg_catalog.int8,
	OUT clock_jumps_ignored pg_catalog.int8,
	OUT hwm_write_failures pg_catalog.int8,
	OUT node_id_source pg_catalog.text)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_status'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_status() IS 'state of the snowflake generator, its clock, high-water mark and worker';

REVOKE ALL ON FUNCTION snowflake_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION snowflake_status() TO pg_monitor;

--
-- 1.6: snowflake_adopt() checks the existing keys with row_security off:
-- a policy that hides rows from its caller makes the check fail instead of
-- letting hidden keys pass.
--
ALTER FUNCTION snowflake_adopt(pg_catalog.regclass, pg_catalog.name, pg_catalog.bool)
	SET row_security = off;

--
-- 1.6: the bigint-with-bigint members of snowflake's btree and hash
-- families become non-default operator classes for bigint in those
-- families (snowflake_int8_ops), so that every operator of a family has a
-- class for its left type, as PostgreSQL's opr_sanity checks expect.  The
-- members are the same operators and functions as before.
--
ALTER OPERATOR FAMILY snowflake_ops USING btree DROP
	OPERATOR 1 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 2 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 3 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 4 (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 5 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 (pg_catalog.int8, pg_catalog.int8);

CREATE OPERATOR CLASS snowflake_int8_ops
	FOR TYPE pg_catalog.int8 USING btree FAMILY snowflake_ops AS
	OPERATOR 1 #<# ,
	OPERATOR 2 #<=# ,
	OPERATOR 3 #=# ,
	OPERATOR 4 #>=# ,
	OPERATOR 5 #># ,
	FUNCTION 1 pg_catalog.btint8cmp(pg_catalog.int8, pg_catalog.int8),
	FUNCTION 2 pg_catalog.btint8sortsupport(pg_catalog.internal),
	FUNCTION 4 pg_catalog.btequalimage(pg_catalog.oid);

ALTER OPERATOR FAMILY snowflake_ops USING hash DROP
	OPERATOR 1 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 2 (pg_catalog.int8, pg_catalog.int8);

CREATE OPERATOR CLASS snowflake_int8_ops
	FOR TYPE pg_catalog.int8 USING hash FAMILY snowflake_ops AS
	OPERATOR 1 #=# ,
	FUNCTION 1 pg_catalog.hashint8(pg_catalog.int8),
	FUNCTION 2 pg_catalog.hashint8extended(pg_catalog.int8, pg_catalog.int8);

--
-- 1.6: a comment on every object of the extension.
--
COMMENT ON OPERATOR = (snowflake, snowflake) IS 'equal';
COMMENT ON OPERATOR = (snowflake, pg_catalog.int8) IS 'equal, snowflake and bigint';
COMMENT ON OPERATOR = (pg_catalog.int8, snowflake) IS 'equal, bigint and snowflake';
COMMENT ON OPERATOR = (snowflake, pg_catalog.timestamptz) IS 'ID made in the millisecond of the time';
COMMENT ON OPERATOR = (pg_catalog.timestamptz, snowflake) IS 'time the millisecond in which the ID was made';
COMMENT ON OPERATOR <> (snowflake, snowflake) IS 'not equal';
COMMENT ON OPERATOR <> (snowflake, pg_catalog.int8) IS 'not equal, snowflake and bigint';
COMMENT ON OPERATOR <> (pg_catalog.int8, snowflake) IS 'not equal, bigint and snowflake';
COMMENT ON OPERATOR <> (snowflake, pg_catalog.timestamptz) IS 'ID not made in the millisecond of the time';
COMMENT ON OPERATOR <> (pg_catalog.timestamptz, snowflake) IS 'time not the millisecond in which the ID was made';
COMMENT ON OPERATOR < (snowflake, snowflake) IS 'less than';
COMMENT ON OPERATOR < (snowflake, pg_catalog.int8) IS 'less than, snowflake and bigint';
COMMENT ON OPERATOR < (pg_catalog.int8, snowflake) IS 'less than, bigint and snowflake';
COMMENT ON OPERATOR < (snowflake, pg_catalog.timestamptz) IS 'ID made before the time';
COMMENT ON OPERATOR < (pg_catalog.timestamptz, snowflake) IS 'time before the millisecond in which the ID was made';
COMMENT ON OPERATOR <= (snowflake, snowflake) IS 'less than or equal';
COMMENT ON OPERATOR <= (snowflake, pg_catalog.int8) IS 'less than or equal, snowflake and bigint';
COMMENT ON OPERATOR <= (pg_catalog.int8, snowflake) IS 'less than or equal, bigint and snowflake';
COMMENT ON OPERATOR <= (snowflake, pg_catalog.timestamptz) IS 'ID made before or in the millisecond of the time';
COMMENT ON OPERATOR <= (pg_catalog.timestamptz, snowflake) IS 'time before or in the millisecond in which the ID was made';
COMMENT ON OPERATOR > (snowflake, snowflake) IS 'greater than';
COMMENT ON OPERATOR > (snowflake, pg_catalog.int8) IS 'greater than, snowflake and bigint';
COMMENT ON OPERATOR > (pg_catalog.int8, snowflake) IS 'greater than, bigint and snowflake';
COMMENT ON OPERATOR > (snowflake, pg_catalog.timestamptz) IS 'ID made after the millisecond of the time';
COMMENT ON OPERATOR > (pg_catalog.timestamptz, snowflake) IS 'time after the millisecond in which the ID was made';
COMMENT ON OPERATOR >= (snowflake, snowflake) IS 'greater than or equal';
COMMENT ON OPERATOR >= (snowflake, pg_catalog.int8) IS 'greater than or equal, snowflake and bigint';
COMMENT ON OPERATOR >= (pg_catalog.int8, snowflake) IS 'greater than or equal, bigint and snowflake';
COMMENT ON OPERATOR >= (snowflake, pg_catalog.timestamptz) IS 'ID made in or after the millisecond of the time';
COMMENT ON OPERATOR >= (pg_catalog.timestamptz, snowflake) IS 'time in or after the millisecond in which the ID was made';
COMMENT ON OPERATOR #<># (pg_catalog.int8, pg_catalog.int8) IS 'bigint not equal, for snowflake''s operator families only';
COMMENT ON OPERATOR #<=# (pg_catalog.int8, pg_catalog.int8) IS 'bigint less than or equal, for snowflake''s operator families only';
COMMENT ON OPERATOR #># (pg_catalog.int8, pg_catalog.int8) IS 'bigint greater than, for snowflake''s operator families only';
COMMENT ON OPERATOR #>=# (pg_catalog.int8, pg_catalog.int8) IS 'bigint greater than or equal, for snowflake''s operator families only';
COMMENT ON OPERATOR @> (pg_catalog.tstzrange, snowflake) IS 'the range contains the time of the ID';
COMMENT ON FUNCTION snowflake_eq(snowflake, snowflake) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_eq(snowflake, pg_catalog.int8) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_eq(pg_catalog.int8, snowflake) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_int8_eq(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #=# operator';
COMMENT ON FUNCTION snowflake_time_eq(snowflake, pg_catalog.timestamptz) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_time_eq(pg_catalog.timestamptz, snowflake) IS 'implementation of = operator';
COMMENT ON FUNCTION snowflake_ne(snowflake, snowflake) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_ne(snowflake, pg_catalog.int8) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_ne(pg_catalog.int8, snowflake) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_int8_ne(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #<># operator';
COMMENT ON FUNCTION snowflake_time_ne(snowflake, pg_catalog.timestamptz) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_time_ne(pg_catalog.timestamptz, snowflake) IS 'implementation of <> operator';
COMMENT ON FUNCTION snowflake_lt(snowflake, snowflake) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_lt(snowflake, pg_catalog.int8) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_lt(pg_catalog.int8, snowflake) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_int8_lt(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #<# operator';
COMMENT ON FUNCTION snowflake_time_lt(snowflake, pg_catalog.timestamptz) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_time_lt(pg_catalog.timestamptz, snowflake) IS 'implementation of < operator';
COMMENT ON FUNCTION snowflake_le(snowflake, snowflake) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_le(snowflake, pg_catalog.int8) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_le(pg_catalog.int8, snowflake) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_int8_le(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #<=# operator';
COMMENT ON FUNCTION snowflake_time_le(snowflake, pg_catalog.timestamptz) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_time_le(pg_catalog.timestamptz, snowflake) IS 'implementation of <= operator';
COMMENT ON FUNCTION snowflake_gt(snowflake, snowflake) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_gt(snowflake, pg_catalog.int8) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_gt(pg_catalog.int8, snowflake) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_int8_gt(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #># operator';
COMMENT ON FUNCTION snowflake_time_gt(snowflake, pg_catalog.timestamptz) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_time_gt(pg_catalog.timestamptz, snowflake) IS 'implementation of > operator';
COMMENT ON FUNCTION snowflake_ge(snowflake, snowflake) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_ge(snowflake, pg_catalog.int8) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_ge(pg_catalog.int8, snowflake) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_int8_ge(pg_catalog.int8, pg_catalog.int8) IS 'implementation of #>=# operator';
COMMENT ON FUNCTION snowflake_time_ge(snowflake, pg_catalog.timestamptz) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_time_ge(pg_catalog.timestamptz, snowflake) IS 'implementation of >= operator';
COMMENT ON FUNCTION snowflake_time_contained(pg_catalog.tstzrange, snowflake) IS 'implementation of @> operator';
COMMENT ON FUNCTION snowflake_cmp(snowflake, snowflake) IS 'less-equal-greater';
COMMENT ON FUNCTION snowflake_cmp(snowflake, pg_catalog.int8) IS 'less-equal-greater';
COMMENT ON FUNCTION snowflake_cmp(pg_catalog.int8, snowflake) IS 'less-equal-greater';
COMMENT ON FUNCTION snowflake_hash(snowflake) IS 'hash';
COMMENT ON FUNCTION snowflake_hash_extended(snowflake, pg_catalog.int8) IS 'hash';
COMMENT ON FUNCTION snowflake_in(pg_catalog.cstring) IS 'I/O';
COMMENT ON FUNCTION snowflake_out(snowflake) IS 'I/O';
COMMENT ON FUNCTION snowflake_recv(pg_catalog.internal) IS 'I/O';
COMMENT ON FUNCTION snowflake_send(snowflake) IS 'I/O';
COMMENT ON FUNCTION snowflake_smaller(snowflake, snowflake) IS 'smaller of two';
COMMENT ON FUNCTION snowflake_larger(snowflake, snowflake) IS 'larger of two';
COMMENT ON FUNCTION snowflake_int8_support(pg_catalog.internal) IS 'planner support for comparisons of snowflake with bigint';
COMMENT ON FUNCTION snowflake_time_support(pg_catalog.internal) IS 'planner support for comparisons of IDs with times';
COMMENT ON FUNCTION snowflake_decode_support(pg_catalog.internal) IS 'planner support for snowflake_decode()';
COMMENT ON CAST (snowflake AS pg_catalog.int8) IS 'the same 8 bytes';
COMMENT ON CAST (pg_catalog.int8 AS snowflake) IS 'checks that the value is not negative';
COMMENT ON CAST (pg_catalog.int4 AS snowflake) IS 'checks that the value is not negative';
COMMENT ON CAST (snowflake AS pg_catalog.timestamptz) IS 'the time of the ID, as snowflake_timestamp()';
COMMENT ON OPERATOR FAMILY snowflake_ops USING btree IS 'btree operators of snowflake and bigint, with no core operator among them';
COMMENT ON OPERATOR FAMILY snowflake_ops USING hash IS 'hash operators of snowflake and bigint, with no core operator among them';
COMMENT ON OPERATOR FAMILY snowflake_minmax_ops USING brin IS 'BRIN minmax operators of snowflake and bigint';
COMMENT ON OPERATOR CLASS snowflake_ops USING btree IS 'default btree operator class for snowflake';
COMMENT ON OPERATOR CLASS snowflake_ops USING hash IS 'default hash operator class for snowflake';
COMMENT ON OPERATOR CLASS snowflake_minmax_ops USING brin IS 'default BRIN minmax operator class for snowflake';
COMMENT ON OPERATOR CLASS snowflake_int8_ops USING btree IS 'bigint in snowflake''s btree family, with its own operators; not the default for bigint';
COMMENT ON OPERATOR CLASS snowflake_int8_ops USING hash IS 'bigint in snowflake''s hash family, with its own operator; not the default for bigint';
COMMENT ON FUNCTION snowflake_time_contained(snowflake, pg_catalog.tstzrange) IS 'implementation of <@ operator';

--
-- 1.6: snowflake_node_info() tells since when this server generates IDs
-- (generating_since_ms): of two servers with one node ID, the one that
-- began generating later yields, not the one started later.  Its row type
-- grows, so it is made anew, with the same comment and privileges
-- (executable by everyone, as created).
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
	OUT generating_since_ms pg_catalog.int8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_node_info'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_node_info() IS 'this server''s node ID, layout, start time, clock and since when it generates, for its peers';

--
-- 1.6: snowflake_adopt() refuses, in a dry run as well, a key whose table
-- or a table whose column it has to widen is managed by Citus, naming the
-- path that works (undistribute, switch, distribute again): Citus refuses
-- the statements, and a real run failed half-way inside the function.
-- The function as in extension/snowflake.sql.
--
CREATE OR REPLACE FUNCTION snowflake_adopt(tbl pg_catalog.regclass,
	col pg_catalog.name DEFAULT 'id',
	dry_run pg_catalog.bool DEFAULT true)
	RETURNS SETOF pg_catalog.text
	LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET row_security = off
AS $adopt$
DECLARE
	ext_schema	pg_catalog.name;		-- where the extension is now
	nextval_fn	pg_catalog.oid;			-- its snowflake_nextval()
	sf_type		pg_catalog.oid;			-- its type snowflake
	rel_kind	pg_catalog."char";
	rel_owner	pg_catalog.oid;
	rel_desc	pg_catalog.text;		-- "table s.t", for messages
	qual		pg_catalog.text;		-- s.t, quoted for statements
	key_attnum	pg_catalog.int2;
	key_type	pg_catalog.oid;
	key_ident	pg_catalog."char";
	key_gen		pg_catalog."char";
	col_desc	pg_catalog.text;		-- "column c of table s.t"
	def_oid		pg_catalog.oid;			-- the column's pg_attrdef row
	def_expr	pg_catalog.text;
	def_seq		pg_catalog.oid;			-- sequence the default uses
	own_seq		pg_catalog.oid;			-- sequence the column owns
	seq_qual	pg_catalog.text;
	seq_desc	pg_catalog.text;
	seq_users	pg_catalog.text;		-- other users of that sequence
	widen_rel	pg_catalog.oid[];		-- top-level tables and their
	widen_att	pg_catalog.name[];		-- columns to change to bigint
	blockers	pg_catalog.text;
	blocked		pg_catalog.int8;
	blocked_col	pg_catalog.text;
	bad			record;
	max_key		pg_catalog.int8;
	boundary	pg_catalog.int8;
	old_comment	pg_catalog.text;
	marker		pg_catalog.text;
	stmts		pg_catalog.text[] := '{}';
	stmt		pg_catalog.text;
	citus_desc	pg_catalog.text;		-- a table Citus manages
	citus_qual	pg_catalog.text;
	citus_kind	pg_catalog.text;
BEGIN
	-- the extension's schema, through its member snowflake_nextval()
	SELECT n.nspname, p.oid, p.prorettype
	  INTO ext_schema, nextval_fn, sf_type
	  FROM pg_catalog.pg_extension e
	  JOIN pg_catalog.pg_depend d
		ON d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
	   AND d.refobjid = e.oid AND d.deptype = 'e'
	   AND d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
	  JOIN pg_catalog.pg_proc p ON p.oid = d.objid
	  JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
	 WHERE e.extname = 'snowflake'
	   AND p.proname = 'snowflake_nextval' AND p.pronargs = 0;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'function snowflake_nextval() of extension "snowflake" was not found'
			USING ERRCODE = 'undefined_function';
	END IF;

	SELECT c.relkind, c.relowner, pg_catalog.format('%I.%I', n.nspname, c.relname),
		   pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0)
	  INTO rel_kind, rel_owner, qual, rel_desc
	  FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	 WHERE c.oid = tbl;
	IF rel_kind NOT IN ('r', 'p') THEN
		RAISE EXCEPTION '% is not a table', rel_desc
			USING ERRCODE = 'wrong_object_type';
	END IF;

	-- the owner's check comes first, before any lock or read
	IF NOT pg_catalog.pg_has_role(rel_owner, 'USAGE') THEN
		RAISE EXCEPTION 'must be owner of %', rel_desc
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'Only the owner of a table can change its key column.';
	END IF;

	IF NOT dry_run THEN
		EXECUTE pg_catalog.format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', qual);
	END IF;

	SELECT a.attnum, a.atttypid, a.attidentity, a.attgenerated,
		   pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, tbl, a.attnum)
	  INTO key_attnum, key_type, key_ident, key_gen, col_desc
	  FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = tbl AND a.attname = col
	   AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of % does not exist', col, rel_desc
			USING ERRCODE = 'undefined_column';
	END IF;

	IF key_type = sf_type THEN
		RAISE EXCEPTION 'column "%" of % is already of type snowflake', col, rel_desc
			USING ERRCODE = 'datatype_mismatch',
				  DETAIL = 'Its keys are snowflake IDs already.',
				  HINT = 'If it has no default, give it DEFAULT snowflake_nextval().';
	END IF;
	IF key_type NOT IN ('pg_catalog.int2'::pg_catalog.regtype,
						'pg_catalog.int4'::pg_catalog.regtype,
						'pg_catalog.int8'::pg_catalog.regtype) THEN
		RAISE EXCEPTION 'column "%" of % is of type %, not an integer type',
			col, rel_desc, pg_catalog.format_type(key_type, NULL)
			USING ERRCODE = 'datatype_mismatch',
				  DETAIL = 'Only smallint, integer and bigint keys can switch to snowflake IDs.';
	END IF;
	IF key_gen <> '' THEN
		RAISE EXCEPTION 'column "%" of % is a generated column', col, rel_desc
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Its values are computed from other columns of the row.';
	END IF;

	-- the default, the sequence it calls and the sequence the column owns
	SELECT ad.oid, pg_catalog.pg_get_expr(ad.adbin, ad.adrelid)
	  INTO def_oid, def_expr
	  FROM pg_catalog.pg_attrdef ad
	 WHERE ad.adrelid = tbl AND ad.adnum = key_attnum;
	IF def_oid IS NOT NULL THEN
		IF EXISTS (SELECT FROM pg_catalog.pg_depend d
					WHERE d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass
					  AND d.objid = def_oid
					  AND d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass
					  AND d.refobjid = nextval_fn) THEN
			RAISE EXCEPTION 'column "%" of % already generates snowflake IDs', col, rel_desc
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = pg_catalog.format('Its default is %s.', def_expr);
		END IF;
		SELECT d.refobjid INTO def_seq
		  FROM pg_catalog.pg_depend d
		  JOIN pg_catalog.pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'
		 WHERE d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass
		   AND d.objid = def_oid
		   AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass;
		IF def_seq IS NULL OR def_expr !~ '^nextval\(''.*''::regclass\)$' THEN
			RAISE EXCEPTION 'column "%" of % has a default that is not a sequence', col, rel_desc
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = pg_catalog.format('Its default is %s.', def_expr),
					  HINT = 'Drop the default first if snowflake IDs are to replace it.';
		END IF;
	END IF;

	SELECT d.objid INTO own_seq
	  FROM pg_catalog.pg_depend d
	  JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S'
	 WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
	   AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
	   AND d.refobjid = tbl AND d.refobjsubid = key_attnum
	   AND d.deptype IN ('a', 'i');

	-- whatever else uses the sequence that goes: the identity's, or the
	-- one the default calls; a view is named as a view, not as its rule
	IF key_ident <> '' OR def_seq IS NOT NULL THEN
		SELECT pg_catalog.format('%I.%I', n.nspname, s.relname),
			   pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, s.oid, 0)
		  INTO seq_qual, seq_desc
		  FROM pg_catalog.pg_class s
		  JOIN pg_catalog.pg_namespace n ON n.oid = s.relnamespace
		 WHERE s.oid = CASE WHEN key_ident <> '' THEN own_seq ELSE def_seq END;

		SELECT pg_catalog.string_agg(u.what, ', ' ORDER BY u.what)
		  INTO seq_users
		  FROM (SELECT DISTINCT
					   CASE WHEN r.rulename = '_RETURN'
							THEN pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, r.ev_class, 0)
							ELSE pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)
					   END AS what
				  FROM pg_catalog.pg_depend d
				  LEFT JOIN pg_catalog.pg_rewrite r
					ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND r.oid = d.objid
				 WHERE d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
				   AND d.refobjid = CASE WHEN key_ident <> '' THEN own_seq ELSE def_seq END
				   AND NOT (d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass
							AND d.objid IS NOT DISTINCT FROM def_oid)) u;

		IF key_ident <> '' AND seq_users IS NOT NULL THEN
			RAISE EXCEPTION 'cannot drop identity of column "%" of % because other objects use its sequence',
				col, rel_desc
				USING ERRCODE = 'dependent_objects_still_exist',
					  DETAIL = pg_catalog.format('%s is used by %s.',
						  pg_catalog.upper(pg_catalog.left(seq_desc, 1)) || pg_catalog.substr(seq_desc, 2),
						  seq_users),
					  HINT = 'Make those objects use a sequence of their own first.';
		END IF;
	END IF;

	-- the columns to widen: the key and every column holding its keys
	-- through foreign keys (refs), each taken up to the top-level table it
	-- is inherited from (up), when it is smallint or integer
	WITH RECURSIVE refs(relid, attnum) AS (
		SELECT tbl::pg_catalog.oid, key_attnum
		UNION
		SELECT c.conrelid, k.conkey
		  FROM refs r
		  JOIN pg_catalog.pg_constraint c ON c.contype = 'f' AND c.confrelid = r.relid
		 CROSS JOIN LATERAL ROWS FROM (pg_catalog.unnest(c.conkey),
									   pg_catalog.unnest(c.confkey)) AS k(conkey, confkey)
		 WHERE k.confkey = r.attnum
	), up(relid, attname) AS (
		SELECT r.relid, a.attname
		  FROM refs r
		  JOIN pg_catalog.pg_attribute a ON a.attrelid = r.relid AND a.attnum = r.attnum
		UNION
		SELECT i.inhparent, u.attname
		  FROM up u
		  JOIN pg_catalog.pg_attribute a
			ON a.attrelid = u.relid AND a.attname = u.attname AND a.attinhcount > 0
		  JOIN pg_catalog.pg_inherits i ON i.inhrelid = u.relid
		  JOIN pg_catalog.pg_attribute p
			ON p.attrelid = i.inhparent AND p.attname = u.attname AND NOT p.attisdropped
	)
	SELECT pg_catalog.array_agg(u.relid ORDER BY u.relid <> tbl, n.nspname, c.relname, a.attnum),
		   pg_catalog.array_agg(u.attname ORDER BY u.relid <> tbl, n.nspname, c.relname, a.attnum)
	  INTO widen_rel, widen_att
	  FROM up u
	  JOIN pg_catalog.pg_attribute a ON a.attrelid = u.relid AND a.attname = u.attname
	  JOIN pg_catalog.pg_class c ON c.oid = u.relid
	  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	 WHERE a.attinhcount = 0
	   AND a.atttypid IN ('pg_catalog.int2'::pg_catalog.regtype,
						  'pg_catalog.int4'::pg_catalog.regtype);

	-- every table changed, with its partitions and children, must be the
	-- caller's; the first that is not is named, with the reason
	FOR bad IN
		WITH RECURSIVE changed(relid, why) AS (
			SELECT tbl::pg_catalog.oid, 'Only the owner of a table can change its key column.'
			UNION ALL
			SELECT w.relid,
				   pg_catalog.format('Its column "%s" holds keys of column "%s" of %s and has to become bigint too.',
									 w.attname, col, rel_desc)
			  FROM ROWS FROM (pg_catalog.unnest(widen_rel), pg_catalog.unnest(widen_att)) AS w(relid, attname)
			 WHERE w.relid <> tbl
		), down(relid, why) AS (
			SELECT relid, why FROM changed
			UNION
			SELECT i.inhrelid,
				   pg_catalog.format('It is a partition or child of %s, which is altered.',
									 pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, d.relid, 0))
			  FROM down d
			  JOIN pg_catalog.pg_inherits i ON i.inhparent = d.relid
		)
		SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0) AS what,
			   d.why
		  FROM down d
		  JOIN pg_catalog.pg_class c ON c.oid = d.relid
		 WHERE NOT pg_catalog.pg_has_role(c.relowner, 'USAGE')
		 ORDER BY 1, 2
		 LIMIT 1
	LOOP
		RAISE EXCEPTION 'must be owner of %', bad.what
			USING ERRCODE = 'insufficient_privilege', DETAIL = bad.why;
	END LOOP;

	-- on Citus, no table it manages can take the statements: the key's
	-- table first, then the first table to widen (its catalog is read
	-- only if it is there, hence EXECUTE)
	IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
		EXECUTE $citus$
			SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0),
				   pg_catalog.format('%I.%I', n.nspname, c.relname),
				   CASE WHEN p.repmodel OPERATOR(pg_catalog.=) 't' THEN 'reference'
						WHEN p.partmethod OPERATOR(pg_catalog.=) 'n'
						 AND p.colocationid OPERATOR(pg_catalog.=) 0 THEN 'local'
						ELSE 'distributed' END
			  FROM pg_catalog.pg_dist_partition p
			  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) p.logicalrelid
			  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
			 WHERE c.oid OPERATOR(pg_catalog.=) ANY ($1)
			 ORDER BY c.oid OPERATOR(pg_catalog.<>) $2, 2
			 LIMIT 1
			$citus$
		   INTO citus_desc, citus_qual, citus_kind
		  USING pg_catalog.array_prepend(tbl::pg_catalog.oid, widen_rel), tbl::pg_catalog.oid;
		IF citus_desc IS NOT NULL THEN
			RAISE EXCEPTION 'cannot switch the key of % because % is a Citus % table',
				rel_desc, CASE WHEN citus_qual = qual THEN 'it' ELSE citus_desc END, citus_kind
				USING ERRCODE = 'feature_not_supported',
					  DETAIL = 'Citus refuses to alter a distribution column, and to change the type of a column whose default calls a sequence.',
					  HINT = pg_catalog.format('Undistribute it with undistribute_table(%L, cascade_via_foreign_keys => true), switch the key, then distribute the tables again as they were. Citus keeps the boundary comment on the coordinator only.',
											   citus_qual);
		END IF;
	END IF;

	-- what would make ALTER TABLE ... TYPE fail on a column to widen, in
	-- its table or any partition or child: every dependent object except
	-- the ones ALTER TABLE rebuilds (indexes, constraints, statistics)
	-- and the column's own default and sequence; and partition keys
	WITH RECURSIVE down(relid, attname) AS (
		SELECT w.relid, w.attname
		  FROM ROWS FROM (pg_catalog.unnest(widen_rel), pg_catalog.unnest(widen_att)) AS w(relid, attname)
		UNION
		SELECT i.inhrelid, d.attname
		  FROM down d
		  JOIN pg_catalog.pg_inherits i ON i.inhparent = d.relid
	), cols AS (
		SELECT a.attrelid, a.attnum,
			   pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass,
											 a.attrelid, a.attnum) AS what,
			   pg_catalog.format('column "%s" of %s', a.attname,
				   pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass,
												 a.attrelid, 0)) AS quoted
		  FROM down d
		  JOIN pg_catalog.pg_attribute a ON a.attrelid = d.relid AND a.attname = d.attname
	), found AS (
		SELECT DISTINCT k.quoted AS col_what,
			   pg_catalog.format('%s depends on %s',
				   CASE WHEN r.rulename = '_RETURN'
						THEN pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, r.ev_class, 0)
						ELSE pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)
				   END, k.what) AS line
		  FROM cols k
		  JOIN pg_catalog.pg_depend d
			ON d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
		   AND d.refobjid = k.attrelid AND d.refobjsubid = k.attnum
		  LEFT JOIN pg_catalog.pg_rewrite r
			ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND r.oid = d.objid
		 WHERE d.classid NOT IN ('pg_catalog.pg_constraint'::pg_catalog.regclass,
								 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass)
		   AND NOT (d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
					AND EXISTS (SELECT FROM pg_catalog.pg_class x
								 WHERE x.oid = d.objid AND x.relkind IN ('i', 'I', 'S')))
		   AND NOT (d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass
					AND EXISTS (SELECT FROM pg_catalog.pg_attrdef x
								 WHERE x.oid = d.objid AND x.adrelid = k.attrelid
								   AND x.adnum = k.attnum))
		UNION
		SELECT k.quoted,
			   pg_catalog.format('partition key of %s depends on %s',
				   pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, k.attrelid, 0),
				   k.what)
		  FROM cols k
		  JOIN pg_catalog.pg_partitioned_table pt ON pt.partrelid = k.attrelid
		 WHERE k.attnum = ANY (pt.partattrs)
	)
	SELECT pg_catalog.string_agg(f.line, E'\n' ORDER BY f.line),
		   pg_catalog.count(DISTINCT f.col_what),
		   pg_catalog.min(f.col_what)
	  INTO blockers, blocked, blocked_col
	  FROM found f;
	IF blocked = 1 THEN
		RAISE EXCEPTION 'cannot alter type of % because other objects depend on it', blocked_col
			USING ERRCODE = 'dependent_objects_still_exist',
				  DETAIL = blockers,
				  HINT = 'Drop those objects, switch the key, then create them again; or change the columns to bigint first.';
	ELSIF blocked > 1 THEN
		RAISE EXCEPTION 'cannot alter type of % columns because other objects depend on them', blocked
			USING ERRCODE = 'dependent_objects_still_exist',
				  DETAIL = blockers,
				  HINT = 'Drop those objects, switch the key, then create them again; or change the columns to bigint first.';
	END IF;

	-- existing keys must all be below the first snowflake ID of now
	EXECUTE pg_catalog.format('SELECT %I.snowflake_from_timestamp(pg_catalog.now())::pg_catalog.int8',
							  ext_schema)
	   INTO boundary;
	EXECUTE pg_catalog.format('SELECT pg_catalog.max(%I)::pg_catalog.int8 FROM %s', col, qual)
	   INTO max_key;
	IF max_key >= boundary THEN
		RAISE EXCEPTION 'existing keys of % reach the range of snowflake IDs', rel_desc
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = pg_catalog.format('The largest value of column "%s" is %s; snowflake IDs generated now start at %s, so new keys could collide with existing ones or sort before them.',
											 col, max_key, boundary),
				  HINT = 'Renumber the keys at or above that value first, or keep this table on its sequence.';
	END IF;

	-- the statements, in order
	IF key_ident <> '' THEN
		stmts := stmts || pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY;', qual, col);
	END IF;

	FOR bad IN
		SELECT pg_catalog.format('ALTER TABLE %I.%I %s;', n.nspname, c.relname,
				   pg_catalog.string_agg(pg_catalog.format('ALTER COLUMN %I TYPE bigint', w.attname),
										 ', ' ORDER BY w.ord)) AS s
		  FROM ROWS FROM (pg_catalog.unnest(widen_rel), pg_catalog.unnest(widen_att))
			   WITH ORDINALITY AS w(relid, attname, ord)
		  JOIN pg_catalog.pg_class c ON c.oid = w.relid
		  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		 GROUP BY n.nspname, c.relname
		 ORDER BY pg_catalog.min(w.ord)
	LOOP
		stmts := stmts || bad.s;
	END LOOP;

	stmts := stmts || pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %I.snowflake_nextval();',
										qual, col, ext_schema);

	IF def_seq IS NOT NULL THEN
		IF def_seq IS DISTINCT FROM own_seq THEN
			stmts := stmts || pg_catalog.format('-- %s is kept: %s does not own it', seq_desc, col_desc);
			RAISE NOTICE '% is kept', seq_desc
				USING DETAIL = pg_catalog.format('It is not owned by %s.', col_desc);
		ELSIF seq_users IS NOT NULL THEN
			stmts := stmts || pg_catalog.format('-- %s is kept: %s uses it', seq_desc, seq_users)
						   || pg_catalog.format('ALTER SEQUENCE %s OWNED BY NONE;', seq_qual);
			RAISE NOTICE '% is kept', seq_desc
				USING DETAIL = pg_catalog.format('It is still used by %s.', seq_users);
		ELSE
			stmts := stmts || pg_catalog.format('DROP SEQUENCE %s;', seq_qual);
		END IF;
	END IF;

	-- the boundary marker, above any comment the column had
	old_comment := pg_catalog.col_description(tbl, key_attnum);
	old_comment := pg_catalog.regexp_replace(old_comment, '^snowflake_adopt: [^\n]*\n?', '', 'gn');
	marker := pg_catalog.format('snowflake_adopt: keys below %s predate snowflake IDs (switched %s UTC)',
								boundary,
								pg_catalog.to_char(pg_catalog.now() AT TIME ZONE 'UTC',
												   'YYYY-MM-DD HH24:MI:SS.MS'));
	IF old_comment <> '' THEN
		marker := marker || E'\n' || old_comment;
	END IF;
	stmts := stmts || pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L;', qual, col, marker);

	FOREACH stmt IN ARRAY stmts LOOP
		IF NOT dry_run AND stmt NOT LIKE '--%' THEN
			EXECUTE stmt;
		END IF;
		RETURN NEXT stmt;
	END LOOP;
END
$adopt$;
