/*-------------------------------------------------------------------------
 *
 * identity.c
 *	  The node ID this server generates with, and where it came from.
 *
 * The source is decided once, when shared memory is created, from the
 * settings (doc/operations.md, "Node IDs"):
 *
 *	manual		snowflake.node_id is set: it is the node ID, from the start,
 *				exactly as in earlier versions;
 *	citus		otherwise, on a server that preloads Citus: the Citus group ID
 *				of this server, read from its own metadata by the node-ID
 *				worker (citus_node.c);
 *	registry	otherwise, with snowflake.node_registry set: a lease in that
 *				database, claimed or read from the local cache by the node-ID
 *				worker (registry.c);
 *	none		otherwise: no IDs, as before.
 *
 * A node ID, once assigned, stays until the server stops: backends may
 * keep a copy.  Until one is assigned, while a lease cannot be used for a
 * moment (another server's run holds it), and after it is withdrawn for
 * good (the lease released), generation is refused for the admission
 * reason SNOWFLAKE_BLOCK_NODE_ID, whose one writer this file is; the
 * detail says what the server is waiting for.
 *
 * Shared state: the node ID (an atomic, set once) and when it was
 * obtained; the source is a per-process copy of a decision every process
 * makes alike from the same PGC_POSTMASTER settings.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/identity.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/varlena.h"

#include "admission.h"
#include "clock.h"
#include "identity.h"
#include "layout.h"
#include "settings.h"

/* node_id_plus_one: 0 while there is none */
typedef struct IdentityShared
{
	pg_atomic_uint32 node_id_plus_one;
	pg_atomic_uint64 obtained_at;	/* Unix ms; 0: not yet */
	pg_atomic_uint32 withdrawn; /* 1: given up for this run, for good */
} IdentityShared;

static IdentityShared *identity = NULL;

Size
snowflake_identity_shmem_size(void)
{
	return MAXALIGN(sizeof(IdentityShared));
}

/* True when shared_preload_libraries names Citus. */
static bool
citus_preloaded(void)
{
	const char *libraries = GetConfigOption("shared_preload_libraries", true, false);
	char	   *copy;
	List	   *names;
	ListCell   *lc;
	bool		found = false;

	if (libraries == NULL)
		return false;
	copy = pstrdup(libraries);
	if (SplitDirectoriesString(copy, ',', &names))
	{
		foreach(lc, names)
		{
			const char *name = (const char *) lfirst(lc);
			const char *base = strrchr(name, '/');

			base = base ? base + 1 : name;
			if (strcmp(base, "citus") == 0 || strncmp(base, "citus.", 6) == 0)
				found = true;
		}
	}
	return found;
}

/*
 * Where this server's node ID comes from, by the settings.  The same in
 * every process: it depends on PGC_POSTMASTER settings only.
 */
SnowflakeNodeSource
snowflake_node_source(void)
{
	static int	source = -1;

	if (source < 0)
	{
		if (snowflake_node_id >= 0)
			source = SNOWFLAKE_NODE_MANUAL;
		else if (citus_preloaded())
			source = SNOWFLAKE_NODE_CITUS;
		else if (snowflake_node_registry != NULL && snowflake_node_registry[0] != '\0')
			source = SNOWFLAKE_NODE_REGISTRY;
		else
			source = SNOWFLAKE_NODE_NONE;
	}
	return (SnowflakeNodeSource) source;
}

const char *
snowflake_node_source_name(SnowflakeNodeSource source)
{
	switch (source)
	{
		case SNOWFLAKE_NODE_MANUAL:
			return "snowflake.node_id";
		case SNOWFLAKE_NODE_CITUS:
			return "citus";
		case SNOWFLAKE_NODE_REGISTRY:
			return "registry";
		case SNOWFLAKE_NODE_NONE:
			break;
	}
	return "none";
}

/*
 * Creates the shared state.  A hand-set node ID is assigned at once; any
 * other source blocks generation until the node-ID worker has one.
 * Called with AddinShmemInitLock held.
 */
void
snowflake_identity_shmem_init(void)
{
	bool		found;

	identity = ShmemInitStruct("snowflake identity", sizeof(IdentityShared),
							   &found);
	if (found)
		return;
	pg_atomic_init_u32(&identity->node_id_plus_one, 0);
	pg_atomic_init_u64(&identity->obtained_at, 0);
	pg_atomic_init_u32(&identity->withdrawn, 0);

	switch (snowflake_node_source())
	{
		case SNOWFLAKE_NODE_MANUAL:
			if (snowflake_node_id <= snowflake_layout()->max_node)
				snowflake_identity_assign(snowflake_node_id);
			else
				snowflake_identity_waiting(psprintf(_("\"%s\" is %d, which %d node bits cannot hold (0 to %d)."),
													"snowflake.node_id", snowflake_node_id,
													snowflake_layout()->node_bits,
													snowflake_layout()->max_node));
			break;
		case SNOWFLAKE_NODE_CITUS:
			snowflake_identity_waiting(_("The node ID is the Citus group ID of this server, which has not been read yet."));
			break;
		case SNOWFLAKE_NODE_REGISTRY:
			snowflake_identity_waiting(_("The node ID is leased from \"snowflake.node_registry\", and no lease has been obtained yet."));
			break;
		case SNOWFLAKE_NODE_NONE:
			/* an empty detail: "snowflake.node_id is not set" */
			snowflake_admission_block(SNOWFLAKE_BLOCK_NODE_ID, NULL);
			break;
	}
}

/*
 * Makes node_id this server's node ID, and lets it generate (as far as
 * the node ID is concerned), unless it was withdrawn for good.  The
 * caller checked that the layout holds it.  A node ID is assigned once per
 * server run; a later call (after snowflake_identity_waiting()) must give
 * the same one.
 */
void
snowflake_identity_assign(int32 node_id)
{
	uint32		expected = 0;

	Assert(node_id >= 0 && node_id <= snowflake_layout()->max_node);
	if (!pg_atomic_compare_exchange_u32(&identity->node_id_plus_one, &expected,
										(uint32) node_id + 1) &&
		expected != (uint32) node_id + 1)
		elog(ERROR, "snowflake node ID %d assigned while %d is in use",
			 node_id, (int) expected - 1);
	pg_atomic_write_u64(&identity->obtained_at, (uint64) snowflake_wall_clock_ms());
	snowflake_admission_set_node_id(node_id);
	/* the node ID is visible before generation is let through */
	pg_write_barrier();
	if (pg_atomic_read_u32(&identity->withdrawn) != 0)
		return;
	snowflake_admission_unblock(SNOWFLAKE_BLOCK_NODE_ID);

	/*
	 * A withdrawal that crossed this one may have blocked before the unblock
	 * above: block again.  Both sides write, then read-modify-write the
	 * blocked reasons (a full barrier), so one of them sees the other.
	 */
	if (pg_atomic_read_u32(&identity->withdrawn) != 0)
		snowflake_admission_block_again(SNOWFLAKE_BLOCK_NODE_ID);
}

/*
 * Refuses generation until a node ID is assigned, saying why (a complete
 * sentence), for the error and for snowflake_status().
 */
void
snowflake_identity_waiting(const char *why)
{
	Assert(why != NULL && why[0] != '\0');
	snowflake_admission_block(SNOWFLAKE_BLOCK_NODE_ID, why);
}

/*
 * Refuses generation with the node ID in use for good, until the server
 * restarts (a released lease): no later snowflake_identity_assign() lifts
 * it.  The node ID stays recorded, for the status.
 */
void
snowflake_identity_withdraw(const char *why)
{
	pg_atomic_write_u32(&identity->withdrawn, 1);
	snowflake_admission_block(SNOWFLAKE_BLOCK_NODE_ID, why);
}

/* True once the node ID was withdrawn for this run. */
bool
snowflake_identity_withdrawn(void)
{
	return identity != NULL && pg_atomic_read_u32(&identity->withdrawn) != 0;
}

/* The node ID assigned, or -1. */
int32
snowflake_identity_node_id(void)
{
	if (identity == NULL)
		return -1;
	return (int32) pg_atomic_read_u32(&identity->node_id_plus_one) - 1;
}

void
snowflake_identity_status(SnowflakeIdentityStatus *status)
{
	status->source = snowflake_node_source();
	status->node_id = snowflake_identity_node_id();
	status->obtained_at = identity ?
		(int64) pg_atomic_read_u64(&identity->obtained_at) : 0;
}
