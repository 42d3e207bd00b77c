/*-------------------------------------------------------------------------
 *
 * time_ops.c
 *	  Comparing IDs with times: snowflake vs timestamptz operators,
 *	  containment in a tstzrange, and the ID bounds of a time.
 *
 * "id OP ts" means exactly "snowflake_timestamp(id) OP ts": the same rows a
 * timestamp column holding each ID's time would give, millisecond edges and
 * times outside the layout's range included.  Every such predicate is a
 * range of IDs, because an ID's time field is its most significant part:
 *
 *	snowflake_last_id_before(ts)	the largest ID value whose time is < ts
 *	snowflake_last_id_at(ts)		the largest ID value whose time is <= ts
 *
 * (-1 when there is none, 2^63-1 when every ID qualifies), so that
 *
 *	id >= ts  <=>  id >  last_id_before(ts)		id <  ts  <=>  id <= last_id_before(ts)
 *	id >  ts  <=>  id >  last_id_at(ts)			id <= ts  <=>  id <= last_id_at(ts)
 *	id =  ts  <=>  both id > last_id_before(ts) and id <= last_id_at(ts)
 *
 * The operators evaluate exactly these, and their support function
 * (snowflake_time_support, planner_support.c) rewrites them into these
 * comparisons of snowflake with bigint at planning time, which belong to
 * snowflake's btree family.  So index scans, BRIN, partition pruning and
 * selectivity estimates all work on the plain ID comparisons.
 *
 * The timestamp operators are deliberately not members of any btree
 * family: many IDs share one millisecond, so "id = ts" cannot be an
 * equality that is transitive with the equality of IDs.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/time_ops.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/rangetypes.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

#include "layout.h"
#include "time_compare.h"

PG_FUNCTION_INFO_V1(snowflake_last_id_before);
PG_FUNCTION_INFO_V1(snowflake_last_id_at);
PG_FUNCTION_INFO_V1(snowflake_last_id_before_range);
PG_FUNCTION_INFO_V1(snowflake_last_id_in_range);
PG_FUNCTION_INFO_V1(snowflake_time_contained);
PG_FUNCTION_INFO_V1(snowflake_time_contained_commuted);

#define NO_ID		INT64CONST(-1)
#define ALL_IDS		PG_INT64_MAX

/*
 * The largest ID value whose time field is below limit_ms (a time field,
 * ms after the epoch): -1 if none is, 2^63-1 if every one is.
 */
static int64
last_id_below(const SnowflakeLayout *layout, int64 limit_ms)
{
	if (limit_ms <= 0)
		return NO_ID;
	if (limit_ms > layout->max_ms)
		return ALL_IDS;
	return snowflake_first_id_of_ms(layout, limit_ms) - 1;
}

/*
 * last_id_before(ts): an ID's time (a whole millisecond M) is < ts exactly
 * when M < ts rounded up to a whole millisecond.
 */
static int64
last_id_before(const SnowflakeLayout *layout, TimestampTz ts)
{
	int64		ms;

	if (TIMESTAMP_IS_NOBEGIN(ts))
		return NO_ID;
	if (TIMESTAMP_IS_NOEND(ts))
		return ALL_IDS;
	ms = snowflake_timestamptz_to_ms(layout, ts);	/* rounded down */
	if (ts % 1000 != 0)
		ms++;
	return last_id_below(layout, ms);
}

/*
 * last_id_at(ts): M <= ts exactly when M < (ts rounded down) + 1 ms.
 */
static int64
last_id_at(const SnowflakeLayout *layout, TimestampTz ts)
{
	if (TIMESTAMP_IS_NOBEGIN(ts))
		return NO_ID;
	if (TIMESTAMP_IS_NOEND(ts))
		return ALL_IDS;
	return last_id_below(layout, snowflake_timestamptz_to_ms(layout, ts) + 1);
}

/*
 * The bounds of a tstzrange as ID values: every ID whose time is in the
 * range is > *below and <= *upto, every other ID is not.
 */
static void
range_id_bounds(FunctionCallInfo fcinfo, const SnowflakeLayout *layout,
				RangeType *range, int64 *below, int64 *upto)
{
	TypeCacheEntry *typcache;
	RangeBound	lower;
	RangeBound	upper;
	bool		empty;

	typcache = range_get_typcache(fcinfo, RangeTypeGetOid(range));
	range_deserialize(typcache, range, &lower, &upper, &empty);

	if (empty)
	{
		*below = ALL_IDS;
		*upto = NO_ID;
		return;
	}

	if (lower.infinite)
		*below = NO_ID;
	else if (lower.inclusive)
		*below = last_id_before(layout, DatumGetTimestampTz(lower.val));
	else
		*below = last_id_at(layout, DatumGetTimestampTz(lower.val));

	if (upper.infinite)
		*upto = ALL_IDS;
	else if (upper.inclusive)
		*upto = last_id_at(layout, DatumGetTimestampTz(upper.val));
	else
		*upto = last_id_before(layout, DatumGetTimestampTz(upper.val));
}

/*
 * snowflake_last_id_before(timestamptz) RETURNS bigint
 */
Datum
snowflake_last_id_before(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout;

	layout = snowflake_layout();
	PG_RETURN_INT64(last_id_before(layout, PG_GETARG_TIMESTAMPTZ(0)));
}

/*
 * snowflake_last_id_at(timestamptz) RETURNS bigint
 */
Datum
snowflake_last_id_at(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout;

	layout = snowflake_layout();
	PG_RETURN_INT64(last_id_at(layout, PG_GETARG_TIMESTAMPTZ(0)));
}

/*
 * snowflake_last_id_before(tstzrange) RETURNS bigint: the largest ID value
 * below every ID whose time is in the range.
 */
Datum
snowflake_last_id_before_range(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout;
	int64		below;
	int64		upto;

	layout = snowflake_layout();
	range_id_bounds(fcinfo, layout, PG_GETARG_RANGE_P(0), &below, &upto);
	PG_RETURN_INT64(below);
}

/*
 * snowflake_last_id_in(tstzrange) RETURNS bigint: the largest ID value not
 * above every ID whose time is in the range.
 */
Datum
snowflake_last_id_in_range(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout;
	int64		below;
	int64		upto;

	layout = snowflake_layout();
	range_id_bounds(fcinfo, layout, PG_GETARG_RANGE_P(0), &below, &upto);
	PG_RETURN_INT64(upto);
}

static bool
compare_id_time(const SnowflakeLayout *layout, int64 id, TimestampTz ts,
				TimeComparison cmp)
{
	switch (cmp)
	{
		case TC_EQ:
			return id > last_id_before(layout, ts) && id <= last_id_at(layout, ts);
		case TC_NE:
			return !(id > last_id_before(layout, ts) && id <= last_id_at(layout, ts));
		case TC_LT:
			return id <= last_id_before(layout, ts);
		case TC_LE:
			return id <= last_id_at(layout, ts);
		case TC_GT:
			return id > last_id_at(layout, ts);
		case TC_GE:
			return id > last_id_before(layout, ts);
	}
	return false;				/* keep compiler quiet */
}

/*
 * The operator functions.  Each comparison exists for (snowflake,
 * timestamptz) and, under the same SQL name, for (timestamptz, snowflake);
 * they are separate C functions because a function called through the
 * planner's selectivity code cannot ask for its argument types.
 */
static inline Datum
id_time_comparison(int64 id, TimestampTz ts, TimeComparison cmp)
{
	const SnowflakeLayout *layout;

	layout = snowflake_layout();
	PG_RETURN_BOOL(compare_id_time(layout, id, ts, cmp));
}

#define TIME_COMPARISON(name, cmp) \
PG_FUNCTION_INFO_V1(name); \
PG_FUNCTION_INFO_V1(name##_commuted); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	return id_time_comparison(PG_GETARG_INT64(0), PG_GETARG_TIMESTAMPTZ(1), cmp); \
} \
Datum \
name##_commuted(PG_FUNCTION_ARGS) \
{ \
	return id_time_comparison(PG_GETARG_INT64(1), PG_GETARG_TIMESTAMPTZ(0), \
							  snowflake_commute(cmp)); \
}

TIME_COMPARISON(snowflake_time_eq, TC_EQ)
TIME_COMPARISON(snowflake_time_ne, TC_NE)
TIME_COMPARISON(snowflake_time_lt, TC_LT)
TIME_COMPARISON(snowflake_time_le, TC_LE)
TIME_COMPARISON(snowflake_time_gt, TC_GT)
TIME_COMPARISON(snowflake_time_ge, TC_GE)

static Datum
id_in_range(FunctionCallInfo fcinfo, int64 id, RangeType *range)
{
	const SnowflakeLayout *layout;
	int64		below;
	int64		upto;

	layout = snowflake_layout();
	range_id_bounds(fcinfo, layout, range, &below, &upto);
	PG_RETURN_BOOL(id > below && id <= upto);
}

/*
 * snowflake_time_contained(snowflake, tstzrange): the <@ operator
 */
Datum
snowflake_time_contained(PG_FUNCTION_ARGS)
{
	return id_in_range(fcinfo, PG_GETARG_INT64(0), PG_GETARG_RANGE_P(1));
}

/*
 * snowflake_time_contained(tstzrange, snowflake): the @> operator
 */
Datum
snowflake_time_contained_commuted(PG_FUNCTION_ARGS)
{
	return id_in_range(fcinfo, PG_GETARG_INT64(1), PG_GETARG_RANGE_P(0));
}
