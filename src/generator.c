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

#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/latch.h"

#include "snowflake.h"

PG_FUNCTION_INFO_V1(snowflake_nextval);
PG_FUNCTION_INFO_V1(snowflake_nextval_n);
PG_FUNCTION_INFO_V1(snowflake_reserve);
PG_FUNCTION_INFO_V1(snowflake_currval);

/* The last ID this session generated, for snowflake_currval(); -1: none */
static int64 session_last_id = -1;

typedef enum AllocOutcome
{
	ALLOC_OK,					/* the slots are ours */
	ALLOC_NEED_RESERVATION,		/* beyond the durable reservation */
	ALLOC_CLOCK_BEHIND			/* too far ahead of the clock */
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

	if (unlikely(state->node_conflict) &&
		snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE)
	{
		char		detail[sizeof(state->node_conflict_detail)];

		LWLockAcquire(state->peers_lock, LW_SHARED);
		memcpy(detail, state->node_conflict_detail, sizeof(detail));
		LWLockRelease(state->peers_lock);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake node ID %d is also used by another server", snowflake_node_id),
				 errdetail("The conflict: %s. Of two servers with one node ID, the one started later stops generating IDs.", detail),
				 errhint("Give every server its own \"%s\" and restart this one.",
						 "snowflake.node_id")));
	}

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
 * Allocates count consecutive slots (IDs without their node field; see
 * SnowflakeSharedState) in one critical section, and returns the first and
 * the last.  They are larger than every slot issued by this data directory
 * before.  Waits (interruptibly, outside any lock) when the policy requires
 * it, and raises an error when it cannot be correct.
 */
static void
allocate_slots(int64 count, int64 *first_out, int64 *last_out,
			   int64 *lead_out)
{
	SnowflakeSharedState *state = generator_state_or_error();
	int			seq_bits = snowflake_sequence_bits;
	int64		max_ms = (INT64CONST(1) << (SNOWFLAKE_ID_BITS - seq_bits -
											 snowflake_node_bits)) - 1;
	int64		wait_started = -1;
	bool		counted_exhaustion = false;

	Assert(count >= 1);

	/* a block longer than the clock policy lets IDs run ahead can never fit */
	if (count > 1)
	{
		int64		span_ms = (count - 1) >> seq_bits;
		int64		allowed = (snowflake_clock_policy == SNOWFLAKE_CLOCK_BORROW ?
							   snowflake_max_borrow : 0) +
			snowflake_clock_wait_timeout;

		if (span_ms > allowed)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("cannot reserve " INT64_FORMAT " snowflake IDs at once", count),
					 errdetail("They span " INT64_FORMAT " ms of sequence numbers, more than the clock policy allows ahead of the clock (%d ms).",
							   span_ms + 1, (int) allowed),
					 errhint("Reserve fewer IDs per call, or raise \"%s\".",
							 "snowflake.max_borrow")));
	}

	for (;;)
	{
		int64		now_ms;
		int64		now_slot;
		int64		allowed_lead;
		int64		first;
		int64		last;
		int64		end_ms;
		int64		reserved_ms;
		AllocOutcome outcome;

		now_ms = snowflake_unix_ms_now() - snowflake_epoch_ms;
		now_slot = now_ms * (INT64CONST(1) << seq_bits);
		allowed_lead = (snowflake_clock_policy == SNOWFLAKE_CLOCK_BORROW) ?
			snowflake_max_borrow : 0;

		SpinLockAcquire(&state->mutex);
		first = Max(state->last_slot + 1, now_slot);
		last = first + (count - 1);
		end_ms = last >> seq_bits;
		reserved_ms = state->reserved_ms;
		if (end_ms - now_ms > allowed_lead)
			outcome = ALLOC_CLOCK_BEHIND;
		else if (end_ms > reserved_ms)
			outcome = ALLOC_NEED_RESERVATION;
		else
		{
			state->last_slot = last;
			state->ids_issued += count;
			if (end_ms - now_ms > state->max_lead_ms)
				state->max_lead_ms = end_ms - now_ms;
			outcome = ALLOC_OK;
		}
		SpinLockRelease(&state->mutex);

		/*
		 * The first slot starts a millisecond ahead of the clock: the one
		 * before was used up, and we borrowed or must wait for this one.
		 */
		if (first > now_slot && (first & ((INT64CONST(1) << seq_bits) - 1)) == 0 &&
			!counted_exhaustion)
		{
			pg_atomic_fetch_add_u64(&state->seq_exhaustions, 1);
			counted_exhaustion = true;
		}

		if (likely(outcome == ALLOC_OK))
		{
			/*
			 * Renew the reservation early if less than half its headroom
			 * is left, unless someone else is already at it.  The
			 * background worker normally does this before we get here.
			 */
			int64		half_headroom = snowflake_reservation_headroom(end_ms - now_ms) / 2;

			if (unlikely(reserved_ms - end_ms < half_headroom) &&
				reserved_ms < max_ms)
				(void) snowflake_extend_reservation(state,
													Min(end_ms + half_headroom, max_ms),
													true, LOG);
			*first_out = first;
			*last_out = last;
			if (lead_out)
				*lead_out = Max(end_ms - now_ms, 0);
			return;
		}

		if (end_ms > max_ms)
			report_time_exhausted();

		if (outcome == ALLOC_NEED_RESERVATION)
		{
			(void) snowflake_extend_reservation(state, end_ms, false, ERROR);
			continue;
		}

		/* ALLOC_CLOCK_BEHIND: wait for the clock, or give up */
		{
			int64		lead = end_ms - now_ms;
			int64		sleep_ms = lead - allowed_lead;
			int64		waited;

			if (wait_started < 0)
			{
				wait_started = snowflake_monotonic_ms();
				if (snowflake_clock_policy != SNOWFLAKE_CLOCK_ERROR)
					pg_atomic_fetch_add_u64(&state->clock_waits, 1);
			}
			waited = snowflake_monotonic_ms() - wait_started;

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
 * The ID of a slot on this node.
 */
static inline int64
slot_to_id(int64 slot)
{
	int			seq_bits = snowflake_sequence_bits;

	return ((slot >> seq_bits) << (seq_bits + snowflake_node_bits)) |
		((int64) snowflake_node_id << seq_bits) |
		(slot & ((INT64CONST(1) << seq_bits) - 1));
}

/*
 * Returns a new ID, strictly greater than every ID issued by this data
 * directory before.
 */
int64
snowflake_generate(void)
{
	int64		first;
	int64		last;

	allocate_slots(1, &first, &last, NULL);
	session_last_id = slot_to_id(first);
	return session_last_id;
}

/*
 * snowflake_nextval() RETURNS snowflake
 */
Datum
snowflake_nextval(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(snowflake_generate());
}

static int64
block_size_arg(FunctionCallInfo fcinfo)
{
	int64		n = PG_GETARG_INT64(0);

	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of snowflake IDs must be at least 1, not " INT64_FORMAT, n)));
	return n;
}

/*
 * snowflake_reserve(n bigint) RETURNS record (first_id snowflake,
 * last_id snowflake, ids bigint, lead_ms bigint)
 *
 * Reserves n consecutive IDs of this node in one critical section, for a
 * loader that numbers its rows itself: in generator order they are the
 * slots from first_id's to last_id's (see the README for the arithmetic).
 * A block longer than a millisecond's sequence borrows the following
 * milliseconds, within the clock policy; lead_ms says how far ahead of the
 * clock the last ID is.
 */
Datum
snowflake_reserve(PG_FUNCTION_ARGS)
{
	int64		n = block_size_arg(fcinfo);
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	int64		first;
	int64		last;
	int64		lead;

	tupdesc = snowflake_result_tupdesc(fcinfo, 4);

	allocate_slots(n, &first, &last, &lead);
	session_last_id = slot_to_id(last);

	values[0] = Int64GetDatum(slot_to_id(first));
	values[1] = Int64GetDatum(session_last_id);
	values[2] = Int64GetDatum(n);
	values[3] = Int64GetDatum(lead);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc,
													  values, nulls)));
}

typedef struct BlockState
{
	int64		next_slot;
	int64		last_slot;
} BlockState;

/*
 * snowflake_nextval(n bigint) RETURNS SETOF snowflake
 *
 * n new IDs, reserved at once as by snowflake_reserve(), in increasing
 * order.
 */
Datum
snowflake_nextval_n(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	BlockState *block;

	if (SRF_IS_FIRSTCALL())
	{
		int64		n = block_size_arg(fcinfo);
		int64		first;
		int64		last;
		MemoryContext oldcxt;

		funcctx = SRF_FIRSTCALL_INIT();
		allocate_slots(n, &first, &last, NULL);
		session_last_id = slot_to_id(last);

		oldcxt = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		block = (BlockState *) palloc(sizeof(BlockState));
		block->next_slot = first;
		block->last_slot = last;
		funcctx->user_fctx = block;
		MemoryContextSwitchTo(oldcxt);
	}

	funcctx = SRF_PERCALL_SETUP();
	block = (BlockState *) funcctx->user_fctx;
	if (block->next_slot <= block->last_slot)
		SRF_RETURN_NEXT(funcctx, Int64GetDatum(slot_to_id(block->next_slot++)));
	SRF_RETURN_DONE(funcctx);
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
