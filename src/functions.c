/*-------------------------------------------------------------------------
 *
 * functions.c
 *	  SQL functions that take IDs apart and build them from parts, in the
 *	  layout configured on this server.
 *
 * All of them are STABLE rather than IMMUTABLE: their results depend on
 * snowflake.epoch and the field widths, which are fixed while the server
 * runs but may differ after a restart.  They need no shared memory.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/timestamp.h"

#include "snowflake.h"

PG_FUNCTION_INFO_V1(snowflake_decode);
PG_FUNCTION_INFO_V1(snowflake_timestamp);
PG_FUNCTION_INFO_V1(snowflake_node_id_of);
PG_FUNCTION_INFO_V1(snowflake_seq);
PG_FUNCTION_INFO_V1(snowflake_from_timestamp);
PG_FUNCTION_INFO_V1(snowflake_from_parts);
PG_FUNCTION_INFO_V1(snowflake_id_span);
PG_FUNCTION_INFO_V1(snowflake_decode_support);

/*
 * The row type a record-returning function of ours was declared with,
 * blessed, after checking that it has the natts columns the C code fills.
 * A library newer than the extension's SQL objects (installed, but
 * ALTER EXTENSION ... UPDATE not run yet) must raise an error rather than
 * return misaligned columns.
 */
TupleDesc
snowflake_result_tupdesc(FunctionCallInfo fcinfo, int natts)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	snowflake_check_result_columns(fcinfo, tupdesc, natts);
	return BlessTupleDesc(tupdesc);
}

void
snowflake_check_result_columns(FunctionCallInfo fcinfo, TupleDesc tupdesc,
							   int natts)
{
	if (tupdesc->natts != natts)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("function %s returns %d columns, but the snowflake library fills %d",
						format_procedure(fcinfo->flinfo->fn_oid),
						tupdesc->natts, natts),
				 errhint("Run ALTER EXTENSION snowflake UPDATE to bring the SQL objects up to date with the library.")));
}

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
	SnowflakeLayout layout;
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

	snowflake_get_layout(&layout);
	values[0] = TimestampTzGetDatum(snowflake_ms_to_timestamptz(&layout,
																id >> layout.shift));
	values[1] = Int32GetDatum((int32) ((id >> layout.seq_bits) & layout.max_node));
	values[2] = Int32GetDatum((int32) (id & layout.max_seq));

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
	SnowflakeLayout layout;

	snowflake_get_layout(&layout);
	PG_RETURN_TIMESTAMPTZ(snowflake_ms_to_timestamptz(&layout,
													  id >> layout.shift));
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
	SnowflakeLayout layout;

	snowflake_get_layout(&layout);
	PG_RETURN_INT32((int32) ((id >> layout.seq_bits) & layout.max_node));
}

/*
 * snowflake_seq(id) RETURNS integer
 */
Datum
snowflake_seq(PG_FUNCTION_ARGS)
{
	int64		id = id_arg(fcinfo, 0);
	SnowflakeLayout layout;

	snowflake_get_layout(&layout);
	PG_RETURN_INT32((int32) (id & layout.max_seq));
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
	SnowflakeLayout layout;

	snowflake_get_layout(&layout);
	PG_RETURN_INT64(snowflake_compose(&layout,
									  time_field_or_error(&layout, ts), 0, 0));
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
	SnowflakeLayout layout;
	int64		ms;

	snowflake_get_layout(&layout);
	ms = time_field_or_error(&layout, ts);

	if (node < 0 || node > layout.max_node)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node ID %d is out of range", node),
				 errdetail("Valid node IDs are 0 to %d.", layout.max_node)));
	if (seq < 0 || seq > layout.max_seq)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sequence number %d is out of range", seq),
				 errdetail("Valid sequence numbers are 0 to %d.", layout.max_seq)));

	PG_RETURN_INT64(snowflake_compose(&layout, ms, node, seq));
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
	SnowflakeLayout layout;
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

	snowflake_get_layout(&layout);
	ms = (int64) span->day * SNOWFLAKE_MS_PER_DAY + span->time / 1000;
	if (ms <= 0 || ms > layout.max_ms)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("interval must be positive and fit in the snowflake time range")));
	PG_RETURN_INT64(ms << layout.shift);
}

/*
 * snowflake_decode_support(internal) RETURNS internal
 *
 * SupportRequestSimplify for snowflake_decode(id): replaces the call by
 * ROW(snowflake_timestamp(id), snowflake_node_id(id), snowflake_seq(id)).
 * The planner then reduces a field selection such as
 * (snowflake_decode(id)).ts to the one accessor it needs, so
 * "SELECT (snowflake_decode(id)).* FROM t" costs three scalar calls per
 * row, without forming a record.  Returns NULL for other requests.
 */
Datum
snowflake_decode_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestSimplify *req;
	FuncExpr   *call;
	Oid			argtype;
	static const char *const accessors[] = {
		"snowflake_timestamp", "snowflake_node_id", "snowflake_seq"
	};
	static const Oid result_types[] = {TIMESTAMPTZOID, INT4OID, INT4OID};
	static const char *const columns[] = {"ts", "node_id", "seq"};
	RowExpr    *row;

	if (!IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestSimplify *) rawreq;
	call = req->fcall;
	if (list_length(call->args) != 1 || call->funcresulttype != RECORDOID)
		PG_RETURN_POINTER(NULL);

	argtype = exprType((Node *) linitial(call->args));

	row = makeNode(RowExpr);
	row->row_typeid = RECORDOID;
	row->row_format = COERCE_IMPLICIT_CAST;
	row->location = call->location;
	for (int i = 0; i < 3; i++)
	{
		Oid			accessor;

		accessor = LookupFuncName(snowflake_sibling_name(call->funcid, accessors[i]),
								  1, &argtype, true);
		if (!OidIsValid(accessor))
			PG_RETURN_POINTER(NULL);
		row->args = lappend(row->args,
							makeFuncExpr(accessor, result_types[i],
										 list_make1(copyObject(linitial(call->args))),
										 InvalidOid, InvalidOid,
										 COERCE_EXPLICIT_CALL));
		row->colnames = lappend(row->colnames, makeString(pstrdup(columns[i])));
	}
	PG_RETURN_POINTER(row);
}
