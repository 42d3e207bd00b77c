/*-------------------------------------------------------------------------
 *
 * generator.c
 *	  Hands out snowflake IDs: snowflake_nextval(), snowflake_reserve() and
 *	  snowflake_currval().
 *
 * The generator's shared state is the last slot issued (an ID without its
 * node field: time << sequence_bits | sequence, see layout.c) and the
 * reservation: the largest time field the durable high-water mark covers.
 *
 * Invariants:
 *	- The next slot is max(last slot + 1, the slot of the current time);
 *	  it is chosen and recorded in one critical section under the spinlock,
 *	  so IDs are strictly increasing across all backends and never repeat.
 *	- A slot is issued only if its time field is <= the reservation, which
 *	  hwm.c raises only once a high-water mark covering it is durable; so no
 *	  ID issued before a restart or crash is issued again after it.
 *	- An ID's time field is at most the clock policy's allowed lead ahead
 *	  of the time in use (clock.c) when the call returns.
 *	- Slots never pass the layout's last one: arithmetic is checked against
 *	  max_slot before it could overflow, so IDs never wrap.
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
#include "nodes/parsenodes.h"
#include "port/atomics.h"
#include "storage/latch.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/utility.h"

#include "snowflake.h"

PG_FUNCTION_INFO_V1(snowflake_nextval);
PG_FUNCTION_INFO_V1(snowflake_nextval_n);
PG_FUNCTION_INFO_V1(snowflake_reserve);
PG_FUNCTION_INFO_V1(snowflake_currval);

typedef struct GeneratorShared
{
	slock_t		mutex;			/* protects the plain fields below */
	int64		last_slot;		/* -1: none issued since start */
	int64		reserved_ms;	/* -1: nothing reserved */
	uint64		ids_issued;		/* since server start */
	int64		max_lead_ms;	/* largest lead over the clock ever used */

	pg_atomic_uint64 seq_exhaustions;	/* calls that found their ms used up */
	pg_atomic_uint64 clock_waits;	/* calls that waited for the clock */
	pg_atomic_uint64 clock_errors;	/* calls that gave up on the clock */
} GeneratorShared;

static GeneratorShared *generator = NULL;

/*
 * The last ID this session generated, and the role that generated it, for
 * snowflake_currval().  Like currval() of a sequence, it is reset by
 * DISCARD ALL and DISCARD SEQUENCES; unlike it, it is only shown to the
 * role that generated it, so that a pooled connection handed to another
 * role (SET ROLE) does not show the previous role's last ID.
 */
static int64 session_last_id = -1;
static Oid	session_last_user = InvalidOid;

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

typedef enum AllocOutcome
{
	ALLOC_OK,					/* the slots are ours */
	ALLOC_NEED_RESERVATION,		/* beyond the durable reservation */
	ALLOC_TOO_FAR_AHEAD,		/* too far ahead of the clock */
	ALLOC_EXHAUSTED				/* beyond the layout's last slot */
} AllocOutcome;

Size
snowflake_generator_shmem_size(void)
{
	return MAXALIGN(sizeof(GeneratorShared));
}

/*
 * Creates the generator state: nothing issued, nothing reserved.  hwm.c
 * then raises it above the saved high-water mark.  Called with
 * AddinShmemInitLock held.
 */
void
snowflake_generator_shmem_init(void)
{
	bool		found;

	generator = ShmemInitStruct("snowflake generator", sizeof(GeneratorShared),
								&found);
	if (found)
		return;
	SpinLockInit(&generator->mutex);
	generator->last_slot = -1;
	generator->reserved_ms = -1;
	generator->ids_issued = 0;
	generator->max_lead_ms = 0;
	pg_atomic_init_u64(&generator->seq_exhaustions, 0);
	pg_atomic_init_u64(&generator->clock_waits, 0);
	pg_atomic_init_u64(&generator->clock_errors, 0);
}

/*
 * Makes the next slot lie in the millisecond after ms, and ms the
 * reservation, unless they are above already: every ID from then on is
 * larger than every ID of millisecond ms.  hwm.c calls it with the
 * high-water mark read at start or replayed from WAL.
 */
void
snowflake_generator_resume_above(int64 ms)
{
	const SnowflakeLayout *layout = snowflake_layout();
	int64		slot;

	Assert(ms >= 0 && ms <= layout->max_ms);
	slot = (ms << layout->seq_bits) | layout->max_seq;

	SpinLockAcquire(&generator->mutex);
	if (slot > generator->last_slot)
		generator->last_slot = slot;
	if (ms > generator->reserved_ms)
		generator->reserved_ms = ms;
	SpinLockRelease(&generator->mutex);
}

/*
 * Lets IDs with time fields up to ms be issued: hwm.c calls it once a
 * high-water mark covering them is durable.
 */
void
snowflake_generator_allow_up_to(int64 ms)
{
	SpinLockAcquire(&generator->mutex);
	if (ms > generator->reserved_ms)
		generator->reserved_ms = ms;
	SpinLockRelease(&generator->mutex);
}

void
snowflake_generator_status(SnowflakeGeneratorStatus *status)
{
	SpinLockAcquire(&generator->mutex);
	status->last_slot = generator->last_slot;
	status->reserved_ms = generator->reserved_ms;
	status->ids_issued = generator->ids_issued;
	status->max_lead_ms = generator->max_lead_ms;
	SpinLockRelease(&generator->mutex);
	status->seq_exhaustions = pg_atomic_read_u64(&generator->seq_exhaustions);
	status->clock_waits = pg_atomic_read_u64(&generator->clock_waits);
	status->clock_errors = pg_atomic_read_u64(&generator->clock_errors);
}

/*
 * Called by the clock watcher at every check: while IDs are being issued,
 * renews the reservation before backends would have to (see
 * allocate_slots()), so that they do not wait for a write.  Idle servers
 * write nothing.
 */
void
snowflake_generator_renew(void)
{
	static uint64 ids_seen = 0;
	const SnowflakeLayout *layout = snowflake_layout();
	int64		last_slot;
	int64		reserved_ms;
	uint64		ids_issued;
	int64		last_ms;
	int64		now_ms;
	int64		target;

	if (snowflake_node_id < 0 || RecoveryInProgress())
		return;

	SpinLockAcquire(&generator->mutex);
	last_slot = generator->last_slot;
	reserved_ms = generator->reserved_ms;
	ids_issued = generator->ids_issued;
	SpinLockRelease(&generator->mutex);

	if (ids_issued == ids_seen || last_slot < 0)
		return;
	ids_seen = ids_issued;

	/* renew once less than three quarters of the wanted reach is left */
	last_ms = last_slot >> layout->seq_bits;
	now_ms = snowflake_clock_now_ms() - layout->epoch_ms;
	target = snowflake_reservation_target(last_ms, now_ms);
	if (reserved_ms < target - (target - Max(last_ms, now_ms)) / 4)
		(void) snowflake_hwm_extend(target, target, false, LOG);
}

/*
 * The errors raised before touching the generator: it cannot be correct
 * without shared memory, without a node ID, while another server reports
 * the same node ID, or on a standby (which shares its primary's node ID).
 */
static void
check_may_generate(void)
{
	char		conflict[256];

	snowflake_require_shmem();

	if (unlikely(snowflake_node_id < 0))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("parameter \"%s\" is not set", "snowflake.node_id"),
				 errdetail("Every server that generates snowflake IDs needs a node ID of its own."),
				 errhint("Set \"%s\" to a value from 0 to %d in postgresql.conf and restart the server.",
						 "snowflake.node_id", snowflake_layout()->max_node)));

	if (unlikely(snowflake_peers_conflict(conflict, sizeof(conflict))) &&
		snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake node ID %d is also used by another server", snowflake_node_id),
				 errdetail("The conflict: %s. Of two servers with one node ID, the one started later stops generating IDs.", conflict),
				 errhint("Give every server its own \"%s\" and restart this one.",
						 "snowflake.node_id")));

	if (unlikely(RecoveryInProgress()))
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot generate snowflake IDs during recovery"),
				 errdetail("A standby shares its primary's node ID; IDs are generated on the primary.")));
}

pg_noinline static void
report_too_far_ahead(int64 lead_ms)
{
	pg_atomic_fetch_add_u64(&generator->clock_errors, 1);

	if (snowflake_clock_policy == SNOWFLAKE_CLOCK_BORROW)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("snowflake generator is %lld ms ahead of the system clock",
						(long long) lead_ms),
				 errdetail("IDs may run at most %d ms ahead of the clock (\"%s\"), and waiting up to %d ms (\"%s\") is not enough for the clock to catch up.",
						   snowflake_max_borrow, "snowflake.max_borrow",
						   snowflake_clock_wait_timeout, "snowflake.clock_wait_timeout"),
				 errhint("Either the system clock stepped back or IDs were requested faster than the clock gives them; snowflake_status() shows which.")));
	else if (snowflake_clock_policy == SNOWFLAKE_CLOCK_WAIT)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("snowflake generator is %lld ms ahead of the system clock",
						(long long) lead_ms),
				 errdetail("With \"%s\" = \"%s\", IDs are not handed out ahead of the clock, and waiting up to %d ms (\"%s\") is not enough.",
						   "snowflake.clock_policy", snowflake_clock_policy_name(),
						   snowflake_clock_wait_timeout, "snowflake.clock_wait_timeout"),
				 errhint("Check this server's time synchronization; IDs are generated again once the clock catches up.")));
	else
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("snowflake generator is %lld ms ahead of the system clock",
						(long long) lead_ms),
				 errdetail("With \"%s\" = \"%s\", a call fails at once when the last ID is more than %lld ms ahead of the clock.",
						   "snowflake.clock_policy", snowflake_clock_policy_name(),
						   (long long) snowflake_max_wait_ms()),
				 errhint("Check this server's time synchronization; IDs are generated again once the clock catches up.")));
}

pg_noinline static void
report_time_exhausted(const SnowflakeLayout *layout)
{
	ereport(ERROR,
			(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
			 errmsg("snowflake timestamp range exhausted"),
			 errdetail("The %d time bits of the ID layout ran out at %s.",
					   layout->time_bits,
					   snowflake_unix_ms_to_str(layout->epoch_ms + layout->max_ms + 1)),
			 errhint("IDs cannot be generated with this layout any more; see \"Epoch lifetime\" in the snowflake documentation.")));
}

pg_noinline static void
report_before_epoch(const SnowflakeLayout *layout, int64 now_unix_ms)
{
	ereport(ERROR,
			(errcode(ERRCODE_SYSTEM_ERROR),
			 errmsg("system clock is before the snowflake epoch"),
			 errdetail("The clock reads %s; \"%s\" is %s.",
					   snowflake_unix_ms_to_str(now_unix_ms), "snowflake.epoch",
					   snowflake_unix_ms_to_str(layout->epoch_ms)),
			 errhint("Set the system clock right; IDs are generated again once it is past the epoch.")));
}

/*
 * Waits until the clock is no more than allowed_ms behind end_ms (a time
 * field), for at most max_wait_ms.  The slots are already ours; if the
 * clock does not catch up in time, they are given up (a gap) and an error
 * is raised.
 */
static void
wait_for_clock(const SnowflakeLayout *layout, int64 end_ms, int64 allowed_ms,
			   int64 max_wait_ms)
{
	static uint32 wait_event = 0;
	int64		started = snowflake_monotonic_ms();

	if (wait_event == 0)
		wait_event = snowflake_wait_event("SnowflakeClock");
	pg_atomic_fetch_add_u64(&generator->clock_waits, 1);

	for (;;)
	{
		int64		lead = end_ms - (snowflake_clock_now_ms() - layout->epoch_ms);
		int64		waited = snowflake_monotonic_ms() - started;

		if (lead <= allowed_ms)
			return;
		if (waited >= max_wait_ms + 1)
			report_too_far_ahead(lead);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min(lead - allowed_ms, max_wait_ms + 1 - waited),
						 wait_event);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Allocates count consecutive slots in one critical section, and returns
 * the first and the last.  They are larger than every slot this data
 * directory issued before.  Waits (interruptibly, outside any lock) when
 * the policy requires it, and raises an error when it cannot be correct.
 */
static void
allocate_slots(int64 count, int64 *first_out, int64 *last_out, int64 *lead_out)
{
	const SnowflakeLayout *layout;
	int64		allowed_lead;
	int64		max_wait;
	bool		fresh_clock = false;

	check_may_generate();
	layout = snowflake_layout();
	allowed_lead = snowflake_allowed_lead_ms();
	max_wait = snowflake_max_wait_ms();

	/*
	 * A block longer than the sequence numbers of the milliseconds the
	 * policy lets IDs run ahead, waits included, cannot be issued without
	 * breaking the policy: refuse it outright, whatever the clock does.
	 */
	Assert(count >= 1);
	if (count > 1 &&
		(count - 1 > layout->max_slot ||
		 count > (allowed_lead + max_wait) << layout->seq_bits))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cannot reserve %lld snowflake IDs at once", (long long) count),
				 errdetail("With \"%s\" = \"%s\", a block may take the sequence numbers of %lld ms (%lld IDs): %lld ms ahead of the clock and %lld ms while the call waits.",
						   "snowflake.clock_policy", snowflake_clock_policy_name(),
						   (long long) (allowed_lead + max_wait),
						   (long long) ((allowed_lead + max_wait) << layout->seq_bits),
						   (long long) allowed_lead, (long long) max_wait),
				 errhint("Reserve fewer IDs per call.")));

	for (;;)
	{
		int64		now_unix = snowflake_clock_now_ms();
		int64		now_ms;
		int64		now_slot;
		int64		first = 0;
		int64		last = 0;
		int64		end_ms = 0;
		int64		lead = 0;
		int64		reserved_ms;
		AllocOutcome outcome;

		if (unlikely(now_unix < layout->epoch_ms))
			report_before_epoch(layout, now_unix);
		now_ms = now_unix - layout->epoch_ms;
		/* past the last time field, no slot is "now": -1 says so */
		now_slot = likely(now_ms <= layout->max_ms) ?
			now_ms << layout->seq_bits : -1;

		SpinLockAcquire(&generator->mutex);
		reserved_ms = generator->reserved_ms;
		if (unlikely(now_slot < 0 ||
					 generator->last_slot > layout->max_slot - count))
			outcome = ALLOC_EXHAUSTED;
		else
		{
			first = Max(generator->last_slot + 1, now_slot);
			if (unlikely(first > layout->max_slot - (count - 1)))
				outcome = ALLOC_EXHAUSTED;
			else
			{
				last = first + (count - 1);
				end_ms = last >> layout->seq_bits;
				lead = end_ms - now_ms;
				if (unlikely(lead > allowed_lead + max_wait))
					outcome = ALLOC_TOO_FAR_AHEAD;
				else if (unlikely(end_ms > reserved_ms))
					outcome = ALLOC_NEED_RESERVATION;
				else
				{
					generator->last_slot = last;
					generator->ids_issued += count;
					if (lead > generator->max_lead_ms)
						generator->max_lead_ms = lead;
					outcome = ALLOC_OK;
				}
			}
		}
		SpinLockRelease(&generator->mutex);

		switch (outcome)
		{
			case ALLOC_OK:
				/* the first slot opens a millisecond the clock has not reached */
				if (first > now_slot && (first & layout->max_seq) == 0)
					pg_atomic_fetch_add_u64(&generator->seq_exhaustions, 1);

				/*
				 * Renew early, unless someone else is writing already, once
				 * less than a quarter of snowflake.reserve_ahead is left (the
				 * clock watcher normally renews before).
				 */
				if (unlikely(reserved_ms - end_ms < snowflake_reserve_ahead / 4) &&
					reserved_ms < layout->max_ms)
				{
					int64		target = snowflake_reservation_target(end_ms, now_ms);

					(void) snowflake_hwm_extend(Min(end_ms + snowflake_reserve_ahead / 4, target),
												target, true, LOG);
				}

				if (unlikely(lead > allowed_lead))
					wait_for_clock(layout, end_ms, allowed_lead, max_wait);

				*first_out = first;
				*last_out = last;
				if (lead_out)
					*lead_out = Max(lead, 0);
				return;

			case ALLOC_NEED_RESERVATION:
				(void) snowflake_hwm_extend(end_ms,
											snowflake_reservation_target(end_ms, now_ms),
											false, ERROR);
				break;

			case ALLOC_TOO_FAR_AHEAD:
				/* our reading of the clock may be stale: read it once more */
				if (!fresh_clock)
				{
					fresh_clock = true;
					break;
				}
				report_too_far_ahead(lead);
				break;

			case ALLOC_EXHAUSTED:
				report_time_exhausted(layout);
				break;
		}
	}
}

static void
remember_for_currval(int64 id)
{
	session_last_id = id;
	session_last_user = GetUserId();
}

/*
 * snowflake_nextval() RETURNS snowflake: a new ID, strictly greater than
 * every ID this data directory issued before.
 */
Datum
snowflake_nextval(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout;
	int64		first;
	int64		last;
	int64		id;

	allocate_slots(1, &first, &last, NULL);
	layout = snowflake_layout();
	id = snowflake_slot_to_id(layout, first, snowflake_node_id);
	remember_for_currval(id);
	PG_RETURN_INT64(id);
}

static int64
block_size_arg(FunctionCallInfo fcinfo)
{
	int64		n = PG_GETARG_INT64(0);

	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of snowflake IDs must be at least 1, not %lld",
						(long long) n)));
	return n;
}

/*
 * snowflake_reserve(n bigint) RETURNS record (first_id snowflake,
 * last_id snowflake, ids bigint, lead_ms bigint)
 *
 * Reserves n consecutive IDs of this node in one critical section, for a
 * loader that numbers its rows itself: in generator order they are the
 * slots from first_id's to last_id's (doc/reference.md, "Reserving many
 * IDs at once", has the arithmetic).
 * A block longer than a millisecond's sequence takes the following
 * milliseconds; the call returns once the clock is close enough for the
 * clock policy.  lead_ms says how far ahead of the clock the last ID was
 * when it was reserved.
 */
Datum
snowflake_reserve(PG_FUNCTION_ARGS)
{
	int64		n = block_size_arg(fcinfo);
	const SnowflakeLayout *layout;
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	int64		first;
	int64		last;
	int64		lead;

	tupdesc = snowflake_result_tupdesc(fcinfo, 4);

	allocate_slots(n, &first, &last, &lead);
	layout = snowflake_layout();
	remember_for_currval(snowflake_slot_to_id(layout, last, snowflake_node_id));

	values[0] = Int64GetDatum(snowflake_slot_to_id(layout, first, snowflake_node_id));
	values[1] = Int64GetDatum(session_last_id);
	values[2] = Int64GetDatum(n);
	values[3] = Int64GetDatum(lead);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
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
		remember_for_currval(snowflake_slot_to_id(snowflake_layout(), last,
												  snowflake_node_id));

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
		SRF_RETURN_NEXT(funcctx,
						Int64GetDatum(snowflake_slot_to_id(snowflake_layout(),
														   block->next_slot++,
														   snowflake_node_id)));
	SRF_RETURN_DONE(funcctx);
}

/*
 * snowflake_currval() RETURNS snowflake: the last ID the current role
 * generated in this session, like currval() for sequences.
 */
Datum
snowflake_currval(PG_FUNCTION_ARGS)
{
	if (session_last_id < 0 || session_last_user != GetUserId())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no snowflake ID has been generated in this session yet"),
				 errhint("Call snowflake_nextval() first.")));
	PG_RETURN_INT64(session_last_id);
}

/*
 * ProcessUtility hook: DISCARD ALL and DISCARD SEQUENCES forget the
 * session's last ID, as they forget the sequences' currval.  Connection
 * poolers run DISCARD ALL between clients.
 */
static void
generator_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
						 bool readOnlyTree, ProcessUtilityContext context,
						 ParamListInfo params, QueryEnvironment *queryEnv,
						 DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
							params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);

	if (IsA(parsetree, DiscardStmt) &&
		(((DiscardStmt *) parsetree)->target == DISCARD_ALL ||
		 ((DiscardStmt *) parsetree)->target == DISCARD_SEQUENCES))
	{
		session_last_id = -1;
		session_last_user = InvalidOid;
	}
}

/*
 * Installs the ProcessUtility hook; called from _PG_init() in every
 * process that loads the library.
 */
void
snowflake_generator_install_hooks(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = generator_ProcessUtility;
}
