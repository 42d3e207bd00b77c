--
-- snowflake_status(): what an operator sees
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- layout and identity
SELECT node_id, epoch, time_bits, node_bits, sequence_bits, time_runs_out_at,
       clock_policy, problem, node_id_source
  FROM snowflake_status();

-- after generating, the counters and the high-water mark tell the truth
SELECT snowflake_nextval() IS NOT NULL AS generated;
SELECT last_id = snowflake_currval() AS last_id_is_ours,
       last_id_time = snowflake_timestamp(snowflake_currval()) AS last_id_time_ok,
       ids_issued > 0 AS counted,
       hwm_id >= last_id AS hwm_covers_last_id,
       hwm_time >= last_id_time AS hwm_time_ok,
       hwm_writes > 0 AS hwm_written,
       hwm_written_at <= clock_timestamp() AS hwm_written_at_ok,
       clock_lead_ms <= 10000 AS lead_within_bound,
       clock_errors = 0 AS no_clock_errors,
       clock_steps_back = 0 AS no_steps_back,
       worker_pid IS NOT NULL AS worker_running
  FROM snowflake_status();


-- ids_issued counts every ID
SELECT ids_issued AS before FROM snowflake_status() \gset
SELECT count(snowflake_nextval()) FROM generate_series(1, 1000);
SELECT ids_issued - :before AS issued FROM snowflake_status();

-- only superusers and members of pg_monitor may read it
CREATE ROLE snowflake_status_user;
SET ROLE snowflake_status_user;
SELECT node_id FROM snowflake_status();
RESET ROLE;
GRANT pg_monitor TO snowflake_status_user;
SET ROLE snowflake_status_user;
SELECT node_id FROM snowflake_status();
RESET ROLE;
DROP ROLE snowflake_status_user;

-- a library newer than the SQL definition (before ALTER EXTENSION ...
-- UPDATE) refuses to return misaligned columns
CREATE FUNCTION outdated_status(OUT node_id integer, OUT epoch timestamptz)
	AS '$libdir/snowflake', 'snowflake_status' LANGUAGE C;
SELECT * FROM outdated_status();
DROP FUNCTION outdated_status();

RESET TimeZone;
RESET DateStyle;
