/*-------------------------------------------------------------------------
 *
 * identity.h
 *	  The node ID this server generates with, and where it came from
 *	  (identity.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/identity.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_IDENTITY_H
#define SNOWFLAKE_IDENTITY_H

/* Where the node ID comes from, decided once at start by the settings */
typedef enum SnowflakeNodeSource
{
	SNOWFLAKE_NODE_NONE,		/* nothing configured: no IDs */
	SNOWFLAKE_NODE_MANUAL,		/* snowflake.node_id */
	SNOWFLAKE_NODE_CITUS,		/* the Citus group ID of this server */
	SNOWFLAKE_NODE_REGISTRY		/* a lease in snowflake.node_registry */
} SnowflakeNodeSource;

typedef struct SnowflakeIdentityStatus
{
	SnowflakeNodeSource source;
	int32		node_id;		/* -1: not obtained (yet) */
	int64		obtained_at;	/* Unix ms; 0: not yet */
} SnowflakeIdentityStatus;

extern Size snowflake_identity_shmem_size(void);
extern void snowflake_identity_shmem_init(void);

extern SnowflakeNodeSource snowflake_node_source(void);
extern const char *snowflake_node_source_name(SnowflakeNodeSource source);
extern void snowflake_identity_assign(int32 node_id);
extern void snowflake_identity_waiting(const char *why);
extern void snowflake_identity_withdraw(const char *why);
extern bool snowflake_identity_withdrawn(void);
extern int32 snowflake_identity_node_id(void);
extern void snowflake_identity_status(SnowflakeIdentityStatus *status);

#endif							/* SNOWFLAKE_IDENTITY_H */
