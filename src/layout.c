/*-------------------------------------------------------------------------
 *
 * layout.c
 *	  The layout in force, the one source of truth for what the bits of an
 *	  ID mean: packing fields, and converting time fields to and from
 *	  timestamps.
 *
 * The layout is recomputed by the assign hooks of snowflake.epoch,
 * snowflake.node_bits and snowflake.sequence_bits (guc.c), which cannot
 * change while a preloading server runs.  Nothing else reads those settings
 * directly.  Nothing here touches shared memory: decoding works the same
 * whether or not the library was preloaded.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/layout.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "utils/timestamp.h"

#include "layout.h"

static SnowflakeLayout layout_storage;

/* points to layout_storage when the settings make a valid layout */
const SnowflakeLayout *snowflake_current_layout = NULL;

/*
 * Recomputes the layout; called by the assign hooks of snowflake.epoch,
 * snowflake.node_bits and snowflake.sequence_bits with the value being
 * assigned and the current values of the others.
 */
void
snowflake_set_layout(int64 epoch_ms, int node_bits, int seq_bits)
{
	SnowflakeLayout *layout = &layout_storage;
	int64		end_pg_ms;

	snowflake_current_layout = NULL;
	layout->epoch_ms = epoch_ms;
	layout->node_bits = node_bits;
	layout->seq_bits = seq_bits;
	layout->shift = node_bits + seq_bits;
	layout->time_bits = SNOWFLAKE_ID_BITS - layout->shift;
	if (layout->time_bits < SNOWFLAKE_MIN_TIME_BITS)
		return;
	layout->max_ms = (INT64CONST(1) << layout->time_bits) - 1;
	layout->max_node = (int32) ((INT64CONST(1) << node_bits) - 1);
	layout->max_seq = (int32) ((INT64CONST(1) << seq_bits) - 1);
	/*
	 * At most 2^63 - 1, since time_bits + seq_bits <= 63; without node bits
	 * exactly that, so the slot after the last would overflow: callers
	 * compare with max_slot before they add.
	 */
	layout->max_slot = (layout->max_ms << seq_bits) | layout->max_seq;

	/* timestamptz ends at year 294276: about 9.2e15 ms after 2000 */
	end_pg_ms = epoch_ms - SNOWFLAKE_PG_EPOCH_UNIX_MS + layout->max_ms;
	layout->times_fit = end_pg_ms < END_TIMESTAMP / 1000;

	snowflake_current_layout = layout;
}

/*
 * Returns true when the node and sequence widths leave enough time bits.
 * Otherwise *detail (if not NULL) says why not.  A GUC check hook cannot
 * test this reliably, because parameters are assigned in the order of the
 * configuration file; the postmaster tests it once they all are.
 */
bool
snowflake_layout_widths_valid(int node_bits, int seq_bits, char **detail)
{
	int			time_bits = SNOWFLAKE_ID_BITS - node_bits - seq_bits;

	if (time_bits >= SNOWFLAKE_MIN_TIME_BITS)
		return true;
	if (detail)
		*detail = psprintf("\"%s\" (%d) plus \"%s\" (%d) leave %d bits for the time; at least %d are needed.",
						   "snowflake.node_bits", node_bits,
						   "snowflake.sequence_bits", seq_bits,
						   time_bits, SNOWFLAKE_MIN_TIME_BITS);
	return false;
}

/*
 * The slow path of snowflake_layout(): the settings make no valid layout.
 */
const SnowflakeLayout *
snowflake_layout_or_error(void)
{
	char	   *detail;

	if (!snowflake_layout_widths_valid(layout_storage.node_bits,
									   layout_storage.seq_bits, &detail))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("snowflake ID layout leaves too few bits for the time"),
				 errdetail_internal("%s", detail)));
	elog(ERROR, "snowflake layout is not initialized");
	pg_unreachable();
}

/*
 * Builds an ID from its fields.  The caller has checked the ranges.
 */
int64
snowflake_compose(const SnowflakeLayout *layout, int64 ms, int32 node,
				  int32 seq)
{
	Assert(ms >= 0 && ms <= layout->max_ms);
	Assert(node >= 0 && node <= layout->max_node);
	Assert(seq >= 0 && seq <= layout->max_seq);

	return (ms << layout->shift) |
		((int64) node << layout->seq_bits) |
		(int64) seq;
}

void
snowflake_id_out_of_range(int64 id)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value %lld is out of range for type snowflake",
					(long long) id),
			 errdetail("Snowflake IDs are not negative.")));
}

/*
 * Converts a time field (ms after the layout's epoch) to a timestamptz.
 * With the default 41 time bits every time fits easily; a layout with very
 * many time bits can name times past timestamptz's end (year 294276), and
 * those raise an error.
 */
TimestampTz
snowflake_ms_to_timestamptz(const SnowflakeLayout *layout, int64 ms)
{
	int64		unix_ms;

	/* the common case needs no overflow checks */
	if (likely(layout->times_fit && ms >= 0 && ms <= layout->max_ms))
		return (layout->epoch_ms + ms - SNOWFLAKE_PG_EPOCH_UNIX_MS) * 1000;
	if (pg_add_s64_overflow(layout->epoch_ms, ms, &unix_ms))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));
	return snowflake_unix_ms_to_timestamptz(unix_ms);
}

/*
 * Converts Unix milliseconds to a timestamptz, raising an error when the
 * result would fall outside timestamptz's range.
 */
TimestampTz
snowflake_unix_ms_to_timestamptz(int64 unix_ms)
{
	int64		pg_ms;
	TimestampTz result;

	if (pg_sub_s64_overflow(unix_ms, SNOWFLAKE_PG_EPOCH_UNIX_MS, &pg_ms) ||
		pg_mul_s64_overflow(pg_ms, 1000, &result) ||
		!IS_VALID_TIMESTAMP(result))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));
	return result;
}

/*
 * The layout as the registry of node IDs records it with each lease:
 * "<epoch in Unix ms>/<node bits>/<sequence bits>", palloc'd.
 */
char *
snowflake_layout_text(const SnowflakeLayout *layout)
{
	return psprintf("%lld/%d/%d", (long long) layout->epoch_ms,
					layout->node_bits, layout->seq_bits);
}

/*
 * Formats Unix milliseconds as a timestamptz for messages, without ever
 * raising an error.
 */
const char *
snowflake_unix_ms_to_str(int64 unix_ms)
{
	int64		pg_ms;
	TimestampTz ts;

	if (pg_sub_s64_overflow(unix_ms, SNOWFLAKE_PG_EPOCH_UNIX_MS, &pg_ms) ||
		pg_mul_s64_overflow(pg_ms, 1000, &ts) || !IS_VALID_TIMESTAMP(ts))
		return _("a time beyond the range of timestamptz");
	return pstrdup(timestamptz_to_str(ts));	/* it returns a static buffer */
}

/*
 * Converts a timestamptz to ms after the layout's epoch, rounding down to
 * the millisecond that contains it.  The result may be negative or beyond
 * max_ms; callers decide what that means.  Finite timestamps only.
 */
int64
snowflake_timestamptz_to_ms(const SnowflakeLayout *layout, TimestampTz ts)
{
	int64		pg_ms;

	Assert(!TIMESTAMP_NOT_FINITE(ts));

	/* floor division: -1 us belongs to the millisecond before 0 */
	pg_ms = ts / 1000;
	if (ts % 1000 < 0)
		pg_ms--;
	/* |pg_ms| < 2^53 and epochs lie between 1970 and now: no overflow */
	return pg_ms + SNOWFLAKE_PG_EPOCH_UNIX_MS - layout->epoch_ms;
}

/*
 * Logs a WARNING when the time bits of the layout have run out, or will
 * within warning_days (snowflake.epoch_warning_days), with the clock at
 * now_unix_ms.  Called at server start and once a day by the clock watcher.
 */
void
snowflake_check_lifetime(int64 now_unix_ms, int warning_days)
{
	const SnowflakeLayout *layout = snowflake_layout();
	int64		end_unix_ms = layout->epoch_ms + layout->max_ms + 1;
	int64		remaining_ms = end_unix_ms - now_unix_ms;

	if (remaining_ms <= 0)
		ereport(WARNING,
				(errmsg("snowflake time bits ran out at %s",
						snowflake_unix_ms_to_str(end_unix_ms)),
				 errdetail("No IDs can be generated with this layout.")));
	else if (remaining_ms / SNOWFLAKE_MS_PER_DAY < warning_days)
		ereport(WARNING,
				(errmsg("snowflake time bits run out in %lld days, at %s",
						(long long) (remaining_ms / SNOWFLAKE_MS_PER_DAY),
						snowflake_unix_ms_to_str(end_unix_ms)),
				 errhint("IDs cannot continue past that time in this layout; plan the move to a new ID column or layout before then.")));
}
