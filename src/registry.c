/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  Node IDs leased from snowflake.node_registry.
 *
 * Not built yet: a server configured for a registry waits, saying so.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/registry.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "identity.h"
#include "registry.h"

int
snowflake_registry_interval_ms(void)
{
	return 0;
}

void
snowflake_registry_start(void)
{
	snowflake_identity_waiting(_("Leasing node IDs from \"snowflake.node_registry\" is not available in this build."));
}

void
snowflake_registry_tick(void)
{
}

void
snowflake_registry_stop(void)
{
}
