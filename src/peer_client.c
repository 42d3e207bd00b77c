/*-------------------------------------------------------------------------
 *
 * peer_client.c
 *	  Questions to a peer over libpq, asynchronously, with a deadline, and
 *	  the reading of its answers, for the peer checker (peer_checker.c).
 *
 * A peer is any server someone listed in snowflake.peers, or whatever
 * answers at that address: nothing it sends is trusted.  So:
 *
 *	- One exchange (connecting if needed, then every question) has one
 *	  deadline, snowflake.peer_timeout from its start.  Every wait is a
 *	  WaitLatchOrSocket() bounded by it, and every loop, waiting or not,
 *	  checks it and ShutdownRequestPending first: a peer that stalls, or
 *	  keeps sending, costs at most the deadline and never holds up a
 *	  shutdown.
 *	- An exchange may receive at most MAX_RECEIVED_BYTES: libpq keeps what
 *	  it reads (rows, parameter settings, notifications) until the result
 *	  is complete, so a peer that never stops sending would otherwise make
 *	  us keep it all.  The count is taken from the socket before libpq
 *	  reads it (FIONREAD), between reads: it may count bytes twice, and
 *	  lags behind one long read of a message libpq was told is large;
 *	  snowflake_peer_limit_memory() bounds that.
 *	- Any result but the one expected (rows, then the end of the query)
 *	  ends the connection: an error, COPY IN/OUT/BOTH, a second result.
 *	  libpq would otherwise stay in COPY state, and PQgetResult() would
 *	  hand out COPY results forever.
 *	- Notices are dropped, not logged: the peer chooses their text.
 *	  Every text of the peer that we keep (error messages) is cut to one
 *	  short line of printable ASCII.
 *	- Answers are read through the snowflake_peer_get_*() functions below,
 *	  which check the shape of the result, the type, format, NULLness,
 *	  syntax and range of each value before returning it.
 *
 * Connections use TCP keepalives and are kept open between rounds.  A
 * failed question closes its connection, so that the next round starts
 * afresh.  Host names are resolved by libpq inside PQconnectPoll(), which
 * blocks for as long as the resolver takes; the deadline cannot cover that
 * (use hostaddr, or a local resolver, for peers).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/peer_client.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/ioctl.h>
#include <sys/resource.h>

#include "catalog/pg_type_d.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"

#include "clock.h"
#include "peer_client.h"
#include "settings.h"

/*
 * What one exchange may receive.  The answers we ask for take a few hundred
 * bytes, a Citus node list a few kilobytes per dozen nodes; the connection
 * start-up, with TLS, a few kilobytes more.
 */
#define MAX_RECEIVED_BYTES		(1024 * 1024)

/*
 * What the process asking peers may allocate beyond what it had when it
 * started asking (see snowflake_peer_limit_memory()).
 */
#define MAX_PEER_MEMORY			(64 * 1024 * 1024)

/* A text of the peer's that we keep: one line of at most this many bytes */
#define MAX_PEER_TEXT			160

/*
 * Caps the private memory of this process at what it uses now plus
 * MAX_PEER_MEMORY, for the process that asks peers, once, before the
 * first question.
 *
 * libpq keeps a message whole before handing it over, in a buffer as
 * large as the message says it is (up to 2 GB for a row, an error or a
 * notice), and reads into it for as long as data keeps coming: a peer can
 * make it allocate and fill far more than MAX_RECEIVED_BYTES before we
 * get to count them.  With the cap, libpq's allocation fails at once
 * ("lost synchronization with server"), and the exchange with it.  Only
 * Linux counts mmap'd memory in RLIMIT_DATA, and tells the current size;
 * elsewhere only the byte count and the deadline bound a peer.
 */
void
snowflake_peer_limit_memory(void)
{
#if defined(__linux__) && defined(RLIMIT_DATA)
	FILE	   *status = fopen("/proc/self/status", "r");
	char		line[256];
	unsigned long data_kb = 0;
	struct rlimit limit;
	rlim_t		wanted;

	if (status == NULL)
		return;
	while (fgets(line, sizeof(line), status) != NULL)
	{
		if (sscanf(line, "VmData: %lu kB", &data_kb) == 1)
			break;
	}
	fclose(status);
	if (data_kb == 0 || getrlimit(RLIMIT_DATA, &limit) != 0)
		return;

	wanted = (rlim_t) data_kb * 1024 + MAX_PEER_MEMORY;
	if (limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max)
		wanted = limit.rlim_max;
	if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur <= wanted)
		return;
	limit.rlim_cur = wanted;
	if (setrlimit(RLIMIT_DATA, &limit) != 0)
		ereport(LOG,
				(errmsg("could not limit the data size of the peer checker: %m")));
	else
		ereport(DEBUG1,
				(errmsg_internal("peer checker data size limited to %lu kB",
								 (unsigned long) (wanted / 1024))));
#endif
}

/*
 * Starts an exchange: its deadline is timeout_ms from now.
 */
void
snowflake_peer_exchange_begin(SnowflakePeerExchange *ex, int timeout_ms,
							  uint32 wait_event)
{
	ex->deadline = snowflake_monotonic_ms() + timeout_ms;
	ex->wait_event = wait_event;
	ex->received = 0;
	ex->timed_out = false;
	ex->refused = false;
	ex->error = NULL;
	ex->application_name = NULL;
}

/*
 * A copy of text the peer sent, fit to keep and to log: its first line, at
 * most MAX_PEER_TEXT bytes, anything but printable ASCII replaced by '?'
 * (the peer's encoding is not ours, and a newline would forge log lines).
 */
char *
snowflake_peer_text(const char *text)
{
	size_t		len = strcspn(text, "\n");
	char	   *copy;

	if (len > MAX_PEER_TEXT)
		len = MAX_PEER_TEXT;
	copy = palloc(len + 1);
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) text[i];

		copy[i] = (c >= 0x20 && c < 0x7f) ? (char) c : '?';
	}
	copy[len] = '\0';
	return copy;
}

/* libpq's message for conn, fit to keep */
static const char *
conn_error(PGconn *conn)
{
	const char *msg = PQerrorMessage(conn);

	return (msg && msg[0]) ? snowflake_peer_text(msg) : _("connection failed");
}

/*
 * Bytes waiting on the socket of conn, which libpq is about to read.
 * Where the platform cannot tell, 0: then only the deadline bounds what a
 * peer can send.
 */
static Size
pending_bytes(PGconn *conn)
{
#if defined(FIONREAD) && !defined(WIN32)
	int			n = 0;

	if (ioctl(PQsocket(conn), FIONREAD, &n) == 0 && n > 0)
		return (Size) n;
#endif
	return 0;
}

/*
 * Whether the exchange may go on: false, with ex->error set, once a
 * shutdown is requested, the deadline has passed or the peer sent too
 * much.  Every loop of this file calls it before anything else.
 */
static bool
may_go_on(SnowflakePeerExchange *ex)
{
	if (ShutdownRequestPending)
	{
		ex->error = _("the peer checker is shutting down");
		return false;
	}
	if (snowflake_monotonic_ms() >= ex->deadline)
	{
		ex->error = psprintf(_("no answer within %d ms (\"%s\")"),
							 snowflake_peer_timeout, "snowflake.peer_timeout");
		ex->timed_out = true;
		return false;
	}
	if (ex->received > MAX_RECEIVED_BYTES)
	{
		ex->error = psprintf(_("the peer sent more than %d kB"),
							 MAX_RECEIVED_BYTES / 1024);
		return false;
	}
	return true;
}

/*
 * Waits until the socket of conn is ready for events, or the latch is set.
 * Returns false, with ex->error set, when the exchange must end instead.
 * When the socket is readable, counts what waits there.
 */
static bool
wait_for_socket(PGconn *conn, int events, SnowflakePeerExchange *ex)
{
	for (;;)
	{
		int64		left;
		int			rc;

		if (!may_go_on(ex))
			return false;
		if (PQsocket(conn) < 0)
		{
			ex->error = conn_error(conn);
			return false;
		}

		left = ex->deadline - snowflake_monotonic_ms();
		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events,
							   PQsocket(conn), (long) Max(left, 1), ex->wait_event);
		if (rc & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
		if (rc & WL_SOCKET_READABLE)
			ex->received += pending_bytes(conn);
		if (rc & events)
			return may_go_on(ex);
	}
}

/*
 * Whether libpq got past connect() on some address: it sent, or is about
 * to send, its start-up packet to whatever listens there.  Sticky across
 * the addresses of one attempt (connection_refused()).
 */
static bool
connection_reached(PGconn *conn)
{
	ConnStatusType status = PQstatus(conn);

	return status != CONNECTION_NEEDED && status != CONNECTION_STARTED &&
		status != CONNECTION_BAD;
}

/* Whether the len bytes at line end with ": " and then text. */
static bool
line_ends_with(const char *line, size_t len, const char *text)
{
	size_t		tlen = strlen(text);

	return tlen > 0 && len >= tlen + 2 &&
		memcmp(line + len - tlen - 2, ": ", 2) == 0 &&
		memcmp(line + len - tlen, text, tlen) == 0;
}

/*
 * Whether a connection attempt that failed was refused at every address
 * it tried: nothing listens there (TCP's ECONNREFUSED, or no file at a
 * Unix socket's path), so no server runs there (doc/protocol.md, A5).
 * Every other failure, a server's error (57P03 included) or silence,
 * proves nothing.
 *
 * A connection string may name several hosts, and a name may have several
 * addresses: libpq tries each in turn, and its message has a line for each
 * address it tried (and hint lines, which begin with a tab).  So every
 * line must say refused: one that says something else (a server's error,
 * a timeout, no route, a name that did not resolve) may be a server.  And
 * no address may have been reached (connection_reached() true at some
 * point of the attempt): what a server says may end in the same words
 * ("FATAL:  could not access file ...: No such file or directory").  The
 * system part of libpq's message is strerror()'s in this process's locale,
 * which is ours too.
 */
static bool
connection_refused(PGconn *conn, bool reached)
{
	const char *msg = PQerrorMessage(conn);
	char		refused[256];
	char		missing[256];
	int			attempts = 0;

	if (reached || msg == NULL)
		return false;
	/* strerror() may use one static buffer */
	strlcpy(refused, strerror(ECONNREFUSED), sizeof(refused));
	strlcpy(missing, strerror(ENOENT), sizeof(missing));
	for (const char *line = msg; *line != '\0';)
	{
		size_t		len = strcspn(line, "\n");

		if (len > 0 && line[0] != '\t')
		{
			if (!line_ends_with(line, len, refused) &&
				!line_ends_with(line, len, missing))
				return false;
			attempts++;
		}
		line += len;
		if (*line == '\n')
			line++;
	}
	return attempts > 0;
}

/* Notices of a peer are not ours to log. */
static void
drop_notice(void *arg, const PGresult *res)
{
}

/*
 * Opens *conn to conninfo, unless it is open already.  Returns false, with
 * ex->error set and *conn NULL, on failure.
 */
bool
snowflake_peer_connect(PGconn **conn, const char *conninfo,
					   SnowflakePeerExchange *ex)
{
	static const char *const keywords[] = {
		"dbname", "application_name", "keepalives", "keepalives_idle",
		"keepalives_interval", "keepalives_count", "options", NULL
	};
	const char *values[] = {
		conninfo, ex->application_name ? ex->application_name : "snowflake peer checker",
		"1", "10", "5", "3",
		/* nothing on the search_path can capture a name we use */
		"-c search_path=pg_catalog,pg_temp", NULL
	};
	PostgresPollingStatusType poll;
	bool		reached;

	if (*conn != NULL && PQstatus(*conn) == CONNECTION_OK)
		return true;
	snowflake_peer_disconnect(conn);

	/* expand_dbname: conninfo may be a connection string or a URI */
	*conn = PQconnectStartParams(keywords, values, 1);
	if (*conn == NULL)
	{
		ex->error = _("out of memory");
		return false;
	}
	if (PQstatus(*conn) == CONNECTION_BAD)
	{
		ex->error = conn_error(*conn);
		ex->refused = connection_refused(*conn, false);
		snowflake_peer_disconnect(conn);
		return false;
	}
	PQsetNoticeReceiver(*conn, drop_notice, NULL);

	/* libpq's documented loop: wait for writing first */
	poll = PGRES_POLLING_WRITING;
	reached = connection_reached(*conn);
	for (;;)
	{
		int			events;

		if (poll == PGRES_POLLING_OK)
			break;
		if (poll == PGRES_POLLING_FAILED)
		{
			ex->error = conn_error(*conn);
			ex->refused = connection_refused(*conn, reached);
			snowflake_peer_disconnect(conn);
			return false;
		}
		events = poll == PGRES_POLLING_READING ?
			WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
		if (!wait_for_socket(*conn, events, ex))
		{
			snowflake_peer_disconnect(conn);
			return false;
		}
		poll = PQconnectPoll(*conn);
		reached = reached || connection_reached(*conn);
	}

	/* so that no send, PQfinish()'s included, can block */
	if (PQsetnonblocking(*conn, 1) != 0)
	{
		ex->error = conn_error(*conn);
		snowflake_peer_disconnect(conn);
		return false;
	}
	return true;
}

/*
 * Reads what the socket of conn holds into libpq.  Returns false, with
 * ex->error set, if the connection failed.
 */
static bool
consume_input(PGconn *conn, SnowflakePeerExchange *ex)
{
	PGnotify   *notify;
	bool		ok = PQconsumeInput(conn) != 0;

	/* notifications pile up in libpq until taken: we want none */
	while ((notify = PQnotifies(conn)) != NULL)
		PQfreemem(notify);
	if (!ok)
		ex->error = conn_error(conn);
	return ok;
}

/*
 * Sends query (no parameters) on the open connection *conn and reads its
 * answer to the end.  Returns the result, which holds rows, or NULL with
 * ex->error set; then *conn is closed and set to NULL, whatever state it
 * was left in.
 */
PGresult *
snowflake_peer_query(PGconn **conn, const char *query,
					 SnowflakePeerExchange *ex)
{
	PGresult   *result = NULL;
	PGresult   *res;
	int			flush;

	if (!may_go_on(ex))
		goto fail;
	if (!PQsendQuery(*conn, query))
	{
		ex->error = conn_error(*conn);
		goto fail;
	}

	/* send it all, reading meanwhile, as libpq's nonblocking mode wants */
	while ((flush = PQflush(*conn)) != 0)
	{
		if (flush < 0)
		{
			ex->error = conn_error(*conn);
			goto fail;
		}
		if (!wait_for_socket(*conn, WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE, ex) ||
			!consume_input(*conn, ex))
			goto fail;
	}

	/* then read until the query is over: one result with rows, nothing else */
	for (;;)
	{
		if (!may_go_on(ex))
			goto fail;
		if (PQisBusy(*conn))
		{
			if (!wait_for_socket(*conn, WL_SOCKET_READABLE, ex) ||
				!consume_input(*conn, ex))
				goto fail;
			continue;
		}

		res = PQgetResult(*conn);
		if (res == NULL)
			break;				/* the query is over */
		if (PQresultStatus(res) == PGRES_TUPLES_OK && result == NULL)
		{
			result = res;
			continue;
		}

		if (PQresultStatus(res) == PGRES_FATAL_ERROR)
		{
			const char *msg = PQresultErrorMessage(res);

			ex->error = (msg && msg[0]) ? snowflake_peer_text(msg) : conn_error(*conn);
		}
		else if (PQresultStatus(res) == PGRES_TUPLES_OK)
			ex->error = _("the peer answered with more than one result");
		else
			ex->error = psprintf(_("the peer answered with an unexpected result (%s)"),
								 PQresStatus(PQresultStatus(res)));
		PQclear(res);
		goto fail;
	}

	if (result == NULL)
	{
		ex->error = _("the peer answered with no result");
		goto fail;
	}
	return result;

fail:
	if (result)
		PQclear(result);
	snowflake_peer_disconnect(conn);
	return NULL;
}

/*
 * Closes *conn, if open, and sets it to NULL.
 */
void
snowflake_peer_disconnect(PGconn **conn)
{
	if (*conn != NULL)
		PQfinish(*conn);
	*conn = NULL;
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

/* ----------
 * Reading an answer.  "what" names the question in messages, such as
 * "snowflake_node_info()"; column names are the ones we asked for.
 * ----------
 */

/*
 * Checks that res has between min_rows and max_rows rows and at most
 * max_fields columns.
 */
bool
snowflake_peer_check_rows(const PGresult *res, const char *what,
						  int min_rows, int max_rows, int max_fields,
						  const char **error)
{
	int			nrows = PQntuples(res);

	if (PQnfields(res) > max_fields)
	{
		*error = psprintf(_("%s returned %d columns, more than the %d expected"),
						  what, PQnfields(res), max_fields);
		return false;
	}
	if (nrows < min_rows || nrows > max_rows)
	{
		if (min_rows == max_rows)
			*error = psprintf(_("%s returned %d rows instead of %d"),
							  what, nrows, min_rows);
		else
			*error = psprintf(_("%s returned %d rows, not %d to %d"),
							  what, nrows, min_rows, max_rows);
		return false;
	}
	return true;
}

/*
 * The number of the column called name, checked to be of type type in text
 * format; -1 if there is none (an error only when required) or if it is not
 * fit to read, with *error set.
 */
int
snowflake_peer_column(const PGresult *res, const char *what, const char *name,
					  Oid type, bool required, const char **error)
{
	int			col = -1;

	*error = NULL;
	for (int i = 0; i < PQnfields(res); i++)
	{
		const char *fname = PQfname(res, i);

		if (fname == NULL || strcmp(fname, name) != 0)
			continue;
		if (col >= 0)
		{
			*error = psprintf(_("%s returned column \"%s\" twice"), what, name);
			return -1;
		}
		col = i;
	}
	if (col < 0)
	{
		if (required)
			*error = psprintf(_("%s returned no column \"%s\""), what, name);
		return -1;
	}
	if (PQftype(res, col) != type)
	{
		*error = psprintf(_("column \"%s\" of %s has type OID %u instead of %u"),
						  name, what, PQftype(res, col), type);
		return -1;
	}
	if (PQfformat(res, col) != 0)
	{
		*error = psprintf(_("column \"%s\" of %s is not in text format"), name, what);
		return -1;
	}
	return col;
}

/*
 * The text of a value, checked to be present (unless isnull is given, and
 * then *isnull says whether it is NULL), at most max_len bytes long, and
 * without a zero byte inside.  NULL with *error set otherwise.
 */
static const char *
get_text(const PGresult *res, int row, int col, const char *what, int max_len,
		 bool *isnull, const char **error)
{
	const char *value;
	int			len;

	if (row < 0 || row >= PQntuples(res) || col < 0 || col >= PQnfields(res))
	{
		*error = psprintf(_("%s returned too few rows or columns"), what);
		return NULL;
	}
	if (isnull)
		*isnull = false;
	if (PQgetisnull(res, row, col))
	{
		if (isnull)
		{
			*isnull = true;
			return "";
		}
		*error = psprintf(_("column \"%s\" of %s is NULL"), PQfname(res, col), what);
		return NULL;
	}
	value = PQgetvalue(res, row, col);
	len = PQgetlength(res, row, col);
	if (value == NULL || len < 0 || len > max_len)
	{
		*error = psprintf(_("column \"%s\" of %s is longer than %d bytes"),
						  PQfname(res, col), what, max_len);
		return NULL;
	}
	if (strlen(value) != (size_t) len)
	{
		*error = psprintf(_("column \"%s\" of %s holds a zero byte"),
						  PQfname(res, col), what);
		return NULL;
	}
	return value;
}

/*
 * The integer in a value, as int4 and int8 print it: an optional minus
 * sign and 1 to 19 digits, nothing else; it must lie in [min, max].  With
 * isnull given, NULL is allowed and reported there.
 */
bool
snowflake_peer_get_int(const PGresult *res, int row, int col, const char *what,
					   int64 min, int64 max, bool *isnull, int64 *value,
					   const char **error)
{
	const char *text = get_text(res, row, col, what, 20, isnull, error);
	const char *p;
	bool		negative;
	uint64		magnitude = 0;

	if (text == NULL)
		return false;
	if (isnull && *isnull)
	{
		*value = 0;
		return true;
	}

	p = text;
	negative = *p == '-';
	if (negative)
		p++;
	if (*p == '\0')
		goto syntax;
	for (; *p; p++)
	{
		if (*p < '0' || *p > '9')
			goto syntax;
		/* stop well before uint64 overflows: 2^63 has 19 digits */
		if (magnitude > PG_INT64_MAX / 10)
			goto range;
		magnitude = magnitude * 10 + (*p - '0');
	}
	if (magnitude > (uint64) PG_INT64_MAX + (negative ? 1 : 0))
		goto range;
	*value = negative ? (int64) (0 - magnitude) : (int64) magnitude;
	if (*value < min || *value > max)
		goto range;
	return true;

syntax:
	*error = psprintf(_("column \"%s\" of %s is not an integer"),
					  PQfname(res, col), what);
	return false;
range:
	*error = psprintf(_("column \"%s\" of %s is out of range (%lld to %lld)"),
					  PQfname(res, col), what, (long long) min, (long long) max);
	return false;
}

/*
 * The boolean in a value: "t" or "f", as bool prints it.
 */
bool
snowflake_peer_get_bool(const PGresult *res, int row, int col, const char *what,
						bool *value, const char **error)
{
	const char *text = get_text(res, row, col, what, 5, NULL, error);

	if (text == NULL)
		return false;
	if (strcmp(text, "t") != 0 && strcmp(text, "f") != 0)
	{
		*error = psprintf(_("column \"%s\" of %s is not a boolean"),
						  PQfname(res, col), what);
		return false;
	}
	*value = text[0] == 't';
	return true;
}

/*
 * The string in a value: not NULL, 1 to max_len bytes, no control
 * character, and with ascii_only nothing but printable ASCII.  It goes
 * into a connection string or a query, quoted; a control character there
 * is more likely an attack than part of a host or schema name.
 */
const char *
snowflake_peer_get_string(const PGresult *res, int row, int col,
						  const char *what, int max_len, bool ascii_only,
						  const char **error)
{
	const char *text = get_text(res, row, col, what, max_len, NULL, error);

	if (text == NULL)
		return NULL;
	if (text[0] == '\0')
	{
		*error = psprintf(_("column \"%s\" of %s is empty"), PQfname(res, col), what);
		return NULL;
	}
	for (const char *p = text; *p; p++)
	{
		if ((unsigned char) *p < 0x20 || (unsigned char) *p == 0x7f ||
			(ascii_only && (unsigned char) *p > 0x7f))
		{
			*error = psprintf(_("column \"%s\" of %s holds a character not allowed there"),
							  PQfname(res, col), what);
			return NULL;
		}
	}
	return text;
}

/* the longest schema name taken from a peer (NAMEDATALEN may differ) */
#define MAX_SCHEMA_LEN			255

#define SCHEMA_QUERY \
	"SELECT n.nspname" \
	"  FROM pg_catalog.pg_extension e" \
	"  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace" \
	" WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake'"

/*
 * Asks the peer on *conn where its snowflake extension lives, and returns
 * that schema quoted as an identifier by our libpq (palloc'd), so that
 * nothing the peer sends becomes SQL unquoted; the caller names the
 * extension's functions with it, never through the search_path.  NULL with
 * *error set if the extension is missing or the answer is not fit to use.
 */
char *
snowflake_peer_extension_schema(PGconn **conn, SnowflakePeerExchange *ex,
								const char **error)
{
	const char *what = "the schema lookup";
	PGresult   *res;
	const char *schema;
	char	   *quoted;
	char	   *result = NULL;
	int			col;

	res = snowflake_peer_query(conn, SCHEMA_QUERY, ex);
	if (res == NULL)
	{
		*error = ex->error;
		return NULL;
	}
	if (!snowflake_peer_check_rows(res, what, 0, 1, 1, error) ||
		(col = snowflake_peer_column(res, what, "nspname", NAMEOID, true, error)) < 0)
		goto done;
	if (PQntuples(res) == 0)
	{
		*error = psprintf(_("extension \"%s\" is not installed in database \"%s\""),
						  "snowflake", snowflake_peer_text(PQdb(*conn)));
		goto done;
	}
	schema = snowflake_peer_get_string(res, 0, col, what, MAX_SCHEMA_LEN,
									   false, error);
	if (schema == NULL)
		goto done;
	quoted = PQescapeIdentifier(*conn, schema, strlen(schema));
	if (quoted == NULL)
	{
		*error = psprintf(_("could not quote the schema name: %s"),
						  snowflake_peer_text(PQerrorMessage(*conn)));
		goto done;
	}
	result = pstrdup(quoted);
	PQfreemem(quoted);

done:
	PQclear(res);
	return result;
}
