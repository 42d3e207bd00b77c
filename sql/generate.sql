--
-- snowflake_nextval() and snowflake_currval().  Generated IDs change from
-- run to run, so only properties are printed, never the IDs.
--

-- nothing generated yet in this session
SELECT snowflake_currval();

-- currval follows nextval
SELECT snowflake_nextval() = snowflake_currval() AS currval_matches;

-- the ID carries this server's node ID and the current time: not before
-- the statement started, and not after the clock once it is made (nothing
-- has borrowed ahead of the clock in this fresh server)
SELECT date_trunc('milliseconds', clock_timestamp()) AS before \gset
SELECT snowflake_node_id(id) AS node_id,
       snowflake_timestamp(id) >= :'before'::timestamptz AS not_before_the_call,
       snowflake_timestamp(id) <= clock_timestamp() AS not_after_the_clock
  FROM (SELECT snowflake_nextval() AS id) s;

-- strictly increasing within a statement and across statements
CREATE TEMP TABLE gen AS
  SELECT n, snowflake_nextval() AS id FROM generate_series(1, 100000) n;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       bool_and(id > prev) AS increasing
  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s;
SELECT snowflake_nextval() > (SELECT max(id) FROM gen) AS later_is_larger;

-- within each millisecond the sequence runs 0, 1, 2, ... without gaps:
-- it restarts every millisecond (one session generates here).  The first
-- millisecond is left out: the statements before may have used part of it.
SELECT bool_and(first_seq = 0 AND last_seq = ids - 1) AS sequence_restarts,
       count(*) > 1 AS several_milliseconds
  FROM (SELECT snowflake_timestamp(id) AS ms, min(snowflake_seq(id)) AS first_seq,
               max(snowflake_seq(id)) AS last_seq, count(*) AS ids
          FROM gen GROUP BY 1) per_ms
 WHERE ms > (SELECT snowflake_timestamp(min(id)) FROM gen);
SELECT bool_and(snowflake_node_id(id) = 7) AS all_node_7 FROM gen;

-- as a column default, for bigint and snowflake keys
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), n int);
CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), n int);
INSERT INTO orders (n) SELECT g FROM generate_series(1, 1000) g;
INSERT INTO events (n) SELECT g FROM generate_series(1, 1000) g;
SELECT (SELECT count(DISTINCT id) FROM orders) AS orders,
       (SELECT count(DISTINCT id) FROM events) AS events,
       (SELECT min(id) FROM events) > (SELECT max(id) FROM orders) AS events_later;
-- a key's order is the insertion order
SELECT bool_and(id > prev) AS ordered
  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM events) s;

-- like currval() of a sequence, snowflake_currval() is forgotten by
-- DISCARD ALL and DISCARD SEQUENCES, which connection poolers run between
-- clients; and it is shown only to the role that generated the ID
SELECT snowflake_nextval() = snowflake_currval() AS currval_set;
DISCARD SEQUENCES;
SELECT snowflake_currval();
SELECT snowflake_nextval() = snowflake_currval() AS currval_set;
DISCARD ALL;
SELECT snowflake_currval();
CREATE ROLE snowflake_other_client;
SELECT snowflake_nextval() IS NOT NULL AS generated;
SET ROLE snowflake_other_client;
SELECT snowflake_currval();
RESET ROLE;
SELECT snowflake_currval() IS NOT NULL AS own_id_again;
DROP ROLE snowflake_other_client;

-- works in a read-only transaction (it writes nothing to the database)
BEGIN TRANSACTION READ ONLY;
SELECT snowflake_nextval() > (SELECT max(id) FROM events) AS read_only_ok;
COMMIT;

-- not transactional: IDs of a rolled-back transaction are not given out again
BEGIN;
SELECT snowflake_nextval() IS NOT NULL AS generated;
SELECT snowflake_currval() AS rolled_back_id \gset
ROLLBACK;
SELECT snowflake_nextval() > :'rolled_back_id'::snowflake AS not_reused;

-- parallel queries run; the generator is evaluated in the leader
CREATE TABLE par AS SELECT g FROM generate_series(1, 100000) g;
ANALYZE par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (VERBOSE, COSTS OFF) SELECT snowflake_nextval() FROM par WHERE g % 2 = 0;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids
  FROM (SELECT snowflake_nextval() AS id FROM par WHERE g % 2 = 0) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the labels that make the above hold
SELECT oid::regprocedure AS function, provolatile, proparallel FROM pg_proc
 WHERE proname IN ('snowflake_nextval', 'snowflake_currval', 'snowflake_reserve')
 ORDER BY oid::regprocedure::text;

DROP TABLE orders, events, par;
