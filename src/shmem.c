/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  Requests and creates the shared memory of the extension.
 *
 * Each piece of shared state belongs to one file, which alone reads and
 * writes it (see snowflake.h); this file only adds up their sizes, has
 * each owner create its part, and then starts the generator from the
 * state file: the saved mark goes to the generator, and a missing node ID
 * to admission.  Shared memory exists only when the library is in
 * shared_preload_libraries; functions that need it raise a clear error
 * otherwise (admission.h).
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

#include "admission.h"
#include "clock.h"
#include "generator.h"
#include "identity.h"
#include "registry.h"
#include "settings.h"
#include "snowflake.h"
#include "state_file.h"
#include "workers.h"

#define SNOWFLAKE_TRANCHE_NAME	"snowflake"
#define LOCK_PEERS				0
#define NUM_LOCKS				1

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
shmem_request(void)
{
	Size		size = 0;

	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	size = add_size(size, snowflake_admission_shmem_size());
	size = add_size(size, snowflake_clock_shmem_size());
	size = add_size(size, snowflake_identity_shmem_size());
	size = add_size(size, snowflake_state_file_shmem_size());
	size = add_size(size, snowflake_generator_shmem_size());
	size = add_size(size, snowflake_clock_watcher_shmem_size());
	size = add_size(size, snowflake_peers_shmem_size());
	size = add_size(size, snowflake_registry_shmem_size());
	RequestAddinShmemSpace(size);
	RequestNamedLWLockTranche(SNOWFLAKE_TRANCHE_NAME, NUM_LOCKS);
}

static void
shmem_startup(void)
{
	LWLockPadded *locks;
	SnowflakeSavedMark saved;
	bool		have_mark;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	locks = GetNamedLWLockTranche(SNOWFLAKE_TRANCHE_NAME);
	snowflake_admission_shmem_init();
	snowflake_clock_shmem_init();
	snowflake_identity_shmem_init();
	have_mark = snowflake_state_file_shmem_init(&saved);
	snowflake_generator_shmem_init();
	snowflake_clock_watcher_shmem_init();
	snowflake_peers_shmem_init(&locks[LOCK_PEERS].lock);

	/* the first process to get here (the postmaster) starts the generator */
	if (have_mark)
		snowflake_generator_resume(&saved);
	/* and, with a lease held, above its floor too */
	snowflake_registry_shmem_init();
	LWLockRelease(AddinShmemInitLock);
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
