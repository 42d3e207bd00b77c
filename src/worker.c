/*-------------------------------------------------------------------------
 *
 * worker.c
 *	  The optional "snowflake clock watcher" background worker.
 *
 * Every snowflake.clock_check_interval milliseconds it
 *	- compares CLOCK_REALTIME with CLOCK_MONOTONIC: the difference between
 *	  the two changes only when the system clock is stepped (NTP slewing
 *	  moves it by at most 0.5 ms per second), so a change beyond
 *	  snowflake.clock_step_threshold is reported as a step back or a jump
 *	  forward, in the log and in shared memory;
 *	- renews the durable reservation (hwm.c) while IDs are being generated,
 *	  before it runs low, so that backends do not wait for an fsync;
 *	- once a day, warns when the time bits of the layout are running out.
 *
 * The loop follows worker_spi: latch waits, SIGHUP rereads the
 * configuration, SIGTERM ends it.  It exits with code 1 so that the
 * postmaster starts it again (after bgw_restart_time) if it was terminated
 * while the server keeps running; it needs no database connection.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"

#include "snowflake.h"

#define WORKER_NAME					"snowflake clock watcher"
#define WORKER_RESTART_SECONDS		1
#define LIFETIME_CHECK_INTERVAL_MS	(24 * 60 * 60 * 1000)

/* true in the clock watcher process */
bool		snowflake_am_worker = false;

/*
 * Registers the worker; called from _PG_init() in the postmaster.
 */
void
snowflake_register_worker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = WORKER_RESTART_SECONDS;
	strlcpy(worker.bgw_library_name, "snowflake", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "snowflake_worker_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, WORKER_NAME, BGW_MAXLEN);
	strlcpy(worker.bgw_type, WORKER_NAME, BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

/* on_shmem_exit callback: the worker is gone */
static void
worker_exit(int code, Datum arg)
{
	SnowflakeSharedState *state = snowflake_state;

	SpinLockAcquire(&state->mutex);
	state->worker_pid = 0;
	SpinLockRelease(&state->mutex);
}

/*
 * Reports a step of the system clock of step_ms (negative: backwards).
 */
static void
report_step(SnowflakeSharedState *state, int64 step_ms, int64 now_unix_ms)
{
	int64		lead_ms;

	SpinLockAcquire(&state->mutex);
	if (step_ms < 0)
	{
		state->clock_steps_back++;
		if (-step_ms > state->largest_step_back_ms)
			state->largest_step_back_ms = -step_ms;
	}
	else
	{
		state->clock_jumps_forward++;
		if (step_ms > state->largest_jump_forward_ms)
			state->largest_jump_forward_ms = step_ms;
	}
	lead_ms = (state->last_slot >> snowflake_sequence_bits) -
		(now_unix_ms - snowflake_epoch_ms);
	SpinLockRelease(&state->mutex);

	if (step_ms < 0)
		ereport(WARNING,
				(errmsg("system clock stepped back by " INT64_FORMAT " ms", -step_ms),
				 lead_ms > 0 ?
				 errdetail("The snowflake generator is now " INT64_FORMAT " ms ahead of the clock; \"%s\" decides what happens while it is.",
						   lead_ms, "snowflake.clock_policy") : 0,
				 errhint("Let time synchronization slew the clock rather than step it.")));
	else
		ereport(WARNING,
				(errmsg("system clock jumped forward by " INT64_FORMAT " ms", step_ms),
				 errdetail("IDs generated from now on carry the new time.")));
}

/*
 * Renews the reservation when IDs are being generated and it would run low
 * before the next check: backends renew it themselves when less than a
 * quarter of snowflake.reserve_ahead is left, so the worker keeps more than
 * that until its next check.  Idle servers are left alone, so they
 * do not write the state file every few seconds for nothing; the first ID
 * after a long pause renews it itself.
 */
static void
renew_reservation(SnowflakeSharedState *state, int64 now_ms,
				  uint64 *ids_seen)
{
	SnowflakeLayout layout;
	uint64		ids_issued;
	int64		reserved_ms;
	int64		needed_ms;
	bool		refused;

	if (snowflake_node_id < 0 || RecoveryInProgress())
		return;

	SpinLockAcquire(&state->mutex);
	ids_issued = state->ids_issued;
	reserved_ms = state->reserved_ms;
	refused = state->hwm_refused;
	SpinLockRelease(&state->mutex);

	if (refused || ids_issued == *ids_seen)
		return;
	*ids_seen = ids_issued;

	snowflake_get_layout(&layout);
	/*
	 * Cover the clock's advance until the next check, above the backends'
	 * threshold, but never more than reserve_ahead past the clock: after a
	 * crash IDs resume at the reservation, so it must stay as near the
	 * clock as the operator asked, however long the check interval.  IDs
	 * running further ahead than that (borrowing) are the backends' to
	 * cover, in small steps (see snowflake_reservation_headroom()).
	 */
	needed_ms = now_ms +
		Min((int64) snowflake_clock_check_interval + snowflake_reserve_ahead / 4,
			(int64) snowflake_reserve_ahead);
	if (reserved_ms >= needed_ms || reserved_ms >= layout.max_ms)
		return;
	(void) snowflake_extend_reservation(state, Min(needed_ms, layout.max_ms),
										false, LOG);
}

/*
 * Entry point of the worker.
 */
void
snowflake_worker_main(Datum main_arg)
{
	SnowflakeSharedState *state = snowflake_state;
	uint32		wait_event;
	int64		prev_offset;
	int64		next_lifetime_check;
	uint64		ids_seen = 0;

	snowflake_am_worker = true;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();

	if (state == NULL)
		ereport(ERROR,
				(errmsg("snowflake shared memory is not initialized")));

	SpinLockAcquire(&state->mutex);
	state->worker_pid = MyProcPid;
	SpinLockRelease(&state->mutex);
	on_shmem_exit(worker_exit, (Datum) 0);

	wait_event = snowflake_wait_event("SnowflakeClockWatcher");
	ereport(LOG,
			(errmsg("%s started, checking the clock every %d ms",
					WORKER_NAME, snowflake_clock_check_interval)));

	prev_offset = snowflake_unix_ms_now() - snowflake_monotonic_ms();
	next_lifetime_check = snowflake_monotonic_ms();

	while (!ShutdownRequestPending)
	{
		int			interval = snowflake_clock_check_interval;
		int64		now_unix_ms;
		int64		mono_ms;
		int64		offset;
		int64		step;

		(void) WaitLatch(MyLatch,
						 WL_LATCH_SET | WL_EXIT_ON_PM_DEATH |
						 (interval > 0 ? WL_TIMEOUT : 0),
						 interval, wait_event);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		if (ShutdownRequestPending)
			break;

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			ereport(LOG,
					(errmsg("%s reloaded its configuration, checking the clock every %d ms",
							WORKER_NAME, snowflake_clock_check_interval)));
		}

		/* snowflake.clock_check_interval = 0 pauses the checks */
		if (snowflake_clock_check_interval <= 0)
			continue;

		now_unix_ms = snowflake_unix_ms_now();
		mono_ms = snowflake_monotonic_ms();

		/* a step of the system clock changes its distance to the monotonic one */
		offset = now_unix_ms - mono_ms;
		step = offset - prev_offset;
		prev_offset = offset;
		if (step <= -snowflake_clock_step_threshold ||
			step >= snowflake_clock_step_threshold)
			report_step(state, step, now_unix_ms);

		renew_reservation(state, now_unix_ms - snowflake_epoch_ms, &ids_seen);

		if (mono_ms >= next_lifetime_check)
		{
			snowflake_check_lifetime();
			next_lifetime_check = mono_ms + LIFETIME_CHECK_INTERVAL_MS;
		}

		SpinLockAcquire(&state->mutex);
		state->worker_checked_at = now_unix_ms;
		SpinLockRelease(&state->mutex);
	}

	ereport(LOG, (errmsg("%s shutting down", WORKER_NAME)));

	/* exit code 1: the postmaster restarts us unless it is shutting down */
	proc_exit(1);
}
