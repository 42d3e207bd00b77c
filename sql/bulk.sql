--
-- Reserving many IDs at once
--

-- n IDs from one reservation: increasing, distinct, this node's
CREATE TEMP TABLE blk AS SELECT row_number() OVER () AS n, id FROM snowflake_nextval(100000) id;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       bool_and(snowflake_node_id(id) = 7) AS node_7
  FROM blk;
SELECT bool_and(id > prev) AS increasing
  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM blk) s;
-- 100,000 IDs need 25 milliseconds of sequence numbers: consecutive slots
SELECT count(DISTINCT snowflake_timestamp(id)) >= 25 AS spans_milliseconds,
       bool_and(snowflake_seq(id) BETWEEN 0 AND 4095) AS seq_in_range
  FROM blk;
SELECT snowflake_currval() = (SELECT max(id) FROM blk) AS currval_is_last;
-- and later IDs come after them
SELECT snowflake_nextval() > (SELECT max(id) FROM blk) AS next_is_later;

-- snowflake_reserve() reports the block and how far ahead of the clock it
-- reaches (50,000 IDs take 12.2 ms of sequence numbers, so its last one is
-- at least 12 ms ahead); the next ID follows it
SELECT ids, lead_ms >= 12 AS lead_reported,
       last_id > first_id AS ordered,
       snowflake_currval() = last_id AS currval_is_last,
       first_id > (SELECT max(id) FROM blk) AS after_previous
  FROM snowflake_reserve(50000);
SELECT snowflake_currval() AS reserved_last \gset
SELECT snowflake_nextval() > :'reserved_last'::snowflake AS next_is_later;

-- a block of 50,000 consecutive slots: (time field << 12 | sequence) of its
-- last ID minus that of its first is 49,999
SELECT (extract(epoch FROM snowflake_timestamp(last_id) - snowflake_timestamp(first_id)) * 1000)::bigint * 4096
       + snowflake_seq(last_id) - snowflake_seq(first_id) AS slots_minus_one
  FROM snowflake_reserve(50000);

-- a block of two seconds of sequence numbers runs 2 s ahead of the clock;
-- the single IDs after it run out of each borrowed millisecond's sequence
-- and move on to the next, which the status counts
SELECT sequence_exhaustions AS exhaustions_before FROM snowflake_status() \gset
SELECT lead_ms >= 1999 AS two_seconds_ahead FROM snowflake_reserve(4096 * 2000);
SELECT count(snowflake_nextval()) FROM generate_series(1, 4097);
SELECT sequence_exhaustions > :exhaustions_before AS exhaustion_counted
  FROM snowflake_status();

-- limits
SELECT * FROM snowflake_nextval(0);
SELECT * FROM snowflake_reserve(-5);
SELECT * FROM snowflake_reserve(100000000);

DROP TABLE blk;
