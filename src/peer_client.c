/*-------------------------------------------------------------------------
 *
 * peer_client.c
 *	  One question to a peer over libpq, asynchronously, with a deadline:
 *	  the peer checker (peer_checker.c) must never hang on a peer that
 *	  stopped answering, and must answer SIGTERM at once.
 *
 * Every wait is a WaitLatchOrSocket() on the connection's socket and the
 * process latch, bounded by the deadline: a peer whose backend stalled
 * (statement_timeout, being server-side, cannot fire then) costs at most
 * snowflake.peer_timeout, and a shutdown request interrupts the wait.
 * Connections use TCP keepalives, so that a peer that vanished is noticed
 * by the kernel too, and are kept open between rounds.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/peer_client.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "libpq-fe.h"
#include "miscadmin.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"

#include "peer_client.h"
#include "snowflake.h"

/*
 * Waits until the socket of conn is ready for what events asks, the
 * deadline (monotonic ms) passes, or a shutdown is requested.  Returns
 * false, with *error set, in the last two cases.
 */
static bool timed_out;

static bool
wait_for_socket(PGconn *conn, int events, int64 deadline, uint32 wait_event,
				const char **error)
{
	for (;;)
	{
		int64		left = deadline - snowflake_monotonic_ms();
		int			rc;

		if (ShutdownRequestPending)
		{
			*error = _("the peer checker is shutting down");
			return false;
		}
		if (left <= 0)
		{
			*error = psprintf(_("no answer within %d ms (\"%s\")"),
							  snowflake_peer_timeout, "snowflake.peer_timeout");
			timed_out = true;
			return false;
		}

		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events,
							   PQsocket(conn), (long) left, wait_event);
		if (rc & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		if (rc & events)
			return true;
	}
}

/* libpq's message for conn, without its trailing newline */
static const char *
conn_error(PGconn *conn)
{
	char	   *msg = pstrdup(PQerrorMessage(conn));

	msg[strcspn(msg, "\n")] = '\0';
	return msg[0] ? msg : _("connection failed");
}

/*
 * Opens a connection to conninfo, without blocking past the deadline.
 */
static PGconn *
connect_to_peer(const char *conninfo, int64 deadline, uint32 wait_event,
				const char **error)
{
	static const char *const keywords[] = {
		"dbname", "application_name", "keepalives", "keepalives_idle",
		"keepalives_interval", "keepalives_count", "options", NULL
	};
	const char *values[] = {
		conninfo, "snowflake peer checker", "1", "10", "5", "3",
		/* nothing on the search_path can capture a name we use */
		"-c search_path=pg_catalog,pg_temp", NULL
	};
	PGconn	   *conn;

	/* expand_dbname: conninfo may be a connection string or a URI */
	conn = PQconnectStartParams(keywords, values, 1);
	if (conn == NULL)
	{
		*error = _("out of memory");
		return NULL;
	}
	if (PQstatus(conn) == CONNECTION_BAD)
	{
		*error = conn_error(conn);
		PQfinish(conn);
		return NULL;
	}

	for (;;)
	{
		PostgresPollingStatusType poll = PQconnectPoll(conn);
		int			events;

		if (poll == PGRES_POLLING_OK)
			return conn;
		if (poll == PGRES_POLLING_FAILED)
		{
			*error = conn_error(conn);
			PQfinish(conn);
			return NULL;
		}
		events = poll == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
		if (!wait_for_socket(conn, events, deadline, wait_event, error))
		{
			PQfinish(conn);
			return NULL;
		}
	}
}

/*
 * Sends query (no parameters) and waits for its result, without blocking
 * past the deadline.  Returns the result of a successful query returning
 * rows, or NULL with *error set.
 */
static PGresult *
run_query(PGconn *conn, const char *query, int64 deadline, uint32 wait_event,
		  const char **error)
{
	PGresult   *result = NULL;
	PGresult   *res;

	if (!PQsendQuery(conn, query))
	{
		*error = conn_error(conn);
		return NULL;
	}
	for (;;)
	{
		int			flush = PQflush(conn);

		if (flush < 0)
		{
			*error = conn_error(conn);
			return NULL;
		}
		if (flush == 0)
			break;
		if (!wait_for_socket(conn, WL_SOCKET_WRITEABLE, deadline, wait_event, error))
			return NULL;
	}

	for (;;)
	{
		while (PQisBusy(conn))
		{
			if (!wait_for_socket(conn, WL_SOCKET_READABLE, deadline, wait_event, error))
			{
				if (result)
					PQclear(result);
				return NULL;
			}
			if (!PQconsumeInput(conn))
			{
				*error = conn_error(conn);
				if (result)
					PQclear(result);
				return NULL;
			}
		}
		res = PQgetResult(conn);
		if (res == NULL)
			break;
		/* keep the first result; read the rest to leave the connection idle */
		if (result == NULL)
			result = res;
		else
			PQclear(res);
	}

	if (result == NULL || PQresultStatus(result) != PGRES_TUPLES_OK)
	{
		char	   *msg = pstrdup(result ? PQresultErrorMessage(result) : _("no result"));

		msg[strcspn(msg, "\n")] = '\0';
		*error = msg;
		if (result)
			PQclear(result);
		return NULL;
	}
	return result;
}

/*
 * Asks a peer one question.  *conn is the connection kept for this peer
 * (NULL if none); it is opened if needed, and closed and set to NULL on any
 * failure, so that the next round starts afresh.  build_query is given the
 * connection to build the question on (it may ask questions of its own,
 * through snowflake_peer_query_once()).  Returns the result, or NULL with
 * *error set, and *hanging set if the peer did not answer in time.  The
 * whole exchange ends by the deadline (monotonic ms).
 */
PGresult *
snowflake_peer_ask(PGconn **conn, const char *conninfo,
				   SnowflakePeerQueryBuilder build_query,
				   int64 deadline, uint32 wait_event, const char **error,
				   bool *hanging)
{
	PGresult   *res;
	char	   *query;

	timed_out = false;

	if (*conn != NULL && PQstatus(*conn) != CONNECTION_OK)
	{
		PQfinish(*conn);
		*conn = NULL;
	}
	if (*conn == NULL)
	{
		*conn = connect_to_peer(conninfo, deadline, wait_event, error);
		if (*conn == NULL)
		{
			*hanging = timed_out;
			return NULL;
		}
	}

	query = build_query(*conn, deadline, wait_event, error);
	res = query ? run_query(*conn, query, deadline, wait_event, error) : NULL;
	if (res == NULL)
	{
		PQfinish(*conn);
		*conn = NULL;
	}
	*hanging = timed_out;
	return res;
}

/*
 * One query on an open connection, for build_query callbacks.
 */
PGresult *
snowflake_peer_query_once(PGconn *conn, const char *query, int64 deadline,
						  uint32 wait_event, const char **error)
{
	return run_query(conn, query, deadline, wait_event, error);
}

/*
 * A readable name for a peer: host, port and database of its connection
 * string, never its password.
 */
void
snowflake_describe_peer(const char *conninfo, char *buf, size_t len)
{
	PQconninfoOption *opts = PQconninfoParse(conninfo, NULL);
	const char *host = NULL;
	const char *port = NULL;
	const char *dbname = NULL;

	if (opts == NULL)
	{
		strlcpy(buf, _("(unparsable connection string)"), len);
		return;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
	{
		if (o->val == NULL || o->val[0] == '\0')
			continue;
		if (strcmp(o->keyword, "host") == 0 ||
			(strcmp(o->keyword, "hostaddr") == 0 && host == NULL))
			host = o->val;
		else if (strcmp(o->keyword, "port") == 0)
			port = o->val;
		else if (strcmp(o->keyword, "dbname") == 0)
			dbname = o->val;
	}
	snprintf(buf, len, "host=%s port=%s dbname=%s",
			 host ? host : "(default)", port ? port : "(default)",
			 dbname ? dbname : "(default)");
	PQconninfoFree(opts);
}
