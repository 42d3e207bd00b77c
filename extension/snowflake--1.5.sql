/* extension/snowflake--1.5.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION snowflake" to load this file. \quit

--
-- Version 1.5, installed directly: the same objects as 1.0 followed by its
-- update scripts (the regression test "extension" compares the two, object
-- by object), written as they stand in 1.5.
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
	FUNCTION 1 (pg_catalog.int8, snowflake) snowflake_cmp(pg_catalog.int8, snowflake),

	OPERATOR 1 #<# (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 2 #<=# (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 3 #=# (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 4 #>=# (pg_catalog.int8, pg_catalog.int8),
	OPERATOR 5 #># (pg_catalog.int8, pg_catalog.int8),
	FUNCTION 1 (pg_catalog.int8, pg_catalog.int8) pg_catalog.btint8cmp(pg_catalog.int8, pg_catalog.int8);

CREATE OPERATOR FAMILY snowflake_ops USING hash;

CREATE OPERATOR CLASS snowflake_ops
	DEFAULT FOR TYPE snowflake USING hash FAMILY snowflake_ops AS
	OPERATOR 1 = ,
	FUNCTION 1 snowflake_hash(snowflake),
	FUNCTION 2 snowflake_hash_extended(snowflake, pg_catalog.int8);

ALTER OPERATOR FAMILY snowflake_ops USING hash ADD
	OPERATOR 1 = (snowflake, pg_catalog.int8),
	OPERATOR 1 = (pg_catalog.int8, snowflake),
	OPERATOR 1 #=# (pg_catalog.int8, pg_catalog.int8),
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
	OUT clock_jumps_ignored pg_catalog.int8)
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

-- What a peer asks for: node ID, layout, start time, recovery state and
-- clock, nothing secret.  Executable by everyone, so that the peer checker
-- may connect as any role.  VOLATILE: it reads the clock.
CREATE FUNCTION snowflake_node_info(
	OUT node_id pg_catalog.int4,
	OUT instance_token pg_catalog.int8,
	OUT started_at_ms pg_catalog.int8,
	OUT in_recovery pg_catalog.bool,
	OUT clock_ms pg_catalog.int8,
	OUT epoch_ms pg_catalog.int8,
	OUT node_bits pg_catalog.int4,
	OUT sequence_bits pg_catalog.int4)
	RETURNS record
	AS 'MODULE_PATHNAME', 'snowflake_node_info'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_node_info() IS 'this server''s node ID, layout, start time and clock, for its peers';

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
