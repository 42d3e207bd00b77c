/*-------------------------------------------------------------------------
 *
 * clock.h
 *	  Reading the clocks, and the trusted time new IDs carry (clock.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/clock.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_CLOCK_H
#define SNOWFLAKE_CLOCK_H

typedef struct SnowflakeClockStatus
{
	uint64		steps_back;
	int64		largest_step_back_ms;
	uint64		jumps_forward;	/* accepted, at once or after the hold */
	int64		largest_jump_forward_ms;
	uint64		jumps_ignored;	/* ended while held: never used */
	int64		held_ms;		/* wall clock ahead of the time in use; 0 */
} SnowflakeClockStatus;

#include <time.h>

#include "port/atomics.h"

#include "compat.h"
#include "settings.h"

extern Size snowflake_clock_shmem_size(void);
extern void snowflake_clock_shmem_init(void);
extern int64 snowflake_clock_now_slow(const struct timespec *ts);
pg_noreturn extern void snowflake_clock_read_failed(void);
extern int64 snowflake_clock_peek_ms(int64 *held_ms);
extern int64 snowflake_wall_clock_ms(void);
extern int64 snowflake_monotonic_ms(void);
extern void snowflake_clock_check(void);
extern void snowflake_clock_trust_up_to(int64 unix_ms);
extern void snowflake_clock_status(SnowflakeClockStatus *status);

/*
 * The system clock in ms at the last comparison of the two clocks that
 * trusted it (clock.c); read here, written by clock.c only.  NULL without
 * shared memory.
 */
extern pg_atomic_uint64 *snowflake_clock_checked_ms;

/*
 * The time new IDs carry, in Unix milliseconds: the system clock, unless a
 * forward jump of it is being held (clock.c explains).  The common case,
 * inline: one read of the system clock, used as it is when it lies within
 * 1 ms before and snowflake.max_clock_jump / 2 after the last reading the
 * steady clock confirmed.  Anything else goes to the comparison of the two
 * clocks.  Only for a server that preloads the library (the generator).
 */
static inline int64
snowflake_clock_now_ms(void)
{
	struct timespec ts;
	int64		wall_ms;
	int64		since_checked;

	if (unlikely(clock_gettime(CLOCK_REALTIME, &ts) != 0))
		snowflake_clock_read_failed();
	/* tv_nsec is in [0, 1e9): dividing it unsigned is cheaper */
	wall_ms = (int64) ts.tv_sec * 1000 + (int64) ((uint32) ts.tv_nsec / 1000000);
	Assert(snowflake_clock_checked_ms != NULL);
	since_checked = wall_ms - (int64) pg_atomic_read_u64(snowflake_clock_checked_ms);
	/* -1 <= since_checked <= max_clock_jump / 2, in one comparison */
	Assert(snowflake_max_clock_jump >= 0);
	if (likely((uint64) (since_checked + 1) <=
			   (uint64) snowflake_max_clock_jump / 2 + 1))
		return wall_ms;
	return snowflake_clock_now_slow(&ts);
}

#endif							/* SNOWFLAKE_CLOCK_H */
