/*-------------------------------------------------------------------------
 *
 * admission.c
 *	  Whether this server may generate IDs now, and if not, why.
 *
 * A reason to refuse generation is a bit in one shared word, with a line
 * of detail beside it.  Every reason has exactly one writer:
 *
 *	SNOWFLAKE_BLOCK_NODE_ID		identity.c, while this server has no node
 *								ID (an empty detail: none is configured)
 *	SNOWFLAKE_BLOCK_STATE_FILE	state_file.c, when the file cannot be trusted
 *	SNOWFLAKE_BLOCK_CONFLICT	peer_checker.c, while a peer uses our node ID
 *	SNOWFLAKE_BLOCK_LAYOUT_CONFLICT	peer_checker.c, while a peer or a lease
 *								of another ID layout generates
 *	SNOWFLAKE_BLOCK_FIRST_ROUND	peer_checker.c: the gate, closed from start
 *								(and while stepped back from a conflict)
 *								until a round begun while this server
 *								claimed its node ID heard from every peer
 *
 * The generator reads the word once per call (snowflake_admission_check()
 * in admission.h) and, only when it is not zero, turns the first reason
 * into an error.  Details are written and read under a spinlock held for a
 * strlcpy; the word itself is an atomic, so that readers never wait.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/admission.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "port/pg_bitutils.h"
#include "storage/shmem.h"
#include "storage/spin.h"

#include "admission.h"
#include "layout.h"
#include "settings.h"

#define DETAIL_LEN	256

typedef struct AdmissionShared
{
	pg_atomic_uint32 blocked;	/* SnowflakeBlock bits */
	pg_atomic_uint32 node_id_plus_one;	/* the node ID messages name; 0: none */
	slock_t		mutex;			/* protects detail */
	char		detail[SNOWFLAKE_BLOCK_REASONS][DETAIL_LEN];
} AdmissionShared;

static AdmissionShared *admission = NULL;

pg_atomic_uint32 *snowflake_admission_blocked_reasons = NULL;

Size
snowflake_admission_shmem_size(void)
{
	return MAXALIGN(sizeof(AdmissionShared));
}

/*
 * Creates the shared state: nothing blocked.  Called with
 * AddinShmemInitLock held.
 */
void
snowflake_admission_shmem_init(void)
{
	bool		found;

	admission = ShmemInitStruct("snowflake admission", sizeof(AdmissionShared),
								&found);
	if (!found)
	{
		pg_atomic_init_u32(&admission->blocked, 0);
		pg_atomic_init_u32(&admission->node_id_plus_one, 0);
		SpinLockInit(&admission->mutex);
		memset(admission->detail, 0, sizeof(admission->detail));
	}
	snowflake_admission_blocked_reasons = &admission->blocked;
}

static int
reason_index(SnowflakeBlock reason)
{
	return pg_rightmost_one_pos32((uint32) reason);
}

/*
 * Refuses generation for reason, with detail (a complete sentence, or NULL)
 * for the error and for snowflake_status().  Only the reason's writer calls
 * it.
 */
void
snowflake_admission_block(SnowflakeBlock reason, const char *detail)
{
	int			i = reason_index(reason);

	SpinLockAcquire(&admission->mutex);
	strlcpy(admission->detail[i], detail ? detail : "", DETAIL_LEN);
	SpinLockRelease(&admission->mutex);
	pg_atomic_fetch_or_u32(&admission->blocked, (uint32) reason);
}

/* Refuses generation for reason again, keeping the detail it has. */
void
snowflake_admission_block_again(SnowflakeBlock reason)
{
	pg_atomic_fetch_or_u32(&admission->blocked, (uint32) reason);
}

void
snowflake_admission_unblock(SnowflakeBlock reason)
{
	pg_atomic_fetch_and_u32(&admission->blocked, ~(uint32) reason);
}

/*
 * Tells admission the node ID in use, for its messages (identity.c, when
 * the node ID is assigned).
 */
void
snowflake_admission_set_node_id(int32 node_id)
{
	pg_atomic_write_u32(&admission->node_id_plus_one, (uint32) node_id + 1);
}

static void
copy_detail(SnowflakeBlock reason, char *buf)
{
	SpinLockAcquire(&admission->mutex);
	strlcpy(buf, admission->detail[reason_index(reason)], DETAIL_LEN);
	SpinLockRelease(&admission->mutex);
}

/*
 * What this server says of its node ID to its peers (snowflake_node_info(),
 * for the peer checker's claim-then-ask): whether it claims it (a primary
 * with a node ID whose gate is closed, not stepped back from a conflict)
 * and whether it is admitted (its gate open, not stepped back).  A server
 * stepped back does neither.  The other reasons do not count: a peer that
 * takes us for admitted when we are not only waits longer.
 */
void
snowflake_admission_claim_state(bool *claiming, bool *admitted)
{
	uint32		blocked = pg_atomic_read_u32(&admission->blocked);
	bool		primary = !RecoveryInProgress() &&
		pg_atomic_read_u32(&admission->node_id_plus_one) != 0 &&
		!(blocked & SNOWFLAKE_BLOCK_NODE_ID);
	bool		stepped_back = (blocked & (SNOWFLAKE_BLOCK_CONFLICT |
										   SNOWFLAKE_BLOCK_LAYOUT_CONFLICT)) != 0;
	bool		gate_closed = (blocked & SNOWFLAKE_BLOCK_FIRST_ROUND) != 0;

	*claiming = primary && gate_closed && !stepped_back;
	*admitted = primary && !gate_closed && !stepped_back;
}

/*
 * The error of a call on a standby, whatever else blocks it (a standby's
 * gate is closed, and a leased node ID is not assigned there).
 */
void
snowflake_refuse_in_recovery(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
			 errmsg("cannot generate snowflake IDs during recovery"),
			 errdetail("A standby shares its primary's node ID; IDs are generated on the primary.")));
	pg_unreachable();
}

/*
 * Raises the error for the first reason in blocked (not zero); on a
 * standby, the standby's.
 */
void
snowflake_admission_refuse(uint32 blocked)
{
	char		detail[DETAIL_LEN];

	if (RecoveryInProgress())
		snowflake_refuse_in_recovery();

	if (blocked & SNOWFLAKE_BLOCK_NODE_ID)
	{
		copy_detail(SNOWFLAKE_BLOCK_NODE_ID, detail);
		if (detail[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("parameter \"%s\" is not set", "snowflake.node_id"),
					 errdetail("Every server that generates snowflake IDs needs a node ID of its own."),
					 errhint("Set \"%s\" to a value from 0 to %d, or \"%s\" to a registry that leases node IDs, and restart the server.",
							 "snowflake.node_id", snowflake_layout()->max_node,
							 "snowflake.node_registry")));
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this server has no snowflake node ID"),
				 errdetail_internal("%s", detail),
				 errhint("snowflake_status() shows where the node ID comes from and what is missing.")));
	}

	if (blocked & SNOWFLAKE_BLOCK_STATE_FILE)
	{
		copy_detail(SNOWFLAKE_BLOCK_STATE_FILE, detail);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake ID generation is disabled: %s", detail),
				 errhint("Make sure the system clock is past every ID this server issued, then remove \"%s\" and restart the server.",
						 SNOWFLAKE_STATE_FILE)));
	}

	if (blocked & SNOWFLAKE_BLOCK_CONFLICT)
	{
		copy_detail(SNOWFLAKE_BLOCK_CONFLICT, detail);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake node ID %d is also used by another server",
						(int) pg_atomic_read_u32(&admission->node_id_plus_one) - 1),
				 errdetail("The conflict: %s. Of two servers with one node ID, the one that generates goes on; the other waits until no peer claims or uses its node ID.",
						   detail),
				 errhint("Give every server its own \"%s\" and restart this one.",
						 "snowflake.node_id")));
	}

	if (blocked & SNOWFLAKE_BLOCK_LAYOUT_CONFLICT)
	{
		copy_detail(SNOWFLAKE_BLOCK_LAYOUT_CONFLICT, detail);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("another server generates snowflake IDs with a different ID layout"),
				 errdetail("The conflict: %s. IDs of two layouts overlap whatever their node IDs; of two such servers, the one that generates goes on, and the other waits.",
						   detail),
				 errhint("Give every server that generates IDs the same \"%s\", \"%s\" and \"%s\", and restart this one.",
						 "snowflake.epoch", "snowflake.node_bits",
						 "snowflake.sequence_bits")));
	}

	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("snowflake ID generation waits for the peers"),
			 errdetail("\"%s\" lists other servers; this server generates no ID before every one of them has answered, or refused the connection, and none uses its node ID.",
					   "snowflake.peers"),
			 errhint("snowflake_peers() shows what each peer answered; a peer that does not answer holds this server back until it answers or is taken off the list.")));
	pg_unreachable();
}

/*
 * The first reason generation is refused for, as a line for
 * snowflake_status(), or NULL.
 */
char *
snowflake_admission_problem(void)
{
	uint32		blocked = pg_atomic_read_u32(&admission->blocked);
	char		detail[DETAIL_LEN];

	if (blocked & SNOWFLAKE_BLOCK_NODE_ID)
	{
		copy_detail(SNOWFLAKE_BLOCK_NODE_ID, detail);
		if (detail[0] == '\0')
			return psprintf(_("\"%s\" is not set"), "snowflake.node_id");
		return psprintf(_("no node ID: %s"), detail);
	}
	if (blocked & SNOWFLAKE_BLOCK_STATE_FILE)
	{
		copy_detail(SNOWFLAKE_BLOCK_STATE_FILE, detail);
		return pstrdup(detail);
	}
	if (blocked & SNOWFLAKE_BLOCK_CONFLICT)
	{
		copy_detail(SNOWFLAKE_BLOCK_CONFLICT, detail);
		return psprintf(_("node ID conflict: %s"), detail);
	}
	if (blocked & SNOWFLAKE_BLOCK_LAYOUT_CONFLICT)
	{
		copy_detail(SNOWFLAKE_BLOCK_LAYOUT_CONFLICT, detail);
		return psprintf(_("ID layout conflict: %s"), detail);
	}
	/* a standby's gate is closed until its promotion: no problem of its own */
	if ((blocked & SNOWFLAKE_BLOCK_FIRST_ROUND) && !RecoveryInProgress())
		return pstrdup(_("waiting for every peer to answer"));
	return NULL;
}

/*
 * The error of every function that needs shared memory when the library
 * was not preloaded.
 */
void
snowflake_report_not_preloaded(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("snowflake must be loaded via \"%s\"",
					"shared_preload_libraries"),
			 errhint("Add snowflake to \"%s\" and restart the server.",
					 "shared_preload_libraries")));
	pg_unreachable();
}
