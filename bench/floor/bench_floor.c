/*-------------------------------------------------------------------------
 *
 * bench_floor.c
 *	  SQL functions that do the least a generator of time-ordered IDs
 *	  must do per ID, for bench/perid.sh to set beside snowflake_nextval().
 *
 * bench_floor_nothing() returns 0: what a row costs without any work of
 * the function's own.
 * bench_floor_clock() reads the system clock once and returns it in
 * milliseconds: the one clock read any such generator needs.
 * bench_floor_clock_lock() also takes a spinlock around advancing a
 * counter past that reading: the least a generator shared by several
 * backends needs on top.  Its lock lies in this backend's memory rather
 * than in shared memory, which costs the same while one backend calls it
 * (the line stays in its cache); it is no generator, only a floor.
 *
 * Not part of the extension; built only by bench/perid.sh.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  bench/floor/bench_floor.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "fmgr.h"
#include "storage/spin.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(bench_floor_nothing);
PG_FUNCTION_INFO_V1(bench_floor_clock);
PG_FUNCTION_INFO_V1(bench_floor_clock_lock);

static slock_t floor_mutex;
static int64 floor_last = 0;

void		_PG_init(void);

void
_PG_init(void)
{
	SpinLockInit(&floor_mutex);
}

static inline int64
floor_clock_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		elog(ERROR, "clock_gettime(CLOCK_REALTIME) failed: %m");
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

Datum
bench_floor_nothing(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(0);
}

Datum
bench_floor_clock(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(floor_clock_ms());
}

/* the clock in the top bits, a count in the low 22, like an ID */
Datum
bench_floor_clock_lock(PG_FUNCTION_ARGS)
{
	int64		now = floor_clock_ms() << 22;
	int64		next;

	SpinLockAcquire(&floor_mutex);
	next = floor_last + 1;
	if (next < now)
		next = now;
	floor_last = next;
	SpinLockRelease(&floor_mutex);

	PG_RETURN_INT64(next);
}
