/*-------------------------------------------------------------------------
 *
 * clock.c
 *	  Reading the clocks, and the time new IDs carry: the system clock,
 *	  unless it has just jumped forward.
 *
 * The system clock (CLOCK_REALTIME) can be stepped: back by time
 * synchronization, forward by it too, or anywhere by a hand or a glitch.
 * A second clock that never steps (CLOCK_BOOTTIME, which unlike
 * CLOCK_MONOTONIC keeps counting while the machine is suspended) tells the
 * steps apart from the passing of time: their difference, the "offset",
 * changes only when the system clock is stepped (slewing moves it by at
 * most a fraction of a millisecond per second).
 *
 * Shared memory keeps the trusted offset: the last one seen that did not
 * jump forward.  Every reading compares the current offset with it:
 *
 *	- within snowflake.max_clock_jump ahead: the system clock is used, and
 *	  the trusted offset follows it (slewing, small steps either way);
 *	- further back: a step back.  The system clock is used and trusted at
 *	  once: IDs already issued keep the generator ahead of it, and
 *	  snowflake.clock_policy decides what happens (generator.c);
 *	- further ahead: a forward jump.  It is not trusted yet: new IDs carry
 *	  the latest time ever trusted (the never-stepping clock plus the
 *	  highest trusted offset) while the jump is "held".  If the system clock comes back within
 *	  snowflake.clock_jump_hold, the jump was a glitch and no ID, no
 *	  reservation, ever carried it.  If it stays ahead for that long, it is
 *	  accepted as a real correction: IDs jump forward with it.
 *
 * A jump must not push the high-water mark (generator.c) ahead either, and
 * it does not: the mark is reserved from the IDs' own times.
 *
 * ONE CLOCK READ PER ID
 *
 * Reading the steady clock on every call would double the cost of an ID
 * (on a virtual machine a clock read is not free), and most calls can do
 * without it.  Shared memory keeps "checked", the last system-clock
 * reading (in ms) that a two-clock comparison found trustworthy.  A call reads the
 * system clock alone and uses it as it is when it lies within
 *
 *		[checked - 1 ms, checked + max_clock_jump / 2]
 *
 * and otherwise compares it with the steady clock as described above,
 * which refreshes "checked".  The invariant: no reading more than
 * max_clock_jump / 2 past a confirmed one, so no forward jump beyond
 * snowflake.max_clock_jump, is ever used without the steady clock
 * confirming it; a step back of more than 1 ms goes to the comparison at
 * once; and any step at all moves the offset, which the next comparison
 * sees and records, at the latest after max_clock_jump / 2 of clock time
 * (and at every check of the clock watcher).  While a jump is held,
 * "checked" stays behind it, so every call compares.  The 1 ms of slack
 * below it is for readings that another process overtook
 * between its read and its store; a step back that small needs no
 * handling (the generator never issues an ID below its last one), and the
 * next comparison records it like any other.
 *
 * The state is atomics only, updated with compare-and-swap: two processes
 * seeing one jump at once agree on who records and logs it.  It decides
 * which time an ID carries, never whether the ID is unique (generator.c
 * guarantees that), so a rare race costs nothing but a timestamp.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/clock.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/shmem.h"

#include "clock.h"
#include "settings.h"

/* the clock that never steps, and keeps counting through a suspend */
#ifdef CLOCK_BOOTTIME
#define STEADY_CLOCK		CLOCK_BOOTTIME
#define STEADY_CLOCK_NAME	"CLOCK_BOOTTIME"
#else
#define STEADY_CLOCK		CLOCK_MONOTONIC
#define STEADY_CLOCK_NAME	"CLOCK_MONOTONIC"
#endif

/* the trusted offset follows slewing once it has drifted this far, in us */
#define FOLLOW_DRIFT_US		1000

typedef struct ClockShared
{
	/* system clock minus steady clock, in us, as last trusted */
	pg_atomic_uint64 trusted_offset;
	/* the largest offset ever trusted */
	pg_atomic_uint64 highest_offset;
	/* system clock (ms) at the last comparison that trusted it */
	pg_atomic_uint64 checked_ms;
	/* steady clock (us) when the held forward jump was seen; 0: none */
	pg_atomic_uint64 held_since;
	pg_atomic_uint64 held_us;	/* how far ahead the held jump is */

	pg_atomic_uint64 steps_back;
	pg_atomic_uint64 largest_step_back_ms;
	pg_atomic_uint64 jumps_forward;
	pg_atomic_uint64 largest_jump_forward_ms;
	pg_atomic_uint64 jumps_ignored;
} ClockShared;

static ClockShared *clock_shared = NULL;

pg_atomic_uint64 *snowflake_clock_checked_ms = NULL;

/*
 * Reads a clock in microseconds.  clock_gettime() fails only for a clock
 * the kernel does not have, which would be a broken build, not a state to
 * run in.
 */
static inline int64
read_clock_us(clockid_t clock, const char *clock_name)
{
	struct timespec ts;

	if (unlikely(clock_gettime(clock, &ts) != 0))
		elog(ERROR, "clock_gettime(%s) failed: %m", clock_name);
	return (int64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * The system clock in Unix milliseconds, as it reads: for reports, file
 * timestamps and peers, never for the time of a new ID.
 */
int64
snowflake_wall_clock_ms(void)
{
	return read_clock_us(CLOCK_REALTIME, "CLOCK_REALTIME") / 1000;
}

/*
 * A clock for measuring intervals (waits); steps of the system clock do not
 * affect it.
 */
int64
snowflake_monotonic_ms(void)
{
	return read_clock_us(STEADY_CLOCK, STEADY_CLOCK_NAME) / 1000;
}

Size
snowflake_clock_shmem_size(void)
{
	return MAXALIGN(sizeof(ClockShared));
}

/*
 * Creates the clock state, trusting the system clock as it reads now: a
 * server started with a wrong clock cannot know better.  Called with
 * AddinShmemInitLock held.
 */
void
snowflake_clock_shmem_init(void)
{
	bool		found;
	uint64		offset;

	clock_shared = ShmemInitStruct("snowflake clock", sizeof(ClockShared),
								   &found);
	snowflake_clock_checked_ms = &clock_shared->checked_ms;
	if (found)
		return;
	offset = (uint64) (read_clock_us(CLOCK_REALTIME, "CLOCK_REALTIME") -
					   read_clock_us(STEADY_CLOCK, STEADY_CLOCK_NAME));
	pg_atomic_init_u64(&clock_shared->trusted_offset, offset);
	pg_atomic_init_u64(&clock_shared->highest_offset, offset);
	pg_atomic_init_u64(&clock_shared->checked_ms, 0);
	pg_atomic_init_u64(&clock_shared->held_since, 0);
	pg_atomic_init_u64(&clock_shared->held_us, 0);
	pg_atomic_init_u64(&clock_shared->steps_back, 0);
	pg_atomic_init_u64(&clock_shared->largest_step_back_ms, 0);
	pg_atomic_init_u64(&clock_shared->jumps_forward, 0);
	pg_atomic_init_u64(&clock_shared->largest_jump_forward_ms, 0);
	pg_atomic_init_u64(&clock_shared->jumps_ignored, 0);
}

/* raises *counter to value if it is smaller */
static void
atomic_max(pg_atomic_uint64 *counter, uint64 value)
{
	uint64		old = pg_atomic_read_u64(counter);

	while (old < value &&
		   !pg_atomic_compare_exchange_u64(counter, &old, value))
		;
}

/*
 * What the clock did is logged by the process that noticed it first (the
 * one whose compare-and-swap won), once, as a WARNING: usually the clock
 * watcher, whose checks run even on an idle server, otherwise a backend
 * (whose client then sees the warning too).
 */
#define CLOCK_ELEVEL	WARNING

/*
 * Makes offset the trusted one, if it still is trusted_raw (another process
 * may have moved it meanwhile); returns true if this process did it.
 */
static bool
trust_offset(uint64 *trusted_raw, int64 offset)
{
	if (!pg_atomic_compare_exchange_u64(&clock_shared->trusted_offset,
										trusted_raw, (uint64) offset))
		return false;
	atomic_max(&clock_shared->highest_offset, (uint64) offset);
	return true;
}

/*
 * True when the current offset is a forward jump that must be held: beyond
 * snowflake.max_clock_jump ahead of the trusted offset, unless it only
 * brings the clock back to where it was trusted before (the correction of
 * a step back, or of a clock that started behind the IDs already issued).
 */
static inline bool
is_held_jump(int64 offset, int64 trusted)
{
	int64		jump_limit_us = (int64) snowflake_max_clock_jump * 1000;

	return offset - trusted > jump_limit_us &&
		offset > (int64) pg_atomic_read_u64(&clock_shared->highest_offset) + jump_limit_us;
}

/*
 * Compares a reading of the system clock, wall, with the trusted time and
 * returns the time, in Unix microseconds, that new IDs carry now; records
 * and logs steps and jumps on the way (see the file header).  When it
 * returns wall itself, wall becomes "checked".
 */
static int64 compare_clocks(int64 wall);

static int64
observe_clock(int64 wall)
{
	int64		trusted_time = compare_clocks(wall);

	if (trusted_time == wall)
		pg_atomic_write_u64(&clock_shared->checked_ms, (uint64) (wall / 1000));
	return trusted_time;
}

static int64
compare_clocks(int64 wall)
{
	int64		steady = read_clock_us(STEADY_CLOCK, STEADY_CLOCK_NAME);
	int64		offset = wall - steady;
	uint64		trusted_raw = pg_atomic_read_u64(&clock_shared->trusted_offset);
	int64		trusted = (int64) trusted_raw;
	uint64		held_since = pg_atomic_read_u64(&clock_shared->held_since);
	int64		ahead = offset - trusted;
	int64		step_ms;

	if (is_held_jump(offset, trusted))
	{
		if (held_since == 0)
		{
			uint64		expected = 0;

			if (pg_atomic_compare_exchange_u64(&clock_shared->held_since,
											   &expected, (uint64) steady))
			{
				held_since = (uint64) steady;
				ereport(CLOCK_ELEVEL,
						(errmsg("system clock jumped forward by %lld ms",
								(long long) (ahead / 1000)),
						 errdetail("New snowflake IDs keep following the previous time for up to %d s (\"%s\"), in case the clock comes back.",
								   snowflake_clock_jump_hold / 1000,
								   "snowflake.clock_jump_hold")));
			}
			else
				held_since = expected;
		}
		pg_atomic_write_u64(&clock_shared->held_us, (uint64) ahead);

		/*
		 * While the jump is held, IDs carry the latest time the clock was
		 * ever trusted at, carried forward by the steady clock: that is the
		 * trusted time itself, unless the clock had stepped back or the
		 * server started behind its own high-water mark.  Then a correction
		 * that overshoots the mark (by the time the server was down, say)
		 * lets generation resume at once, at the mark's time, instead of
		 * waiting out the hold behind IDs already issued.
		 */
		if (steady - (int64) held_since < (int64) snowflake_clock_jump_hold * 1000)
			return steady + (int64) pg_atomic_read_u64(&clock_shared->highest_offset);

		/* it lasted: accept it */
		if (trust_offset(&trusted_raw, offset))
		{
			pg_atomic_fetch_add_u64(&clock_shared->jumps_forward, 1);
			atomic_max(&clock_shared->largest_jump_forward_ms, (uint64) (ahead / 1000));
			pg_atomic_write_u64(&clock_shared->held_us, 0);
			pg_atomic_write_u64(&clock_shared->held_since, 0);
			ereport(CLOCK_ELEVEL,
					(errmsg("system clock stayed %lld ms ahead for %d s: snowflake IDs follow it from now on",
							(long long) (ahead / 1000),
							snowflake_clock_jump_hold / 1000)));
		}
		return wall;
	}

	if (held_since != 0 &&
		pg_atomic_compare_exchange_u64(&clock_shared->held_since, &held_since, 0))
	{
		/* the clock came back while the jump was held: it never counted */
		pg_atomic_write_u64(&clock_shared->held_us, 0);
		pg_atomic_fetch_add_u64(&clock_shared->jumps_ignored, 1);
		ereport(CLOCK_ELEVEL,
				(errmsg("system clock came back after a forward jump; no snowflake ID used the jump")));
	}

	/* slewing, or a step: the clock is trusted as it reads */
	if (ahead >= -FOLLOW_DRIFT_US && ahead <= FOLLOW_DRIFT_US)
		return wall;
	if (!trust_offset(&trusted_raw, offset))
		return wall;

	step_ms = ahead / 1000;
	if (step_ms <= -snowflake_clock_step_threshold)
	{
		pg_atomic_fetch_add_u64(&clock_shared->steps_back, 1);
		atomic_max(&clock_shared->largest_step_back_ms, (uint64) -step_ms);
		ereport(CLOCK_ELEVEL,
				(errmsg("system clock stepped back by %lld ms", (long long) -step_ms),
				 errdetail("IDs already issued stay ahead of the clock until it catches up; \"%s\" decides what happens meanwhile.",
						   "snowflake.clock_policy"),
				 errhint("Let time synchronization slew the clock rather than step it.")));
	}
	else if (step_ms >= snowflake_clock_step_threshold)
	{
		pg_atomic_fetch_add_u64(&clock_shared->jumps_forward, 1);
		atomic_max(&clock_shared->largest_jump_forward_ms, (uint64) step_ms);
		ereport(CLOCK_ELEVEL,
				(errmsg("system clock stepped forward by %lld ms", (long long) step_ms),
				 step_ms > snowflake_max_clock_jump ?
				 errdetail("It is back at a time it was trusted at before: new IDs carry the new time.") :
				 errdetail("The step is within \"%s\" (%d ms): new IDs carry the new time.",
						   "snowflake.max_clock_jump", snowflake_max_clock_jump)));
	}
	return wall;
}

/*
 * The slow path of snowflake_clock_now_ms() (clock.h), given its reading of
 * the system clock: compares it with the steady clock.
 */
int64
snowflake_clock_now_slow(const struct timespec *ts)
{
	return observe_clock((int64) ts->tv_sec * 1000000 + ts->tv_nsec / 1000) / 1000;
}

void
snowflake_clock_read_failed(void)
{
	elog(ERROR, "clock_gettime(CLOCK_REALTIME) failed: %m");
	pg_unreachable();
}

/*
 * The time new IDs would carry now, in Unix milliseconds, as
 * snowflake_clock_now_ms() computes it, but without recording or logging
 * anything: for snowflake_status(), which must not change what it reports
 * on.  *held_ms is how far the system clock is ahead of that time because
 * a forward jump is held (0 if none); a jump no ID has seen yet counts, as
 * the next ID will hold it.
 */
int64
snowflake_clock_peek_ms(int64 *held_ms)
{
	int64		wall;
	int64		steady;
	int64		offset;
	int64		time;
	uint64		held_since;

	*held_ms = 0;
	if (unlikely(clock_shared == NULL))
		return snowflake_wall_clock_ms();

	wall = read_clock_us(CLOCK_REALTIME, "CLOCK_REALTIME");
	steady = read_clock_us(STEADY_CLOCK, STEADY_CLOCK_NAME);
	offset = wall - steady;
	if (!is_held_jump(offset, (int64) pg_atomic_read_u64(&clock_shared->trusted_offset)))
		return wall / 1000;

	held_since = pg_atomic_read_u64(&clock_shared->held_since);
	if (held_since != 0 &&
		steady - (int64) held_since >= (int64) snowflake_clock_jump_hold * 1000)
		return wall / 1000;		/* it lasted: the next ID accepts it */
	time = steady + (int64) pg_atomic_read_u64(&clock_shared->highest_offset);
	*held_ms = (wall - time) / 1000;
	return time / 1000;
}

/*
 * Tells the clock that IDs of time unix_ms were issued in this data
 * directory (the high-water mark, at start or from WAL): a forward jump of
 * the system clock that brings it no further than that time, plus the time
 * elapsed since, is a return to a time the clock was trusted at, and is
 * followed at once.  A server started with its clock behind its own IDs
 * then follows the correction without waiting.
 */
void
snowflake_clock_trust_up_to(int64 unix_ms)
{
	int64		offset = unix_ms * 1000 - read_clock_us(STEADY_CLOCK, STEADY_CLOCK_NAME);

	if (clock_shared != NULL && offset > 0)
		atomic_max(&clock_shared->highest_offset, (uint64) offset);
}

/*
 * Called by the clock watcher every snowflake.clock_check_interval: looks
 * at the clock even when nothing is generated, so that steps are logged
 * when they happen and the trusted offset stays fresh.
 */
void
snowflake_clock_check(void)
{
	if (clock_shared != NULL)
		(void) observe_clock(read_clock_us(CLOCK_REALTIME, "CLOCK_REALTIME"));
}

void
snowflake_clock_status(SnowflakeClockStatus *status)
{
	memset(status, 0, sizeof(*status));
	if (clock_shared == NULL)
		return;
	status->steps_back = pg_atomic_read_u64(&clock_shared->steps_back);
	status->largest_step_back_ms = (int64) pg_atomic_read_u64(&clock_shared->largest_step_back_ms);
	status->jumps_forward = pg_atomic_read_u64(&clock_shared->jumps_forward);
	status->largest_jump_forward_ms = (int64) pg_atomic_read_u64(&clock_shared->largest_jump_forward_ms);
	status->jumps_ignored = pg_atomic_read_u64(&clock_shared->jumps_ignored);
	if (pg_atomic_read_u64(&clock_shared->held_since) != 0)
		status->held_ms = (int64) pg_atomic_read_u64(&clock_shared->held_us) / 1000;
}
