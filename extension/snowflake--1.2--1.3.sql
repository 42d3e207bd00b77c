/* sql/snowflake--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.3'" to load this file. \quit

--
-- 1.3: privileges after the security review.
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
