/*-------------------------------------------------------------------------
 *
 * citus_node.c
 *	  Reading this server's Citus group ID from its own Citus metadata,
 *	  for the node-ID worker (node_worker.c).
 *
 * On a Citus cluster every server has a group: the coordinator group 0,
 * each worker the group the coordinator gave it when it was added (Citus
 * never hands out a group ID twice), and a physical standby its primary's.
 * Citus itself makes sequences unique across nodes with it.  The group is
 * in pg_dist_local_group of the database where Citus is installed, on
 * every server: no coordinator needs to be reachable.
 *
 * A server not yet added to a cluster also reads group 0.  So group 0 is
 * trusted only where this server's metadata lists a primary node of group
 * 0, i.e. it is a coordinator; a worker is trusted once its metadata gives
 * it a group of its own.
 *
 * Runs in a worker connected to snowflake.database, inside a transaction
 * of its own; the queries name every object by schema.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/citus_node.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "utils/snapmgr.h"

#include "citus_node.h"
#include "layout.h"
#include "settings.h"

/* whether Citus is installed in this database */
#define CITUS_INSTALLED_QUERY \
	"SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0" \
	" FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'citus'"

/* the local group, and how many primary coordinators (group 0) are listed */
#define CITUS_GROUP_QUERY \
	"SELECT (SELECT pg_catalog.min(g.groupid) FROM pg_catalog.pg_dist_local_group g)," \
	" (SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_node n" \
	"   WHERE n.groupid OPERATOR(pg_catalog.=) 0" \
	"     AND n.noderole::pg_catalog.text OPERATOR(pg_catalog.=) 'primary')"

/*
 * Reads the Citus group of this server.  Returns CITUS_GROUP_OK with
 * *group set when it is this server's node ID; otherwise *why says, in a
 * sentence, what is missing.  Must run outside a transaction.
 */
SnowflakeCitusGroup
snowflake_citus_group(int32 *group, char **why)
{
	const SnowflakeLayout *layout = snowflake_layout();
	SnowflakeCitusGroup result;
	bool		isnull;
	bool		installed;
	int64		local_group = -1;
	int64		coordinators = 0;

	MemoryContext caller_cxt = CurrentMemoryContext;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());

	if (SPI_execute(CITUS_INSTALLED_QUERY, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not look up extension \"citus\"");
	installed = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0],
										   SPI_tuptable->tupdesc, 1, &isnull));
	if (installed)
	{
		Datum		d;

		if (SPI_execute(CITUS_GROUP_QUERY, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not read the Citus group of this server");
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (!isnull)
			local_group = DatumGetInt32(d);
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
		if (!isnull)
			coordinators = DatumGetInt64(d);
	}

	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	/* the commit leaves TopMemoryContext current: back to the caller's */
	MemoryContextSwitchTo(caller_cxt);

	if (!installed)
	{
		*why = psprintf(_("Extension \"%s\" is not installed in database \"%s\" (\"%s\"), where the Citus group ID of this server is read."),
						"citus", snowflake_database, "snowflake.database");
		result = CITUS_GROUP_WAIT;
	}
	else if (local_group < 0)
	{
		*why = psprintf(_("Citus's table \"%s\" in database \"%s\" holds no group."),
						"pg_dist_local_group", snowflake_database);
		result = CITUS_GROUP_WAIT;
	}
	else if (local_group == 0 && coordinators == 0)
	{
		*why = psprintf(_("This server reads Citus group 0, but its metadata lists no coordinator: it is not part of a Citus cluster yet. Add it as a worker on the coordinator, or run citus_set_coordinator_host() on the coordinator."));
		result = CITUS_GROUP_WAIT;
	}
	else if (local_group > layout->max_node)
	{
		*why = psprintf(_("The Citus group ID of this server is %lld, which %d node bits cannot hold (0 to %d). Raise \"%s\", or set \"%s\" by hand."),
						(long long) local_group, layout->node_bits, layout->max_node,
						"snowflake.node_bits", "snowflake.node_id");
		result = CITUS_GROUP_UNFIT;
	}
	else
	{
		/* model: citus_16_group_reuse (no floor for a group given again) */
		*group = (int32) local_group;
		result = CITUS_GROUP_OK;
	}
	return result;
}
