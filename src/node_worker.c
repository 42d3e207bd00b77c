/*-------------------------------------------------------------------------
 *
 * node_worker.c
 *	  The "snowflake node ID" background worker: obtains this server's node
 *	  ID where snowflake.node_id is not set (identity.c says where from).
 *
 *	citus		reads the Citus group of this server (citus_node.c) every
 *				second until it is one this server may use, then assigns it;
 *	registry	takes the lease cached in pg_snowflake/ or claims one from
 *				snowflake.node_registry, assigns it, and reports the
 *				high-water mark to the registry at every
 *				snowflake.peer_check_interval (registry.c).
 *
 * It runs for as long as the server does (it is registered only for these
 * two sources), also once the node ID is assigned: after a crash, shared
 * memory is made anew and the node ID must be obtained again, and a worker
 * that had exited would not be started again.  Until it assigns a node ID,
 * generation is refused, with what it is waiting for as the detail.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/node_worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "utils/memutils.h"

#include "citus_node.h"
#include "identity.h"
#include "registry.h"
#include "settings.h"
#include "workers.h"

#define WORKER_NAME			"snowflake node ID worker"

/* how often to look again while waiting for a node ID */
#define WAIT_INTERVAL_MS	1000

/* the last reason logged for waiting, so that each is logged once */
static char *logged_why = NULL;

/*
 * Says why there is no node ID yet: in the admission detail (the error of
 * snowflake_nextval() and snowflake_status()), and in the log when the
 * reason changes.
 */
static void
report_waiting(const char *why, int elevel)
{
	snowflake_identity_waiting(why);
	if (logged_why != NULL && strcmp(logged_why, why) == 0)
		return;
	ereport(elevel,
			(errmsg("snowflake node ID not obtained yet"),
			 errdetail_internal("%s", why)));
	if (logged_why)
		pfree(logged_why);
	logged_why = MemoryContextStrdup(TopMemoryContext, why);
}

static void
citus_tick(void)
{
	int32		group;
	char	   *why = NULL;

	switch (snowflake_citus_group(&group, &why))
	{
		case CITUS_GROUP_OK:
			snowflake_identity_assign(group);
			ereport(LOG,
					(errmsg("snowflake node ID %d: the Citus group of this server", group)));
			break;
		case CITUS_GROUP_WAIT:
			report_waiting(why, LOG);
			break;
		case CITUS_GROUP_UNFIT:
			report_waiting(why, WARNING);
			break;
	}
}

static bool
have_node_id(void)
{
	return snowflake_identity_node_id() >= 0;
}

static int
node_interval(void)
{
	if (snowflake_node_source() == SNOWFLAKE_NODE_REGISTRY)
		return snowflake_registry_interval_ms();
	/* Citus: once the group is assigned there is nothing left to do */
	return have_node_id() ? 0 : WAIT_INTERVAL_MS;
}

static void
node_start(void)
{
	ereport(LOG,
			(errmsg("%s started, obtaining the node ID from %s",
					WORKER_NAME,
					snowflake_node_source_name(snowflake_node_source()))));
	if (snowflake_node_source() == SNOWFLAKE_NODE_CITUS)
		BackgroundWorkerInitializeConnection(snowflake_database, NULL, 0);
	else
		snowflake_registry_start();
}

static void
node_tick(void)
{
	if (snowflake_node_source() != SNOWFLAKE_NODE_CITUS)
		snowflake_registry_tick();
	else if (!have_node_id())
		citus_tick();
}

static void
node_stop(void)
{
	if (snowflake_node_source() == SNOWFLAKE_NODE_REGISTRY)
		snowflake_registry_stop();
}

static const SnowflakeWorker node_worker = {
	.name = WORKER_NAME,
	.wait_event = "SnowflakeNodeId",
	.interval_ms = node_interval,
	.start = node_start,
	.tick = node_tick,
	.stop = node_stop,
};

/*
 * Entry point of the worker (bgw_function_name).
 */
void
snowflake_node_worker_main(Datum main_arg)
{
	snowflake_worker_run(&node_worker);
}
