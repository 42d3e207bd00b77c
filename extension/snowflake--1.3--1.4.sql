/* sql/snowflake--1.3--1.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.4'" to load this file. \quit

--
-- 1.4: faster decoding.  A planner support function turns
-- snowflake_decode(id) into ROW(snowflake_timestamp(id), ...), so that
-- (snowflake_decode(id)).* and (snowflake_decode(id)).ts cost scalar calls
-- instead of forming a record per field.
--
CREATE FUNCTION snowflake_decode_support(pg_catalog.internal)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'snowflake_decode_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

ALTER FUNCTION snowflake_decode(snowflake) SUPPORT snowflake_decode_support;
ALTER FUNCTION snowflake_decode(pg_catalog.int8) SUPPORT snowflake_decode_support;

--
-- The type's output and send functions and the comparison, hash and
-- min/max functions become C entry points of the library that call
-- bigint's.  Declared LANGUAGE internal, they made the executor look each
-- one up by name among all built-in functions whenever it prepared a call
-- (for every query using an operator, every result set of the type); a C
-- function of a loaded library is found in a hash table.
--
CREATE OR REPLACE FUNCTION snowflake_out(snowflake) RETURNS pg_catalog.cstring
	AS 'MODULE_PATHNAME', 'snowflake_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_send(snowflake) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'snowflake_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, snowflake) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, pg_catalog.int8) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, pg_catalog.int8) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_eq(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_ne(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_le(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_gt(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_ge(pg_catalog.int8, snowflake) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'snowflake_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT snowflake_int8_support;
CREATE OR REPLACE FUNCTION snowflake_cmp(pg_catalog.int8, snowflake) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_hash(snowflake) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'snowflake_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_hash_extended(snowflake, pg_catalog.int8)
	RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'snowflake_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_larger(snowflake, snowflake) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_smaller(snowflake, snowflake) RETURNS snowflake
	AS 'MODULE_PATHNAME', 'snowflake_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
