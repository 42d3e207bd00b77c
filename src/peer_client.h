/*-------------------------------------------------------------------------
 *
 * peer_client.h
 *	  Asking peers questions over libpq (peer_client.c), for the peer
 *	  checker only: the rest of the code never sees libpq.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/peer_client.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_PEER_CLIENT_H
#define SNOWFLAKE_PEER_CLIENT_H

#include "libpq-fe.h"

typedef char *(*SnowflakePeerQueryBuilder) (PGconn *conn, int64 deadline,
											 uint32 wait_event,
											 const char **error);

extern PGresult *snowflake_peer_ask(PGconn **conn, const char *conninfo,
									SnowflakePeerQueryBuilder build_query,
									int64 deadline, uint32 wait_event,
									const char **error, bool *hanging);
extern PGresult *snowflake_peer_query_once(PGconn *conn, const char *query,
										   int64 deadline, uint32 wait_event,
										   const char **error);
extern void snowflake_describe_peer(const char *conninfo, char *buf, size_t len);

#endif							/* SNOWFLAKE_PEER_CLIENT_H */
