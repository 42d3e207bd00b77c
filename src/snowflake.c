/*-------------------------------------------------------------------------
 *
 * snowflake.c
 *	  Module magic and _PG_init() for the snowflake extension: the top of
 *	  the layers (see snowflake.h).
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

#include "clock.h"
#include "compat.h"
#include "generator.h"
#include "identity.h"
#include "layout.h"
#include "redo.h"
#include "settings.h"
#include "snowflake.h"
#include "workers.h"

SNOWFLAKE_MODULE_MAGIC;

void		_PG_init(void);

/*
 * Logs the layout in force when the postmaster starts, so that the log
 * says what every ID generated from now on means.
 */
static void
log_layout(void)
{
	const SnowflakeLayout *layout = snowflake_layout();
	SnowflakeNodeSource source = snowflake_node_source();

	if (source == SNOWFLAKE_NODE_NONE)
		ereport(WARNING,
				(errmsg("parameter \"%s\" is not set, so no snowflake IDs will be generated",
						"snowflake.node_id"),
				 errhint("Set \"%s\" to a value from 0 to %d, or \"%s\" to a registry that leases node IDs, and restart the server.",
						 "snowflake.node_id", layout->max_node, "snowflake.node_registry")));
	else if (source == SNOWFLAKE_NODE_MANUAL &&
			 snowflake_node_id > layout->max_node)
		ereport(WARNING,
				(errmsg("node ID %d is out of range, so no snowflake IDs will be generated",
						snowflake_node_id),
				 errdetail("With \"%s\" = %d, valid node IDs are 0 to %d.",
						   "snowflake.node_bits", layout->node_bits, layout->max_node),
				 errhint("Change \"%s\" or \"%s\" and restart the server.",
						 "snowflake.node_id", "snowflake.node_bits")));
	else if (source == SNOWFLAKE_NODE_MANUAL)
		ereport(LOG,
				(errmsg("snowflake IDs of node %d: epoch %s, %d time bits, %d node bits, %d sequence bits; time bits run out at %s",
						snowflake_node_id,
						snowflake_unix_ms_to_str(layout->epoch_ms),
						layout->time_bits, layout->node_bits, layout->seq_bits,
						snowflake_unix_ms_to_str(layout->epoch_ms + layout->max_ms + 1))));
	else if (source == SNOWFLAKE_NODE_CITUS)
		ereport(LOG,
				(errmsg("snowflake IDs with the Citus group ID as node ID: epoch %s, %d time bits, %d node bits, %d sequence bits; time bits run out at %s",
						snowflake_unix_ms_to_str(layout->epoch_ms),
						layout->time_bits, layout->node_bits, layout->seq_bits,
						snowflake_unix_ms_to_str(layout->epoch_ms + layout->max_ms + 1))));
	else
		ereport(LOG,
				(errmsg("snowflake IDs with a node ID leased from \"%s\": epoch %s, %d time bits, %d node bits, %d sequence bits; time bits run out at %s",
						"snowflake.node_registry",
						snowflake_unix_ms_to_str(layout->epoch_ms),
						layout->time_bits, layout->node_bits, layout->seq_bits,
						snowflake_unix_ms_to_str(layout->epoch_ms + layout->max_ms + 1))));

	snowflake_check_lifetime(snowflake_wall_clock_ms(), snowflake_epoch_warning_days);
}

void
_PG_init(void)
{
	bool		preloading = process_shared_preload_libraries_in_progress;

	snowflake_define_settings(preloading);

	if (!preloading)
		return;

	/* an ERROR here stops the postmaster with the reason in the log */
	snowflake_check_startup_settings();

	snowflake_shmem_install_hooks();
	snowflake_redo_register();
	snowflake_generator_install_hooks();

	if (!IsUnderPostmaster)
		log_layout();

	/*
	 * Both workers run whatever their settings say, and sleep while there
	 * is nothing to do (snowflake.clock_check_interval = 0, snowflake.peers
	 * empty), so that setting either by a reload takes effect at once.
	 * pg_upgrade's server needs neither.
	 */
	if (!IsBinaryUpgrade)
	{
		snowflake_register_worker("snowflake clock watcher",
								  "snowflake_clock_watcher_main", 1, false);
		snowflake_register_worker("snowflake peer checker",
								  "snowflake_peer_checker_main", 5, false);
		/* a node ID to obtain, from Citus's metadata or the registry */
		if (snowflake_node_source() == SNOWFLAKE_NODE_CITUS ||
			snowflake_node_source() == SNOWFLAKE_NODE_REGISTRY)
			snowflake_register_worker("snowflake node ID worker",
									  "snowflake_node_worker_main", 5,
									  snowflake_node_source() == SNOWFLAKE_NODE_CITUS);
	}
}
