/*-------------------------------------------------------------------------
 *
 * status.c
 *	  snowflake_status(): one row that tells an operator the state of the
 *	  generator, its clock, its high-water mark and its worker.
 *
 * Each owner hands out a consistent snapshot of its own state (generator,
 * high-water mark, clock, clock watcher, peer checker); this file only
 * puts them side by side and derives the rest.  It fills the columns its
 * SQL declaration has: 27 in version 1.4, 29 from 1.5, so that the
 * library works under both until ALTER EXTENSION ... UPDATE.
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

#define STATUS_COLUMNS_1_4	27
#define STATUS_COLUMNS		29

/*
 * Returns Unix ms as a timestamptz Datum, or sets *isnull when it is 0
 * ("never") or outside timestamptz's range.
 */
static Datum
unix_ms_datum(int64 unix_ms, bool *isnull)
{
	TimestampTz ts;

	if (unix_ms == 0 || unix_ms < -(INT64CONST(1) << 52) || unix_ms > (INT64CONST(1) << 52))
	{
		*isnull = true;
		return (Datum) 0;
	}
	ts = (unix_ms - SNOWFLAKE_PG_EPOCH_UNIX_MS) * 1000;
	if (!IS_VALID_TIMESTAMP(ts))
	{
		*isnull = true;
		return (Datum) 0;
	}
	return TimestampTzGetDatum(ts);
}

/*
 * The first reason snowflake_nextval() would fail right now, or NULL.
 */
static const char *
current_problem(const SnowflakeLayout *layout,
				const SnowflakeGeneratorStatus *gen,
				const SnowflakeHwmStatus *mark, int64 now_unix_ms,
				int64 lead_ms)
{
	char		conflict[256];

	if (snowflake_node_id < 0)
		return psprintf(_("\"%s\" is not set"), "snowflake.node_id");
	if (mark->problem)
		return mark->problem;
	if (snowflake_peers_conflict(conflict, sizeof(conflict)) &&
		snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE)
		return psprintf(_("node ID conflict: %s"), conflict);
	if (RecoveryInProgress())
		return _("the server is in recovery");
	if (now_unix_ms < layout->epoch_ms)
		return _("the system clock is before the epoch");
	if (now_unix_ms - layout->epoch_ms > layout->max_ms ||
		gen->last_slot >= layout->max_slot)
		return _("the time bits of the layout are exhausted");
	if (lead_ms > snowflake_allowed_lead_ms() + snowflake_max_wait_ms())
		return psprintf(_("the generator is %lld ms ahead of the system clock"),
						(long long) lead_ms);
	return NULL;
}

/*
 * snowflake_status() RETURNS record; see the install script for the
 * columns and the documentation for what each means.
 */
Datum
snowflake_status(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout = snowflake_layout();
	SnowflakeGeneratorStatus gen;
	SnowflakeHwmStatus mark;
	SnowflakeClockStatus clock;
	TupleDesc	tupdesc;
	Datum		values[STATUS_COLUMNS];
	bool		nulls[STATUS_COLUMNS];
	int			natts;
	int64		now_unix_ms;
	int64		last_ms;
	int64		lead_ms = 0;
	int			worker_pid;
	int64		worker_checked_at;
	const char *problem;
	int			i = 0;

	snowflake_require_shmem();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	natts = tupdesc->natts == STATUS_COLUMNS_1_4 ? STATUS_COLUMNS_1_4 : STATUS_COLUMNS;
	tupdesc = snowflake_result_tupdesc(fcinfo, natts);

	snowflake_generator_status(&gen);
	snowflake_hwm_status(&mark);
	snowflake_clock_status(&clock);
	snowflake_clock_watcher_status(&worker_pid, &worker_checked_at);

	now_unix_ms = snowflake_clock_now_ms();
	last_ms = gen.last_slot >= 0 ? gen.last_slot >> layout->seq_bits : -1;
	if (gen.last_slot >= 0)
		lead_ms = Max(last_ms - (now_unix_ms - layout->epoch_ms), 0);
	problem = current_problem(layout, &gen, &mark, now_unix_ms, lead_ms);

	memset(nulls, 0, sizeof(nulls));

	/* identity and layout */
	values[i] = Int32GetDatum(snowflake_node_id);
	nulls[i++] = snowflake_node_id < 0;
	values[i] = unix_ms_datum(layout->epoch_ms, &nulls[i]);
	i++;
	values[i++] = Int32GetDatum(layout->time_bits);
	values[i++] = Int32GetDatum(layout->node_bits);
	values[i++] = Int32GetDatum(layout->seq_bits);
	values[i] = unix_ms_datum(layout->epoch_ms + layout->max_ms + 1, &nulls[i]);
	i++;
	values[i++] = CStringGetTextDatum(snowflake_clock_policy_name());

	/* generation */
	if (gen.ids_issued > 0 && snowflake_node_id >= 0)
	{
		values[i++] = Int64GetDatum(snowflake_slot_to_id(layout, gen.last_slot,
														 snowflake_node_id));
		values[i] = unix_ms_datum(layout->epoch_ms + last_ms, &nulls[i]);
		i++;
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i++] = Int64GetDatum((int64) gen.ids_issued);
	values[i++] = Int64GetDatum((int64) gen.seq_exhaustions);
	values[i++] = Int64GetDatum((int64) gen.clock_waits);
	values[i++] = Int64GetDatum((int64) gen.clock_errors);
	values[i++] = Int64GetDatum(lead_ms);
	values[i++] = Int64GetDatum(gen.max_lead_ms);

	/* what the clock did */
	values[i++] = Int64GetDatum((int64) clock.steps_back);
	values[i++] = Int64GetDatum(clock.largest_step_back_ms);
	values[i++] = Int64GetDatum((int64) clock.jumps_forward);
	values[i++] = Int64GetDatum(clock.largest_jump_forward_ms);

	/* durable high-water mark */
	if (mark.hwm_id >= 0)
	{
		values[i++] = Int64GetDatum(mark.hwm_id);
		values[i] = unix_ms_datum(layout->epoch_ms +
								  Min(mark.hwm_id >> layout->shift, layout->max_ms),
								  &nulls[i]);
		i++;
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i] = unix_ms_datum(mark.written_at, &nulls[i]);
	i++;
	values[i++] = Int64GetDatum((int64) mark.writes);
	values[i++] = Int64GetDatum((int64) mark.backend_writes);

	/* worker */
	values[i] = Int32GetDatum(worker_pid);
	nulls[i++] = worker_pid == 0;
	values[i] = unix_ms_datum(worker_checked_at, &nulls[i]);
	i++;

	values[i] = problem ? CStringGetTextDatum(problem) : (Datum) 0;
	nulls[i++] = problem == NULL;

	/* since 1.5: forward jumps held back */
	if (natts == STATUS_COLUMNS)
	{
		values[i++] = Int64GetDatum(clock.held_ms);
		values[i++] = Int64GetDatum((int64) clock.jumps_ignored);
	}

	Assert(i == natts);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
