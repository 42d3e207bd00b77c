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
 * the peer can answer in its place.  Each question runs asynchronously
 * with a deadline (peer_client.c): a peer that stops answering is
 * reported as such after snowflake.peer_timeout, and the worker answers
 * SIGTERM at once.
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
conninfo_for_node(const char *base, const char *host, const char *port)
{
	PQconninfoOption *opts = PQconninfoParse(base, NULL);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "host=");
	append_conninfo_value(&buf, host);
	appendStringInfoString(&buf, " port=");
	append_conninfo_value(&buf, port);
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
 * The question for a peer: the schema of its extension first, then
 * snowflake_node_info() in that schema.
 */
static char *
node_info_query(PGconn *conn, int64 deadline, uint32 wait_event,
				const char **error)
{
	PGresult   *res;
	char	   *schema;

	res = snowflake_peer_query_once(conn,
									"SELECT pg_catalog.quote_ident(n.nspname)"
									"  FROM pg_catalog.pg_extension e"
									"  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
									" WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake'",
									deadline, wait_event, error);
	if (res == NULL)
		return NULL;
	if (PQntuples(res) != 1)
	{
		*error = psprintf(_("extension \"%s\" is not installed in database \"%s\""),
						  "snowflake", PQdb(conn));
		PQclear(res);
		return NULL;
	}
	schema = pstrdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return psprintf("SELECT node_id, instance_token, started_at_ms, in_recovery,"
					" clock_ms, epoch_ms, node_bits, sequence_bits"
					" FROM %s.snowflake_node_info()", schema);
}

static char *
citus_nodes_query(PGconn *conn, int64 deadline, uint32 wait_event,
				  const char **error)
{
	return pstrdup("SELECT nodename, nodeport FROM pg_catalog.pg_dist_node"
				   " WHERE isactive AND noderole OPERATOR(pg_catalog.=) 'primary'"
				   " ORDER BY nodename, nodeport");
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
 * that cannot be read becomes a target itself, so that the failure shows.
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
			PGconn	   *conn = NULL;
			const char *error = NULL;
			bool		hanging;
			PGresult   *res;

			/* a connection of its own, closed at once: it is a lookup */
			res = snowflake_peer_ask(&conn, base, citus_nodes_query,
									 snowflake_monotonic_ms() + snowflake_peer_timeout,
									 wait_event, &error, &hanging);
			if (conn)
				PQfinish(conn);
			if (res == NULL)
			{
				ereport(LOG,
						(errmsg("%s could not read the Citus node list from \"%s\": %s",
								WORKER_NAME, base, error)));
				add_target(old, nold, base);
				continue;
			}
			for (int i = 0; i < PQntuples(res); i++)
				add_target(old, nold, conninfo_for_node(base, PQgetvalue(res, i, 0),
														PQgetvalue(res, i, 1)));
			PQclear(res);
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
		if (old[i].conn)
			PQfinish(old[i].conn);
		pfree(old[i].conninfo);
	}
}

static bool
parse_node_info(PGresult *res, NodeInfo *info, const char **error)
{
	if (PQntuples(res) != 1 || PQnfields(res) != 8)
	{
		*error = _("unexpected answer to snowflake_node_info()");
		return false;
	}
	for (int i = 0; i < 8; i++)
	{
		if (PQgetisnull(res, 0, i))
		{
			*error = _("unexpected answer to snowflake_node_info()");
			return false;
		}
	}
	info->node_id = atoi(PQgetvalue(res, 0, 0));
	info->instance_token = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	info->started_at_ms = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
	info->in_recovery = strcmp(PQgetvalue(res, 0, 3), "t") == 0;
	info->clock_ms = strtoll(PQgetvalue(res, 0, 4), NULL, 10);
	info->epoch_ms = strtoll(PQgetvalue(res, 0, 5), NULL, 10);
	info->node_bits = atoi(PQgetvalue(res, 0, 6));
	info->seq_bits = atoi(PQgetvalue(res, 0, 7));
	return true;
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
		PGresult   *res;
		bool		hanging = false;
		bool		reachable;
		bool		self = false;
		bool		conflicts = false;
		bool		we_yield = false;
		bool		warn_now;
		char		status[PEER_STATUS_LEN];

		snowflake_describe_peer(targets[i].conninfo, name, sizeof(name));

		sent_ms = snowflake_wall_clock_ms();
		res = snowflake_peer_ask(&targets[i].conn, targets[i].conninfo,
								 node_info_query,
								 snowflake_monotonic_ms() + snowflake_peer_timeout,
								 wait_event, &problem, &hanging);
		received_ms = snowflake_wall_clock_ms();
		reachable = res != NULL && parse_node_info(res, &info, &problem);
		if (res)
			PQclear(res);

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
	{
		if (targets[i].conn)
			PQfinish(targets[i].conn);
		targets[i].conn = NULL;
	}
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
