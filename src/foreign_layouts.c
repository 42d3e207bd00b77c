/*-------------------------------------------------------------------------
 *
 * foreign_layouts.c
 *	  Decoding IDs made by other systems: named layouts (Twitter, Discord,
 *	  Instagram, Sonyflake, Mastodon) and explicit parameters.
 *
 * A layout is an epoch, a tick (the unit of the time field), and the widths
 * of the node and sequence fields below the time field, in either order
 * (Sonyflake puts the sequence above the machine ID).  The time field takes
 * the remaining bits of the 63 a bigint holds.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/foreign_layouts.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/int.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "layout.h"
#include "records.h"

PG_FUNCTION_INFO_V1(snowflake_decode_layout);
PG_FUNCTION_INFO_V1(snowflake_decode_custom);
PG_FUNCTION_INFO_V1(snowflake_timestamp_custom);
PG_FUNCTION_INFO_V1(snowflake_layouts);

typedef struct ForeignLayout
{
	const char *name;
	int64		epoch_ms;		/* Unix ms */
	int64		tick_us;		/* length of one time unit, microseconds */
	int			time_bits;		/* as the system documents it */
	int			node_bits;
	int			seq_bits;
	bool		seq_first;		/* sequence above node (Sonyflake) */
	const char *fields;			/* for snowflake_layouts() */
} ForeignLayout;

/*
 * Published layouts, from each system's own documentation or source.
 * "node" is whatever the system puts there: Twitter's datacenter and worker
 * (5 + 5 bits), Discord's worker and process (5 + 5), Instagram's logical
 * shard, Sonyflake's machine ID.  Where a system documents 64 bits (Discord,
 * Instagram, Mastodon), its IDs fit a bigint until the top bit is needed.
 */
static const ForeignLayout foreign_layouts[] = {
	/* 2010-11-04 01:42:54.657 UTC */
	{"twitter", INT64CONST(1288834974657), 1000, 41, 10, 12, false,
	"41 bits ms | 5 bits datacenter, 5 bits worker | 12 bits sequence"},
	/* 2015-01-01 00:00:00 UTC */
	{"discord", INT64CONST(1420070400000), 1000, 42, 10, 12, false,
	"42 bits ms | 5 bits worker, 5 bits process | 12 bits increment"},
	/* 2011-08-24 21:07:01.721 UTC */
	{"instagram", INT64CONST(1314220021721), 1000, 41, 13, 10, false,
	"41 bits ms | 13 bits shard | 10 bits sequence"},
	/* version 1: 2014-09-01 00:00:00 UTC, in units of 10 ms */
	{"sonyflake", INT64CONST(1409529600000), 10000, 39, 16, 8, true,
	"39 bits of 10 ms | 8 bits sequence | 16 bits machine"},
	/* version 2 defaults: 2025-01-01 00:00:00 UTC */
	{"sonyflake_v2", INT64CONST(1735689600000), 10000, 39, 16, 8, true,
	"39 bits of 10 ms | 8 bits sequence | 16 bits machine"},
	/* the Unix epoch */
	{"mastodon", INT64CONST(0), 1000, 48, 0, 16, false,
	"48 bits ms | 16 bits sequence"},
};

/*
 * Decodes id in the given layout into values[0..2] (ts, node_id, seq).
 */
static void
decode_in_layout(int64 id, int64 epoch_ms, int64 tick_us, int node_bits,
				 int seq_bits, bool seq_first, Datum *values)
{
	int			shift = node_bits + seq_bits;
	int64		ticks;
	int64		node;
	int64		seq;
	int64		offset_us;
	TimestampTz ts;

	snowflake_check_id(id);

	ticks = id >> shift;
	if (seq_first)
	{
		node = id & ((INT64CONST(1) << node_bits) - 1);
		seq = (id >> node_bits) & ((INT64CONST(1) << seq_bits) - 1);
	}
	else
	{
		seq = id & ((INT64CONST(1) << seq_bits) - 1);
		node = (id >> seq_bits) & ((INT64CONST(1) << node_bits) - 1);
	}

	if (pg_mul_s64_overflow(ticks, tick_us, &offset_us) ||
		pg_add_s64_overflow((epoch_ms - SNOWFLAKE_PG_EPOCH_UNIX_MS) * 1000,
							offset_us, &ts) ||
		!IS_VALID_TIMESTAMP(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));

	values[0] = TimestampTzGetDatum(ts);
	values[1] = Int32GetDatum((int32) node);
	values[2] = Int32GetDatum((int32) seq);
}

static Datum
decoded_record(FunctionCallInfo fcinfo, Datum *values)
{
	TupleDesc	tupdesc = snowflake_result_tupdesc(fcinfo, 3);
	bool		nulls[3] = {false, false, false};

	return HeapTupleGetDatum(heap_form_tuple(tupdesc,
											 values, nulls));
}

/*
 * snowflake_decode(id bigint, layout text) RETURNS record (ts, node_id, seq)
 *
 * layout is one of the published layouts, or 'snowflake' for this
 * server's own->
 */
Datum
snowflake_decode_layout(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	Datum		values[3];

	if (pg_strcasecmp(name, "snowflake") == 0)
	{
		const SnowflakeLayout *layout;

		layout = snowflake_layout();
		decode_in_layout(id, layout->epoch_ms, 1000, layout->node_bits,
						 layout->seq_bits, false, values);
		PG_RETURN_DATUM(decoded_record(fcinfo, values));
	}

	for (int i = 0; i < (int) lengthof(foreign_layouts); i++)
	{
		const ForeignLayout *l = &foreign_layouts[i];

		if (pg_strcasecmp(name, l->name) == 0)
		{
			decode_in_layout(id, l->epoch_ms, l->tick_us, l->node_bits,
							 l->seq_bits, l->seq_first, values);
			PG_RETURN_DATUM(decoded_record(fcinfo, values));
		}
	}

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized snowflake layout \"%s\"", name),
			 errhint("Known layouts are listed by snowflake_layouts(); explicit parameters are accepted too.")));
	PG_RETURN_NULL();			/* keep compiler quiet */
}

/*
 * Checks the parameters of an explicitly described layout, and returns its
 * epoch in Unix milliseconds.
 */
static int64
explicit_layout_epoch(TimestampTz epoch, int32 node_bits, int32 seq_bits,
					  int64 tick_us)
{
	/* node_id and seq are returned as integer: at most 31 bits each */
	if (node_bits < 0 || seq_bits < 0 || node_bits > 31 || seq_bits > 31 ||
		node_bits + seq_bits > 62)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid field widths %d and %d", node_bits, seq_bits),
				 errdetail("The node and sequence fields must have from 0 to 31 bits each, and leave at least 1 bit of the 63 for the time.")));
	if (tick_us <= 0 || tick_us % 1000 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid tick interval"),
				 errdetail("The tick must be a positive whole number of milliseconds, without days or months.")));
	if (TIMESTAMP_NOT_FINITE(epoch) || epoch % 1000 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid epoch"),
				 errdetail("The epoch must be a finite time, in whole milliseconds.")));
	return epoch / 1000 + SNOWFLAKE_PG_EPOCH_UNIX_MS;
}

/*
 * snowflake_decode(id bigint, epoch timestamptz, node_bits integer,
 *					sequence_bits integer, tick interval, sequence_first boolean)
 * RETURNS record (ts, node_id, seq)
 */
Datum
snowflake_decode_custom(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	Interval   *tick = PG_GETARG_INTERVAL_P(4);
	int64		epoch_ms;
	Datum		values[3];

	epoch_ms = explicit_layout_epoch(PG_GETARG_TIMESTAMPTZ(1), PG_GETARG_INT32(2),
									 PG_GETARG_INT32(3),
									 tick->month == 0 && tick->day == 0 ? tick->time : 0);
	decode_in_layout(id, epoch_ms, tick->time, PG_GETARG_INT32(2),
					 PG_GETARG_INT32(3), PG_GETARG_BOOL(5), values);
	PG_RETURN_DATUM(decoded_record(fcinfo, values));
}

/*
 * snowflake_timestamp(id, epoch timestamptz, node_bits integer,
 *					   sequence_bits integer) RETURNS timestamptz
 *
 * The time of an ID of an explicitly described layout, in milliseconds
 * after the epoch: IMMUTABLE, for where a STABLE decoder is refused (Citus
 * allows only IMMUTABLE functions in RETURNING, for one).
 */
Datum
snowflake_timestamp_custom(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	int32		node_bits = PG_GETARG_INT32(2);
	int32		seq_bits = PG_GETARG_INT32(3);
	int64		epoch_ms;
	Datum		values[3];

	epoch_ms = explicit_layout_epoch(PG_GETARG_TIMESTAMPTZ(1), node_bits, seq_bits, 1000);
	decode_in_layout(id, epoch_ms, 1000, node_bits, seq_bits, false, values);
	PG_RETURN_DATUM(values[0]);
}

/*
 * snowflake_layouts() RETURNS TABLE (name, epoch, tick, time_bits,
 * node_bits, sequence_bits, sequence_first, fields)
 */
Datum
snowflake_layouts(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const SnowflakeLayout *own;
	char	   *own_fields;

	InitMaterializedSRF(fcinfo, 0);
	snowflake_check_result_columns(fcinfo, rsinfo->setDesc, 8);

	own = snowflake_layout();
	own_fields = psprintf("%d bits ms | %d bits node | %d bits sequence",
						  own->time_bits, own->node_bits, own->seq_bits);

	for (int i = -1; i < (int) lengthof(foreign_layouts); i++)
	{
		Datum		values[8];
		bool		nulls[8] = {false};
		Interval   *tick = (Interval *) palloc0(sizeof(Interval));
		const char *name;
		int64		epoch_ms;
		int			time_bits;
		int			node_bits;
		int			seq_bits;
		bool		seq_first;
		const char *fields;

		if (i < 0)
		{
			name = "snowflake";
			epoch_ms = own->epoch_ms;
			tick->time = 1000;
			time_bits = own->time_bits;
			node_bits = own->node_bits;
			seq_bits = own->seq_bits;
			seq_first = false;
			fields = own_fields;
		}
		else
		{
			const ForeignLayout *l = &foreign_layouts[i];

			name = l->name;
			epoch_ms = l->epoch_ms;
			tick->time = l->tick_us;
			time_bits = l->time_bits;
			node_bits = l->node_bits;
			seq_bits = l->seq_bits;
			seq_first = l->seq_first;
			fields = l->fields;
		}

		values[0] = CStringGetTextDatum(name);
		values[1] = TimestampTzGetDatum(snowflake_unix_ms_to_timestamptz(epoch_ms));
		values[2] = IntervalPGetDatum(tick);
		values[3] = Int32GetDatum(time_bits);
		values[4] = Int32GetDatum(node_bits);
		values[5] = Int32GetDatum(seq_bits);
		values[6] = BoolGetDatum(seq_first);
		values[7] = CStringGetTextDatum(fields);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
