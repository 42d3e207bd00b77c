/*-------------------------------------------------------------------------
 *
 * peer_checker.c
 *	  Catching two servers that use the same node ID, without a
 *	  coordinator: the "snowflake peer checker" background worker, what it
 *	  found (shared state), and snowflake_peers(), which shows it.
 *
 * snowflake.peers lists the other servers: libpq connection strings or
 * URIs, separated by commas, each in double quotes when it holds a comma
 * or a space (a GUC list, like search_path).  An entry "citus:<conninfo>"
 * stands for every active primary node of the Citus cluster that server
 * belongs to, as its pg_dist_node lists them at each round: nodes added
 * later are checked too.
 *
 * Every snowflake.peer_check_interval the worker asks each peer for
 * snowflake_node_info() (node_info.c): its node ID, layout, start time,
 * whether it is in recovery, and its clock.  It calls the function in the
 * schema where the peer's extension lives, looked up in pg_extension, with
 * search_path set to pg_catalog, so that no object another role created on
 * the peer can answer in its place.  Each exchange runs asynchronously
 * with a deadline (peer_client.c): a peer that stops answering is
 * reported as such after snowflake.peer_timeout, and the worker answers
 * SIGTERM at once.  Every answer is checked before it is read: what a
 * peer sends can make it "unreachable", never crash or stall us.
 *
 * Two primaries that both generate IDs (each has a node ID) with the same
 * node ID, or with different layouts, whose fields overlap, would hand out
 * colliding IDs; the one that started later stops generating
 * (snowflake.node_conflict = refuse) or only warns (warn).  The decision
 * is the same on both sides, so exactly one of them yields.  A standby
 * legitimately shares its primary's node ID, and a server without a node
 * ID generates nothing: both are left alone.  A server finding itself in
 * the list (same instance token) skips itself.  The same round trip
 * measures each peer's clock against ours.
 *
 * A conflict, once found, lasts until a round reaches every listed peer and
 * finds none that conflicts: losing sight of a peer is no evidence that it
 * went away, and neither is a reload of the peer list.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/peer_checker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "postmaster/interrupt.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/varlena.h"

#include "peer_client.h"
#include "admission.h"
#include "clock.h"
#include "compat.h"
#include "layout.h"
#include "records.h"
#include "settings.h"
#include "workers.h"

PG_FUNCTION_INFO_V1(snowflake_peers_report);

#define WORKER_NAME				"snowflake peer checker"
#define MAX_PEERS				64
#define PEER_NAME_LEN			128
#define PEER_STATUS_LEN			256
#define CONFLICT_DETAIL_LEN		256
#define CITUS_PREFIX			"citus:"

/* 9999-12-31 23:59:59.999 UTC: a later time in an answer is nonsense */
#define MAX_UNIX_MS				INT64CONST(253402300799999)

/* the longest host name (or socket directory) taken from pg_dist_node */
#define MAX_HOST_LEN			1024
/* the longest schema name taken from a peer (NAMEDATALEN may differ) */
#define MAX_SCHEMA_LEN			255
/* rows of pg_dist_node read at most; MAX_PEERS of them are checked */
#define MAX_CITUS_ROWS			4096

#define SCHEMA_QUERY \
	"SELECT n.nspname" \
	"  FROM pg_catalog.pg_extension e" \
	"  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace" \
	" WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake'"

#define CITUS_NODES_QUERY \
	"SELECT nodename, nodeport FROM pg_catalog.pg_dist_node" \
	" WHERE isactive AND noderole OPERATOR(pg_catalog.=) 'primary'" \
	" ORDER BY nodename, nodeport"

/* What the checker last saw of one peer */
typedef struct PeerStatus
{
	char		name[PEER_NAME_LEN];	/* host, port, dbname */
	char		status[PEER_STATUS_LEN];
	int			node_id;		/* -1: none, or not known */
	bool		reachable;
	bool		self;			/* the list names this very server */
	bool		in_recovery;
	bool		warned;			/* we logged that it conflicts with us */
	int64		skew_ms;		/* its clock minus ours */
	int64		rtt_ms;
	int64		checked_at;		/* Unix ms, 0 if never */
} PeerStatus;

typedef struct PeersShared
{
	LWLock	   *lock;			/* protects everything below but the flag */
	int64		instance_token; /* random, set at start, then constant */
	pg_atomic_uint32 conflict;	/* 1 while a conflict is in force */
	char		conflict_detail[CONFLICT_DETAIL_LEN];
	int			npeers;
	PeerStatus	peers[MAX_PEERS];
} PeersShared;

static PeersShared *peers_shared = NULL;

/* What a peer says of itself (snowflake_node_info()) */
typedef struct NodeInfo
{
	int			node_id;		/* -1 if not set */
	int64		instance_token;
	int64		started_at_ms;
	bool		in_recovery;
	int64		clock_ms;
	int64		epoch_ms;
	int			node_bits;
	int			seq_bits;
} NodeInfo;

/* A server to check this round, and the connection kept to it */
typedef struct Target
{
	char	   *conninfo;
	PGconn	   *conn;
	const char *failed;			/* set: the Citus node list of this entry
								 * could not be read, and why */
	bool		failed_hanging;
} Target;

/* In the worker: the entries of snowflake.peers, and the targets */
static MemoryContext list_cxt = NULL;
static List *entries = NIL;		/* of char *, as listed */
static Target targets[MAX_PEERS];
static int	ntargets = 0;
static uint32 wait_event = 0;

Size
snowflake_peers_shmem_size(void)
{
	return MAXALIGN(sizeof(PeersShared));
}

void
snowflake_peers_shmem_init(LWLock *lock)
{
	bool		found;

	peers_shared = ShmemInitStruct("snowflake peers", sizeof(PeersShared), &found);
	if (found)
		return;
	memset(peers_shared, 0, sizeof(PeersShared));
	peers_shared->lock = lock;
	pg_atomic_init_u32(&peers_shared->conflict, 0);
	/* tells this server apart from its peers, and from itself restarted */
	if (!pg_strong_random(&peers_shared->instance_token,
						  sizeof(peers_shared->instance_token)))
		peers_shared->instance_token = (int64) MyStartTime * 1000003 + MyProcPid;
}

int64
snowflake_instance_token(void)
{
	snowflake_require_preload();
	return peers_shared->instance_token;
}

/*
 * Splits a value of snowflake.peers into its entries.  The value is a GUC
 * list: entries separated by commas, each in double quotes when it holds a
 * comma or white space (a double quote inside written twice).  A value in
 * the unquoted form of version 1.4, entries with spaces and no quotes, is
 * still read, split at every comma, with *legacy set.  Every entry must be
 * a valid connection string or URI, after an optional "citus:".  Returns
 * false with *error set otherwise.  Allocates in the current memory
 * context; raises no error, so that a GUC check hook can use it.
 */
bool
snowflake_parse_peers(const char *value, List **result, char **error,
					  bool *legacy)
{
	char	   *copy = pstrdup(value ? value : "");
	List	   *list = NIL;
	ListCell   *lc;

	*legacy = false;
	if (!SplitGUCList(copy, ',', &list))
	{
		char	   *entry;
		char	   *saveptr = NULL;

		if (strchr(value, '"') != NULL)
		{
			*error = pstrdup(_("A list entry in double quotes is not closed, or is not followed by a comma."));
			return false;
		}
		/* version 1.4 syntax; one entry without a comma is unambiguous */
		*legacy = strchr(value, ',') != NULL;
		list = NIL;
		copy = pstrdup(value);
		for (entry = strtok_r(copy, ",", &saveptr); entry != NULL;
			 entry = strtok_r(NULL, ",", &saveptr))
		{
			while (*entry == ' ' || *entry == '\t')
				entry++;
			if (*entry != '\0')
				list = lappend(list, entry);
		}
	}

	foreach(lc, list)
	{
		const char *entry = (const char *) lfirst(lc);
		const char *conninfo = entry;
		char	   *errmsg = NULL;
		PQconninfoOption *opts;

		if (strncmp(entry, CITUS_PREFIX, strlen(CITUS_PREFIX)) == 0)
			conninfo = entry + strlen(CITUS_PREFIX);
		opts = PQconninfoParse(conninfo, &errmsg);
		if (opts == NULL)
		{
			*error = psprintf(_("Entry \"%s\" is not a valid connection string: %s"),
							  entry, errmsg ? errmsg : _("out of memory"));
			if (errmsg)
				PQfreemem(errmsg);
			return false;
		}
		PQconninfoFree(opts);
	}
	*result = list;
	return true;
}

/*
 * Quotes a libpq connection string value.
 */
static void
append_conninfo_value(StringInfo buf, const char *value)
{
	appendStringInfoChar(buf, '\'');
	for (const char *p = value; *p; p++)
	{
		if (*p == '\'' || *p == '\\')
			appendStringInfoChar(buf, '\\');
		appendStringInfoChar(buf, *p);
	}
	appendStringInfoChar(buf, '\'');
}

/*
 * The connection string of base with host and port replaced: one node of
 * a Citus cluster, reached with the same database, user and options.
 */
static char *
conninfo_for_node(const char *base, const char *host, int port)
{
	PQconninfoOption *opts = PQconninfoParse(base, NULL);
	StringInfoData buf;
	char		port_text[16];

	snprintf(port_text, sizeof(port_text), "%d", port);
	initStringInfo(&buf);
	appendStringInfoString(&buf, "host=");
	append_conninfo_value(&buf, host);
	appendStringInfoString(&buf, " port=");
	append_conninfo_value(&buf, port_text);
	for (PQconninfoOption *o = opts; o && o->keyword; o++)
	{
		if (o->val == NULL || strcmp(o->keyword, "host") == 0 ||
			strcmp(o->keyword, "hostaddr") == 0 || strcmp(o->keyword, "port") == 0)
			continue;
		appendStringInfo(&buf, " %s=", o->keyword);
		append_conninfo_value(&buf, o->val);
	}
	if (opts)
		PQconninfoFree(opts);
	return buf.data;
}

/*
 * Reads snowflake.peers into the worker's entry list.  Connections of
 * servers no longer listed are closed at the next round.
 */
static void
load_peer_list(void)
{
	char	   *error = NULL;
	bool		legacy;
	MemoryContext oldcxt;

	if (list_cxt == NULL)
		list_cxt = AllocSetContextCreate(TopMemoryContext, "snowflake peer list",
										 ALLOCSET_SMALL_SIZES);
	MemoryContextReset(list_cxt);
	entries = NIL;

	oldcxt = MemoryContextSwitchTo(list_cxt);
	if (!snowflake_parse_peers(snowflake_peers, &entries, &error, &legacy))
	{
		/* the check hook refused it already; keep checking nothing */
		entries = NIL;
		ereport(WARNING,
				(errmsg("invalid value for parameter \"%s\"", "snowflake.peers"),
				 errdetail_internal("%s", error)));
	}
	else if (legacy)
		ereport(WARNING,
				(errmsg("parameter \"%s\" uses the unquoted list form of version 1.4", "snowflake.peers"),
				 errdetail("Each entry is split at every comma."),
				 errhint("Write each connection string in double quotes, for example '\"host=a port=5432 dbname=app\", \"host=b dbname=app\"'.")));
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The query for snowflake_node_info() in the schema of the peer's
 * extension, which it asks the peer for on *conn.  NULL with *error set if
 * the extension is missing or the answer is not fit to use.
 */
static char *
node_info_query(PGconn **conn, SnowflakePeerExchange *ex, const char **error)
{
	const char *what = "the schema lookup";
	PGresult   *res;
	const char *schema;
	char	   *quoted;
	char	   *query = NULL;
	int			col;

	res = snowflake_peer_query(conn, SCHEMA_QUERY, ex);
	if (res == NULL)
		return NULL;
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

	/* quoted here, by our libpq: nothing the peer sends becomes SQL */
	quoted = PQescapeIdentifier(*conn, schema, strlen(schema));
	if (quoted == NULL)
	{
		*error = psprintf(_("could not quote the schema name: %s"),
						  snowflake_peer_text(PQerrorMessage(*conn)));
		goto done;
	}
	query = psprintf("SELECT * FROM %s.snowflake_node_info()", quoted);
	PQfreemem(quoted);

done:
	PQclear(res);
	return query;
}

/*
 * Reads the Citus node list into hosts and ports (*n of them), checking
 * every row before anything is used.  Returns false with *error set.
 */
static bool
read_citus_nodes(const PGresult *res, char ***hosts, int **ports, int *n,
				 const char **error)
{
	const char *what = "pg_dist_node";
	int			host_col;
	int			port_col;

	if (!snowflake_peer_check_rows(res, what, 0, MAX_CITUS_ROWS, 2, error))
		return false;
	host_col = snowflake_peer_column(res, what, "nodename", TEXTOID, true, error);
	if (host_col < 0)
		return false;
	port_col = snowflake_peer_column(res, what, "nodeport", INT4OID, true, error);
	if (port_col < 0)
		return false;

	*n = PQntuples(res);
	*hosts = palloc(sizeof(char *) * Max(*n, 1));
	*ports = palloc(sizeof(int) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		const char *host;
		int64		port;

		host = snowflake_peer_get_string(res, i, host_col, what, MAX_HOST_LEN,
										 true, error);
		if (host == NULL ||
			!snowflake_peer_get_int(res, i, port_col, what, 1, 65535, NULL, &port, error))
			return false;
		(*hosts)[i] = pstrdup(host);
		(*ports)[i] = (int) port;
	}
	return true;
}

/*
 * Adds conninfo to this round's targets, keeping its connection from the
 * last round if there was one.
 */
static void
add_target(Target *old, int nold, const char *conninfo)
{
	Target	   *t;

	if (ntargets == MAX_PEERS)
		return;
	t = &targets[ntargets++];
	t->conninfo = MemoryContextStrdup(TopMemoryContext, conninfo);
	t->conn = NULL;
	t->failed = NULL;
	t->failed_hanging = false;
	for (int i = 0; i < nold; i++)
	{
		if (old[i].conn != NULL && strcmp(old[i].conninfo, conninfo) == 0)
		{
			t->conn = old[i].conn;
			old[i].conn = NULL;
			break;
		}
	}
}

/*
 * Works out this round's targets: the listed servers, and the nodes of
 * each listed Citus cluster as its metadata lists them now.  A Citus entry
 * whose node list cannot be read becomes a target itself, that failed, so
 * that the failure shows in snowflake_peers().
 */
static void
expand_targets(void)
{
	Target		old[MAX_PEERS];
	int			nold = ntargets;
	ListCell   *lc;

	memcpy(old, targets, sizeof(Target) * nold);
	ntargets = 0;

	foreach(lc, entries)
	{
		const char *entry = (const char *) lfirst(lc);

		if (strncmp(entry, CITUS_PREFIX, strlen(CITUS_PREFIX)) == 0)
		{
			const char *base = entry + strlen(CITUS_PREFIX);
			SnowflakePeerExchange ex;
			PGconn	   *conn = NULL;
			PGresult   *res = NULL;
			const char *error = NULL;
			char	  **hosts;
			int		   *ports;
			int			n;

			/* a connection of its own, closed at once: it is a lookup */
			snowflake_peer_exchange_begin(&ex, snowflake_peer_timeout, wait_event);
			if (snowflake_peer_connect(&conn, base, &ex))
				res = snowflake_peer_query(&conn, CITUS_NODES_QUERY, &ex);
			snowflake_peer_disconnect(&conn);
			if (res == NULL)
				error = ex.error;
			else if (read_citus_nodes(res, &hosts, &ports, &n, &error))
			{
				for (int i = 0; i < n; i++)
					add_target(old, nold, conninfo_for_node(base, hosts[i], ports[i]));
				PQclear(res);
				continue;
			}
			if (res)
				PQclear(res);
			add_target(old, nold, base);
			if (ntargets > 0 && strcmp(targets[ntargets - 1].conninfo, base) == 0)
			{
				targets[ntargets - 1].failed =
					psprintf(_("could not read the Citus node list: %s"),
							 error ? error : _("unknown failure"));
				targets[ntargets - 1].failed_hanging = ex.timed_out;
			}
		}
		else
			add_target(old, nold, entry);
	}

	if (ntargets == MAX_PEERS)
		ereport(WARNING,
				(errmsg("\"%s\" lists more than %d servers; the rest are not checked",
						"snowflake.peers", MAX_PEERS)));

	for (int i = 0; i < nold; i++)
	{
		snowflake_peer_disconnect(&old[i].conn);
		pfree(old[i].conninfo);
	}
}

/*
 * Reads the answer of snowflake_node_info() into *info, checking it all
 * first.  Its columns are found by name: a peer of a later version may
 * have more.
 */
static bool
read_node_info(const PGresult *res, NodeInfo *info, const char **error)
{
	const char *what = "snowflake_node_info()";
	enum
	{
		NODE_ID, TOKEN, STARTED_AT, IN_RECOVERY, CLOCK, EPOCH, NODE_BITS,
		SEQ_BITS, NCOLUMNS
	};
	static const struct
	{
		const char *name;
		Oid			type;
	}			columns[NCOLUMNS] = {
		[NODE_ID] = {"node_id", INT4OID},
		[TOKEN] = {"instance_token", INT8OID},
		[STARTED_AT] = {"started_at_ms", INT8OID},
		[IN_RECOVERY] = {"in_recovery", BOOLOID},
		[CLOCK] = {"clock_ms", INT8OID},
		[EPOCH] = {"epoch_ms", INT8OID},
		[NODE_BITS] = {"node_bits", INT4OID},
		[SEQ_BITS] = {"sequence_bits", INT4OID},
	};
	int			col[NCOLUMNS];
	int64		v;

	if (!snowflake_peer_check_rows(res, what, 1, 1, 64, error))
		return false;
	for (int i = 0; i < NCOLUMNS; i++)
	{
		col[i] = snowflake_peer_column(res, what, columns[i].name, columns[i].type,
									   true, error);
		if (col[i] < 0)
			return false;
	}

	/* the layout first: the range of the node ID depends on it */
	if (!snowflake_peer_get_int(res, 0, col[NODE_BITS], what, 0,
								SNOWFLAKE_MAX_FIELD_BITS, NULL, &v, error))
		return false;
	info->node_bits = (int) v;
	if (!snowflake_peer_get_int(res, 0, col[SEQ_BITS], what, 1,
								SNOWFLAKE_MAX_FIELD_BITS - info->node_bits,
								NULL, &v, error))
		return false;
	info->seq_bits = (int) v;
	if (!snowflake_peer_get_int(res, 0, col[EPOCH], what, 0, MAX_UNIX_MS,
								NULL, &info->epoch_ms, error) ||
		!snowflake_peer_get_int(res, 0, col[NODE_ID], what, -1,
								(INT64CONST(1) << info->node_bits) - 1,
								NULL, &v, error))
		return false;
	info->node_id = (int) v;

	return snowflake_peer_get_int(res, 0, col[TOKEN], what, PG_INT64_MIN,
								  PG_INT64_MAX, NULL, &info->instance_token, error) &&
		snowflake_peer_get_int(res, 0, col[STARTED_AT], what, 1, MAX_UNIX_MS,
							   NULL, &info->started_at_ms, error) &&
		snowflake_peer_get_bool(res, 0, col[IN_RECOVERY], what,
								&info->in_recovery, error) &&
		snowflake_peer_get_int(res, 0, col[CLOCK], what, 1, MAX_UNIX_MS,
							   NULL, &info->clock_ms, error);
}

/*
 * Asks target for its node info, within one deadline: connecting if its
 * connection is not open, looking up the schema, calling the function.
 * Returns true with *info filled, or false with *problem set.  A target
 * that failed, or answered nonsense, is disconnected, so that the next
 * round starts afresh.  *sent_ms and *received_ms are around the question.
 */
static bool
ask_target(Target *target, NodeInfo *info, const char **problem,
		   bool *hanging, int64 *sent_ms, int64 *received_ms)
{
	SnowflakePeerExchange ex;
	PGresult   *res = NULL;
	char	   *query = NULL;
	const char *error = NULL;
	bool		ok = false;

	if (target->failed)
	{
		*problem = target->failed;
		*hanging = target->failed_hanging;
		*sent_ms = *received_ms = snowflake_wall_clock_ms();
		return false;
	}

	snowflake_peer_exchange_begin(&ex, snowflake_peer_timeout, wait_event);
	*sent_ms = snowflake_wall_clock_ms();
	if (snowflake_peer_connect(&target->conn, target->conninfo, &ex))
		query = node_info_query(&target->conn, &ex, &error);
	if (query != NULL)
	{
		/* the clocks are compared around this question alone */
		*sent_ms = snowflake_wall_clock_ms();
		res = snowflake_peer_query(&target->conn, query, &ex);
	}
	*received_ms = snowflake_wall_clock_ms();
	if (res != NULL)
	{
		ok = read_node_info(res, info, &error);
		PQclear(res);
	}
	if (!ok)
	{
		*problem = error ? error : ex.error ? ex.error : _("unknown failure");
		*hanging = ex.timed_out;
		snowflake_peer_disconnect(&target->conn);
	}
	return ok;
}

static int64
start_time_ms(void)
{
	return PgStartTime / 1000 + SNOWFLAKE_PG_EPOCH_UNIX_MS;
}

/*
 * One round over all peers.
 */
static void
check_peers(void)
{
	const SnowflakeLayout *layout = snowflake_layout();
	int64		our_start = start_time_ms();
	int64		our_token = peers_shared->instance_token;
	bool		we_are_standby = RecoveryInProgress();
	bool		any_conflict = false;
	bool		any_unreachable = false;
	char		conflict[CONFLICT_DETAIL_LEN] = "";

	expand_targets();

	LWLockAcquire(peers_shared->lock, LW_EXCLUSIVE);
	for (int i = peers_shared->npeers; i < ntargets; i++)
	{
		memset(&peers_shared->peers[i], 0, sizeof(PeerStatus));
		peers_shared->peers[i].node_id = -1;
	}
	peers_shared->npeers = ntargets;
	LWLockRelease(peers_shared->lock);

	for (int i = 0; i < ntargets && !ShutdownRequestPending; i++)
	{
		PeerStatus *ps = &peers_shared->peers[i];
		char		name[PEER_NAME_LEN];
		NodeInfo	info = {0};
		int64		sent_ms;
		int64		received_ms;
		const char *problem = NULL;
		bool		hanging = false;
		bool		reachable;
		bool		self = false;
		bool		conflicts = false;
		bool		we_yield = false;
		bool		warn_now;
		char		status[PEER_STATUS_LEN];

		snowflake_describe_peer(targets[i].conninfo, name, sizeof(name));

		reachable = ask_target(&targets[i], &info, &problem, &hanging,
							   &sent_ms, &received_ms);

		if (!reachable)
		{
			/* keep a conflict found earlier: silence proves nothing */
			any_unreachable = true;
			snprintf(status, sizeof(status), "%s: %s",
					 hanging ? "hanging" : "unreachable", problem);
		}
		else if (info.instance_token == our_token)
		{
			self = true;
			strlcpy(status, "this server", sizeof(status));
		}
		else
		{
			bool		both_generate = info.node_id >= 0 && snowflake_node_id >= 0 &&
				!info.in_recovery && !we_are_standby;
			bool		same_node = info.node_id == snowflake_node_id;
			bool		layout_differs = info.epoch_ms != layout->epoch_ms ||
				info.node_bits != layout->node_bits ||
				info.seq_bits != layout->seq_bits;

			/*
			 * A standby shares its primary's node ID, and a server without
			 * a node ID generates nothing: neither can collide with us.
			 */
			conflicts = both_generate && (same_node || layout_differs);

			/* the later start yields; ties go by instance token */
			we_yield = conflicts &&
				(our_start > info.started_at_ms ||
				 (our_start == info.started_at_ms && our_token > info.instance_token));

			if (!conflicts && info.node_id < 0)
				strlcpy(status, "ok: no node ID, generates no IDs", sizeof(status));
			else if (!conflicts)
				snprintf(status, sizeof(status), "ok: node %d%s",
						 info.node_id, info.in_recovery ? ", standby" : "");
			else if (same_node)
				snprintf(status, sizeof(status), "conflict: same node ID %d, %s",
						 info.node_id, we_yield ? "started earlier" : "started later");
			else
				snprintf(status, sizeof(status), "conflict: different ID layout, %s",
						 we_yield ? "started earlier" : "started later");
		}

		LWLockAcquire(peers_shared->lock, LW_EXCLUSIVE);
		/* the earlier server warns once per conflict, not every round */
		warn_now = conflicts && !we_yield && !ps->warned;
		strlcpy(ps->name, name, sizeof(ps->name));
		strlcpy(ps->status, status, sizeof(ps->status));
		ps->checked_at = received_ms;
		ps->reachable = reachable;
		if (reachable)
		{
			ps->warned = conflicts && !we_yield;
			ps->self = self;
			ps->node_id = info.node_id;
			ps->in_recovery = info.in_recovery;
			/* its clock against the middle of our round trip */
			ps->skew_ms = info.clock_ms - (sent_ms + received_ms) / 2;
			ps->rtt_ms = received_ms - sent_ms;
		}
		LWLockRelease(peers_shared->lock);

		if (we_yield)
		{
			any_conflict = true;
			snprintf(conflict, sizeof(conflict),
					 "peer \"%s\" (%s) started earlier", name, status);
		}
		else if (warn_now)
			ereport(WARNING,
					(errmsg("snowflake peer \"%s\" conflicts with this server (%s)",
							name, status),
					 errdetail("This server started first and keeps generating IDs; the peer should stop.")));
	}

	if (ShutdownRequestPending)
		return;

	LWLockAcquire(peers_shared->lock, LW_EXCLUSIVE);
	if (any_conflict)
	{
		bool		new_conflict = pg_atomic_read_u32(&peers_shared->conflict) == 0;

		strlcpy(peers_shared->conflict_detail, conflict,
				sizeof(peers_shared->conflict_detail));
		pg_atomic_write_u32(&peers_shared->conflict, 1);
		LWLockRelease(peers_shared->lock);
		if (snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE)
			snowflake_admission_block(SNOWFLAKE_BLOCK_CONFLICT, conflict);
		else
			snowflake_admission_unblock(SNOWFLAKE_BLOCK_CONFLICT);
		if (new_conflict)
			ereport(WARNING,
					(errmsg("snowflake node ID %d conflicts with %s",
							snowflake_node_id, conflict),
					 snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE ?
					 errdetail("This server stops generating IDs until the conflict is resolved.") :
					 errdetail("\"%s\" is \"%s\": this server keeps generating IDs, which may collide.",
							   "snowflake.node_conflict", "warn")));
	}
	else if (!any_unreachable && pg_atomic_read_u32(&peers_shared->conflict) != 0)
	{
		pg_atomic_write_u32(&peers_shared->conflict, 0);
		peers_shared->conflict_detail[0] = '\0';
		LWLockRelease(peers_shared->lock);
		snowflake_admission_unblock(SNOWFLAKE_BLOCK_CONFLICT);
		ereport(LOG, (errmsg("snowflake node ID conflict resolved")));
	}
	else
		LWLockRelease(peers_shared->lock);
}

static int
checker_interval(void)
{
	return snowflake_peer_check_interval;
}

static void
checker_start(void)
{
	wait_event = snowflake_wait_event("SnowflakePeerCheck");
	snowflake_peer_limit_memory();
	load_peer_list();
	ereport(LOG,
			(errmsg("%s started, checking %d listed servers every %d ms",
					WORKER_NAME, list_length(entries), snowflake_peer_check_interval)));
}

static void
checker_tick(void)
{
	static MemoryContext round_cxt = NULL;
	MemoryContext oldcxt;

	/* everything a round allocates goes away with it */
	if (round_cxt == NULL)
		round_cxt = AllocSetContextCreate(TopMemoryContext, "snowflake peer round",
										  ALLOCSET_DEFAULT_SIZES);
	MemoryContextReset(round_cxt);
	oldcxt = MemoryContextSwitchTo(round_cxt);
	check_peers();
	MemoryContextSwitchTo(oldcxt);
}

static void
checker_stop(void)
{
	for (int i = 0; i < ntargets; i++)
		snowflake_peer_disconnect(&targets[i].conn);
}

/*
 * After a reload: snowflake.node_conflict may have changed, and decides at
 * once whether a conflict in force refuses generation.
 */
static void
checker_reload(void)
{
	load_peer_list();
	if (pg_atomic_read_u32(&peers_shared->conflict) == 0)
		return;
	if (snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE)
	{
		char		detail[CONFLICT_DETAIL_LEN];

		LWLockAcquire(peers_shared->lock, LW_SHARED);
		strlcpy(detail, peers_shared->conflict_detail, sizeof(detail));
		LWLockRelease(peers_shared->lock);
		snowflake_admission_block(SNOWFLAKE_BLOCK_CONFLICT, detail);
	}
	else
		snowflake_admission_unblock(SNOWFLAKE_BLOCK_CONFLICT);
}

static const SnowflakeWorker peer_checker = {
	.name = WORKER_NAME,
	.wait_event = "SnowflakePeerCheck",
	.interval_ms = checker_interval,
	.start = checker_start,
	.tick = checker_tick,
	.reload = checker_reload,
	.stop = checker_stop,
};

/*
 * Entry point of the worker (bgw_function_name).
 */
void
snowflake_peer_checker_main(Datum main_arg)
{
	snowflake_worker_run(&peer_checker);
}

/*
 * snowflake_peers() RETURNS SETOF record: the last check of each peer.
 * (The C name differs because snowflake_peers is the setting's variable.)
 */
Datum
snowflake_peers_report(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PeerStatus *peers;
	int			n;

	snowflake_require_preload();
	InitMaterializedSRF(fcinfo, 0);
	snowflake_check_result_columns(fcinfo, rsinfo->setDesc, 8);

	peers = palloc(sizeof(PeerStatus) * MAX_PEERS);
	LWLockAcquire(peers_shared->lock, LW_SHARED);
	n = peers_shared->npeers;
	memcpy(peers, peers_shared->peers, sizeof(PeerStatus) * n);
	LWLockRelease(peers_shared->lock);

	for (int i = 0; i < n; i++)
	{
		PeerStatus *ps = &peers[i];
		Datum		values[8];
		bool		nulls[8] = {false};
		bool		known = ps->checked_at != 0 && ps->reachable;

		values[0] = CStringGetTextDatum(ps->name);
		values[1] = BoolGetDatum(ps->reachable);
		values[2] = Int32GetDatum(ps->node_id);
		nulls[2] = !known || ps->node_id < 0;
		values[3] = BoolGetDatum(ps->in_recovery);
		nulls[3] = !known;
		values[4] = Int64GetDatum(ps->skew_ms);
		nulls[4] = !known || ps->self;
		values[5] = Int64GetDatum(ps->rtt_ms);
		nulls[5] = !known;
		if (ps->checked_at != 0)
			values[6] = TimestampTzGetDatum(snowflake_unix_ms_to_timestamptz(ps->checked_at));
		else
			nulls[6] = true;
		values[7] = CStringGetTextDatum(ps->status[0] ? ps->status : "not checked yet");
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
