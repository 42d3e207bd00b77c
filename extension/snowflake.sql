/* extension/snowflake.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION snowflake" to load this file. \quit

--
-- The install script of the current version, kept here once: "make" copies
-- it to snowflake--<default_version>.sql.  It creates the same objects as
-- snowflake--1.0.sql followed by every update script (the regression test
-- "extension" compares the two, object by object), written as they stand
-- now.  Older versions are installed through 1.0 and the updates.
--
-- This script holds DDL only.  Core objects are schema-qualified and every
-- function is named with its exact argument types, so nothing earlier in
-- the search_path can capture a reference.
--

------------------------------------------------------------------------
-- The type
------------------------------------------------------------------------

CREATE TYPE snowflake;

CREATE FUNCTION snowflake_in(pg_catalog.cstring) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- output and binary send are int8's (the representation is the same),
-- through C entry points of the library: see src/operators.c for why
CREATE FUNCTION snowflake_out(snowflake) RETURNS pg_catalog.cstring
	AS 'MODULE_PATHNAME', 'snowflake_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_recv(pg_catalog.internal) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_send(snowflake) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'snowflake_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- LIKE int8 copies length, pass-by-value, alignment and storage
CREATE TYPE snowflake (
	INPUT = snowflake_in,
	OUTPUT = snowflake_out,
	RECEIVE = snowflake_recv,
	SEND = snowflake_send,
	LIKE = pg_catalog.int8
);

COMMENT ON TYPE snowflake IS 'time-ordered 64-bit identifier: milliseconds since an epoch, node ID, sequence';

------------------------------------------------------------------------
-- Casts
--
-- Assignment casts both ways: a snowflake goes into a bigint column
-- (DEFAULT snowflake_nextval() on a bigint key) and integers go into a
-- snowflake column, but expressions never switch type silently, which
-- keeps "id = 42" unambiguous.  Into snowflake, negative values are
-- rejected, so those casts need a function.
------------------------------------------------------------------------

CREATE CAST (snowflake AS pg_catalog.int8) WITHOUT FUNCTION AS ASSIGNMENT;

CREATE FUNCTION snowflake(pg_catalog.int8) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_from_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake(pg_catalog.int4) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_from_int4'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (pg_catalog.int8 AS snowflake)
	WITH FUNCTION snowflake(pg_catalog.int8) AS ASSIGNMENT;

CREATE CAST (pg_catalog.int4 AS snowflake)
	WITH FUNCTION snowflake(pg_catalog.int4) AS ASSIGNMENT;

COMMENT ON FUNCTION snowflake(pg_catalog.int8) IS 'convert bigint to snowflake; negative values are rejected';
COMMENT ON FUNCTION snowflake(pg_catalog.int4) IS 'convert integer to snowflake; negative values are rejected';

------------------------------------------------------------------------
-- Comparison functions.  All are int8's own (called through C entry
-- points of the library), so they are exact and leakproof; the snowflake/bigint ones carry a planner support function
-- that lets an index on a bigint column serve them (src/operators.c).
------------------------------------------------------------------------

CREATE FUNCTION snowflake_int8_support(pg_catalog.internal)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'snowflake_int8_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_eq(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(snowflake, snowflake) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION snowflake_eq(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_ne(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_le(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_gt(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_ge(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_cmp(snowflake, pg_catalog.int8) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION snowflake_eq(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_ne(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_le(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_gt(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_ge(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE FUNCTION snowflake_cmp(pg_catalog.int8, snowflake) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION snowflake_hash(snowflake) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_hash_extended(snowflake, pg_catalog.int8)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION snowflake_larger(snowflake, snowflake) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_smaller(snowflake, snowflake) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

------------------------------------------------------------------------
-- Operators
------------------------------------------------------------------------

CREATE OPERATOR = (
	LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_eq,
	COMMUTATOR = =, NEGATOR = <>,
	RESTRICT = eqsel, JOIN = eqjoinsel, MERGES, HASHES);
CREATE OPERATOR <> (
	LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_ne,
	COMMUTATOR = <>, NEGATOR = =,
	RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
	LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_lt,
	COMMUTATOR = >, NEGATOR = >=,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
	LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_le,
	COMMUTATOR = >=, NEGATOR = >,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
	LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_gt,
	COMMUTATOR = <, NEGATOR = <=,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
	LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_ge,
	COMMUTATOR = <=, NEGATOR = <,
	RESTRICT = scalargesel, JOIN = scalargejoinsel);

-- snowflake op bigint; each commutator is the bigint op snowflake below
CREATE OPERATOR = (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_eq,
	COMMUTATOR = =, NEGATOR = <>,
	RESTRICT = eqsel, JOIN = eqjoinsel, MERGES, HASHES);
CREATE OPERATOR <> (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_ne,
	COMMUTATOR = <>, NEGATOR = =,
	RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_lt,
	COMMUTATOR = >, NEGATOR = >=,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_le,
	COMMUTATOR = >=, NEGATOR = >,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_gt,
	COMMUTATOR = <, NEGATOR = <=,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_ge,
	COMMUTATOR = <=, NEGATOR = <,
	RESTRICT = scalargesel, JOIN = scalargejoinsel);

-- bigint op snowflake
CREATE OPERATOR = (
	LEFTARG = pg_catalog.int8, RIGHTARG = snowflake, FUNCTION = snowflake_eq,
	COMMUTATOR = =, NEGATOR = <>,
	RESTRICT = eqsel, JOIN = eqjoinsel, MERGES, HASHES);
CREATE OPERATOR <> (
	LEFTARG = pg_catalog.int8, RIGHTARG = snowflake, FUNCTION = snowflake_ne,
	COMMUTATOR = <>, NEGATOR = =,
	RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
	LEFTARG = pg_catalog.int8, RIGHTARG = snowflake, FUNCTION = snowflake_lt,
	COMMUTATOR = >, NEGATOR = >=,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
	LEFTARG = pg_catalog.int8, RIGHTARG = snowflake, FUNCTION = snowflake_le,
	COMMUTATOR = >=, NEGATOR = >,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
	LEFTARG = pg_catalog.int8, RIGHTARG = snowflake, FUNCTION = snowflake_gt,
	COMMUTATOR = <, NEGATOR = <=,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
	LEFTARG = pg_catalog.int8, RIGHTARG = snowflake, FUNCTION = snowflake_ge,
	COMMUTATOR = <=, NEGATOR = <,
	RESTRICT = scalargesel, JOIN = scalargejoinsel);

------------------------------------------------------------------------
-- Comparisons of bigint with bigint, for snowflake's operator families.
--
-- A btree or hash operator family that compares snowflake with bigint must
-- also compare bigint with bigint, to be complete: the planner sorts the
-- bigint side of a merge join by it, and hashes it.  Core's own bigint
-- operators must not serve there: an operator in two families changes the
-- plans of every bigint query (equivalence classes and sort orders then
-- carry both families, and PostgreSQL's own regression suite shows extra
-- sorts and lost index scans).  So the families use these operators of
-- their own, with names nobody writes by chance.  They are bigint's
-- comparisons, nothing more; write bigint comparisons with <, =, > as
-- always.
--
-- The other way, adding snowflake to core's integer_ops families, was
-- built and measured (test/core-regress/README.md) and not taken.  It
-- leaves core plans alone too, and lets a merge join read a bigint index
-- where this family sorts the bigint side.  But an operator class cannot
-- change family in place, so every snowflake index of a 1.4 install would
-- have to be rebuilt by the update; the family also needs 20 more
-- operators against smallint and integer to be complete, and puts the
-- extension's members into a core family.
------------------------------------------------------------------------

CREATE FUNCTION snowflake_int8_eq(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_ne(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_lt(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_le(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_gt(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_int8_ge(pg_catalog.int8, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR #=# (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_eq,
	COMMUTATOR = #=#, NEGATOR = #<>#,
	RESTRICT = eqsel, JOIN = eqjoinsel, MERGES, HASHES);
CREATE OPERATOR #<># (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_ne,
	COMMUTATOR = #<>#, NEGATOR = #=#,
	RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR #<# (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_lt,
	COMMUTATOR = #>#, NEGATOR = #>=#,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR #<=# (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_le,
	COMMUTATOR = #>=#, NEGATOR = #>#,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR #># (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_gt,
	COMMUTATOR = #<#, NEGATOR = #<=#,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR #>=# (
	LEFTARG = pg_catalog.int8, RIGHTARG = pg_catalog.int8, FUNCTION = snowflake_int8_ge,
	COMMUTATOR = #<=#, NEGATOR = #<#,
	RESTRICT = scalargesel, JOIN = scalargejoinsel);

COMMENT ON OPERATOR #=# (pg_catalog.int8, pg_catalog.int8) IS 'bigint equality, for snowflake''s operator families only';
COMMENT ON OPERATOR #<# (pg_catalog.int8, pg_catalog.int8) IS 'bigint less-than, for snowflake''s operator families only';

------------------------------------------------------------------------
-- Operator classes.  One btree and one hash family hold snowflake and
-- bigint together, complete in all four type pairs, so that the planner
-- may compare, sort, merge and hash across the two types.  No core
-- operator is a member: the bigint-with-bigint members are the operators
-- above.
------------------------------------------------------------------------

CREATE OPERATOR FAMILY snowflake_ops USING btree;

CREATE OPERATOR CLASS snowflake_ops
	DEFAULT FOR TYPE snowflake USING btree FAMILY snowflake_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 snowflake_cmp(snowflake, snowflake),
	FUNCTION 2 pg_catalog.btint8sortsupport(pg_catalog.internal),
	FUNCTION 4 pg_catalog.btequalimage(pg_catalog.oid);

ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
	OPERATOR 1 < (snowflake, pg_catalog.int8),
	OPERATOR 2 <= (snowflake, pg_catalog.int8),
	OPERATOR 3 = (snowflake, pg_catalog.int8),
	OPERATOR 4 >= (snowflake, pg_catalog.int8),
	OPERATOR 5 > (snowflake, pg_catalog.int8),
	FUNCTION 1 (snowflake, pg_catalog.int8) snowflake_cmp(snowflake, pg_catalog.int8),

	OPERATOR 1 < (pg_catalog.int8, snowflake),
	OPERATOR 2 <= (pg_catalog.int8, snowflake),
	OPERATOR 3 = (pg_catalog.int8, snowflake),
	OPERATOR 4 >= (pg_catalog.int8, snowflake),
	OPERATOR 5 > (pg_catalog.int8, snowflake),
	FUNCTION 1 (pg_catalog.int8, snowflake) snowflake_cmp(pg_catalog.int8, snowflake);

-- bigint with bigint, as an operator class of its own, not the default for
-- bigint: every operator of the family then has a class in it for its left
-- type, as PostgreSQL's own catalog checks (opr_sanity) expect
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

CREATE OPERATOR FAMILY snowflake_ops USING hash;

CREATE OPERATOR CLASS snowflake_ops
	DEFAULT FOR TYPE snowflake USING hash FAMILY snowflake_ops AS
	OPERATOR 1 = ,
	FUNCTION 1 snowflake_hash(snowflake),
	FUNCTION 2 snowflake_hash_extended(snowflake, pg_catalog.int8);

ALTER OPERATOR FAMILY snowflake_ops USING hash ADD
	OPERATOR 1 = (snowflake, pg_catalog.int8),
	OPERATOR 1 = (pg_catalog.int8, snowflake);

CREATE OPERATOR CLASS snowflake_int8_ops
	FOR TYPE pg_catalog.int8 USING hash FAMILY snowflake_ops AS
	OPERATOR 1 #=# ,
	FUNCTION 1 pg_catalog.hashint8(pg_catalog.int8),
	FUNCTION 2 pg_catalog.hashint8extended(pg_catalog.int8, pg_catalog.int8);

-- time-ordered keys suit BRIN: one summary per block range
CREATE OPERATOR CLASS snowflake_minmax_ops
	DEFAULT FOR TYPE snowflake USING brin AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 pg_catalog.brin_minmax_opcinfo(pg_catalog.internal),
	FUNCTION 2 pg_catalog.brin_minmax_add_value(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
	FUNCTION 3 pg_catalog.brin_minmax_consistent(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
	FUNCTION 4 pg_catalog.brin_minmax_union(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal);

ALTER OPERATOR FAMILY snowflake_minmax_ops USING brin ADD
	OPERATOR 1 < (snowflake, pg_catalog.int8),
	OPERATOR 2 <= (snowflake, pg_catalog.int8),
	OPERATOR 3 = (snowflake, pg_catalog.int8),
	OPERATOR 4 >= (snowflake, pg_catalog.int8),
	OPERATOR 5 > (snowflake, pg_catalog.int8);

------------------------------------------------------------------------
-- Aggregates
--
-- No COMBINEFUNC: Citus pushes min() and max() down to each shard by
-- name, as it does bigint's, only for aggregates without one (with one it
-- sends a generic partial aggregate that cannot use the shard's index).
-- The cost on plain PostgreSQL: no partial aggregation in parallel plans,
-- whose workers still scan and filter; min() and max() of a key read
-- one end of its index anyway.
------------------------------------------------------------------------

CREATE AGGREGATE min(snowflake) (
	SFUNC = snowflake_smaller,
	STYPE = snowflake,
	SORTOP = <,
	PARALLEL = SAFE
);

CREATE AGGREGATE max(snowflake) (
	SFUNC = snowflake_larger,
	STYPE = snowflake,
	SORTOP = >,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE min(snowflake) IS 'minimum value of all snowflake input values';
COMMENT ON AGGREGATE max(snowflake) IS 'maximum value of all snowflake input values';

------------------------------------------------------------------------
-- Generation
--
-- snowflake_nextval() is VOLATILE and, like nextval(), not transactional:
-- an ID handed out in a transaction that rolls back is never reissued.
-- Its state is in shared memory, so it would be correct in a parallel
-- worker, but it also records the ID for this session's
-- snowflake_currval(), which is backend-local state a parallel worker
-- could not hand back to the leader.  Hence PARALLEL RESTRICTED: a
-- parallel query still runs, with the generator evaluated in the leader.
-- It writes nothing to the database (a high-water mark file at most),
-- so it works in read-only transactions.
------------------------------------------------------------------------

CREATE FUNCTION snowflake_nextval() RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_nextval'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

CREATE FUNCTION snowflake_currval() RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_currval'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION snowflake_nextval() IS 'generate a new snowflake ID, unique across this server and distinct from other nodes by snowflake.node_id';
COMMENT ON FUNCTION snowflake_currval() IS 'the last snowflake ID generated in this session';

------------------------------------------------------------------------
-- Decoding and constructing
--
-- STABLE, not IMMUTABLE: the result depends on snowflake.epoch and the
-- field widths, which cannot change while the server runs but can across
-- a restart.  Each decoder also takes bigint, for bigint key columns.
------------------------------------------------------------------------

-- turns snowflake_decode(id) into ROW(snowflake_timestamp(id), ...), so
-- that (snowflake_decode(id)).* costs scalar calls (src/functions.c)
CREATE FUNCTION snowflake_decode_support(pg_catalog.internal)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'snowflake_decode_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_decode(id snowflake,
	OUT ts pg_catalog.timestamptz, OUT node_id pg_catalog.int4, OUT seq pg_catalog.int4)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_decode'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_decode_support;

CREATE FUNCTION snowflake_decode(id pg_catalog.int8,
	OUT ts pg_catalog.timestamptz, OUT node_id pg_catalog.int4, OUT seq pg_catalog.int4)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_decode'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_decode_support;

CREATE FUNCTION snowflake_timestamp(id snowflake) RETURNS pg_catalog.timestamptz
	AS 'MODULE_PATHNAME', 'snowflake_timestamp'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_timestamp(id pg_catalog.int8) RETURNS pg_catalog.timestamptz
	AS 'MODULE_PATHNAME', 'snowflake_timestamp'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_node_id(id snowflake) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_node_id_of'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_node_id(id pg_catalog.int8) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_node_id_of'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_seq(id snowflake) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_seq'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_seq(id pg_catalog.int8) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_seq'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_from_timestamp(ts pg_catalog.timestamptz) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_from_timestamp'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_from_parts(ts pg_catalog.timestamptz,
	node_id pg_catalog.int4, seq pg_catalog.int4) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_from_parts'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- id::timestamptz; explicit only, since it drops the node and sequence
CREATE CAST (snowflake AS pg_catalog.timestamptz)
	WITH FUNCTION snowflake_timestamp(snowflake);

COMMENT ON FUNCTION snowflake_decode(snowflake) IS 'the time, node ID and sequence of a snowflake ID';
COMMENT ON FUNCTION snowflake_decode(pg_catalog.int8) IS 'the time, node ID and sequence of a snowflake ID stored as bigint';
COMMENT ON FUNCTION snowflake_timestamp(snowflake) IS 'the time at which a snowflake ID was generated, to the millisecond';
COMMENT ON FUNCTION snowflake_timestamp(pg_catalog.int8) IS 'the time at which a snowflake ID stored as bigint was generated, to the millisecond';
COMMENT ON FUNCTION snowflake_node_id(snowflake) IS 'the node ID of a snowflake ID';
COMMENT ON FUNCTION snowflake_node_id(pg_catalog.int8) IS 'the node ID of a snowflake ID stored as bigint';
COMMENT ON FUNCTION snowflake_seq(snowflake) IS 'the per-millisecond sequence number of a snowflake ID';
COMMENT ON FUNCTION snowflake_seq(pg_catalog.int8) IS 'the per-millisecond sequence number of a snowflake ID stored as bigint';
COMMENT ON FUNCTION snowflake_from_timestamp(pg_catalog.timestamptz) IS 'the smallest snowflake ID of the millisecond containing a time, for ID range bounds';
COMMENT ON FUNCTION snowflake_from_parts(pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.int4) IS 'build a snowflake ID from a time, a node ID and a sequence number';

------------------------------------------------------------------------
-- The time of an ID of an explicitly given layout: IMMUTABLE, unlike the
-- decoders that read the layout settings, for where only IMMUTABLE
-- functions are allowed (Citus's RETURNING, index expressions).  With the
-- default layout: snowflake_timestamp(id, '2025-01-01 00:00:00+00').
------------------------------------------------------------------------

CREATE FUNCTION snowflake_timestamp(id snowflake, epoch pg_catalog.timestamptz,
	node_bits pg_catalog.int4 DEFAULT 10, sequence_bits pg_catalog.int4 DEFAULT 12)
	RETURNS pg_catalog.timestamptz
	AS 'MODULE_PATHNAME', 'snowflake_timestamp_custom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_timestamp(id pg_catalog.int8, epoch pg_catalog.timestamptz,
	node_bits pg_catalog.int4 DEFAULT 10, sequence_bits pg_catalog.int4 DEFAULT 12)
	RETURNS pg_catalog.timestamptz
	AS 'MODULE_PATHNAME', 'snowflake_timestamp_custom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_timestamp(snowflake, pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.int4) IS 'the time of an ID of the given layout (immutable)';
COMMENT ON FUNCTION snowflake_timestamp(pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.int4) IS 'the time of an ID stored as bigint, of the given layout (immutable)';

------------------------------------------------------------------------
-- Status, for operators (pg_monitor)
------------------------------------------------------------------------

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
	OUT node_id_source pg_catalog.text,
	OUT observations pg_catalog.int8,
	OUT observations_moved pg_catalog.int8,
	OUT observations_refused pg_catalog.int8,
	OUT max_observed_move_ms pg_catalog.int8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_status'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_status() IS 'state of the snowflake generator, its clock, high-water mark and worker';

REVOKE ALL ON FUNCTION snowflake_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION snowflake_status() TO pg_monitor;

--
-- Since 1.1: time predicates on IDs, bulk reservation, other systems' layouts,
-- the UUIDv7 bridge, and a helper for partitioning by ID.
--

------------------------------------------------------------------------
-- Comparing IDs with times
--
-- "id OP ts" means "snowflake_timestamp(id) OP ts".  The planner support
-- function rewrites each of these into comparisons of the ID with ID
-- bounds (snowflake_last_id_before/at/in below), which are in snowflake's
-- btree family: so they use the primary key, BRIN indexes and partition
-- pruning.  The operators themselves are in no operator family: "id = ts"
-- holds for every ID of a millisecond, which no btree equality can be.
-- STABLE, because they depend on snowflake.epoch and the field widths.
------------------------------------------------------------------------

CREATE FUNCTION snowflake_last_id_before(ts pg_catalog.timestamptz)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_last_id_before'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_last_id_at(ts pg_catalog.timestamptz)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_last_id_at'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_last_id_before(period pg_catalog.tstzrange)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_last_id_before_range'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_last_id_in(period pg_catalog.tstzrange)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_last_id_in_range'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_last_id_before(pg_catalog.timestamptz) IS 'the largest ID value whose time is before ts (-1 if none)';
COMMENT ON FUNCTION snowflake_last_id_at(pg_catalog.timestamptz) IS 'the largest ID value whose time is at or before ts (-1 if none)';
COMMENT ON FUNCTION snowflake_last_id_before(pg_catalog.tstzrange) IS 'the largest ID value below every ID whose time is in the range';
COMMENT ON FUNCTION snowflake_last_id_in(pg_catalog.tstzrange) IS 'the largest ID value whose time is in the range or before it';

CREATE FUNCTION snowflake_time_support(pg_catalog.internal)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'snowflake_time_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_time_eq(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_eq'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_ne(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_ne'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_lt(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_lt'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_le(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_le'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_gt(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_gt'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_ge(snowflake, pg_catalog.timestamptz) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_ge'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;

CREATE FUNCTION snowflake_time_eq(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_eq_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_ne(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_ne_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_lt(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_lt_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_le(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_le_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_gt(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_gt_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_ge(pg_catalog.timestamptz, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_ge_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;

CREATE FUNCTION snowflake_time_contained(snowflake, pg_catalog.tstzrange) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_contained'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;
CREATE FUNCTION snowflake_time_contained(pg_catalog.tstzrange, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_time_contained_commuted'
	LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT snowflake_time_support;

CREATE OPERATOR = (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.timestamptz, FUNCTION = snowflake_time_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR = (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
	LEFTARG = pg_catalog.timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_time_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR <@ (
	LEFTARG = snowflake, RIGHTARG = pg_catalog.tstzrange, FUNCTION = snowflake_time_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel);
CREATE OPERATOR @> (
	LEFTARG = pg_catalog.tstzrange, RIGHTARG = snowflake, FUNCTION = snowflake_time_contained,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel);

COMMENT ON OPERATOR >= (snowflake, pg_catalog.timestamptz) IS 'ID generated at or after the time';
COMMENT ON OPERATOR <@ (snowflake, pg_catalog.tstzrange) IS 'ID generated within the time range';

------------------------------------------------------------------------
-- Partitioning by ID
------------------------------------------------------------------------

CREATE FUNCTION snowflake_id_span(span pg_catalog.interval) RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_id_span'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_id_span(pg_catalog.interval) IS 'number of ID values in an interval of time, for ID-range partitioning';

------------------------------------------------------------------------
-- Bulk reservation for loaders
--
-- VOLATILE and PARALLEL RESTRICTED, like snowflake_nextval().
------------------------------------------------------------------------

CREATE FUNCTION snowflake_nextval(n pg_catalog.int8) RETURNS SETOF snowflake
	AS 'MODULE_PATHNAME', 'snowflake_nextval_n'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 1000;

CREATE FUNCTION snowflake_reserve(n pg_catalog.int8,
	OUT first_id snowflake, OUT last_id snowflake,
	OUT ids pg_catalog.int8, OUT lead_ms pg_catalog.int8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_reserve'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION snowflake_nextval(pg_catalog.int8) IS 'n new snowflake IDs, reserved in one step';
COMMENT ON FUNCTION snowflake_reserve(pg_catalog.int8) IS 'reserve n consecutive snowflake IDs for a loader; reports how far ahead of the clock they run';

------------------------------------------------------------------------
-- Other systems' IDs
------------------------------------------------------------------------

CREATE FUNCTION snowflake_decode(id pg_catalog.int8, layout pg_catalog.text,
	OUT ts pg_catalog.timestamptz, OUT node_id pg_catalog.int4, OUT seq pg_catalog.int4)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_decode_layout'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_decode(id pg_catalog.int8, epoch pg_catalog.timestamptz,
	node_bits pg_catalog.int4, sequence_bits pg_catalog.int4,
	tick pg_catalog.interval DEFAULT '1 millisecond',
	sequence_first pg_catalog.bool DEFAULT false,
	OUT ts pg_catalog.timestamptz, OUT node_id pg_catalog.int4, OUT seq pg_catalog.int4)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_decode_custom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_layouts(
	OUT name pg_catalog.text, OUT epoch pg_catalog.timestamptz,
	OUT tick pg_catalog.interval, OUT time_bits pg_catalog.int4,
	OUT node_bits pg_catalog.int4, OUT sequence_bits pg_catalog.int4,
	OUT sequence_first pg_catalog.bool, OUT fields pg_catalog.text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'snowflake_layouts'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 7;

COMMENT ON FUNCTION snowflake_decode(pg_catalog.int8, pg_catalog.text) IS 'decode an ID of a named layout: twitter, discord, instagram, sonyflake, sonyflake_v2, mastodon, or snowflake (this server)';
COMMENT ON FUNCTION snowflake_decode(pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.int4, pg_catalog.interval, pg_catalog.bool) IS 'decode an ID of an explicitly described layout';
COMMENT ON FUNCTION snowflake_layouts() IS 'the named layouts snowflake_decode() knows';

------------------------------------------------------------------------
-- UUIDv7
------------------------------------------------------------------------

CREATE FUNCTION snowflake_to_uuid(id snowflake) RETURNS pg_catalog.uuid
	AS 'MODULE_PATHNAME', 'snowflake_to_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_to_uuid(id pg_catalog.int8) RETURNS pg_catalog.uuid
	AS 'MODULE_PATHNAME', 'snowflake_to_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_from_uuid(u pg_catalog.uuid) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_from_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_to_uuid(snowflake) IS 'the UUIDv7 of the same millisecond, carrying the node and sequence';
COMMENT ON FUNCTION snowflake_to_uuid(pg_catalog.int8) IS 'the UUIDv7 of the same millisecond, carrying the node and sequence';
COMMENT ON FUNCTION snowflake_from_uuid(pg_catalog.uuid) IS 'the snowflake ID a snowflake_to_uuid() UUID came from';

--
-- Since 1.2: many nodes.  Servers listed in snowflake.peers ask each other for
-- snowflake_node_info() to catch two primaries with one node ID, and to
-- measure clock skew; snowflake_peers() shows what this server found.
--

-- What a peer asks for: node ID, layout, start time, recovery state,
-- clock, since when this server generates IDs (generating_since_ms,
-- since 1.6: its first ID since start or promotion; NULL before), and
-- whether it claims its node ID or is admitted to generate (since 1.7: the
-- peers' claim-then-ask, doc/protocol.md), nothing secret.  Executable by everyone, so that the peer checker may
-- connect as any role.  VOLATILE: it reads the clock.
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

CREATE FUNCTION snowflake_peers(
	OUT peer pg_catalog.text,
	OUT reachable pg_catalog.bool,
	OUT node_id pg_catalog.int4,
	OUT in_recovery pg_catalog.bool,
	OUT clock_skew_ms pg_catalog.int8,
	OUT round_trip_ms pg_catalog.int8,
	OUT checked_at pg_catalog.timestamptz,
	OUT status pg_catalog.text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'snowflake_peers_report'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 4;

COMMENT ON FUNCTION snowflake_peers() IS 'what the last check of each peer in snowflake.peers found';

REVOKE ALL ON FUNCTION snowflake_peers() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION snowflake_peers() TO pg_monitor;

--
-- Since 1.3: privileges after the security review.
--
-- Reserving a large block of IDs borrows future milliseconds, which every
-- session shares: a role that reserved 40 million IDs at a time in a loop
-- could keep the generator at its snowflake.max_borrow bound, so that
-- everyone else's snowflake_nextval() waits or fails.  Bulk reservation is
-- therefore for roles an administrator grants it to, like a loader:
--	 GRANT EXECUTE ON FUNCTION snowflake_reserve(bigint),
--	                           snowflake_nextval(bigint) TO loader;
-- snowflake_nextval() with no argument stays open to everyone, as nextval()
-- is to everyone with USAGE on a sequence.
--
REVOKE ALL ON FUNCTION snowflake_reserve(pg_catalog.int8) FROM PUBLIC;
REVOKE ALL ON FUNCTION snowflake_nextval(pg_catalog.int8) FROM PUBLIC;

------------------------------------------------------------------------
-- Since 1.5: adopting snowflake IDs in an existing table
--
-- snowflake_adopt(tbl, col, dry_run) switches one key column that is
-- filled by a serial sequence or an identity, or that has no default, to
-- DEFAULT snowflake_nextval().  It returns the statements that do it, one
-- a row, in the order they must run.  With dry_run => true (the default)
-- it only returns them, to be read or run later, together, in one
-- transaction; with dry_run => false it also runs each of them, in the
-- caller's transaction.  The statements are:
--
--   1. for an identity column: ALTER TABLE ... DROP IDENTITY, which drops
--      the identity's sequence;
--   2. for a smallint or integer column: ALTER TABLE ... TYPE bigint, and
--      the same for every smallint or integer column that holds its keys
--      through foreign keys, directly or through a chain of them, in any
--      schema.  Each table gets one ALTER TABLE for all its columns, the
--      key's own table first.  A partitioned or inherited table is altered
--      at its top-level parent; ALTER TABLE carries the change to every
--      partition and child.  Columns that are already bigint stay as they
--      are, but a smallint or integer column referencing a bigint key is
--      still widened: it will receive snowflake IDs;
--   3. ALTER TABLE ... SET DEFAULT <schema>.snowflake_nextval(), with the
--      schema the extension is in now;
--   4. for a serial column, its old sequence: DROP SEQUENCE if nothing
--      but this default used it.  A sequence that something else still
--      uses (another column's default, a view) is kept, released from the
--      column with ALTER SEQUENCE ... OWNED BY NONE, so that dropping the
--      column later cannot drop it and pg_get_serial_sequence() no longer
--      names it (Django and Rails reset sequences through it).  That is
--      said in a comment line ("-- ...") among the statements and in a
--      NOTICE.  A sequence the column does not own is never touched;
--   5. COMMENT ON COLUMN, recording the boundary: the first snowflake ID
--      of the moment of adoption, snowflake_from_timestamp(now()).  Every
--      existing key is below it, and every ID the new default generates
--      is at or above it, so "id < boundary" tells an adopted key from a
--      snowflake ID.  The comment reads "snowflake_adopt: keys below N
--      predate snowflake IDs (switched <time> UTC)"; an earlier comment
--      on the column is kept below that line.  With a dry run the
--      boundary is the time of the dry run, which only makes it more
--      conservative when the statements are run later.
--
-- Existing rows keep their keys.  The type changes rewrite each table
-- and its indexes under an ACCESS EXCLUSIVE lock.  With dry_run => false
-- the key's table is locked that way first, so that no row can slip in
-- between the checks below and the changes.
--
-- It refuses, before anything is changed and in a dry run as well:
--
--   * a relation that is not a table (wrong_object_type), a column that
--     does not exist (undefined_column);
--   * a column that is not smallint, integer or bigint, or is already of
--     type snowflake (datatype_mismatch: the column's data type is what
--     does not fit, as for a foreign key between incompatible types;
--     wrong_object_type would say the table is the wrong kind of
--     relation);
--   * a generated column, a column whose default already calls
--     snowflake_nextval(), or one whose default is something other than
--     nextval() of a sequence, which it will not silently replace
--     (object_not_in_prerequisite_state);
--   * existing keys at or above the first snowflake ID of now: they
--     would collide with new IDs or sort after them
--     (object_not_in_prerequisite_state);
--   * objects that make ALTER TABLE ... TYPE fail on a column it has to
--     widen, in any table or partition: views and rules, triggers,
--     policies, generated columns, publications, SQL-standard function
--     bodies and partition keys; other objects that use the sequence of
--     an identity column, which DROP IDENTITY would have to drop
--     (dependent_objects_still_exist, naming every object, as DROP does);
--   * a caller who does not own (or belong to the owner role of) the
--     table, its partitions and children, and every table whose column it
--     has to widen (insufficient_privilege, as "must be owner of");
--   * on Citus, a key whose table, or a table whose column it has to
--     widen, is one Citus manages (feature_not_supported): Citus refuses
--     to alter a distribution column (type or default) and to change the
--     type of a column whose default calls a sequence, so the statements
--     would fail half-way on a real run.  The hint names the path that
--     works: undistribute_table(), snowflake_adopt(), distribute again.
--     Doing that here would move every row of the table to the
--     coordinator and back inside the caller's transaction, which is not
--     a step to take behind anyone's back.
--
-- The function runs as its caller, with row_security off, so that its
-- check of the existing keys sees every row or fails (row-level security
-- would otherwise hide keys from it), and with search_path set to
-- pg_catalog, pg_temp, so that no object of the caller's can capture a
-- name in its queries; catalogs and core functions are qualified all the
-- same.  The extension is relocatable, so there is no @extschema@: it
-- finds the schema of its own snowflake_nextval() through pg_depend when
-- it runs, and names the extension's functions with that schema.
-- Statements are built with format('%I') from catalog names, and every
-- object in them is schema-qualified, so they mean the same under any
-- search_path.
------------------------------------------------------------------------

CREATE FUNCTION snowflake_adopt(tbl pg_catalog.regclass,
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

COMMENT ON FUNCTION snowflake_adopt(pg_catalog.regclass, pg_catalog.name, pg_catalog.bool) IS 'the statements that switch a serial, identity or plain integer key column to snowflake IDs; runs them unless dry_run';

------------------------------------------------------------------------
-- Comments on the objects defined above without one: the operators and
-- their functions, the I/O and support functions, the casts and the
-- operator classes and families.  Every object of the extension has one.
------------------------------------------------------------------------

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

------------------------------------------------------------------------
-- Node IDs leased from a registry: a server without snowflake.node_id
-- (and without Citus) claims one from the database its
-- snowflake.node_registry names, which has the extension
-- snowflake_registry (since 1.7; in 1.6 the registry was part of this
-- extension).  These two functions are the holder's.
------------------------------------------------------------------------

-- On a lease holder: what it holds (its cache, pg_snowflake/lease) and
-- what the registry last said.
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

-- On a lease holder: stops generating for good (until a restart, which
-- claims a new lease), and releases the lease with its final high-water
-- mark.  True once the registry has it; false if the registry could not
-- be reached in time (the release is then retried by the server, which
-- keeps refusing to generate).
CREATE FUNCTION snowflake_release_node_id() RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_release_node_id'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION snowflake_release_node_id() IS 'releases this server''s leased node ID with its final high-water mark, and stops generating';
REVOKE ALL ON FUNCTION snowflake_release_node_id() FROM PUBLIC;

------------------------------------------------------------------------
-- Since 1.6: causal order across servers.  After a server has observed an
-- ID, every ID it issues is greater.  snowflake_observe() is for
-- applications that carry the last ID they saw; the trigger, attached
-- ENABLE ALWAYS to tables a subscription writes into, observes every
-- applied row.  (1.6's peer checker also followed each listed server's
-- last ID; since 1.7 it steers no server.)
------------------------------------------------------------------------

CREATE FUNCTION snowflake_observe(id snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_observe'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

CREATE FUNCTION snowflake_observe(id pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_observe'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

CREATE FUNCTION snowflake_observe_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'snowflake_observe_trigger'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION snowflake_observe(snowflake) IS 'every ID this server issues from now on is greater than this one; true if that moved the generator';
COMMENT ON FUNCTION snowflake_observe(pg_catalog.int8) IS 'every ID this server issues from now on is greater than this one; true if that moved the generator';
COMMENT ON FUNCTION snowflake_observe_trigger() IS 'row trigger: observes the key (argument 1, default id) of every row inserted or updated; attach ENABLE ALWAYS on subscribers';

-- One call moves this server's generator up to max_borrow ahead of its
-- clock for every session (as a bulk reservation may): granted by the
-- operator, as snowflake_reserve() is.  Creating the trigger needs EXECUTE
-- on its function; once attached it fires for whoever writes the row.
REVOKE ALL ON FUNCTION snowflake_observe(snowflake) FROM PUBLIC;
REVOKE ALL ON FUNCTION snowflake_observe(pg_catalog.int8) FROM PUBLIC;
REVOKE ALL ON FUNCTION snowflake_observe_trigger() FROM PUBLIC;
