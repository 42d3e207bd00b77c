/*-------------------------------------------------------------------------
 *
 * registry.h
 *	  Node IDs leased from snowflake.node_registry (registry.c), for the
 *	  node-ID worker.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/registry.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_REGISTRY_H
#define SNOWFLAKE_REGISTRY_H

#include "state_file.h"

extern Size snowflake_registry_shmem_size(void);
extern void snowflake_registry_shmem_init(void);
extern void snowflake_registry_replay_lease(const SnowflakeLease *lease);
extern int	snowflake_registry_interval_ms(void);
extern void snowflake_registry_start(void);
extern void snowflake_registry_tick(void);
extern void snowflake_registry_stop(void);

#endif							/* SNOWFLAKE_REGISTRY_H */
