/*-------------------------------------------------------------------------
 *
 * admission.h
 *	  May this server generate IDs now, and if not, why (admission.c).
 *
 * Each reason to refuse generation has one writer, which blocks and
 * unblocks it; the generator reads all of them with one atomic load per
 * call, and snowflake_status() reads them to say what is wrong.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/admission.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_ADMISSION_H
#define SNOWFLAKE_ADMISSION_H

#include "port/atomics.h"

#include "compat.h"

/* The reasons, one bit each, in the order they are reported */
typedef enum SnowflakeBlock
{
	SNOWFLAKE_BLOCK_NODE_ID = 1 << 0,	/* no node ID: identity.c */
	SNOWFLAKE_BLOCK_STATE_FILE = 1 << 1,	/* state file untrusted: state_file.c */
	SNOWFLAKE_BLOCK_CONFLICT = 1 << 2,	/* a peer has our node ID: peer_checker.c */
	SNOWFLAKE_BLOCK_FIRST_ROUND = 1 << 3,	/* the peers' gate: peer_checker.c */
	SNOWFLAKE_BLOCK_LAYOUT_CONFLICT = 1 << 4	/* a peer of another ID layout:
												 * peer_checker.c */
} SnowflakeBlock;

#define SNOWFLAKE_BLOCK_REASONS		5

extern Size snowflake_admission_shmem_size(void);
extern void snowflake_admission_shmem_init(void);

extern void snowflake_admission_block(SnowflakeBlock reason, const char *detail);
extern void snowflake_admission_block_again(SnowflakeBlock reason);
extern void snowflake_admission_unblock(SnowflakeBlock reason);
extern void snowflake_admission_set_node_id(int32 node_id);
pg_noreturn extern void snowflake_admission_refuse(uint32 blocked);
pg_noreturn extern void snowflake_refuse_in_recovery(void);
extern void snowflake_admission_claim_state(bool *claiming, bool *admitted);
extern char *snowflake_admission_problem(void);

pg_noreturn extern void snowflake_report_not_preloaded(void);

/* the blocked reasons; read through this pointer, written by admission.c */
extern pg_atomic_uint32 *snowflake_admission_blocked_reasons;

/*
 * Raises the error of the first reason generation is refused for, if any;
 * also when the library was not preloaded.  One atomic load on the path of
 * every ID.
 */
static inline void
snowflake_admission_check(void)
{
	uint32		blocked;

	if (unlikely(snowflake_admission_blocked_reasons == NULL))
		snowflake_report_not_preloaded();
	blocked = pg_atomic_read_u32(snowflake_admission_blocked_reasons);
	if (unlikely(blocked != 0))
		snowflake_admission_refuse(blocked);
}

/* True once the shared state exists: the library was preloaded. */
static inline bool
snowflake_preloaded(void)
{
	return snowflake_admission_blocked_reasons != NULL;
}

/* Raises the "must be loaded via shared_preload_libraries" error if not. */
static inline void
snowflake_require_preload(void)
{
	if (unlikely(snowflake_admission_blocked_reasons == NULL))
		snowflake_report_not_preloaded();
}

#endif							/* SNOWFLAKE_ADMISSION_H */
