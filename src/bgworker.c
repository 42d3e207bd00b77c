/*-------------------------------------------------------------------------
 *
 * bgworker.c
 *	  Registration and main loop of the extension's background workers:
 *	  the clock watcher (clock_watcher.c) and the peer checker
 *	  (peer_checker.c).  Each of them supplies its work as callbacks.
 *
 * The loop follows worker_spi: latch waits, SIGHUP rereads the
 * configuration, SIGTERM ends it, postmaster death ends it.  A worker exits
 * with code 1, so that the postmaster starts it again (after its restart
 * time) if it was terminated while the server keeps running.  The workers
 * need no database connection.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/bgworker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "admission.h"
#include "compat.h"
#include "workers.h"

/*
 * Registers a worker whose entry point is function; called from _PG_init()
 * in the postmaster.  A worker that reads a database (with_database) starts
 * once recovery is over, and connects itself with
 * BackgroundWorkerInitializeConnection(); the others start with the server.
 */
void
snowflake_register_worker(const char *name, const char *function,
						  int restart_seconds, bool with_database)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	if (with_database)
	{
		worker.bgw_flags |= BGWORKER_BACKEND_DATABASE_CONNECTION;
		worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	}
	worker.bgw_restart_time = restart_seconds;
	strlcpy(worker.bgw_library_name, "snowflake", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, function, BGW_MAXLEN);
	strlcpy(worker.bgw_name, name, BGW_MAXLEN);
	strlcpy(worker.bgw_type, name, BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

/*
 * The main loop of a worker: a tick every interval_ms(), until SIGTERM.
 * Each tick runs in a memory context of its own, reset before the next.
 * Never returns.
 */
void
snowflake_worker_run(const SnowflakeWorker *worker)
{
	uint32		wait_event;
	MemoryContext tick_cxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();

	snowflake_require_preload();
	wait_event = snowflake_wait_event(worker->wait_event);

	if (worker->start)
		worker->start();

	/* whatever a tick allocates goes with the next: workers run for weeks */
	tick_cxt = AllocSetContextCreate(TopMemoryContext, "snowflake worker tick",
									 ALLOCSET_DEFAULT_SIZES);

	while (!ShutdownRequestPending)
	{
		int			interval;
		MemoryContext oldcxt;

		MemoryContextReset(tick_cxt);
		oldcxt = MemoryContextSwitchTo(tick_cxt);
		worker->tick();
		MemoryContextSwitchTo(oldcxt);

		/* after the tick: it may have changed what comes next */
		interval = worker->interval_ms();

		(void) WaitLatch(MyLatch,
						 WL_LATCH_SET | WL_EXIT_ON_PM_DEATH |
						 (interval > 0 ? WL_TIMEOUT : 0),
						 interval, wait_event);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			if (worker->reload)
				worker->reload();
		}
	}

	if (worker->stop)
		worker->stop();
	ereport(LOG, (errmsg("%s shutting down", worker->name)));

	/* exit code 1: the postmaster restarts us unless it is shutting down */
	proc_exit(1);
}
