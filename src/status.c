/*-------------------------------------------------------------------------
 *
 * status.c
 *	  snowflake_status(): one row that tells an operator the state of the
 *	  generator, its clock, its high-water mark and its worker.
 *
 * Each owner hands out a consistent snapshot of its own state (generator,
 * state file, clock, clock watcher, admission); this file only puts them
 * side by side and derives the rest.  It reads, never decides: the clock
 * is peeked at, not observed, so a monitoring query changes nothing and
 * logs nothing.  It fills the columns its SQL declaration has: 27 in
 * version 1.4, 29 in 1.5, 35 from 1.6, so that the library works under
 * each until ALTER EXTENSION ... UPDATE.
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

#include "admission.h"
#include "clock.h"
#include "generator.h"
#include "identity.h"
#include "layout.h"
#include "records.h"
#include "settings.h"
#include "state_file.h"
#include "workers.h"

PG_FUNCTION_INFO_V1(snowflake_status);

#define STATUS_COLUMNS_1_4	27
#define STATUS_COLUMNS_1_5	29
#define STATUS_COLUMNS		35

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
				const SnowflakeStateFileStatus *file, int64 now_unix_ms,
				int64 lead_ms)
{
	char	   *refused = snowflake_admission_problem();

	if (refused)
		return refused;
	if (file->last_error)
		return psprintf(_("could not write the high-water mark: %s"),
						file->last_error);
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
	if (gen->granted_ms != PG_INT64_MAX &&
		now_unix_ms - layout->epoch_ms > gen->granted_ms)
		return gen->granted_ms < 0 ?
			pstrdup(_("the registry has granted this fenced lease no IDs yet")) :
			psprintf(_("the registry has granted this fenced lease no IDs past %s"),
					 snowflake_unix_ms_to_str(layout->epoch_ms + gen->granted_ms));
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
	SnowflakeStateFileStatus file;
	SnowflakeClockStatus clock;
	SnowflakeIdentityStatus ident;
	TupleDesc	tupdesc;
	Datum		values[STATUS_COLUMNS];
	bool		nulls[STATUS_COLUMNS];
	int			natts;
	int64		now_unix_ms;
	int64		last_ms;
	int64		lead_ms = 0;
	int64		held_ms;
	int			worker_pid;
	int64		worker_checked_at;
	const char *problem;
	int			i = 0;

	snowflake_require_preload();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts == STATUS_COLUMNS_1_4 || tupdesc->natts == STATUS_COLUMNS_1_5)
		natts = tupdesc->natts;
	else
		natts = STATUS_COLUMNS;
	tupdesc = snowflake_result_tupdesc(fcinfo, natts);

	snowflake_generator_status(&gen);
	snowflake_state_file_status(&file);
	snowflake_clock_status(&clock);
	snowflake_identity_status(&ident);
	snowflake_clock_watcher_status(&worker_pid, &worker_checked_at);

	now_unix_ms = snowflake_clock_peek_ms(&held_ms);
	last_ms = gen.last_slot >= 0 ? snowflake_slot_ms(layout, gen.last_slot) : -1;
	if (gen.last_slot >= 0)
		lead_ms = Max(last_ms - (now_unix_ms - layout->epoch_ms), 0);
	problem = current_problem(layout, &gen, &file, now_unix_ms, lead_ms);

	memset(nulls, 0, sizeof(nulls));

	/* identity and layout */
	values[i] = Int32GetDatum(ident.node_id);
	nulls[i++] = ident.node_id < 0;
	values[i] = unix_ms_datum(layout->epoch_ms, &nulls[i]);
	i++;
	values[i++] = Int32GetDatum(layout->time_bits);
	values[i++] = Int32GetDatum(layout->node_bits);
	values[i++] = Int32GetDatum(layout->seq_bits);
	values[i] = unix_ms_datum(layout->epoch_ms + layout->max_ms + 1, &nulls[i]);
	i++;
	values[i++] = CStringGetTextDatum(snowflake_clock_policy_name());

	/* generation */
	if (gen.ids_issued > 0 && ident.node_id >= 0)
	{
		values[i++] = Int64GetDatum(snowflake_slot_to_id(layout, gen.last_slot,
														 ident.node_id));
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
	if (file.mark >= 0)
	{
		values[i++] = Int64GetDatum(file.mark);
		values[i] = unix_ms_datum(layout->epoch_ms +
								  Min(snowflake_id_ms(layout, file.mark), layout->max_ms),
								  &nulls[i]);
		i++;
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i] = unix_ms_datum(file.written_at, &nulls[i]);
	i++;
	values[i++] = Int64GetDatum((int64) file.writes);
	values[i++] = Int64GetDatum((int64) file.backend_writes);

	/* worker */
	values[i] = Int32GetDatum(worker_pid);
	nulls[i++] = worker_pid == 0;
	values[i] = unix_ms_datum(worker_checked_at, &nulls[i]);
	i++;

	values[i] = problem ? CStringGetTextDatum(problem) : (Datum) 0;
	nulls[i++] = problem == NULL;

	/* since 1.5: forward jumps held back */
	if (natts >= STATUS_COLUMNS_1_5)
	{
		values[i++] = Int64GetDatum(held_ms);
		values[i++] = Int64GetDatum((int64) clock.jumps_ignored);
	}

	/* since 1.6: failed writes of the high-water mark, the node ID's
	 * source, and observed IDs */
	if (natts >= STATUS_COLUMNS)
	{
		values[i++] = Int64GetDatum((int64) file.failures);
		values[i++] = CStringGetTextDatum(snowflake_node_source_name(ident.source));
		values[i++] = Int64GetDatum((int64) gen.observations);
		values[i++] = Int64GetDatum((int64) gen.observations_moved);
		values[i++] = Int64GetDatum((int64) gen.observations_refused);
		values[i++] = Int64GetDatum(gen.max_observed_move_ms);
	}

	Assert(i == natts);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
