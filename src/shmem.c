/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  Requests and creates the shared memory of the extension, and saves
 *	  the high-water mark when the server shuts down cleanly.
 *
 * Each piece of shared state belongs to one file, which alone reads and
 * writes it (see snowflake.h); this file only asks each owner for its size
 * and has it initialize its part.  Shared memory exists only when the
 * library is in shared_preload_libraries; functions that need it call
 * snowflake_require_shmem(), which raises a clear error otherwise.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/shmem.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

#include "snowflake.h"

#define SNOWFLAKE_TRANCHE_NAME	"snowflake"
#define LOCK_HWM				0
#define LOCK_PEERS				1
#define NUM_LOCKS				2

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static bool shmem_ready = false;

static void
shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	RequestAddinShmemSpace(add_size(add_size(snowflake_clock_shmem_size(),
											 snowflake_generator_shmem_size()),
									add_size(add_size(snowflake_hwm_shmem_size(),
													  snowflake_clock_watcher_shmem_size()),
											 snowflake_peers_shmem_size())));
	RequestNamedLWLockTranche(SNOWFLAKE_TRANCHE_NAME, NUM_LOCKS);
}

/*
 * on_shmem_exit callback of the postmaster.  When every other process is
 * gone after a clean shutdown (code 0), lower the saved high-water mark from
 * the reservation to the last ID really issued, so that a clean restart does
 * not have to jump ahead of the clock.  After a crash the reservation stays:
 * it is the only trustworthy bound.
 */
static void
shmem_shutdown(int code, Datum arg)
{
	SnowflakeGeneratorStatus gen;

	if (code != 0 || !shmem_ready)
		return;
	snowflake_generator_status(&gen);
	if (gen.ids_issued > 0)
		snowflake_hwm_save_at_shutdown(gen.last_slot);
}

static void
shmem_startup(void)
{
	LWLockPadded *locks;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	locks = GetNamedLWLockTranche(SNOWFLAKE_TRANCHE_NAME);
	snowflake_clock_shmem_init();
	snowflake_generator_shmem_init();
	/* after the generator: it raises it above the saved mark */
	snowflake_hwm_shmem_init(&locks[LOCK_HWM].lock);
	snowflake_clock_watcher_shmem_init();
	snowflake_peers_shmem_init(&locks[LOCK_PEERS].lock);
	LWLockRelease(AddinShmemInitLock);
	shmem_ready = true;

	/*
	 * The postmaster (not a backend under EXEC_BACKEND) arranges to save
	 * the high-water mark when it exits.  After a crash and reinitialization
	 * the callback list is reset and this registers it again.
	 */
	if (!IsUnderPostmaster)
		on_shmem_exit(shmem_shutdown, (Datum) 0);
}

/*
 * Installs the hooks; called from _PG_init() while preloading.
 */
void
snowflake_shmem_install_hooks(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = shmem_startup;
}

/*
 * True once the shared state exists: the library was preloaded.
 */
bool
snowflake_shmem_ready(void)
{
	return shmem_ready;
}

/*
 * Raises an error naming shared_preload_libraries when the library was not
 * preloaded.
 */
void
snowflake_require_shmem(void)
{
	if (unlikely(!shmem_ready))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake must be loaded via \"%s\"",
						"shared_preload_libraries"),
				 errhint("Add snowflake to \"%s\" and restart the server.",
						 "shared_preload_libraries")));
}
