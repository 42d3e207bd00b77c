/*-------------------------------------------------------------------------
 *
 * citus_node.h
 *	  This server's Citus group ID, read from its own metadata
 *	  (citus_node.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/citus_node.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_CITUS_NODE_H
#define SNOWFLAKE_CITUS_NODE_H

typedef enum SnowflakeCitusGroup
{
	CITUS_GROUP_OK,				/* the group is this server's node ID */
	CITUS_GROUP_WAIT,			/* not part of a cluster (yet) */
	CITUS_GROUP_UNFIT			/* the layout cannot hold the group ID */
} SnowflakeCitusGroup;

extern SnowflakeCitusGroup snowflake_citus_group(int32 *group, char **why);

#endif							/* SNOWFLAKE_CITUS_NODE_H */
