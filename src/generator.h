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
	int64		generating_since_ms;	/* Unix ms of the first ID issued
										 * since start or promotion; 0 */
	uint64		observations;	/* IDs observed since start */
	uint64		observations_moved; /* of those, that moved the generator */
	uint64		observations_refused;	/* not followed: too far ahead, or
										 * the generator closed */
	int64		max_observed_move_ms;	/* largest move ahead of the clock */
	int64		granted_ms;		/* a fenced lease's grant (layout ms; -1 none);
								 * PG_INT64_MAX: not fenced */
} SnowflakeGeneratorStatus;

/* What observing an ID did */
typedef enum SnowflakeObserved
{
	OBSERVE_ABOVE,				/* the generator was above it already */
	OBSERVE_MOVED,				/* the generator moved above it */
	OBSERVE_REFUSED,			/* too far ahead of the clock, or the
								 * generator closed: not followed */
	OBSERVE_UNWRITTEN			/* its reservation could not be written */
} SnowflakeObserved;

extern Size snowflake_generator_shmem_size(void);
extern void snowflake_generator_shmem_init(void);
extern void snowflake_generator_resume(const SnowflakeSavedMark *saved);
extern void snowflake_generator_replay_mark(int64 mark);
extern void snowflake_generator_renew(void);
extern int64 snowflake_generator_close(void);
extern bool snowflake_generator_raise_floor(int64 id, int write_elevel);
extern void snowflake_generator_fence(void);
extern void snowflake_generator_grant(int64 until_unix_ms);
extern SnowflakeObserved snowflake_generator_observe(int64 id, bool strict,
													 int write_elevel);
extern void snowflake_generator_status(SnowflakeGeneratorStatus *status);
extern void snowflake_generator_install_hooks(void);

#endif							/* SNOWFLAKE_GENERATOR_H */
