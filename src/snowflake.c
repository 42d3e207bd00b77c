/*-------------------------------------------------------------------------
 *
 * snowflake.c
 *	  Module magic and _PG_init() for the snowflake extension.
 *
 * _PG_init() never fails for lack of preloading: the type and the decoding
 * functions must work in any backend, and CREATE EXTENSION or pg_restore
 * load the library to validate C functions.  Only when it runs in the
 * postmaster (shared_preload_libraries) does it check the layout, set up
 * shared memory, the WAL resource manager and the DISCARD hook, and
 * register the workers.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/snowflake.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "snowflake.h"

SNOWFLAKE_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	bool		preloading = process_shared_preload_libraries_in_progress;

	snowflake_define_gucs(preloading);

	if (!preloading)
		return;

	/* an ERROR here stops the postmaster with the reason in the log */
	snowflake_check_startup_settings();

	snowflake_shmem_install_hooks();
	snowflake_wal_register();
	snowflake_generator_install_hooks();

	if (!IsUnderPostmaster)
		snowflake_log_layout();

	/* the workers are optional; pg_upgrade's server needs none */
	if (IsBinaryUpgrade)
		return;
	if (snowflake_clock_check_interval > 0)
		snowflake_register_worker("snowflake clock watcher",
								  "snowflake_clock_watcher_main", 1);
	if (snowflake_peers != NULL && snowflake_peers[0] != '\0')
		snowflake_register_worker("snowflake peer checker",
								  "snowflake_peer_checker_main", 5);
}
