/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  The generator's shared memory: request, creation, and the hook that
 *	  saves the high-water mark when the server shuts down cleanly.
 *
 * The structure and its locking rules are described in snowflake.h.  It
 * exists only when the library is in shared_preload_libraries; every SQL
 * function that needs it calls snowflake_shared_state(), which raises a
 * clear error otherwise.
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

#define SNOWFLAKE_TRANCHE_NAME "snowflake"

SnowflakeSharedState *snowflake_state = NULL;

#if SNOWFLAKE_SHMEM_REQUEST_HOOK
static shmem_request_hook_type prev_shmem_request_hook = NULL;
#endif
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
shmem_request(void)
{
#if SNOWFLAKE_SHMEM_REQUEST_HOOK
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
#endif
	RequestAddinShmemSpace(MAXALIGN(sizeof(SnowflakeSharedState)));
	RequestNamedLWLockTranche(SNOWFLAKE_TRANCHE_NAME, 2);
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
	if (code != 0 || snowflake_state == NULL)
		return;
	snowflake_hwm_save_at_shutdown(snowflake_state);
}

static void
shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);

	snowflake_state = ShmemInitStruct("snowflake",
									  sizeof(SnowflakeSharedState),
									  &found);
	if (!found)
	{
		LWLockPadded *locks = GetNamedLWLockTranche(SNOWFLAKE_TRANCHE_NAME);

		memset(snowflake_state, 0, sizeof(SnowflakeSharedState));
		SpinLockInit(&snowflake_state->mutex);
		snowflake_state->reserve_lock = &locks[0].lock;
		snowflake_state->peers_lock = &locks[1].lock;
		pg_atomic_init_u64(&snowflake_state->seq_exhaustions, 0);
		pg_atomic_init_u64(&snowflake_state->clock_waits, 0);
		pg_atomic_init_u64(&snowflake_state->clock_errors, 0);

		/* tells this server apart from its peers (peers.c) */
		if (!pg_strong_random(&snowflake_state->instance_token,
							  sizeof(snowflake_state->instance_token)))
			snowflake_state->instance_token = (int64) MyStartTime * 1000003 + MyProcPid;

		/* start above every ID this data directory ever issued */
		snowflake_hwm_load(snowflake_state);
	}

	LWLockRelease(AddinShmemInitLock);

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
#if SNOWFLAKE_SHMEM_REQUEST_HOOK
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = shmem_request;
#else
	shmem_request();
#endif
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = shmem_startup;
}

/*
 * Returns the shared state, or raises an error naming
 * shared_preload_libraries when the library was not preloaded.
 */
SnowflakeSharedState *
snowflake_shared_state(void)
{
	if (unlikely(snowflake_state == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake must be loaded via \"%s\"",
						"shared_preload_libraries"),
				 errhint("Add snowflake to \"%s\" and restart the server.",
						 "shared_preload_libraries")));
	return snowflake_state;
}
