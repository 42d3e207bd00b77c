/*-------------------------------------------------------------------------
 *
 * generator.h
 *	  Handing out IDs, and the reservation that makes them durable
 *	  (generator.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/generator.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_GENERATOR_H
#define SNOWFLAKE_GENERATOR_H

#include "state_file.h"

typedef struct SnowflakeGeneratorStatus
{
	int64		last_slot;		/* -1 if none issued since start */
	int64		reserved_ms;	/* -1 if nothing reserved */
	uint64		ids_issued;
	int64		max_lead_ms;
	uint64		seq_exhaustions;
	uint64		clock_waits;
	uint64		clock_errors;
	int64		generating_since_ms;	/* Unix ms of the first reservation
										 * since start or promotion; 0 */
} SnowflakeGeneratorStatus;

extern Size snowflake_generator_shmem_size(void);
extern void snowflake_generator_shmem_init(void);
extern void snowflake_generator_resume(const SnowflakeSavedMark *saved);
extern void snowflake_generator_replay_mark(int64 mark);
extern void snowflake_generator_renew(void);
extern int64 snowflake_generator_close(void);
extern void snowflake_generator_status(SnowflakeGeneratorStatus *status);
extern void snowflake_generator_install_hooks(void);

#endif							/* SNOWFLAKE_GENERATOR_H */
