/*-------------------------------------------------------------------------
 *
 * decode.c
 *	  SQL functions that take IDs apart and build them from parts, in the
 *	  layout configured on this server.
 *
 * All of them are STABLE rather than IMMUTABLE: their results depend on
 * snowflake.epoch and the field widths, which are fixed while the server
 * runs but may differ after a restart.  They need no shared memory.  The
 * planner rewrites snowflake_decode(id) into the scalar accessors below
 * (snowflake_decode_support, planner_support.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/decode.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/timestamp.h"

#include "layout.h"
#include "records.h"

PG_FUNCTION_INFO_V1(snowflake_decode);
PG_FUNCTION_INFO_V1(snowflake_timestamp);
PG_FUNCTION_INFO_V1(snowflake_node_id_of);
PG_FUNCTION_INFO_V1(snowflake_seq);
PG_FUNCTION_INFO_V1(snowflake_from_timestamp);
PG_FUNCTION_INFO_V1(snowflake_from_parts);
PG_FUNCTION_INFO_V1(snowflake_id_span);

/*
 * Reads argument 'argno' as an ID.  The bigint variants of the functions
 * share this code, so negative values are rejected here.
 */
static inline int64
id_arg(FunctionCallInfo fcinfo, int argno)
{
	int64		id = PG_GETARG_INT64(argno);

	snowflake_check_id(id);
	return id;
}

/*
 * snowflake_decode(id) RETURNS record (ts timestamptz, node_id int, seq int)
 */
Datum
snowflake_decode(PG_FUNCTION_ARGS)
{
	int64		id = id_arg(fcinfo, 0);
	const SnowflakeLayout *layout;
	TupleDesc	tupdesc = (TupleDesc) fcinfo->flinfo->fn_extra;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	/* build the result descriptor once per call site */
	if (tupdesc == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		tupdesc = snowflake_result_tupdesc(fcinfo, 3);
		fcinfo->flinfo->fn_extra = tupdesc;
		MemoryContextSwitchTo(oldcxt);
	}

	layout = snowflake_layout();
	values[0] = TimestampTzGetDatum(snowflake_ms_to_timestamptz(layout,
																snowflake_id_ms(layout, id)));
	values[1] = Int32GetDatum(snowflake_id_node(layout, id));
	values[2] = Int32GetDatum(snowflake_id_seq(layout, id));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * snowflake_timestamp(id) RETURNS timestamptz: the start of the millisecond
 * in which the ID was generated.
 */
Datum
snowflake_timestamp(PG_FUNCTION_ARGS)
{
	int64		id = id_arg(fcinfo, 0);
	const SnowflakeLayout *layout;

	layout = snowflake_layout();
	PG_RETURN_TIMESTAMPTZ(snowflake_ms_to_timestamptz(layout,
													  snowflake_id_ms(layout, id)));
}

/*
 * snowflake_node_id(id) RETURNS integer
 *
 * (The C name differs from the SQL name because snowflake_node_id is the
 * variable of the snowflake.node_id setting.)
 */
Datum
snowflake_node_id_of(PG_FUNCTION_ARGS)
{
	int64		id = id_arg(fcinfo, 0);
	const SnowflakeLayout *layout;

	layout = snowflake_layout();
	PG_RETURN_INT32(snowflake_id_node(layout, id));
}

/*
 * snowflake_seq(id) RETURNS integer
 */
Datum
snowflake_seq(PG_FUNCTION_ARGS)
{
	int64		id = id_arg(fcinfo, 0);
	const SnowflakeLayout *layout;

	layout = snowflake_layout();
	PG_RETURN_INT32(snowflake_id_seq(layout, id));
}

/*
 * Converts ts to a time field, raising an error when the layout cannot
 * represent it.
 */
static int64
time_field_or_error(const SnowflakeLayout *layout, TimestampTz ts)
{
	int64		ms;

	if (TIMESTAMP_IS_NOBEGIN(ts))
		ms = -1;
	else if (TIMESTAMP_IS_NOEND(ts))
		ms = layout->max_ms + 1;
	else
		ms = snowflake_timestamptz_to_ms(layout, ts);

	if (ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp \"%s\" is before the snowflake epoch",
						timestamptz_to_str(ts)),
				 errdetail("The epoch (\"%s\") is %s.", "snowflake.epoch",
						   snowflake_unix_ms_to_str(layout->epoch_ms))));
	if (ms > layout->max_ms)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp \"%s\" is beyond the snowflake time range",
						timestamptz_to_str(ts)),
				 errdetail("With %d time bits, IDs represent times before %s.",
						   layout->time_bits,
						   snowflake_unix_ms_to_str(layout->epoch_ms +
													layout->max_ms + 1))));
	return ms;
}

/*
 * snowflake_from_timestamp(timestamptz) RETURNS snowflake: the smallest ID
 * of the millisecond containing ts (node 0, sequence 0).  Every ID generated
 * at or after that millisecond is >= the result, every ID generated before
 * it is smaller; so a pair of these bounds a time range on an ID index.
 */
Datum
snowflake_from_timestamp(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	const SnowflakeLayout *layout;

	layout = snowflake_layout();
	PG_RETURN_INT64(snowflake_compose(layout,
									  time_field_or_error(layout, ts), 0, 0));
}

/*
 * snowflake_from_parts(ts timestamptz, node_id integer, seq integer)
 * RETURNS snowflake
 */
Datum
snowflake_from_parts(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	int32		node = PG_GETARG_INT32(1);
	int32		seq = PG_GETARG_INT32(2);
	const SnowflakeLayout *layout;
	int64		ms;

	layout = snowflake_layout();
	ms = time_field_or_error(layout, ts);

	if (node < 0 || node > layout->max_node)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node ID %d is out of range", node),
				 errdetail("Valid node IDs are 0 to %d.", layout->max_node)));
	if (seq < 0 || seq > layout->max_seq)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sequence number %d is out of range", seq),
				 errdetail("Valid sequence numbers are 0 to %d.", layout->max_seq)));

	PG_RETURN_INT64(snowflake_compose(layout, ms, node, seq));
}

/*
 * snowflake_id_span(interval) RETURNS bigint: how many ID values one
 * interval of time covers, i.e. the interval in milliseconds shifted left
 * past the node and sequence fields.  Consecutive ranges of that size that
 * start at 0 are aligned with the epoch, so they suit partitioning tools
 * that work on integer ranges (pg_partman's ID partitioning).  Days count
 * as 24 hours (IDs carry UTC time); months and years have no fixed length
 * and are refused.
 */
Datum
snowflake_id_span(PG_FUNCTION_ARGS)
{
	Interval   *span = PG_GETARG_INTERVAL_P(0);
	const SnowflakeLayout *layout;
	int64		ms;

	if (span->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("interval must not contain months or years"),
				 errdetail("Months and years have no fixed number of milliseconds."),
				 errhint("Use snowflake_from_timestamp() on the bounds of each month instead.")));
	if (span->time % 1000 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("interval must be a whole number of milliseconds")));

	layout = snowflake_layout();
	ms = (int64) span->day * SNOWFLAKE_MS_PER_DAY + span->time / 1000;
	if (ms <= 0 || ms > layout->max_ms)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("interval must be positive and fit in the snowflake time range")));
	PG_RETURN_INT64(snowflake_first_id_of_ms(layout, ms));
}
