/*-------------------------------------------------------------------------
 *
 * peers.c
 *	  Catching two servers that use the same node ID, without a
 *	  coordinator: the "snowflake peer checker" background worker, and the
 *	  SQL functions it and operators use.
 *
 * snowflake.peers lists the other servers (libpq connection strings or
 * URIs, separated by commas).  Every snowflake.peer_check_interval the
 * worker asks each one for snowflake_node_info(): its node ID, layout,
 * start time, whether it is in recovery, and its clock.  Two primaries with
 * the same node ID (or with different layouts, whose fields overlap) would
 * hand out colliding IDs; the one that started later stops generating
 * (snowflake.node_conflict = refuse) or only warns (warn).  The decision
 * is the same on both sides, so exactly one of them yields.  A standby
 * legitimately shares its primary's node ID and is left alone; a server
 * finding itself in the list (same instance token) skips itself.  The same
 * round trip measures each peer's clock against ours.
 *
 * A conflict, once found, lasts until a round reaches every listed peer and
 * finds none that conflicts: losing sight of a peer is no evidence that it
 * went away, and neither is a reload of the peer list.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/peers.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "snowflake.h"

PG_FUNCTION_INFO_V1(snowflake_node_info);
PG_FUNCTION_INFO_V1(snowflake_peers_report);

#define PEER_WORKER_NAME	"snowflake peer checker"

/* the query a peer answers */
#define NODE_INFO_QUERY \
	"SELECT node_id, instance_token, started_at_ms, in_recovery, clock_ms, " \
	"epoch_ms, node_bits, sequence_bits FROM snowflake_node_info()"

typedef struct PeerInfo
{
	int			node_id;		/* -1 if not set */
	int64		instance_token;
	int64		started_at_ms;
	bool		in_recovery;
	int64		clock_ms;
	int64		epoch_ms;
	int			node_bits;
	int			seq_bits;
} PeerInfo;

/* backend-local connections of the worker, one per configured peer */
static PGconn *connections[SNOWFLAKE_MAX_PEERS];
static char *conninfos[SNOWFLAKE_MAX_PEERS];
static int	npeers = 0;

static int64
unix_ms_to_int(TimestampTz ts)
{
	return ts / 1000 + SNOWFLAKE_PG_EPOCH_UNIX_MS;
}

/*
 * snowflake_node_info() RETURNS record: what a peer needs to know about
 * this server.  Times are Unix milliseconds, to spare the caller any
 * time zone.
 */
Datum
snowflake_node_info(PG_FUNCTION_ARGS)
{
	SnowflakeSharedState *state = snowflake_shared_state();
	TupleDesc	tupdesc;
	Datum		values[8];
	bool		nulls[8] = {false};

	tupdesc = snowflake_result_tupdesc(fcinfo, 8);

	values[0] = Int32GetDatum(snowflake_node_id);
	values[1] = Int64GetDatum(state->instance_token);
	values[2] = Int64GetDatum(unix_ms_to_int(PgStartTime));
	values[3] = BoolGetDatum(RecoveryInProgress());
	values[4] = Int64GetDatum(snowflake_unix_ms_now());
	values[5] = Int64GetDatum(snowflake_epoch_ms);
	values[6] = Int32GetDatum(snowflake_node_bits);
	values[7] = Int32GetDatum(snowflake_sequence_bits);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * A readable name for a peer: host, port and database of its connection
 * string, never its password.
 */
static void
describe_peer(const char *conninfo, char *buf, size_t len)
{
	PQconninfoOption *opts = PQconninfoParse(conninfo, NULL);
	const char *host = NULL;
	const char *port = NULL;
	const char *dbname = NULL;

	if (opts == NULL)
	{
		strlcpy(buf, "(unparsable connection string)", len);
		return;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
	{
		if (o->val == NULL || o->val[0] == '\0')
			continue;
		if (strcmp(o->keyword, "host") == 0 || strcmp(o->keyword, "hostaddr") == 0)
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

/*
 * Splits snowflake.peers into conninfos[], closing connections to peers no
 * longer listed.  Entries are separated by commas.
 */
static void
load_peer_list(SnowflakeSharedState *state)
{
	char	   *copy = pstrdup(snowflake_peers ? snowflake_peers : "");
	char	   *entry;
	char	   *saveptr = NULL;
	int			n = 0;

	for (int i = 0; i < npeers; i++)
	{
		if (connections[i])
			PQfinish(connections[i]);
		connections[i] = NULL;
		if (conninfos[i])
			pfree(conninfos[i]);
		conninfos[i] = NULL;
	}

	for (entry = strtok_r(copy, ",", &saveptr); entry != NULL;
		 entry = strtok_r(NULL, ",", &saveptr))
	{
		while (*entry == ' ' || *entry == '\t')
			entry++;
		if (*entry == '\0')
			continue;
		if (n == SNOWFLAKE_MAX_PEERS)
		{
			ereport(WARNING,
					(errmsg("\"%s\" lists more than %d peers; the rest are ignored",
							"snowflake.peers", SNOWFLAKE_MAX_PEERS)));
			break;
		}
		conninfos[n++] = MemoryContextStrdup(TopMemoryContext, entry);
	}
	npeers = n;

	LWLockAcquire(state->peers_lock, LW_EXCLUSIVE);
	state->npeers = n;
	LWLockRelease(state->peers_lock);

	for (int i = 0; i < n; i++)
	{
		SnowflakePeerStatus *ps = &state->peers[i];
		char		name[SNOWFLAKE_PEER_NAME_LEN];

		describe_peer(conninfos[i], name, sizeof(name));
		LWLockAcquire(state->peers_lock, LW_EXCLUSIVE);
		memset(ps, 0, sizeof(*ps));
		strlcpy(ps->name, name, sizeof(ps->name));
		ps->node_id = -1;
		strlcpy(ps->status, "not checked yet", sizeof(ps->status));
		LWLockRelease(state->peers_lock);
	}
}

/*
 * Asks peer i for its node info; returns false (with the reason in
 * *problem) if it cannot.  Sets the times of the round trip, Unix ms.
 */
static bool
query_peer(int i, PeerInfo *info, int64 *sent_ms, int64 *received_ms,
		   const char **problem)
{
	PGresult   *res;
	static const char *const keywords[] = {
		"dbname", "connect_timeout", "options", "application_name", NULL
	};
	const char *values[5];

	if (connections[i] == NULL || PQstatus(connections[i]) != CONNECTION_OK)
	{
		if (connections[i])
			PQfinish(connections[i]);
		values[0] = conninfos[i];
		values[1] = "2";
		values[2] = "-c statement_timeout=2000";
		values[3] = PEER_WORKER_NAME;
		values[4] = NULL;
		connections[i] = PQconnectdbParams(keywords, values, true);
		if (PQstatus(connections[i]) != CONNECTION_OK)
		{
			*problem = pstrdup(PQerrorMessage(connections[i]));
			PQfinish(connections[i]);
			connections[i] = NULL;
			return false;
		}
	}

	*sent_ms = snowflake_unix_ms_now();
	res = PQexec(connections[i], NODE_INFO_QUERY);
	*received_ms = snowflake_unix_ms_now();
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		*problem = pstrdup(PQerrorMessage(connections[i]));
		PQclear(res);
		PQfinish(connections[i]);
		connections[i] = NULL;
		return false;
	}

	info->node_id = atoi(PQgetvalue(res, 0, 0));
	info->instance_token = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	info->started_at_ms = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
	info->in_recovery = strcmp(PQgetvalue(res, 0, 3), "t") == 0;
	info->clock_ms = strtoll(PQgetvalue(res, 0, 4), NULL, 10);
	info->epoch_ms = strtoll(PQgetvalue(res, 0, 5), NULL, 10);
	info->node_bits = atoi(PQgetvalue(res, 0, 6));
	info->seq_bits = atoi(PQgetvalue(res, 0, 7));
	PQclear(res);
	return true;
}

/*
 * One round over all peers.
 */
static void
check_peers(SnowflakeSharedState *state)
{
	int64		our_start = unix_ms_to_int(PgStartTime);
	bool		we_are_standby = RecoveryInProgress();
	bool		any_conflict = false;
	bool		any_unreachable = false;
	char		conflict[SNOWFLAKE_PEER_NAME_LEN + 128] = "";

	for (int i = 0; i < npeers; i++)
	{
		SnowflakePeerStatus *ps = &state->peers[i];
		PeerInfo	info;
		int64		sent_ms = 0;
		int64		received_ms = 0;
		const char *problem = NULL;
		bool		reachable;
		bool		self = false;
		bool		conflicts = false;
		bool		we_yield = false;
		bool		warn_now;
		char		status[SNOWFLAKE_PEER_STATUS_LEN];

		CHECK_FOR_INTERRUPTS();
		reachable = query_peer(i, &info, &sent_ms, &received_ms, &problem);

		if (!reachable)
		{
			/* keep a conflict found earlier: silence proves nothing */
			any_unreachable = true;
			LWLockAcquire(state->peers_lock, LW_EXCLUSIVE);
			ps->reachable = false;
			LWLockRelease(state->peers_lock);
			snprintf(status, sizeof(status), "unreachable: %s",
					 problem ? problem : "unknown error");
			/* libpq messages end with a newline */
			status[strcspn(status, "\n")] = '\0';
		}
		else if (info.instance_token == state->instance_token)
		{
			self = true;
			strlcpy(status, "this server", sizeof(status));
		}
		else
		{
			bool		layout_differs = info.epoch_ms != snowflake_epoch_ms ||
				info.node_bits != snowflake_node_bits ||
				info.seq_bits != snowflake_sequence_bits;
			bool		same_node = info.node_id >= 0 &&
				info.node_id == snowflake_node_id;

			/* a standby shares its primary's node ID, and generates nothing */
			conflicts = !info.in_recovery && !we_are_standby &&
				snowflake_node_id >= 0 && (same_node || layout_differs);

			/* the later start yields; ties go by instance token */
			we_yield = conflicts &&
				(our_start > info.started_at_ms ||
				 (our_start == info.started_at_ms &&
				  state->instance_token > info.instance_token));

			if (!conflicts)
				snprintf(status, sizeof(status), "ok: node %d%s",
						 info.node_id, info.in_recovery ? ", standby" : "");
			else if (same_node)
				snprintf(status, sizeof(status), "conflict: same node ID %d%s",
						 info.node_id, we_yield ? ", started earlier" : ", started later");
			else
				snprintf(status, sizeof(status), "conflict: different ID layout%s",
						 we_yield ? ", started earlier" : ", started later");
		}

		/* the earlier server warns once per conflict, not every round */
		warn_now = conflicts && !we_yield && !ps->warned;

		LWLockAcquire(state->peers_lock, LW_EXCLUSIVE);
		ps->checked_at = received_ms ? received_ms : snowflake_unix_ms_now();
		if (reachable)
		{
			ps->warned = conflicts && !we_yield;
			ps->reachable = true;
			ps->self = self;
			ps->node_id = info.node_id;
			ps->in_recovery = info.in_recovery;
			/* its clock against the middle of our round trip */
			ps->skew_ms = info.clock_ms - (sent_ms + received_ms) / 2;
			ps->rtt_ms = received_ms - sent_ms;
		}
		strlcpy(ps->status, status, sizeof(ps->status));
		LWLockRelease(state->peers_lock);

		if (we_yield)
		{
			any_conflict = true;
			snprintf(conflict, sizeof(conflict),
					 "peer \"%s\" (%s) started earlier", ps->name, status);
		}
		else if (warn_now)
			ereport(WARNING,
					(errmsg("snowflake peer \"%s\" conflicts with this server (%s)",
							ps->name, status),
					 errdetail("This server started first and keeps generating IDs; the peer should stop.")));
	}

	LWLockAcquire(state->peers_lock, LW_EXCLUSIVE);
	if (any_conflict)
	{
		bool		new_conflict = !state->node_conflict;

		state->node_conflict = true;
		strlcpy(state->node_conflict_detail, conflict,
				sizeof(state->node_conflict_detail));
		LWLockRelease(state->peers_lock);
		if (new_conflict)
			ereport(WARNING,
					(errmsg("snowflake node ID %d conflicts with %s",
							snowflake_node_id, conflict),
					 snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE ?
					 errdetail("This server stops generating IDs until the conflict is resolved.") :
					 errdetail("\"%s\" is \"warn\": this server keeps generating IDs, which may collide.",
							   "snowflake.node_conflict")));
	}
	else if (!any_unreachable && state->node_conflict)
	{
		state->node_conflict = false;
		state->node_conflict_detail[0] = '\0';
		LWLockRelease(state->peers_lock);
		ereport(LOG, (errmsg("snowflake node ID conflict resolved")));
	}
	else
		LWLockRelease(state->peers_lock);
}

/*
 * Registers the peer checker; called from _PG_init() in the postmaster
 * when snowflake.peers is set.
 */
void
snowflake_register_peer_worker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 5;
	strlcpy(worker.bgw_library_name, "snowflake", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "snowflake_peer_worker_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, PEER_WORKER_NAME, BGW_MAXLEN);
	strlcpy(worker.bgw_type, PEER_WORKER_NAME, BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

void
snowflake_peer_worker_main(Datum main_arg)
{
	SnowflakeSharedState *state = snowflake_state;
	uint32		wait_event;
	MemoryContext round_cxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();

	if (state == NULL)
		ereport(ERROR, (errmsg("snowflake shared memory is not initialized")));

	wait_event = snowflake_wait_event("SnowflakePeerCheck");
	round_cxt = AllocSetContextCreate(TopMemoryContext, "snowflake peer check",
									  ALLOCSET_DEFAULT_SIZES);
	load_peer_list(state);
	ereport(LOG,
			(errmsg("%s started, checking %d peers every %d ms",
					PEER_WORKER_NAME, npeers, snowflake_peer_check_interval)));

	while (!ShutdownRequestPending)
	{
		MemoryContext oldcxt;

		/* everything a round allocates goes away with it */
		MemoryContextReset(round_cxt);
		oldcxt = MemoryContextSwitchTo(round_cxt);
		check_peers(state);
		MemoryContextSwitchTo(oldcxt);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 snowflake_peer_check_interval, wait_event);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			load_peer_list(state);
		}
	}

	for (int i = 0; i < npeers; i++)
		if (connections[i])
			PQfinish(connections[i]);
	proc_exit(1);
}

/*
 * snowflake_peers() RETURNS SETOF record: the last check of each peer.
 * (The C name differs because snowflake_peers is the setting's variable.)
 */
Datum
snowflake_peers_report(PG_FUNCTION_ARGS)
{
	SnowflakeSharedState *state = snowflake_shared_state();
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SnowflakePeerStatus peers[SNOWFLAKE_MAX_PEERS];
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	snowflake_check_result_columns(fcinfo, rsinfo->setDesc, 8);

	LWLockAcquire(state->peers_lock, LW_SHARED);
	n = state->npeers;
	for (int i = 0; i < n; i++)
		peers[i] = state->peers[i];
	LWLockRelease(state->peers_lock);

	for (int i = 0; i < n; i++)
	{
		SnowflakePeerStatus *ps = &peers[i];
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
		values[7] = CStringGetTextDatum(ps->status);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
