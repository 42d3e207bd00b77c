/*-------------------------------------------------------------------------
 *
 * peer_client.h
 *	  Asking peers questions over libpq and reading their answers without
 *	  trusting them (peer_client.c), for the peer checker and the registry
 *	  client only: the rest of the code never sees libpq.
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

/*
 * One exchange with one peer: connecting, if needed, and every question
 * asked, all within one deadline and one budget of bytes received.
 */
typedef struct SnowflakePeerExchange
{
	int64		deadline;		/* monotonic ms by which it is over */
	uint32		wait_event;
	Size		received;		/* bytes the peer sent, at most (see .c) */
	bool		timed_out;		/* it failed at the deadline */
	bool		refused;		/* the connection was refused: no server */
	const char *error;			/* why it failed */
	const char *application_name;	/* for the peer; NULL: the peer checker */
} SnowflakePeerExchange;

extern void snowflake_peer_limit_memory(void);
extern void snowflake_peer_exchange_begin(SnowflakePeerExchange *ex,
										  int timeout_ms, uint32 wait_event);
extern bool snowflake_peer_connect(PGconn **conn, const char *conninfo,
								   SnowflakePeerExchange *ex);
extern PGresult *snowflake_peer_query(PGconn **conn, const char *query,
									  SnowflakePeerExchange *ex);
extern void snowflake_peer_disconnect(PGconn **conn);
extern char *snowflake_peer_extension_schema(PGconn **conn,
											 SnowflakePeerExchange *ex,
											 const char **error);
extern void snowflake_describe_peer(const char *conninfo, char *buf, size_t len);
extern char *snowflake_peer_text(const char *text);

/* Reading an answer: every function checks before it reads. */
extern bool snowflake_peer_check_rows(const PGresult *res, const char *what,
									  int min_rows, int max_rows,
									  int max_fields, const char **error);
extern int	snowflake_peer_column(const PGresult *res, const char *what,
								  const char *name, Oid type, bool required,
								  const char **error);
extern bool snowflake_peer_get_int(const PGresult *res, int row, int col,
								   const char *what, int64 min, int64 max,
								   bool *isnull, int64 *value,
								   const char **error);
extern bool snowflake_peer_get_bool(const PGresult *res, int row, int col,
									const char *what, bool *value,
									const char **error);
extern const char *snowflake_peer_get_string(const PGresult *res, int row,
											 int col, const char *what,
											 int max_len, bool ascii_only,
											 const char **error);

#endif							/* SNOWFLAKE_PEER_CLIENT_H */
