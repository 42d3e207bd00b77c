/*-------------------------------------------------------------------------
 *
 * generator.c
 *	  Hands out snowflake IDs from the shared generator state:
 *	  snowflake_nextval() and snowflake_currval().
 *
 * Invariants (see also hwm.c):
 *	- (last_ms, last_seq) in shared memory is the largest ID issued since
 *	  start; each new ID is chosen and recorded in one critical section
 *	  under the spinlock, so IDs are strictly increasing across all
 *	  backends and never repeat.
 *	- an ID is issued only if its time field is <= reserved_ms, which is
 *	  covered by the durable high-water mark; so no ID issued before a
 *	  restart or crash is issued again after it.
 *	- an ID's time field runs ahead of the system clock by at most the
 *	  bound of the clock policy (snowflake.max_borrow, or 0).
 *
 * The clock is read before taking the spinlock.  Inside, the code only
 * compares and bumps integers and decides; waiting for the clock, writing
 * a reservation and raising errors all happen after releasing it.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/generator.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/wait_event.h"

#include "snowflake.h"

PG_FUNCTION_INFO_V1(snowflake_nextval);
PG_FUNCTION_INFO_V1(snowflake_currval);

/* The last ID this session generated, for snowflake_currval(); -1: none */
static int64 session_last_id = -1;

typedef enum AllocOutcome
{
	ALLOC_OK,					/* (ms, seq) is ours */
	ALLOC_NEED_RESERVATION,		/* ms is beyond the durable reservation */
	ALLOC_CLOCK_BEHIND			/* ms would run too far ahead of the clock */
} AllocOutcome;

static uint32
clock_wait_event(void)
{
	static uint32 wait_event = 0;

	if (wait_event == 0)
		wait_event = snowflake_wait_event("SnowflakeClock");
	return wait_event;
}

/*
 * Milliseconds of CLOCK_MONOTONIC, for measuring how long we waited; it is
 * not affected by steps of the system clock.
 */
static int64
monotonic_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		elog(ERROR, "clock_gettime(CLOCK_MONOTONIC) failed: %m");
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The errors raised before touching the generator: it cannot be correct
 * without shared memory, without a node ID, or on a standby (which shares
 * its primary's node ID).
 */
static SnowflakeSharedState *
generator_state_or_error(void)
{
	SnowflakeSharedState *state = snowflake_shared_state();

	if (unlikely(snowflake_node_id < 0))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("parameter \"%s\" is not set", "snowflake.node_id"),
				 errdetail("Every server that generates snowflake IDs needs a node ID of its own."),
				 errhint("Set \"%s\" to a value from 0 to %d in postgresql.conf and restart the server.",
						 "snowflake.node_id", (1 << snowflake_node_bits) - 1)));

	if (unlikely(RecoveryInProgress()))
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot generate snowflake IDs during recovery"),
				 errdetail("A standby shares its primary's node ID; IDs are generated on the primary.")));

	return state;
}

static void
report_clock_behind(int64 lead_ms, int64 allowed_ms)
{
	if (snowflake_clock_policy == SNOWFLAKE_CLOCK_BORROW)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("system clock is " INT64_FORMAT " ms behind the snowflake generator",
						lead_ms),
				 errdetail("The generator may run at most %d ms ahead of the clock (\"%s\"), and waiting up to %d ms (\"%s\") is not enough for the clock to catch up.",
						   (int) allowed_ms, "snowflake.max_borrow",
						   snowflake_clock_wait_timeout,
						   "snowflake.clock_wait_timeout"),
				 errhint("Check this server's time synchronization; IDs are generated again once the clock catches up.")));
	else
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("system clock is " INT64_FORMAT " ms behind the snowflake generator",
						lead_ms),
				 errdetail("With \"%s\" = \"%s\", IDs are never generated ahead of the clock, and waiting up to %d ms (\"%s\") is not enough.",
						   "snowflake.clock_policy",
						   snowflake_clock_policy == SNOWFLAKE_CLOCK_WAIT ? "wait" : "error",
						   snowflake_clock_wait_timeout,
						   "snowflake.clock_wait_timeout"),
				 errhint("Check this server's time synchronization; IDs are generated again once the clock catches up.")));
}

static void
report_time_exhausted(void)
{
	SnowflakeLayout layout;

	snowflake_get_layout(&layout);
	ereport(ERROR,
			(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
			 errmsg("snowflake timestamp range exhausted"),
			 errdetail("The %d time bits of the ID layout ran out at %s.",
					   layout.time_bits,
					   snowflake_unix_ms_to_str(layout.epoch_ms + layout.max_ms + 1)),
			 errhint("IDs cannot be generated with this layout any more; see \"Epoch lifetime\" in the snowflake documentation.")));
}

/*
 * Returns a new ID, strictly greater than every ID issued by this data
 * directory before.  Waits (interruptibly, outside any lock) when the
 * policy requires it, and raises an error when it cannot be correct.
 */
int64
snowflake_generate(void)
{
	SnowflakeSharedState *state = generator_state_or_error();
	int			shift = snowflake_node_bits + snowflake_sequence_bits;
	int32		max_seq = (int32) ((INT64CONST(1) << snowflake_sequence_bits) - 1);
	int64		max_ms = (INT64CONST(1) << (SNOWFLAKE_ID_BITS - shift)) - 1;
	int64		wait_started = -1;
	bool		counted_exhaustion = false;

	for (;;)
	{
		int64		now_ms;
		int64		allowed_lead;
		int64		ms;
		int32		seq;
		int64		reserved_ms;
		bool		exhausted = false;
		AllocOutcome outcome;

		now_ms = snowflake_unix_ms_now() - snowflake_epoch_ms;
		allowed_lead = (snowflake_clock_policy == SNOWFLAKE_CLOCK_BORROW) ?
			snowflake_max_borrow : 0;

		SpinLockAcquire(&state->mutex);
		if (now_ms > state->last_ms)
		{
			ms = now_ms;		/* a new millisecond: restart the sequence */
			seq = 0;
		}
		else if (state->last_seq < max_seq)
		{
			ms = state->last_ms;	/* same ms, or the clock is behind us */
			seq = state->last_seq + 1;
		}
		else
		{
			ms = state->last_ms + 1;	/* this ms is used up: borrow the next */
			seq = 0;
			exhausted = true;
		}
		reserved_ms = state->reserved_ms;
		if (ms - now_ms > allowed_lead)
			outcome = ALLOC_CLOCK_BEHIND;
		else if (ms > reserved_ms)
			outcome = ALLOC_NEED_RESERVATION;
		else
		{
			state->last_ms = ms;
			state->last_seq = seq;
			state->ids_issued++;
			if (ms - now_ms > state->max_lead_ms)
				state->max_lead_ms = ms - now_ms;
			outcome = ALLOC_OK;
		}
		SpinLockRelease(&state->mutex);

		if (exhausted && !counted_exhaustion)
		{
			pg_atomic_fetch_add_u64(&state->seq_exhaustions, 1);
			counted_exhaustion = true;
		}

		if (likely(outcome == ALLOC_OK))
		{
			int64		id = (ms << shift) |
				((int64) snowflake_node_id << snowflake_sequence_bits) |
				(int64) seq;

			/*
			 * Renew the reservation early if it is running low, unless
			 * someone else is already at it.  The background worker
			 * normally does this before we get here.
			 */
			if (unlikely(reserved_ms - ms < snowflake_reserve_ahead / 4) &&
				reserved_ms < max_ms)
				(void) snowflake_extend_reservation(state,
													Min(ms + snowflake_reserve_ahead / 2, max_ms),
													true, LOG);

			session_last_id = id;
			return id;
		}

		if (outcome == ALLOC_NEED_RESERVATION)
		{
			if (ms > max_ms)
				report_time_exhausted();
			(void) snowflake_extend_reservation(state, ms, false, ERROR);
			continue;
		}

		/* ALLOC_CLOCK_BEHIND: wait for the clock, or give up */
		{
			int64		lead = ms - now_ms;
			int64		sleep_ms = lead - allowed_lead;
			int64		waited;

			if (ms > max_ms)
				report_time_exhausted();

			if (wait_started < 0)
			{
				wait_started = monotonic_ms();
				if (snowflake_clock_policy != SNOWFLAKE_CLOCK_ERROR)
					pg_atomic_fetch_add_u64(&state->clock_waits, 1);
			}
			waited = monotonic_ms() - wait_started;

			if (snowflake_clock_policy == SNOWFLAKE_CLOCK_ERROR ||
				waited + sleep_ms > snowflake_clock_wait_timeout)
			{
				pg_atomic_fetch_add_u64(&state->clock_errors, 1);
				report_clock_behind(lead, allowed_lead);
			}

			(void) WaitLatch(MyLatch,
							 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 (long) sleep_ms, clock_wait_event());
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
}

/*
 * snowflake_nextval() RETURNS snowflake
 */
Datum
snowflake_nextval(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(snowflake_generate());
}

/*
 * snowflake_currval() RETURNS snowflake: the last ID this session
 * generated, like currval() for sequences.
 */
Datum
snowflake_currval(PG_FUNCTION_ARGS)
{
	if (session_last_id < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no snowflake ID has been generated in this session yet"),
				 errhint("Call snowflake_nextval() first.")));
	PG_RETURN_INT64(session_last_id);
}
