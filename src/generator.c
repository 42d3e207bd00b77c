/*-------------------------------------------------------------------------
 *
 * generator.c
 *	  Hands out snowflake IDs (snowflake_nextval(), snowflake_reserve(),
 *	  snowflake_currval()) and owns the reservation that makes them durable.
 *
 * The generator's shared state is the last slot issued (an ID without its
 * node field: time << sequence_bits | sequence, see layout.h) and the
 * reservation: the largest time field a durable high-water mark covers.
 *
 * Invariants:
 *	- The next slot is last slot + 1, or, if the current time's millisecond
 *	  is later, that millisecond's first slot (plus a random start below
 *	  snowflake.sequence_random_start);
 *	  it is chosen and recorded in one critical section under the spinlock,
 *	  so IDs are strictly increasing across all backends and never repeat.
 *	- A slot is issued only if its time field is <= the reservation.  The
 *	  reservation is raised only after a mark covering it is durable in the
 *	  state file (state_file.c) and its WAL record is flushed (wal.c); so no
 *	  ID issued before a restart, crash or failover is issued again after
 *	  it.  At start, and for every mark replayed from WAL, the generator
 *	  resumes above the mark: the next slot lies in the millisecond after
 *	  it, whatever the clock says.
 *	- At most one process writes a new mark at a time (the "writing" flag,
 *	  taken under the spinlock); the others wait for it on a condition
 *	  variable, which answers cancel, statement_timeout and postmaster
 *	  death.  No lock is held across the write, the fsync or the WAL flush.
 *	- An ID's time field is at most the clock policy's allowed lead ahead
 *	  of the time in use (clock.c) when the call returns, except right
 *	  after a restart, while the clock has not yet reached the reservation
 *	  the server resumed above: that lead, at most snowflake.reserve_ahead,
 *	  is waited out (or borrowed, under "borrow") whatever the policy.
 *	- Slots never pass the layout's last one: arithmetic is checked against
 *	  max_slot before it could overflow, so IDs never wrap.
 *
 * The clock is read before taking the spinlock.  Inside, the code only
 * compares and bumps integers and decides; waiting for the clock, writing
 * a reservation and raising errors all happen after releasing it.
 *
 * When the postmaster exits after a shutdown, and no other process is
 * left, the mark on disk is lowered from the reservation to the last ID
 * issued, so that a clean restart continues right after it.  The
 * postmaster takes no lock for that (at_postmaster_exit()).
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
#include "common/pg_prng.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/utility.h"

#include "admission.h"
#include "clock.h"
#include "compat.h"
#include "generator.h"
#include "identity.h"
#include "layout.h"
#include "records.h"
#include "settings.h"
#include "state_file.h"
#include "wal.h"

PG_FUNCTION_INFO_V1(snowflake_nextval);
PG_FUNCTION_INFO_V1(snowflake_nextval_n);
PG_FUNCTION_INFO_V1(snowflake_reserve);
PG_FUNCTION_INFO_V1(snowflake_currval);

/* how far past the IDs that need it a reservation reaches at least */
#define AHEAD_STEP_MAX_MS	250

typedef struct GeneratorShared
{
	slock_t		mutex;			/* protects the plain fields below */
	int64		last_slot;		/* -1: none issued since start */
	int64		reserved_ms;	/* -1: nothing reserved */
	int64		excused_until_ms;	/* the restart lead, see allocate_slots() */
	uint64		ids_issued;		/* since server start */
	int64		max_lead_ms;	/* largest lead over the clock ever used */
	bool		writing;		/* a process is writing a new mark */
	bool		closed;			/* no new mark: the node ID is given up */
	int64		granted_ms;		/* no mark past this: a fenced lease's grant
								 * (-1: none yet); PG_INT64_MAX: no fence */
	int64		generating_since_ms;	/* Unix ms of the first ID; 0: none */

	ConditionVariable mark_written; /* a write ended, well or not */

	pg_atomic_uint64 seq_exhaustions;	/* calls that found their ms used up */
	pg_atomic_uint64 clock_waits;	/* calls that waited for the clock */
	pg_atomic_uint64 clock_errors;	/* calls that gave up on the clock */

	/* observed IDs (snowflake_generator_observe()) */
	pg_atomic_uint64 observations;	/* IDs observed */
	pg_atomic_uint64 observations_moved;	/* that moved the generator */
	pg_atomic_uint64 observations_refused;	/* not followed: too far ahead,
											 * or the generator closed */
	int64		max_observed_move_ms;	/* largest move, under the mutex */
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

/*
 * This backend saw the library preloaded, recovery over and a node ID
 * assigned, so allocate_slots() may make the fast path's plan (below).  A
 * server never goes back into recovery without a restart, and keeps its
 * node ID until it stops (identity.c), so node_id is this backend's copy
 * of it.
 */
static bool fast_path_ready = false;
static int32 node_id = -1;

static uint32 reservation_wait_event = 0;
static uint32 clock_wait_event = 0;

typedef enum AllocOutcome
{
	ALLOC_OK,					/* the slots are ours */
	ALLOC_NEED_RESERVATION,		/* beyond the durable reservation */
	ALLOC_TOO_FAR_AHEAD,		/* too far ahead of the clock */
	ALLOC_EXHAUSTED				/* beyond the layout's last slot */
} AllocOutcome;

static void at_postmaster_exit(int code, Datum arg);

Size
snowflake_generator_shmem_size(void)
{
	return MAXALIGN(sizeof(GeneratorShared));
}

/*
 * Creates the generator state: nothing issued, nothing reserved.  The
 * caller then resumes it above the saved mark.  Called with
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
	generator->excused_until_ms = -1;
	generator->ids_issued = 0;
	generator->max_lead_ms = 0;
	generator->writing = false;
	generator->closed = false;
	generator->granted_ms = PG_INT64_MAX;
	generator->generating_since_ms = 0;
	ConditionVariableInit(&generator->mark_written);
	pg_atomic_init_u64(&generator->seq_exhaustions, 0);
	pg_atomic_init_u64(&generator->clock_waits, 0);
	pg_atomic_init_u64(&generator->clock_errors, 0);
	pg_atomic_init_u64(&generator->observations, 0);
	pg_atomic_init_u64(&generator->observations_moved, 0);
	pg_atomic_init_u64(&generator->observations_refused, 0);
	generator->max_observed_move_ms = 0;

	/*
	 * The postmaster (not a backend under EXEC_BACKEND) lowers the mark when
	 * it exits.  After a crash and reinitialization the callback list is
	 * reset and this registers it again.
	 */
	if (!IsUnderPostmaster)
		on_shmem_exit(at_postmaster_exit, (Datum) 0);
}

/*
 * Makes every slot from now on lie after millisecond ms, and ms the
 * reservation, unless they are above already; and tells the clock that
 * IDs of that time were issued here.
 */
static void
resume_above(const SnowflakeLayout *layout, int64 ms, int64 excused_until_ms)
{
	int64		slot = snowflake_last_slot_of_ms(layout, ms);

	SpinLockAcquire(&generator->mutex);
	if (slot > generator->last_slot)
		generator->last_slot = slot;
	if (ms > generator->reserved_ms)
		generator->reserved_ms = ms;
	if (excused_until_ms > generator->excused_until_ms)
		generator->excused_until_ms = excused_until_ms;
	SpinLockRelease(&generator->mutex);

	snowflake_clock_trust_up_to(layout->epoch_ms + ms);
}

/*
 * Resumes above the mark the state file held at start.  Runs in the
 * postmaster, with AddinShmemInitLock held: it logs, never raises.
 *
 * The lead the generator then has over the clock is excused if it is what
 * a restart leaves: the reach of the reservation the server held when it
 * stopped, at most snowflake.reserve_ahead, which the clock catches up
 * with by itself; and the clock is not behind the time the mark was
 * written.  Any other lead means the clock stepped back, before the
 * mark was written (a mark lowered at exit by a clock already stepped
 * back is written "after" it) or since: it falls under
 * snowflake.clock_policy like any other.
 */
void
snowflake_generator_resume(const SnowflakeSavedMark *saved)
{
	const SnowflakeLayout *layout = snowflake_layout();
	int64		now_unix_ms = snowflake_wall_clock_ms();
	int64		now_ms = now_unix_ms - layout->epoch_ms;
	int64		floor_ms;
	bool		excused;

	/*
	 * A mark of another layout may lie beyond this one's last millisecond;
	 * the generator then resumes at the end, and refuses.
	 */
	floor_ms = Min(snowflake_id_ms(layout, saved->mark), layout->max_ms);
	excused = now_unix_ms >= saved->written_at &&
		floor_ms - now_ms <= snowflake_reserve_ahead;
	resume_above(layout, floor_ms, excused ? floor_ms : -1);

	ereport(LOG,
			(errmsg("snowflake IDs resume above high-water mark %lld (%s)",
					(long long) saved->mark,
					snowflake_unix_ms_to_str(layout->epoch_ms + floor_ms))));

	if (saved->epoch_ms != layout->epoch_ms ||
		saved->node_bits != layout->node_bits ||
		saved->seq_bits != layout->seq_bits)
		ereport(LOG,
				(errmsg("the snowflake ID layout changed since the high-water mark was written"),
				 errdetail("New IDs still start above the old ones on this server, but other servers must use the same layout to avoid collisions.")));

	if (floor_ms > now_ms && !excused)
		ereport(WARNING,
				(errmsg("system clock is %lld ms behind the snowflake high-water mark",
						(long long) (floor_ms - now_ms)),
				 errdetail("IDs will be generated ahead of the clock or refused until it catches up, according to \"%s\".",
						   "snowflake.clock_policy"),
				 errhint("If the clock is right and IDs really were issued that far ahead, raise \"%s\" above this lead for as long as it lasts.",
						 "snowflake.max_borrow")));
}

/*
 * Resumes above a mark replayed from WAL (redo.c): on a standby, so that
 * after promotion it starts above every ID the old primary could have
 * issued; on a primary in crash recovery, harmlessly.  The lead over the
 * clock this may give is not excused: the mark is another server's.
 */
void
snowflake_generator_replay_mark(int64 mark)
{
	const SnowflakeLayout *layout = snowflake_layout();

	resume_above(layout, Min(snowflake_id_ms(layout, mark), layout->max_ms), -1);
}

void
snowflake_generator_status(SnowflakeGeneratorStatus *status)
{
	SpinLockAcquire(&generator->mutex);
	status->last_slot = generator->last_slot;
	status->reserved_ms = generator->reserved_ms;
	status->ids_issued = generator->ids_issued;
	status->max_lead_ms = generator->max_lead_ms;
	status->generating_since_ms = generator->generating_since_ms;
	status->max_observed_move_ms = generator->max_observed_move_ms;
	status->granted_ms = generator->granted_ms;
	SpinLockRelease(&generator->mutex);
	status->observations = pg_atomic_read_u64(&generator->observations);
	status->observations_moved = pg_atomic_read_u64(&generator->observations_moved);
	status->observations_refused = pg_atomic_read_u64(&generator->observations_refused);
	status->seq_exhaustions = pg_atomic_read_u64(&generator->seq_exhaustions);
	status->clock_waits = pg_atomic_read_u64(&generator->clock_waits);
	status->clock_errors = pg_atomic_read_u64(&generator->clock_errors);
}

/*
 * The bounds the generator works with, derived from the settings (the
 * clock policy, snowflake.max_borrow, clock_wait_timeout, reserve_ahead,
 * clock_step_threshold) once per change of any of them, not per call.
 *
 * reach (W) is how far past the clock a reservation reaches, so that one
 * write serves many IDs; step (S) how far past the IDs it reaches at least,
 * for when they run ahead of the clock: S = min(W / 8, 250 ms).  A string
 * of crashes, each resuming at the reservation, pushes IDs ahead of the
 * clock by at most S each.  Under "borrow" W is at most what IDs may run
 * ahead (max_borrow plus the wait), so that generation after a crash, which
 * resumes at the reservation, never finds itself further ahead than the
 * policy accepts.  Under "wait" and "error", which let no ID run ahead,
 * that bound would make W tiny and the writes many; there W is
 * reserve_ahead, and the lead a crash leaves, at most W, is waited out
 * (allocate_slots()).
 *
 * margin is how little of the reservation may be left past the IDs before
 * a backend renews it (without waiting for another writer): a quarter of
 * W while IDs follow the clock, but at most half of S, so that IDs running
 * ahead of the clock, whose reservations reach only S past them, renew
 * once per half step and not at every call.
 */
typedef struct Policy
{
	uint32		version;		/* snowflake_policy_version it was made at */
	int64		allowed_lead;	/* ms an ID may be ahead of the clock */
	int64		max_wait;		/* ms a call may wait for the clock */
	int64		reach;			/* W */
	int64		step;			/* S */
	int64		margin;
} Policy;

static Policy policy = {.version = PG_UINT32_MAX};

static inline const Policy *
current_policy(void)
{
	if (unlikely(policy.version != snowflake_policy_version))
	{
		policy.allowed_lead = snowflake_allowed_lead_ms();
		policy.max_wait = snowflake_max_wait_ms();
		policy.reach = snowflake_reserve_ahead;
		if (snowflake_clock_policy == SNOWFLAKE_CLOCK_BORROW)
			policy.reach = Min(policy.reach, policy.allowed_lead + policy.max_wait);
		policy.step = Max(Min(policy.reach / 8, AHEAD_STEP_MAX_MS), 1);
		policy.margin = Min(policy.reach / 4, policy.step / 2);
		policy.version = snowflake_policy_version;
	}
	return &policy;
}

/*
 * Where the sequence of a millisecond this call opens starts: 0, or with
 * snowflake.sequence_random_start a random number below it (and below the
 * millisecond's sequence numbers), so that at low rates the low bits of
 * IDs are spread evenly for designs that shard by id modulo n.  Later IDs
 * of the millisecond follow it, strictly increasing as ever.
 */
static inline int64
sequence_start(const SnowflakeLayout *layout)
{
	int64		range;

	if (likely(snowflake_sequence_random_start <= 1))
		return 0;
	range = Min(snowflake_sequence_random_start, snowflake_slots_in_ms(layout, 1));
	return (int64) (pg_prng_uint64(&pg_global_prng_state) % (uint64) range);
}

/*
 * What the fast path of snowflake_nextval() reads, copied into this
 * backend's own memory so that a call looks up nothing else: the layout,
 * the node ID and the policy's bounds.  Made by allocate_slots() once the
 * backend may use the fast path, and again after any change of a setting
 * it derives from (snowflake_policy_version); until then version matches
 * nothing and every call takes the general path.
 */
typedef struct FastPlan
{
	uint32		version;		/* snowflake_policy_version it was made at */
	bool		random_start;	/* snowflake.sequence_random_start > 1 */
	int32		node_id;
	int64		allowed_lead;
	int64		margin;
	SnowflakeLayout layout;		/* a copy: fixed while the server runs */
} FastPlan;

static FastPlan plan = {.version = PG_UINT32_MAX};

/*
 * The plan as the settings and the node ID make it now.  Whatever the
 * fast path reads from it must come from here, and every setting it
 * depends on must bump snowflake_policy_version in its assign hook:
 * check_fast_plan() verifies that in builds with assertions.
 */
static void
fill_fast_plan(FastPlan *fp)
{
	const Policy *p = current_policy();

	memset(fp, 0, sizeof(FastPlan));	/* padding too, for the comparison */
	fp->version = p->version;
	fp->random_start = snowflake_sequence_random_start > 1;
	fp->node_id = node_id;
	fp->allowed_lead = p->allowed_lead;
	fp->margin = p->margin;
	fp->layout = *snowflake_layout();
}

static void
make_fast_plan(void)
{
	Assert(fast_path_ready);
	fill_fast_plan(&plan);
}

/*
 * In builds with assertions, every call of the fast path checks that its
 * plan is what the settings make now: a setting the plan depends on whose
 * change does not bump the version would fail here at the first call
 * after a reload, rather than go unnoticed.
 */
static inline void
check_fast_plan(void)
{
#ifdef USE_ASSERT_CHECKING
	FastPlan	fresh;

	fill_fast_plan(&fresh);
	Assert(memcmp(&fresh, &plan, sizeof(FastPlan)) == 0);
#endif
}

/*
 * The reservation wanted for IDs up to time field ms, with the trusted
 * clock at now_ms: W past the clock, at least S past the IDs, never past
 * the layout's last millisecond.
 */
static int64
reservation_target(const SnowflakeLayout *layout, int64 ms, int64 now_ms)
{
	const Policy *p = current_policy();
	int64		target = Max(now_ms + p->reach, ms + p->step);

	return Min(target, layout->max_ms);
}

/*
 * Ends this process's write of a mark, with or without success: error
 * cleanup of write_reservation(), and its normal end.
 */
static void
end_writing(int code, Datum arg)
{
	SpinLockAcquire(&generator->mutex);
	generator->writing = false;
	SpinLockRelease(&generator->mutex);
	ConditionVariableBroadcast(&generator->mark_written);
}

/*
 * Writes a mark reaching target_ms, as the one writer (the caller set
 * "writing"): to the state file, then to WAL, and only then lets the
 * generator use it.  A failure is reported at elevel; returns whether the
 * reservation reaches target_ms.  Whatever happens, an error included,
 * "writing" is cleared and the waiters are woken.
 */
static bool
write_reservation(const SnowflakeLayout *layout, int64 target_ms, int elevel,
				  bool by_backend)
{
	int64		mark = snowflake_last_id_of_ms(layout, target_ms);
	bool		written;

	PG_ENSURE_ERROR_CLEANUP(end_writing, (Datum) 0);
	{
		written = snowflake_state_file_write(mark, elevel, by_backend);
		if (written)
		{
			/* to standbys, before any ID it covers is issued; model: mark-before-id */
			snowflake_wal_log_mark(mark);

			SpinLockAcquire(&generator->mutex);
			if (target_ms > generator->reserved_ms)
				generator->reserved_ms = target_ms;
			SpinLockRelease(&generator->mutex);
		}
	}
	PG_END_ENSURE_ERROR_CLEANUP(end_writing, (Datum) 0);

	end_writing(0, (Datum) 0);
	return written;
}

/*
 * Makes sure IDs with time fields up to needed_ms may be issued: unless the
 * reservation covers them already, this process becomes the writer and
 * writes a mark reaching target_ms (>= needed_ms; within_grant: lowered to
 * the grant of a fenced lease, which needed_ms may not pass), or waits for
 * the writer at work and looks again.  With conditional, it does not wait
 * for another writer, and returns false at once.  A failed write is reported at
 * elevel.  Returns true when needed_ms is covered on return.
 */
static bool
extend_reservation_to(const SnowflakeLayout *layout, int64 needed_ms,
					  int64 target_ms, bool conditional, int elevel,
					  bool by_backend, bool within_grant)
{
	Assert(needed_ms <= target_ms && target_ms <= layout->max_ms);

	if (reservation_wait_event == 0)
		reservation_wait_event = snowflake_wait_event("SnowflakeReservation");

	for (;;)
	{
		bool		covered;
		bool		busy;
		bool		closed;
		bool		beyond_grant;

		SpinLockAcquire(&generator->mutex);
		covered = generator->reserved_ms >= needed_ms;
		busy = generator->writing;
		closed = generator->closed;
		beyond_grant = within_grant && needed_ms > generator->granted_ms;
		if (within_grant)
			target_ms = Min(target_ms, generator->granted_ms);
		if (!covered && !busy && !closed && !beyond_grant)
			generator->writing = true;
		SpinLockRelease(&generator->mutex);

		/*
		 * Given up for this run (snowflake_generator_close()), or past the
		 * grant of a fenced lease (model: reservation-within-grant).
		 */
		if (unlikely(closed || beyond_grant) && !covered)
		{
			ConditionVariableCancelSleep();
			if (elevel < ERROR)
				return false;
			snowflake_admission_check();
			if (closed)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("snowflake ID generation was given up on this server"),
						 errdetail("Its node ID lease was released."),
						 errhint("Restart the server to claim another node ID.")));
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("snowflake ID generation waits for the registry"),
					 errdetail("The node-ID lease is fenced (\"%s\"), and the registry has not granted IDs of this time yet.",
							   "snowflake.registry_fencing"),
					 errhint("snowflake_node_lease() shows the registry's last answer and grant.")));
		}
		if (covered || (busy && conditional))
		{
			ConditionVariableCancelSleep();
			return covered;
		}
		if (!busy)
			break;

		/* someone else is writing: wait for the end of that write */
		ConditionVariableSleep(&generator->mark_written, reservation_wait_event);
	}
	ConditionVariableCancelSleep();

	return write_reservation(layout, target_ms, elevel, by_backend);
}

/* extend_reservation_to(), within the grant of a fenced lease */
static bool
extend_reservation(const SnowflakeLayout *layout, int64 needed_ms,
				   int64 target_ms, bool conditional, int elevel,
				   bool by_backend)
{
	return extend_reservation_to(layout, needed_ms, target_ms, conditional,
								 elevel, by_backend, true);
}

/*
 * Called by the clock watcher at every check: while IDs are being issued,
 * renews the reservation before backends would have to (see
 * allocate_slots()), so that they do not wait for a write.  A server that
 * issued no ID since the last check writes nothing, unless the last
 * renewal failed: then it tries again at every check, so that a repaired
 * disk is noticed before the next ID needs it.  The first failure is
 * logged, repeated ones only at DEBUG1.
 */
void
snowflake_generator_renew(void)
{
	static uint64 ids_seen = 0;
	static bool failing = false;
	const SnowflakeLayout *layout = snowflake_layout();
	int64		last_slot;
	int64		reserved_ms;
	uint64		ids_issued;
	int64		last_ms;
	int64		now_ms;
	int64		granted_ms;
	int64		target;

	if (pg_atomic_read_u32(snowflake_admission_blocked_reasons) != 0 ||
		RecoveryInProgress())
		return;

	SpinLockAcquire(&generator->mutex);
	last_slot = generator->last_slot;
	reserved_ms = generator->reserved_ms;
	ids_issued = generator->ids_issued;
	granted_ms = generator->granted_ms;
	SpinLockRelease(&generator->mutex);

	if ((ids_issued == ids_seen && !failing) || last_slot < 0)
		return;
	ids_seen = ids_issued;

	/* renew once less than three quarters of the wanted reach is left */
	last_ms = snowflake_slot_ms(layout, last_slot);
	now_ms = snowflake_clock_now_ms() - layout->epoch_ms;
	if (now_ms < 0 || now_ms > layout->max_ms)
		return;
	target = reservation_target(layout, last_ms, now_ms);
	if (reserved_ms >= target - (target - Max(last_ms, now_ms)) / 4)
		return;
	/* a fenced lease's grant is renewed by its worker, not here */
	target = Min(target, granted_ms);
	if (target <= reserved_ms)
		return;

	if (extend_reservation(layout, target, target, true,
						   failing ? DEBUG1 : LOG, false))
	{
		if (failing)
			ereport(LOG,
					(errmsg("snowflake high-water mark written again after failures")));
		failing = false;
	}
	else
	{
		/* another process writing is no failure of ours */
		SpinLockAcquire(&generator->mutex);
		failing = !generator->writing && generator->reserved_ms < target;
		SpinLockRelease(&generator->mutex);
	}
}

/*
 * The mark that covers every ID of a closed generator: its reservation, or
 * its last slot's millisecond if nothing was reserved; -1 if neither.
 */
static int64
final_mark(const SnowflakeLayout *layout, int64 reserved_ms, int64 last_slot)
{
	if (reserved_ms >= 0)
		return snowflake_last_id_of_ms(layout, reserved_ms);
	if (last_slot >= 0)
		return snowflake_last_id_of_ms(layout, snowflake_slot_ms(layout, last_slot));
	return -1;
}

/*
 * Gives generation up for good on this server run (its leased node ID is
 * being released; the caller has already blocked admission): no new
 * reservation is written from now on, a write under way is waited for,
 * and the mark that then covers every ID this server issued, or can still
 * issue, is returned.  IDs of calls that passed admission before the block
 * stay within that reservation.
 */
int64
snowflake_generator_close(void)
{
	const SnowflakeLayout *layout = snowflake_layout();
	int64		reserved_ms;
	int64		last_slot;

	if (reservation_wait_event == 0)
		reservation_wait_event = snowflake_wait_event("SnowflakeReservation");
	for (;;)
	{
		bool		busy;

		SpinLockAcquire(&generator->mutex);
		generator->closed = true;
		busy = generator->writing;
		reserved_ms = generator->reserved_ms;
		last_slot = generator->last_slot;
		SpinLockRelease(&generator->mutex);
		if (!busy)
			break;
		ConditionVariableSleep(&generator->mark_written, reservation_wait_event);
	}
	ConditionVariableCancelSleep();
	return final_mark(layout, reserved_ms, last_slot);
}

/*
 * Makes every ID from now on greater than id, durably: the reservation is
 * extended to id's millisecond, with no bound on how far ahead of the
 * clock that is (a lease's floor must hold whatever the clock says; the
 * IDs then wait or run ahead per the clock policy), nor by a fenced
 * lease's grant (the floor is a mark, not an ID).  A write that fails is
 * reported at write_elevel and false returned; the floor then does not
 * hold yet.
 */
bool
snowflake_generator_raise_floor(int64 id, int write_elevel)
{
	const SnowflakeLayout *layout = snowflake_layout();
	int64		id_ms = Min(snowflake_id_ms(layout, id), layout->max_ms);

	if (id < 0)
		return true;

	/*
	 * The slots first: a call that reserves from now on needs the time past
	 * the floor, which a fenced lease's grant may not cover yet, so the
	 * floor's own mark below, which passes the grant, gives no call an ID
	 * below the floor.  model: floor, durably, before the grant is used
	 */
	SpinLockAcquire(&generator->mutex);
	if (generator->last_slot < snowflake_last_slot_of_ms(layout, id_ms))
		generator->last_slot = snowflake_last_slot_of_ms(layout, id_ms);
	SpinLockRelease(&generator->mutex);
	return extend_reservation_to(layout, id_ms, id_ms, false, write_elevel,
								 false, false);
}

/*
 * A fenced lease: no reservation from now on reaches past what the
 * registry granted (snowflake_generator_grant()), and nothing is granted
 * yet.  The reservation already written (a restart's, replayed, or the
 * last run's) stays: it was within an earlier grant.
 */
void
snowflake_generator_fence(void)
{
	SpinLockAcquire(&generator->mutex);
	if (generator->granted_ms == PG_INT64_MAX)
		generator->granted_ms = -1;
	SpinLockRelease(&generator->mutex);
}

/*
 * The registry granted IDs up to Unix ms until_unix_ms (on its clock) to
 * this run of a fenced lease.  Grants only grow.
 */
void
snowflake_generator_grant(int64 until_unix_ms)
{
	int64		until_ms = Min(until_unix_ms - snowflake_layout()->epoch_ms,
							   snowflake_layout()->max_ms);

	SpinLockAcquire(&generator->mutex);
	if (generator->granted_ms != PG_INT64_MAX && until_ms > generator->granted_ms)
		generator->granted_ms = until_ms;
	SpinLockRelease(&generator->mutex);
}

/*
 * on_shmem_exit callback of the postmaster.  After a clean shutdown (the
 * shutdown checkpoint written, as pg_control says), when every other
 * process is gone, lowers the mark on disk from the reservation to the
 * last ID really issued, so that a clean restart does not have to run
 * ahead of the clock.  After an immediate shutdown, which also ends the
 * postmaster with code 0, nothing is written: that shutdown must not wait
 * for storage, and the reservation stays the bound, as after a crash.
 *
 * Nothing here may wait for a lock: after an immediate shutdown, a backend
 * may have died holding the spinlock.  Nor does it need one.  Every ID a
 * backend handed out was stored as last_slot before the spinlock was
 * released, so once all backends are gone last_slot bounds them all,
 * whatever a backend that died in the critical section had done; a mark
 * one of them was writing is below the last slot or, if it got further,
 * replaced by this one, which still covers every ID handed out.  Reading
 * the field unlocked needs an 8-byte load that cannot be torn; where the
 * platform does not promise that, the reservation stays the bound, which
 * is always safe.
 */
static void
at_postmaster_exit(int code, Datum arg)
{
#ifdef PG_HAVE_8BYTE_SINGLE_COPY_ATOMICITY
	const SnowflakeLayout *layout;
	int64		last_slot;
	int64		reserved_ms;
	int64		issued_ms;

	if (code != 0 || generator == NULL || !snowflake_shut_down_cleanly())
		return;

	/* every other process is gone: read what they left */
	pg_memory_barrier();
	last_slot = ((volatile GeneratorShared *) generator)->last_slot;
	reserved_ms = ((volatile GeneratorShared *) generator)->reserved_ms;
	if (last_slot < 0)
		return;

	layout = snowflake_layout();
	issued_ms = snowflake_slot_ms(layout, last_slot);
	if (issued_ms >= reserved_ms)
		return;
	snowflake_state_file_write_at_exit(snowflake_last_id_of_ms(layout, issued_ms));
#endif
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
 * clock does not catch up in time (it stepped back while we waited), they
 * are given up (a gap, as after a rollback) and an error is raised.
 */
static void
wait_for_clock(const SnowflakeLayout *layout, int64 end_ms, int64 allowed_ms,
			   int64 max_wait_ms)
{
	int64		started = snowflake_monotonic_ms();

	if (clock_wait_event == 0)
		clock_wait_event = snowflake_wait_event("SnowflakeClock");
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
						 clock_wait_event);
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

	snowflake_admission_check();
	if (unlikely(!fast_path_ready))
	{
		if (RecoveryInProgress())
			snowflake_refuse_in_recovery();
		/* admission let us through: the node ID is assigned */
		pg_read_barrier();
		node_id = snowflake_identity_node_id();
		Assert(node_id >= 0);
		fast_path_ready = true;
	}

	layout = snowflake_layout();
	allowed_lead = current_policy()->allowed_lead;
	max_wait = current_policy()->max_wait;

	/*
	 * A block longer than the sequence numbers of the milliseconds the
	 * policy lets IDs run ahead, waits included, cannot be issued without
	 * breaking the policy: refuse it outright, whatever the clock does.
	 */
	Assert(count >= 1);
	if (count > 1 &&
		(count - 1 > layout->max_slot ||
		 count > snowflake_slots_in_ms(layout, allowed_lead + max_wait)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cannot reserve %lld snowflake IDs at once", (long long) count),
				 errdetail("With \"%s\" = \"%s\", a block may take the sequence numbers of %lld ms (%lld IDs): %lld ms ahead of the clock and %lld ms while the call waits.",
						   "snowflake.clock_policy", snowflake_clock_policy_name(),
						   (long long) (allowed_lead + max_wait),
						   (long long) snowflake_slots_in_ms(layout, allowed_lead + max_wait),
						   (long long) allowed_lead, (long long) max_wait),
				 errhint("Reserve fewer IDs per call.")));

	for (;;)
	{
		int64		now_unix;
		int64		now_ms;
		int64		now_slot;
		int64		start_slot;
		int64		first = 0;
		int64		last = 0;
		int64		end_ms = 0;
		int64		lead = 0;
		int64		wait_allowed = max_wait;
		int64		reserved_ms;
		AllocOutcome outcome;

		/* each pass follows a write or a wait that may not have helped */
		CHECK_FOR_INTERRUPTS();
		now_unix = snowflake_clock_now_ms();
		if (unlikely(now_unix < layout->epoch_ms))
			report_before_epoch(layout, now_unix);
		now_ms = now_unix - layout->epoch_ms;
		/* past the last time field, no slot is "now": -1 says so */
		now_slot = likely(now_ms <= layout->max_ms) ?
			snowflake_first_slot_of_ms(layout, now_ms) : -1;
		start_slot = now_slot + sequence_start(layout);

		SpinLockAcquire(&generator->mutex);
		reserved_ms = generator->reserved_ms;
		if (unlikely(now_slot < 0 ||
					 generator->last_slot > layout->max_slot - count))
			outcome = ALLOC_EXHAUSTED;
		else
		{
			/* the next slot, or the start of the clock's ms if that is later */
			first = generator->last_slot + 1;
			if (first <= now_slot)
				first = start_slot;
			if (unlikely(first > layout->max_slot - (count - 1)))
				outcome = ALLOC_EXHAUSTED;
			else
			{
				last = first + (count - 1);
				end_ms = snowflake_slot_ms(layout, last);
				lead = end_ms - now_ms;

				/*
				 * Right after a restart, until the clock reaches the
				 * reservation the server resumed above, that lead is
				 * excused: the call may wait it out.  Only as far as a
				 * restart leads, snowflake.reserve_ahead, and for IDs not
				 * further past that reservation than the policy allows: a
				 * clock that has since stepped back further, or IDs pushed
				 * further ahead (an observed ID, a lease's floor), fall under
				 * the policy like any lead.  The excuse is spent once the
				 * clock has passed it.
				 */
				if (unlikely(lead > allowed_lead + max_wait) &&
					now_ms <= generator->excused_until_ms &&
					generator->excused_until_ms - now_ms <= snowflake_reserve_ahead &&
					end_ms - generator->excused_until_ms <= allowed_lead + max_wait)
					wait_allowed = lead - allowed_lead;
				else if (unlikely(generator->excused_until_ms >= 0) &&
						 now_ms > generator->excused_until_ms)
					generator->excused_until_ms = -1;

				if (unlikely(lead > allowed_lead + wait_allowed))
					outcome = ALLOC_TOO_FAR_AHEAD;
				else if (unlikely(end_ms > reserved_ms))	/* model: mark-before-id */
					outcome = ALLOC_NEED_RESERVATION;
				else
				{
					generator->last_slot = last;
					if (generator->generating_since_ms == 0)
						generator->generating_since_ms = now_unix;
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
				if (first > now_slot && snowflake_slot_seq(layout, first) == 0)
					pg_atomic_fetch_add_u64(&generator->seq_exhaustions, 1);

				/*
				 * Renew early, unless someone else is writing already, once
				 * little of the reservation is left (the clock watcher
				 * normally renews before).
				 */
				if (unlikely(reserved_ms - end_ms < current_policy()->margin) &&
					reserved_ms < layout->max_ms)
				{
					int64		target = reservation_target(layout, end_ms, now_ms);

					(void) extend_reservation(layout,
											  Min(end_ms + current_policy()->margin, target),
											  target, true, LOG, true);
				}

				if (unlikely(lead > allowed_lead))
					wait_for_clock(layout, end_ms, allowed_lead, wait_allowed);

				if (unlikely(plan.version != snowflake_policy_version))
					make_fast_plan();

				*first_out = first;
				*last_out = last;
				if (lead_out)
					*lead_out = Max(lead, 0);
				return;

			case ALLOC_NEED_RESERVATION:
				(void) extend_reservation(layout, end_ms,
										  reservation_target(layout, end_ms, now_ms),
										  false, ERROR, true);
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

/*
 * Observes id, an ID made elsewhere (by another server, or seen by a
 * client): every ID this server issues from now on is greater, and stays
 * so after a crash.  That is causal order across servers: an ID made after
 * seeing another is larger.
 *
 * Already above it (the common case: one unlocked 8-byte read of the last
 * slot, which only grows), nothing is done.  Otherwise the generator moves
 * to the end of id's millisecond: the reservation is first extended to
 * cover that millisecond, durably, if it does not already (as for any
 * ID), then the last slot is raised under the spinlock.  Only as far as a
 * borrow may go: an ID more than snowflake.max_borrow ahead of this
 * server's trusted clock is not followed (a server with a wrong clock must
 * not drag others into the future), nor is any ID while the generator is
 * closed; strict raises an error for it, otherwise it is counted and
 * OBSERVE_REFUSED returned.  A server that may not
 * generate now observes all the same (a subscriber without a node ID only
 * records the ID), so that IDs it makes once it may are in order too.
 * A reservation that cannot be written is reported at write_elevel; below
 * ERROR the ID is then not followed (OBSERVE_UNWRITTEN).
 */
SnowflakeObserved
snowflake_generator_observe(int64 id, bool strict, int write_elevel)
{
	const SnowflakeLayout *layout = snowflake_layout();
	int64		id_ms;
	int64		now_ms;
	int64		move_ms;
	int64		last_slot;
	int64		held_ms;
	bool		moved = false;
	bool		closed;

	Assert(id >= 0);
	/* before anything touches shared memory (it is not there without) */
	snowflake_require_preload();
	pg_atomic_fetch_add_u64(&generator->observations, 1);
	id_ms = Min(snowflake_id_ms(layout, id), layout->max_ms);

#ifdef PG_HAVE_8BYTE_SINGLE_COPY_ATOMICITY
	/* above it already: a compare (last_slot only ever grows) */
	last_slot = ((volatile GeneratorShared *) generator)->last_slot;
	if (last_slot >= 0 && snowflake_slot_ms(layout, last_slot) > id_ms)
		return OBSERVE_ABOVE;
#endif

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot observe snowflake IDs during recovery"),
				 errdetail("A standby generates no IDs; observe them on the primary.")));

	/*
	 * Our next ID will lie in the millisecond after id's.  The lead is
	 * measured against the time IDs carry, the trusted clock, not the
	 * system clock as it reads: a forward jump that is being held back must
	 * not let an ID that far ahead through.  Read without recording or
	 * logging anything: observing judges no clock, the IDs made later do.
	 * model: observe-bound-trusted
	 */
	now_ms = snowflake_clock_peek_ms(&held_ms) - layout->epoch_ms;
	move_ms = id_ms + 1 - now_ms;
	if (move_ms > snowflake_max_borrow)
	{
		pg_atomic_fetch_add_u64(&generator->observations_refused, 1);
		if (strict)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("snowflake ID %lld is %lld ms ahead of this server's clock",
							(long long) id, (long long) (id_ms - now_ms)),
					 held_ms > 0 ?
					 errdetail("An observed ID is followed at most \"%s\" (%d ms) ahead of the time new IDs carry, and a forward jump of the system clock of %lld ms is being held back from it.",
							   "snowflake.max_borrow", snowflake_max_borrow,
							   (long long) held_ms) :
					 errdetail("An observed ID is followed at most \"%s\" (%d ms) ahead of the clock.",
							   "snowflake.max_borrow", snowflake_max_borrow),
					 held_ms > 0 ?
					 errhint("If the jump is right, observe the ID again once new IDs carry it (\"%s\").",
							 "snowflake.clock_jump_hold") :
					 errhint("Check the clocks of this server and of the server that made the ID.")));
		return OBSERVE_REFUSED;
	}
	if (id_ms >= layout->max_ms)
		report_time_exhausted(layout);

	/*
	 * A closed generator (its lease released) takes no new reservation, so
	 * it cannot follow.  Saying "above it already" would let the IDs of the
	 * next start fall below id: refuse instead.
	 * model: observe-refused-when-closed
	 */
	SpinLockAcquire(&generator->mutex);
	closed = generator->closed;
	SpinLockRelease(&generator->mutex);
	if (unlikely(closed))
	{
		pg_atomic_fetch_add_u64(&generator->observations_refused, 1);
		if (strict)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot observe snowflake ID %lld now", (long long) id),
					 errdetail("The snowflake generator of this server is closed for this run: its node-ID lease was released."),
					 errhint("Restart the server to claim another node ID, then observe the ID again.")));
		return OBSERVE_REFUSED;
	}

	/* durable first: after a crash the next ID is still above id */
	if (!extend_reservation(layout, id_ms + 1,
							reservation_target(layout, id_ms + 1, Max(now_ms, 0)),
							false, write_elevel, !snowflake_am_background_worker()))
		return OBSERVE_UNWRITTEN;

	SpinLockAcquire(&generator->mutex);
	if (generator->last_slot < snowflake_last_slot_of_ms(layout, id_ms))
	{
		generator->last_slot = snowflake_last_slot_of_ms(layout, id_ms);
		moved = true;
		if (move_ms > generator->max_observed_move_ms)
			generator->max_observed_move_ms = move_ms;
	}
	SpinLockRelease(&generator->mutex);

	if (!moved)
		return OBSERVE_ABOVE;
	pg_atomic_fetch_add_u64(&generator->observations_moved, 1);
	return OBSERVE_MOVED;
}

static void
remember_for_currval(int64 id)
{
	session_last_id = id;
	session_last_user = GetUserId();
}

/*
 * The general path of snowflake_nextval(): allocate_slots() starts over,
 * and handles whatever the fast path left (a lead to wait for, a
 * reservation to write or renew, an error to raise).  Out of line, so that
 * the fast path saves no registers for it.
 */
static pg_noinline Datum
nextval_general(void)
{
	int64		first;
	int64		last;
	int64		id;

	allocate_slots(1, &first, &last, NULL);
	id = snowflake_slot_to_id(snowflake_layout(), first, node_id);
	remember_for_currval(id);
	PG_RETURN_INT64(id);
}

/*
 * snowflake_nextval() RETURNS snowflake: a new ID, strictly greater than
 * every ID this data directory issued before.
 *
 * The common case in one critical section: the server may generate, the
 * clock is in the layout's range, and the next slot is within the policy's
 * lead and well inside the reservation.  It reads one clock and takes the
 * spinlock once; everything it needs besides is in this backend's plan.
 */
Datum
snowflake_nextval(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout = &plan.layout;
	int64		start_seq = 0;
	uint64		now_ms;
	int64		now_slot;
	int64		limit_ms;
	int64		first;
	int64		end_ms;
	int64		id;
	bool		ok;

	if (unlikely(plan.version != snowflake_policy_version ||
				 pg_atomic_read_u32(snowflake_admission_blocked_reasons) != 0))
		return nextval_general();
	check_fast_plan();

	if (unlikely(plan.random_start))
		start_seq = sequence_start(layout);

	/* unsigned: a time before the epoch is a huge number, out of range */
	now_ms = (uint64) (snowflake_clock_now_ms() - layout->epoch_ms);
	if (unlikely(now_ms > (uint64) layout->max_ms))
		return nextval_general();
	now_slot = snowflake_first_slot_of_ms(layout, (int64) now_ms);
	/* the lead the policy allows, and never past the layout's last ms */
	limit_ms = Min((int64) now_ms + plan.allowed_lead, layout->max_ms);

	SpinLockAcquire(&generator->mutex);
	first = generator->last_slot;

	/*
	 * After the layout's last slot there is none (and + 1 would wrap).  An
	 * excuse of the restart lead (allocate_slots()) is spent only by the
	 * general path, once the clock has passed it: until then every call
	 * goes there, or a later step back would be waited out as if excused.
	 */
	ok = first < layout->max_slot && generator->excused_until_ms < 0;
	if (likely(ok))
	{
		first++;
		if (first <= now_slot)
			first = now_slot + start_seq;
		end_ms = snowflake_slot_ms(layout, first);
		/* model: mark-before-id */
		ok = end_ms <= limit_ms && end_ms + plan.margin <= generator->reserved_ms;
	}
	if (likely(ok))
	{
		generator->last_slot = first;
		/* the general path, which every backend takes first, set it */
		if (unlikely(generator->generating_since_ms == 0))
			generator->generating_since_ms = (int64) now_ms + layout->epoch_ms;
		generator->ids_issued++;
		if (unlikely(end_ms - (int64) now_ms > generator->max_lead_ms))
			generator->max_lead_ms = end_ms - (int64) now_ms;
	}
	SpinLockRelease(&generator->mutex);

	if (unlikely(!ok))
		return nextval_general();

	/* the slot opens a millisecond the clock has not reached */
	if (unlikely(first > now_slot) && snowflake_slot_seq(layout, first) == 0)
		pg_atomic_fetch_add_u64(&generator->seq_exhaustions, 1);

	id = snowflake_slot_to_id(layout, first, plan.node_id);
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
	remember_for_currval(snowflake_slot_to_id(layout, last, node_id));

	values[0] = Int64GetDatum(snowflake_slot_to_id(layout, first, node_id));
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
												  node_id));

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
														   node_id)));
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
 * Installs the ProcessUtility hook; called from _PG_init() while
 * preloading (so in every process of a server that preloads the library:
 * snowflake_currval() needs the preload anyway).
 */
void
snowflake_generator_install_hooks(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = generator_ProcessUtility;
}
