/*-------------------------------------------------------------------------
 *
 * status.c
 *	  snowflake_status(): one row that tells an operator the state of the
 *	  generator, its clock, its high-water mark and its worker.
 *
 * The shared fields are copied under the spinlock in one go, so the row is
 * a consistent snapshot; everything derived from them is computed after.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/status.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "snowflake.h"

PG_FUNCTION_INFO_V1(snowflake_status);

#define STATUS_COLUMNS 27

static const char *
policy_name(int policy)
{
	switch (policy)
	{
		case SNOWFLAKE_CLOCK_BORROW:
			return "borrow";
		case SNOWFLAKE_CLOCK_WAIT:
			return "wait";
		case SNOWFLAKE_CLOCK_ERROR:
			return "error";
	}
	return "unknown";
}

/*
 * Returns Unix ms as a timestamptz Datum, or sets *isnull when it is 0
 * ("never") or outside timestamptz's range.
 */
static Datum
unix_ms_datum(int64 unix_ms, bool *isnull)
{
	if (unix_ms == 0)
	{
		*isnull = true;
		return (Datum) 0;
	}
	return TimestampTzGetDatum(snowflake_unix_ms_to_timestamptz(unix_ms));
}

/*
 * snowflake_status() RETURNS record; see the install script for the
 * columns and the README for what each means.
 */
Datum
snowflake_status(PG_FUNCTION_ARGS)
{
	SnowflakeSharedState *state = snowflake_shared_state();
	SnowflakeSharedState snap;
	SnowflakeLayout layout;
	TupleDesc	tupdesc;
	Datum		values[STATUS_COLUMNS];
	bool		nulls[STATUS_COLUMNS];
	int64		now_ms;
	int64		last_ms;
	int64		lead_ms;
	const char *problem = NULL;
	int			i = 0;

	tupdesc = snowflake_result_tupdesc(fcinfo, STATUS_COLUMNS);

	snowflake_get_layout(&layout);

	/* a consistent snapshot of the fields under the spinlock */
	SpinLockAcquire(&state->mutex);
	snap.last_slot = state->last_slot;
	snap.ids_issued = state->ids_issued;
	snap.max_lead_ms = state->max_lead_ms;
	snap.hwm_id = state->hwm_id;
	snap.hwm_written_at = state->hwm_written_at;
	snap.hwm_writes = state->hwm_writes;
	snap.hwm_backend_writes = state->hwm_backend_writes;
	snap.hwm_refused = state->hwm_refused;
	snap.worker_pid = state->worker_pid;
	snap.worker_checked_at = state->worker_checked_at;
	snap.clock_steps_back = state->clock_steps_back;
	snap.largest_step_back_ms = state->largest_step_back_ms;
	snap.clock_jumps_forward = state->clock_jumps_forward;
	snap.largest_jump_forward_ms = state->largest_jump_forward_ms;
	SpinLockRelease(&state->mutex);

	last_ms = snap.last_slot >> layout.seq_bits;
	now_ms = snowflake_unix_ms_now() - layout.epoch_ms;
	lead_ms = Max(last_ms - now_ms, 0);

	/* the first reason snowflake_nextval() would fail right now, if any */
	if (snowflake_node_id < 0)
		problem = psprintf("\"%s\" is not set", "snowflake.node_id");
	else if (snap.hwm_refused)
		problem = state->hwm_problem;	/* set at startup, never changed */
	else if (state->node_conflict &&
			 snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE)
	{
		LWLockAcquire(state->peers_lock, LW_SHARED);
		problem = psprintf("node ID conflict: %s", state->node_conflict_detail);
		LWLockRelease(state->peers_lock);
	}
	else if (RecoveryInProgress())
		problem = "the server is in recovery";
	else if (now_ms > layout.max_ms ||
			 snap.last_slot >= ((layout.max_ms << layout.seq_bits) | layout.max_seq))
		problem = "the time bits of the layout are exhausted";
	else if (lead_ms > (snowflake_clock_policy == SNOWFLAKE_CLOCK_BORROW ?
						snowflake_max_borrow : 0) + snowflake_clock_wait_timeout)
		problem = psprintf("the system clock is " INT64_FORMAT " ms behind the generator",
						   lead_ms);

	memset(nulls, 0, sizeof(nulls));

	/* identity and layout */
	if (snowflake_node_id >= 0)
		values[i++] = Int32GetDatum(snowflake_node_id);
	else
		nulls[i++] = true;
	values[i++] = TimestampTzGetDatum(snowflake_unix_ms_to_timestamptz(layout.epoch_ms));
	values[i++] = Int32GetDatum(layout.time_bits);
	values[i++] = Int32GetDatum(layout.node_bits);
	values[i++] = Int32GetDatum(layout.seq_bits);
	values[i] = unix_ms_datum(layout.epoch_ms + layout.max_ms + 1, &nulls[i]);
	i++;
	values[i++] = CStringGetTextDatum(policy_name(snowflake_clock_policy));

	/* generation */
	if (snap.ids_issued > 0 && snowflake_node_id >= 0)
	{
		values[i++] = Int64GetDatum(snowflake_compose(&layout, last_ms,
													  snowflake_node_id,
													  (int32) (snap.last_slot & layout.max_seq)));
		values[i] = unix_ms_datum(layout.epoch_ms + last_ms, &nulls[i]);
		i++;
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i++] = Int64GetDatum((int64) snap.ids_issued);
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&state->seq_exhaustions));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&state->clock_waits));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&state->clock_errors));
	values[i++] = Int64GetDatum(lead_ms);
	values[i++] = Int64GetDatum(snap.max_lead_ms);

	/* clock steps seen by the worker */
	values[i++] = Int64GetDatum((int64) snap.clock_steps_back);
	values[i++] = Int64GetDatum(snap.largest_step_back_ms);
	values[i++] = Int64GetDatum((int64) snap.clock_jumps_forward);
	values[i++] = Int64GetDatum(snap.largest_jump_forward_ms);

	/* durable high-water mark */
	if (snap.hwm_id >= 0)
	{
		values[i++] = Int64GetDatum(snap.hwm_id);
		values[i] = unix_ms_datum(layout.epoch_ms + (snap.hwm_id >> layout.shift),
								  &nulls[i]);
		i++;
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i] = unix_ms_datum(snap.hwm_written_at, &nulls[i]);
	i++;
	values[i++] = Int64GetDatum((int64) snap.hwm_writes);
	values[i++] = Int64GetDatum((int64) snap.hwm_backend_writes);

	/* worker */
	if (snap.worker_pid != 0)
		values[i++] = Int32GetDatum(snap.worker_pid);
	else
		nulls[i++] = true;
	values[i] = unix_ms_datum(snap.worker_checked_at, &nulls[i]);
	i++;

	if (problem)
		values[i++] = CStringGetTextDatum(problem);
	else
		nulls[i++] = true;

	Assert(i == STATUS_COLUMNS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
