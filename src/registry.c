/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  Node IDs leased from snowflake.node_registry: the lease this server
 *	  holds, kept in pg_snowflake/lease and in WAL, and the conversation
 *	  with the registry, run by the node-ID worker (node_worker.c).
 *
 * The registry is a PostgreSQL database with this extension, whose table
 * snowflake_node_lease leases node IDs (the install script describes it).
 * A server's claim is identified by its database system identifier, which
 * its physical standbys share, and a random claim token kept with the
 * lease: a standby inherits its primary's lease through WAL.
 *
 * THE LIFE OF A LEASE (SnowflakeLeaseState, in pg_snowflake/lease):
 *
 *	NONE		nothing held: the worker draws a claim token and saves
 *	CLAIMING	before it asks, so that a claim the registry took is never
 *				lost to a crash: asking again with the token returns it.
 *	HELD		the registry gave node_id, and floor_id, the highest ID its
 *				earlier holders issued.  Saved before use; the generator
 *				resumes above floor_id (as above a mark replayed from WAL),
 *				so every ID is above every ID of the node ID's past, whatever
 *				the clock says.  At every peer check the worker reports the
 *				high-water mark on disk.  A restart takes the lease from the
 *				file: no registry is needed (it is asked once, with a
 *				deadline, before generating, to catch a copy of this server).
 *	RELEASING	snowflake_release_node_id() blocked generation, closed the
 *				generator and saved final_mark, which covers every ID this
 *				server issued or can still issue; the worker tells the
 *				registry, which gives the node ID to the next claimer with
 *				final_mark as its floor_id.  Saved before it tells, so that a
 *				crash never leaves a lease used here and free there.
 *	RELEASED	the registry has it.  This run generates no more; the next
 *				start claims a new lease.
 *
 * Every state is written (state_file.c) and WAL-logged (wal.c) before it
 * is acted on; redo (redo.c) hands a replayed lease to
 * snowflake_registry_replay_lease().
 *
 * ONE RUN AT A TIME.  Two servers may hold one lease: a copy of a data
 * directory started on its own, or the old primary still running after its
 * standby was promoted.  So a run of the server generates only while the
 * registry takes it as the lease's active run: at every report it asks for
 * the next STALE_REPORTS check intervals plus a timeout (active_until); a
 * run that finds another run's time not yet out generates nothing until
 * it runs out (the other stopped reporting: it is gone) or is given up
 * (deactivate, at a clean shutdown), then resumes above the highest mark
 * any run of the lease reported.  A run (one postmaster: a crash restart
 * is the same run) cannot tell a copy of itself from its own run before a
 * restart, so after a restart the registry did not hear of it waits that
 * time out too.  Without the registry none of this can be checked: a
 * holder with snowflake.registry_fencing off (the default) generates on
 * its saved lease (its first report failing within snowflake.peer_timeout)
 * and goes on while the registry cannot be reached; a copy started then,
 * or the old primary cut off from the registry after a failover, would
 * generate with the same node ID (operations.md says so).  With fencing
 * on, a run generates only after the registry took it as the active one,
 * and stops short of the time its last report bought (fence_deadline_ms()).
 * A run that takes over starts above that time on the clock of the run it
 * takes over from, as that run's last report showed it.
 *
 * Shared state: the lease as saved, what the registry last said, and a
 * release asked for by a backend, under a spinlock held for copies; the
 * worker is the only writer of the lease, besides redo on a standby.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/registry.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/pg_type_d.h"
#include "common/pg_prng.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "admission.h"
#include "clock.h"
#include "compat.h"
#include "generator.h"
#include "identity.h"
#include "layout.h"
#include "peer_client.h"
#include "records.h"
#include "registry.h"
#include "settings.h"
#include "state_file.h"
#include "wal.h"

PG_FUNCTION_INFO_V1(snowflake_node_lease);
PG_FUNCTION_INFO_V1(snowflake_release_node_id);

#define ERROR_LEN			256
#define HOLDER_LEN			256

/* how often to try again while there is no lease */
#define RETRY_INTERVAL_MS	1000

/* a run is the lease's active one for this many check intervals and
 * peer_timeouts after its last report */
#define STALE_REPORTS		3

/* how long a clean stop waits for the registry at most */
#define DEACTIVATE_TIMEOUT_MS	500

typedef enum ReleaseOutcome
{
	RELEASE_NONE,				/* nobody asked */
	RELEASE_PENDING,			/* asked; the worker is at it */
	RELEASE_DONE,				/* the registry has it */
	RELEASE_FAILED				/* the registry could not be told (yet) */
} ReleaseOutcome;

typedef struct RegistryShared
{
	slock_t		mutex;			/* protects everything below */
	SnowflakeLease lease;		/* as saved in pg_snowflake/lease */
	int64		reported_at;	/* Unix ms the registry last took a report */
	int64		reported_id;	/* the mark it took then */
	char		error[ERROR_LEN];	/* the last exchange's failure, or "" */
	int			release;		/* ReleaseOutcome */
	bool		active;			/* the registry took this run as the lease's
								 * active one at its last report */
	PGPROC	   *worker;			/* the node-ID worker, to wake it */
	ConditionVariable release_changed;
} RegistryShared;

static RegistryShared *registry = NULL;

/*
 * This server's run, as the registry knows it: drawn once per postmaster,
 * so that shared memory made anew after a crash is the same run (its
 * children inherit it); a new postmaster is a new run.
 */
static int64 run_token = 0;

/* in the worker */
static PGconn *conn = NULL;
static char *schema = NULL;		/* the registry's extension schema, quoted */
static bool asked_once = false; /* the first report of this run was tried */
static bool yielded = false;	/* given up for this run: reclaimed */
static int64 last_report_ms = 0;	/* monotonic ms the last report the
									 * registry took was sent at */
static uint32 wait_event = 0;

Size
snowflake_registry_shmem_size(void)
{
	return MAXALIGN(sizeof(RegistryShared));
}

/* Whether this server takes its node ID from a registry. */
static bool
leasing(void)
{
	return snowflake_node_source() == SNOWFLAKE_NODE_REGISTRY;
}

/*
 * Creates the shared state and, on a server that leases its node ID, reads
 * pg_snowflake/lease.  A held lease lets the generator resume above its
 * floor at once; the node ID itself is assigned by the worker, after its
 * first report (or its failure).  Runs in the postmaster with
 * AddinShmemInitLock held: logs, never raises.
 */
void
snowflake_registry_shmem_init(void)
{
	bool		found;
	char	   *problem;

	registry = ShmemInitStruct("snowflake registry", sizeof(RegistryShared), &found);
	if (found)
		return;
	while (run_token == 0)
		run_token = (int64) pg_prng_uint64(&pg_global_prng_state);
	memset(registry, 0, sizeof(RegistryShared));
	SpinLockInit(&registry->mutex);
	ConditionVariableInit(&registry->release_changed);

	if (!leasing())
		return;
	if (!snowflake_lease_file_read(&registry->lease, &problem))
	{
		if (problem == NULL)
			return;
		/* a damaged lease is never guessed at: an operator looks */
		registry->lease.state = SNOWFLAKE_LEASE_NONE;
		snowflake_identity_withdraw(psprintf(_("%s; remove it and restart the server to claim a new lease."),
											 problem));
		ereport(WARNING,
				(errmsg("snowflake ID generation is disabled: %s", problem),
				 errhint("Remove the file and restart the server; it then claims a new node ID lease.")));
		registry->lease.state = -1;
		return;
	}
	if (registry->lease.state == SNOWFLAKE_LEASE_HELD)
	{
		if (registry->lease.floor_id >= 0)
			snowflake_generator_replay_mark(registry->lease.floor_id);
		ereport(LOG,
				(errmsg("snowflake node ID %d leased from \"%s\", held since before this start",
						registry->lease.node_id, "snowflake.node_registry")));
	}
}

/* A copy of the lease as saved. */
static void
lease_copy(SnowflakeLease *lease)
{
	SpinLockAcquire(&registry->mutex);
	*lease = registry->lease;
	SpinLockRelease(&registry->mutex);
}

/* Whether the registry took this run as the lease's active one. */
static bool
run_active(void)
{
	bool		result;

	SpinLockAcquire(&registry->mutex);
	result = registry->active;
	SpinLockRelease(&registry->mutex);
	return result;
}

static void
set_run_active(bool active)
{
	SpinLockAcquire(&registry->mutex);
	registry->active = active;
	SpinLockRelease(&registry->mutex);
}

static void
set_error(const char *error)
{
	SpinLockAcquire(&registry->mutex);
	strlcpy(registry->error, error ? error : "", ERROR_LEN);
	SpinLockRelease(&registry->mutex);
}

/*
 * Saves lease: WAL first, then pg_snowflake/lease, then shared memory.  In
 * that order a crash can only leave the file behind the WAL, which crash
 * recovery then replays into it: never a file ahead of WAL that recovery
 * would roll back to an older lease.  False if the file could not be
 * written (logged); nothing may be acted on then.
 */
static bool
save_lease(const SnowflakeLease *lease)
{
	snowflake_wal_log_lease(lease);
	if (!snowflake_lease_file_write(lease, LOG))
		return false;
	SpinLockAcquire(&registry->mutex);
	registry->lease = *lease;
	SpinLockRelease(&registry->mutex);
	return true;
}

/*
 * Redo of a lease record (redo.c): on a standby, its primary's lease,
 * saved as the primary saved it, so that after promotion this server holds
 * it.  A failed write is logged: the lease stays in shared memory for this
 * run, and the WAL has it for a later replay.
 */
void
snowflake_registry_replay_lease(const SnowflakeLease *lease)
{
	(void) snowflake_lease_file_write(lease, WARNING);
	SpinLockAcquire(&registry->mutex);
	registry->lease = *lease;
	SpinLockRelease(&registry->mutex);
	if (lease->state == SNOWFLAKE_LEASE_HELD && lease->floor_id >= 0)
		snowflake_generator_replay_mark(lease->floor_id);
}

/* ----------
 * The conversation with the registry
 * ----------
 */

/* Sets ex and connects, with the schema looked up; false: error set. */
static bool
registry_open(SnowflakePeerExchange *ex, const char **error)
{
	if (wait_event == 0)
		wait_event = snowflake_wait_event("SnowflakeRegistry");
	snowflake_peer_exchange_begin(ex, snowflake_peer_timeout, wait_event);
	ex->application_name = "snowflake node ID worker";
	if (!snowflake_peer_connect(&conn, snowflake_node_registry, ex))
	{
		*error = ex->error;
		schema = NULL;
		return false;
	}
	if (schema == NULL)
	{
		char	   *found = snowflake_peer_extension_schema(&conn, ex, error);

		if (found == NULL)
			return false;
		schema = MemoryContextStrdup(TopMemoryContext, found);
	}
	return true;
}

/* Runs query; a result with exactly one row, or NULL with error set. */
static PGresult *
registry_ask(SnowflakePeerExchange *ex, const char *query, const char *what,
			 const char **error)
{
	PGresult   *res = snowflake_peer_query(&conn, query, ex);

	if (res == NULL)
	{
		*error = ex->error;
		if (conn == NULL && schema != NULL)
		{
			pfree(schema);
			schema = NULL;
		}
		return NULL;
	}
	if (!snowflake_peer_check_rows(res, what, 1, 1, 8, error))
	{
		PQclear(res);
		snowflake_peer_disconnect(&conn);
		return NULL;
	}
	return res;
}

/* this server's name in the registry, for people */
static char *
holder_name(void)
{
	char		host[HOST_NAME_MAX + 1];
	const char *cluster = GetConfigOption("cluster_name", true, false);

	if (gethostname(host, sizeof(host)) != 0)
		strlcpy(host, "?", sizeof(host));
	host[sizeof(host) - 1] = '\0';
	return psprintf("%s%s%s:%d", cluster && cluster[0] ? cluster : "",
					cluster && cluster[0] ? "@" : "", host, PostPortNumber);
}

/*
 * Claims the lease with the claim token saved in lease; fills node_id and
 * floor_id.  False with error set if the registry did not answer so.
 */
static bool
claim(SnowflakeLease *lease, const char **error)
{
	SnowflakePeerExchange ex;
	PGresult   *res;
	char	   *holder;
	char	   *quoted_holder;
	char	   *layout;
	char	   *quoted_layout;
	char	   *query;
	int			c_node;
	int			c_floor;
	int64		node_id;
	int64		floor_id;
	bool		ok;

	if (!registry_open(&ex, error))
		return false;
	holder = holder_name();
	quoted_holder = PQescapeLiteral(conn, holder, strlen(holder));
	layout = snowflake_layout_text(snowflake_layout());
	quoted_layout = PQescapeLiteral(conn, layout, strlen(layout));
	if (quoted_holder == NULL || quoted_layout == NULL)
	{
		*error = _("out of memory");
		if (quoted_holder)
			PQfreemem(quoted_holder);
		if (quoted_layout)
			PQfreemem(quoted_layout);
		return false;
	}
	query = psprintf("SELECT * FROM %s.snowflake_registry_claim(%llu::pg_catalog.numeric,"
					 " %lld::pg_catalog.int8, %s::pg_catalog.text, %s::pg_catalog.text,"
					 " %d::pg_catalog.int4)",
					 schema, (unsigned long long) lease->system_identifier,
					 (long long) lease->claim_token, quoted_holder, quoted_layout,
					 snowflake_layout()->max_node);
	PQfreemem(quoted_holder);
	PQfreemem(quoted_layout);

	res = registry_ask(&ex, query, "snowflake_registry_claim()", error);
	if (res == NULL)
		return false;
	ok = (c_node = snowflake_peer_column(res, "snowflake_registry_claim()", "node_id", INT4OID, true, error)) >= 0 &&
		(c_floor = snowflake_peer_column(res, "snowflake_registry_claim()", "floor_id", INT8OID, true, error)) >= 0 &&
		snowflake_peer_get_int(res, 0, c_node, "snowflake_registry_claim()", 0,
							   snowflake_layout()->max_node, NULL, &node_id, error) &&
		snowflake_peer_get_int(res, 0, c_floor, "snowflake_registry_claim()", -1,
							   PG_INT64_MAX, NULL, &floor_id, error);
	PQclear(res);
	if (!ok)
	{
		snowflake_peer_disconnect(&conn);
		return false;
	}
	lease->node_id = (int32) node_id;
	lease->floor_id = floor_id;
	return true;
}

/* What a report returned */
typedef struct Report
{
	bool		held;			/* the lease is (still) ours */
	bool		active;			/* this run may generate with it */
	int64		high_water_id;	/* the highest mark any run reported */
	int64		other_active_ms;	/* when not: how long the other's time lasts */
	char		lease_layout[65];	/* the layout the lease was claimed with */
} Report;

/*
 * How far past its time a run whose time ran out may have issued IDs, as
 * far as this server's settings tell (the same on every server of a
 * fleet): the lead a borrow may take, a wait, and a reservation.
 */
static int64
takeover_margin_ms(void)
{
	return (int64) snowflake_max_borrow + snowflake_clock_wait_timeout +
		snowflake_reserve_ahead;
}

/*
 * How long a report makes this run the lease's active one: the registry
 * counts it from its own clock while it takes the report.
 */
static int64
active_time_ms(void)
{
	return (int64) STALE_REPORTS *
		(snowflake_peer_check_interval + snowflake_peer_timeout);
}

/*
 * With snowflake.registry_fencing on, until when (monotonic ms) this run
 * may generate without another report taken.  Counted from when the last
 * one was sent, which is before the registry counted its active time
 * from; and short of that time by STALE_REPORTS - 1 timeouts: one for a
 * report still in flight at the deadline (it ends within a timeout), the
 * rest for a worker late to wake.  The registry hands the lease on only
 * after its time, and the next run starts above it plus the takeover
 * margin, so this run's last IDs stay below the next run's first.
 */
static int64
fence_deadline_ms(void)
{
	return last_report_ms + (int64) STALE_REPORTS * snowflake_peer_check_interval +
		snowflake_peer_timeout;
}

/*
 * Reports the high-water mark on disk and asks to be (stay) the active run
 * of the lease.  False with error set if the registry did not answer so.
 * *sent_ms is set to the monotonic time before anything was sent.  This
 * server's clock goes with the report: a run that takes over after this
 * one's time runs out starts above its end on this server's clock, should
 * that be ahead of the registry's; and so does the address at which other
 * servers reach this one, for their "registry:" entries of
 * snowflake.peers (the registry keeps it while this run is the active one).
 */
static bool
report(const SnowflakeLease *lease, Report *r, int64 *sent_ms,
	   const char **error)
{
	SnowflakePeerExchange ex;
	SnowflakeGeneratorStatus gen;
	PGresult   *res;
	char	   *query;
	char	   *since;
	char	   *address;
	int64		mark = Max(snowflake_state_file_mark(), lease->floor_id);
	int			c_held;
	int			c_active;
	int			c_hw;
	int			c_other;
	int			c_layout;
	bool		isnull;
	bool		ok;
	int64		clock_ms;

	*sent_ms = snowflake_monotonic_ms();
	clock_ms = snowflake_wall_clock_ms();
	if (!registry_open(&ex, error))
		return false;
	snowflake_generator_status(&gen);
	since = gen.generating_since_ms > 0 ?
		psprintf("pg_catalog.to_timestamp(%lld::pg_catalog.float8 / 1000)",
				 (long long) gen.generating_since_ms) :
		pstrdup("NULL::pg_catalog.timestamptz");

	/*
	 * Where the peers that read the registry's holders reach this server:
	 * snowflake.advertise_address, or (NULL) the address the registry sees
	 * this connection come from, with our port.
	 */
	if (snowflake_advertise_address != NULL && snowflake_advertise_address[0] != '\0')
	{
		char	   *quoted = PQescapeLiteral(conn, snowflake_advertise_address,
											 strlen(snowflake_advertise_address));

		if (quoted == NULL)
		{
			*error = _("out of memory");
			return false;
		}
		address = pstrdup(quoted);
		PQfreemem(quoted);
	}
	else
		address = pstrdup("NULL");

	/* every argument typed: no overload a role of the registry made fits */
	/*
	 * With the layout the lease was claimed with: a server restarted with
	 * another layout keeps its lease file, and must not generate with it
	 * (others judge it by the lease's layout).
	 */
	query = psprintf("SELECT h.*, (SELECT pg_catalog.\"left\"(l.layout, 64)"
					 " FROM %s.snowflake_node_lease l"
					 " WHERE l.node_id OPERATOR(pg_catalog.=) %d) AS lease_layout"
					 " FROM %s.snowflake_registry_heartbeat(%d::pg_catalog.int4,"
					 " %llu::pg_catalog.numeric, %lld::pg_catalog.int8,"
					 " %lld::pg_catalog.int8, %lld::pg_catalog.int8, %s,"
					 " %lld::pg_catalog.int8, %lld::pg_catalog.int8,"
					 " %lld::pg_catalog.int8, %s::pg_catalog.text,"
					 " %d::pg_catalog.int4) h",
					 schema, lease->node_id, schema, lease->node_id,
					 (unsigned long long) lease->system_identifier,
					 (long long) lease->claim_token,
					 (long long) run_token,
					 (long long) mark, since, (long long) active_time_ms(),
					 (long long) takeover_margin_ms(), (long long) clock_ms,
					 address, PostPortNumber);
	res = registry_ask(&ex, query, "snowflake_registry_heartbeat()", error);
	if (res == NULL)
		return false;
#define WHAT "snowflake_registry_heartbeat()"
	memset(r, 0, sizeof(Report));
	ok = (c_held = snowflake_peer_column(res, WHAT, "held", BOOLOID, true, error)) >= 0 &&
		(c_active = snowflake_peer_column(res, WHAT, "active", BOOLOID, true, error)) >= 0 &&
		(c_hw = snowflake_peer_column(res, WHAT, "lease_high_water_id", INT8OID, true, error)) >= 0 &&
		(c_other = snowflake_peer_column(res, WHAT, "other_active_ms", INT8OID, true, error)) >= 0 &&
		(c_layout = snowflake_peer_column(res, WHAT, "lease_layout", TEXTOID, true, error)) >= 0 &&
		snowflake_peer_get_bool(res, 0, c_held, WHAT, &r->held, error) &&
		snowflake_peer_get_bool(res, 0, c_active, WHAT, &r->active, error);
	if (ok && r->held)
		ok = snowflake_peer_get_int(res, 0, c_hw, WHAT, -1, PG_INT64_MAX,
									NULL, &r->high_water_id, error) &&
			snowflake_peer_get_int(res, 0, c_other, WHAT, PG_INT64_MIN, PG_INT64_MAX,
								   &isnull, &r->other_active_ms, error);
	if (ok && r->held && !PQgetisnull(res, 0, c_layout))
	{
		const char *layout = snowflake_peer_get_string(res, 0, c_layout, WHAT, 64,
													   true, error);

		ok = layout != NULL;
		if (ok)
			strlcpy(r->lease_layout, layout, sizeof(r->lease_layout));
	}
#undef WHAT
	PQclear(res);
	if (!ok)
	{
		snowflake_peer_disconnect(&conn);
		return false;
	}
	SpinLockAcquire(&registry->mutex);
	registry->reported_at = snowflake_wall_clock_ms();
	registry->reported_id = mark;
	SpinLockRelease(&registry->mutex);
	return true;
}

/*
 * Gives up this run's time as the lease's active one (a clean stop), with
 * mark, which covers every ID it issued.
 */
static void
deactivate(const SnowflakeLease *lease, int64 mark)
{
	SnowflakePeerExchange ex;
	PGresult   *res;
	const char *error = NULL;
	char	   *query;

	if (!registry_open(&ex, &error))
		return;
	ex.deadline = Min(ex.deadline, snowflake_monotonic_ms() + DEACTIVATE_TIMEOUT_MS);
	query = psprintf("SELECT %s.snowflake_registry_deactivate(%d::pg_catalog.int4,"
					 " %llu::pg_catalog.numeric, %lld::pg_catalog.int8,"
					 " %lld::pg_catalog.int8, %lld::pg_catalog.int8) AS done",
					 schema, lease->node_id,
					 (unsigned long long) lease->system_identifier,
					 (long long) lease->claim_token,
					 (long long) run_token, (long long) mark);
	res = registry_ask(&ex, query, "snowflake_registry_deactivate()", &error);
	if (res != NULL)
		PQclear(res);
}

/* Tells the registry the lease is released with final_mark. */
static bool
release(const SnowflakeLease *lease, const char **error)
{
	SnowflakePeerExchange ex;
	PGresult   *res;
	char	   *query;
	int			col;
	bool		released = false;
	bool		ok;

	if (!registry_open(&ex, error))
		return false;
	query = psprintf("SELECT %s.snowflake_registry_release(%d::pg_catalog.int4,"
					 " %llu::pg_catalog.numeric, %lld::pg_catalog.int8,"
					 " %lld::pg_catalog.int8, %lld::pg_catalog.int8) AS released",
					 schema, lease->node_id,
					 (unsigned long long) lease->system_identifier,
					 (long long) lease->claim_token, (long long) run_token,
					 (long long) lease->final_mark);
	res = registry_ask(&ex, query, "snowflake_registry_release()", error);
	if (res == NULL)
		return false;
	ok = (col = snowflake_peer_column(res, "snowflake_registry_release()", "released",
									  BOOLOID, true, error)) >= 0 &&
		snowflake_peer_get_bool(res, 0, col, "snowflake_registry_release()",
								&released, error);
	PQclear(res);
	if (ok && !released)
	{
		/* not ours any more: an operator reclaimed it; nothing to give back */
		ereport(LOG,
				(errmsg("the snowflake node-ID registry no longer had node ID %d of this server to release",
						lease->node_id)));
	}
	if (!ok)
		snowflake_peer_disconnect(&conn);
	return ok;
}

/* ----------
 * The worker's part
 * ----------
 */

/* the last failure logged, so that each is logged once */
static char *logged_error = NULL;

/*
 * Records the failure of an exchange: for snowflake_node_lease() always,
 * in the log when it differs from the last one logged.
 */
static void
exchange_failed(const char *what, const char *error)
{
	char	   *line = psprintf("%s: %s", what, error ? error : _("unknown failure"));

	set_error(line);
	if (logged_error != NULL && strcmp(logged_error, line) == 0)
		return;
	ereport(LOG,
			(errmsg("could not reach the snowflake node-ID registry"),
			 errdetail_internal("%s", line)));
	if (logged_error)
		pfree(logged_error);
	logged_error = MemoryContextStrdup(TopMemoryContext, line);
}

static void
exchange_worked(void)
{
	set_error(NULL);
	if (logged_error != NULL)
	{
		ereport(LOG, (errmsg("the snowflake node-ID registry answers again")));
		pfree(logged_error);
		logged_error = NULL;
	}
}

int
snowflake_registry_interval_ms(void)
{
	SnowflakeLease lease;

	lease_copy(&lease);
	/* a standby, or a lease to claim or wait for: look again soon */
	if (RecoveryInProgress())
		return RETRY_INTERVAL_MS;
	/* given up for this run: sleep until a release is asked for (latch) */
	if (yielded || (lease.state == SNOWFLAKE_LEASE_RELEASED &&
					snowflake_identity_withdrawn()))
		return 0;
	if (lease.state == SNOWFLAKE_LEASE_HELD && run_active())
	{
		/* fenced: wake up at the deadline, not one interval after it */
		if (snowflake_registry_fencing)
			return (int) Max(Min((int64) snowflake_peer_check_interval,
								 fence_deadline_ms() - snowflake_monotonic_ms()),
							 1);
		return snowflake_peer_check_interval;
	}
	return RETRY_INTERVAL_MS;
}

void
snowflake_registry_start(void)
{
	SpinLockAcquire(&registry->mutex);
	registry->worker = MyProc;
	SpinLockRelease(&registry->mutex);
	snowflake_peer_limit_memory();
}

void
snowflake_registry_stop(void)
{
	SnowflakeLease lease;

	/*
	 * A clean stop: give up this run's time, so that the next start need
	 * not wait for it.  The exchange gives up at a shutdown request, so the
	 * request is set aside for it; its deadline is short, and a registry
	 * that does not answer only makes the next start wait.
	 */
	lease_copy(&lease);
	if (run_active() && lease.state == SNOWFLAKE_LEASE_HELD)
	{
		volatile sig_atomic_t shutdown = ShutdownRequestPending;
		int64		mark;

		/*
		 * No more IDs from this run (the server is shutting down; should
		 * only this worker have been stopped, it opens the generator again
		 * when it is back), so that the mark covers them all.  A mark being
		 * written leaves the time to run out instead.
		 */
		if (snowflake_generator_close_nowait(&mark))
		{
			set_run_active(false);
			ShutdownRequestPending = false;
			deactivate(&lease, Max(Max(mark, snowflake_state_file_mark()),
								   lease.floor_id));
			ShutdownRequestPending = shutdown;
		}
	}
	snowflake_peer_disconnect(&conn);
}

/*
 * Claims a lease: saves a new claim token first (CLAIMING), then asks.
 * Returns true once the lease is HELD and saved.
 */
static bool
claim_lease(SnowflakeLease *lease)
{
	const char *error = NULL;

	if (lease->state != SNOWFLAKE_LEASE_CLAIMING)
	{
		memset(lease, 0, sizeof(SnowflakeLease));
		lease->state = SNOWFLAKE_LEASE_CLAIMING;
		lease->node_id = -1;
		lease->floor_id = -1;
		lease->final_mark = -1;
		lease->system_identifier = GetSystemIdentifier();
		/* the layout the claim asks for, and the lease then serves */
		strlcpy(lease->layout, snowflake_layout_text(snowflake_layout()),
				sizeof(lease->layout));
		/* any value but 0; collisions only matter with the same system ID */
		do
			lease->claim_token = (int64) pg_prng_uint64(&pg_global_prng_state);
		while (lease->claim_token == 0);
		if (!save_lease(lease))
		{
			snowflake_identity_waiting(_("The node-ID lease could not be saved in \"pg_snowflake/lease\"; the server log says why."));
			return false;
		}
	}
	else if (strcmp(lease->layout, snowflake_layout_text(snowflake_layout())) != 0)
	{
		/*
		 * A claim saved by a run of another layout is sent with this one's:
		 * save what is asked for.  If the registry answers with the lease
		 * the first claim got, the first report reads its layout.
		 */
		strlcpy(lease->layout, snowflake_layout_text(snowflake_layout()),
				sizeof(lease->layout));
		if (!save_lease(lease))
		{
			snowflake_identity_waiting(_("The node-ID lease could not be saved in \"pg_snowflake/lease\"; the server log says why."));
			return false;
		}
	}
	if (!claim(lease, &error))
	{
		exchange_failed("snowflake_registry_claim()", error);
		snowflake_identity_waiting(psprintf(_("No node ID could be claimed from \"%s\" yet: %s"),
											"snowflake.node_registry",
											error ? error : _("unknown failure")));
		return false;
	}
	exchange_worked();
	lease->state = SNOWFLAKE_LEASE_HELD;
	if (!save_lease(lease))
		return false;
	if (lease->floor_id >= 0)
		snowflake_generator_replay_mark(lease->floor_id);
	ereport(LOG,
			(errmsg("snowflake node ID %d leased from \"%s\"", lease->node_id,
					"snowflake.node_registry"),
			 lease->floor_id >= 0 ?
			 errdetail("It was held before; IDs start above %lld, its last holder's high-water mark.",
					   (long long) lease->floor_id) : 0));
	return true;
}

/*
 * Gives the lease back: closes the generator (admission was blocked by the
 * backend that asked), saves RELEASING with the final mark, tells the
 * registry, saves RELEASED.  Each step is retried at the next tick.
 */
static void
release_lease(SnowflakeLease *lease)
{
	const char *error = NULL;
	int			outcome;

	if (lease->state == SNOWFLAKE_LEASE_HELD)
	{
		/* model: close-before-release */
		lease->final_mark = Max(snowflake_generator_close(), lease->floor_id);
		lease->state = SNOWFLAKE_LEASE_RELEASING;
		if (!save_lease(lease))
			return;
	}
	if (lease->state == SNOWFLAKE_LEASE_RELEASING)
	{
		if (!release(lease, &error))
		{
			exchange_failed("snowflake_registry_release()", error);
			outcome = RELEASE_FAILED;
		}
		else
		{
			exchange_worked();
			lease->state = SNOWFLAKE_LEASE_RELEASED;
			outcome = save_lease(lease) ? RELEASE_DONE : RELEASE_FAILED;
			if (outcome == RELEASE_DONE)
				ereport(LOG,
						(errmsg("snowflake node ID %d released to the registry, above ID %lld",
								lease->node_id, (long long) lease->final_mark)));
		}
		SpinLockAcquire(&registry->mutex);
		if (registry->release != RELEASE_NONE)
			registry->release = outcome;
		SpinLockRelease(&registry->mutex);
		ConditionVariableBroadcast(&registry->release_changed);
	}
}

/*
 * A server restarted with another ID layout than its lease was claimed
 * with (lease_layout, from the lease file or the registry) stops
 * generating for this run: the lease answers for the old layout, and
 * others judge its IDs by it.
 */
static void
withdraw_for_layout(const SnowflakeLease *lease, const char *lease_layout)
{
	char	   *running = snowflake_layout_text(snowflake_layout());

	set_run_active(false);
	yielded = true;
	snowflake_identity_withdraw(psprintf(_("The lease of node ID %d was claimed with the ID layout %s, and this server runs %s: a lease serves the layout it was claimed with."),
										 lease->node_id, lease_layout, running));
	ereport(WARNING,
			(errmsg("snowflake node ID %d was leased for another ID layout; this server stops generating IDs",
					lease->node_id),
			 errdetail("The lease was claimed with the layout %s; this server runs %s.",
					   lease_layout, running),
			 errhint("Restore the settings of that layout and restart: the registry serves one ID layout.")));
}

/*
 * The report of a held lease, and what it means for this run:
 *
 *	the registry takes this run as active: generate (after resuming above
 *	every mark any run of the lease reported, if this run was not active);
 *	another run is active: do not generate, and wait for its time to run
 *	out (it stopped reporting) or be given up;
 *	the lease is not ours (reclaimed): claim another, or, generating
 *	already, stop for this run;
 *	no answer: with snowflake.registry_fencing off, generate on the lease
 *	saved here (a registry outage costs a holder nothing); with it on, a
 *	run generates only while a report the registry took keeps it the
 *	active one (fence_deadline_ms()), since another run may take the lease
 *	after that.
 */
static void
held_tick(SnowflakeLease *lease)
{
	Report		r;
	const char *error = NULL;
	bool		was_active = run_active();
	int64		sent_ms;

	if (yielded)
		return;

	/*
	 * model: fence (registry16.pml; checked here only, by the worker:
	 * registry16_fence_at_worker_tick, _call_in_flight, _reload_moves_fence).
	 * The fence goes first: a report may take a timeout to fail.  A worker
	 * started again in this run does not know when the last report was
	 * taken (last_report_ms is 0): it fences until it reports.
	 */
	if (snowflake_registry_fencing && was_active &&
		snowflake_monotonic_ms() >= fence_deadline_ms())
	{
		set_run_active(false);
		was_active = false;
		snowflake_identity_waiting(psprintf(_("The registry has not taken a report of this server's run in time, and \"%s\" is on: another server may hold the lease of node ID %d now."),
											"snowflake.registry_fencing", lease->node_id));
		ereport(WARNING,
				(errmsg("snowflake node ID %d: the registry has not taken this run's report in time; this server stops generating IDs until it can report again",
						lease->node_id),
				 errdetail("\"%s\" is on.", "snowflake.registry_fencing")));
	}

	if (!report(lease, &r, &sent_ms, &error))
	{
		exchange_failed("snowflake_registry_heartbeat()", error);
		if (!asked_once)
		{
			asked_once = true;
			if (snowflake_registry_fencing)
			{
				snowflake_identity_waiting(psprintf(_("The registry could not confirm this server's run as the active one of the lease of node ID %d, and \"%s\" is on: %s"),
													lease->node_id, "snowflake.registry_fencing",
													error ? error : _("unknown failure")));
				ereport(WARNING,
						(errmsg("snowflake node ID %d: the registry cannot be reached; this server generates no IDs until it can report",
								lease->node_id),
						 errdetail("\"%s\" is on.", "snowflake.registry_fencing")));
			}
			else if (lease->layout[0] == '\0')
				snowflake_identity_waiting(psprintf(_("The lease of node ID %d was saved without its ID layout, and the registry cannot confirm the layout now: %s"),
													lease->node_id,
													error ? error : _("unknown failure")));
			else if (strcmp(lease->layout, snowflake_layout_text(snowflake_layout())) != 0)
			{
				/*
				 * Restarted with another layout: the saved lease answers for
				 * the one it was claimed with, and others judge our IDs by
				 * it.  Only the registry, the authority on the lease, can
				 * say otherwise: wait for its word.
				 */
				snowflake_identity_waiting(psprintf(_("The lease of node ID %d was saved with the ID layout %s, and this server runs %s; the registry cannot say now which layout the lease serves: %s"),
													lease->node_id, lease->layout,
													snowflake_layout_text(snowflake_layout()),
													error ? error : _("unknown failure")));
				ereport(WARNING,
						(errmsg("snowflake node ID %d was leased for another ID layout; this server generates no IDs until the registry answers",
								lease->node_id),
						 errdetail("The lease was saved with the layout %s; this server runs %s.",
								   lease->layout, snowflake_layout_text(snowflake_layout()))));
			}
			else if (snowflake_identity_node_id() < 0)
				snowflake_identity_assign(lease->node_id);
		}
		return;
	}
	exchange_worked();
	asked_once = true;

	if (!r.held)
	{
		set_run_active(false);
		if (snowflake_identity_node_id() < 0)
		{
			ereport(LOG,
					(errmsg("the snowflake node-ID registry no longer leases node ID %d to this server; claiming another",
							lease->node_id)));
			lease->state = SNOWFLAKE_LEASE_NONE;
			(void) save_lease(lease);
			return;
		}
		yielded = true;
		snowflake_identity_withdraw(psprintf(_("The registry no longer leases node ID %d to this server (it was reclaimed); restart the server to claim another."),
											 lease->node_id));
		ereport(WARNING,
				(errmsg("snowflake node ID %d was taken back by the registry; this server stops generating IDs",
						lease->node_id)));
		return;
	}

	/* the registry's layout of the lease is the one to keep */
	if (r.lease_layout[0] != '\0' && strcmp(lease->layout, r.lease_layout) != 0)
	{
		strlcpy(lease->layout, r.lease_layout, sizeof(lease->layout));
		(void) save_lease(lease);
	}
	if (r.lease_layout[0] != '\0' &&
		strcmp(r.lease_layout, snowflake_layout_text(snowflake_layout())) != 0)
	{
		/* restarted with another layout: the lease answers for the old one */
		withdraw_for_layout(lease, r.lease_layout);
		return;
	}

	if (!r.active)
	{
		/*
		 * Another run of a server with this lease holds it: a copy of this
		 * data directory, the old primary after a failover, or this server's
		 * own run before a restart (a crash, or a stop the registry did not
		 * hear of).  Nothing tells them apart but time: wait, generating
		 * nothing, until its time runs out or it gives it up.
		 */
		if (was_active || snowflake_identity_node_id() >= 0)
			ereport(WARNING,
					(errmsg("snowflake node ID %d: another server holds this lease as its active run; this server stops generating IDs until that run's time is out",
							lease->node_id),
					 errhint("If two servers run with one lease, stop the one that should not; a copy of a data directory must claim a lease of its own (remove its \"%s\" before it starts).",
							 "pg_snowflake/lease")));
		set_run_active(false);
		snowflake_identity_waiting(psprintf(_("Another server holds the lease of node ID %d as its active run, for %lld ms more unless it reports again (a copy of this data directory, the old primary after a failover, or this server before a restart)."),
											lease->node_id, (long long) Max(r.other_active_ms, 0)));
		return;
	}

	last_report_ms = sent_ms;
	if (!was_active)
	{
		/* a worker stopped and back in the same run closed it */
		if (!snowflake_identity_withdrawn())
			snowflake_generator_reopen();

		/*
		 * This run takes the lease: above every mark any run reported,
		 * durably (a crash must not bring back IDs below it, and the
		 * registry may not be there to say it again).  Not written: not
		 * active; the next tick tries again.
		 */
		if (!snowflake_generator_raise_floor(r.high_water_id, LOG))
			return;
		set_run_active(true);
	}
	/* a release under way must not be let through again */
	if (lease->state == SNOWFLAKE_LEASE_HELD && !snowflake_identity_withdrawn())
		snowflake_identity_assign(lease->node_id);
}

/*
 * One tick of the node-ID worker on a server that leases its node ID.
 */
void
snowflake_registry_tick(void)
{
	SnowflakeLease lease;
	bool		release_asked;

	/* a standby's lease is its primary's, from WAL */
	if (RecoveryInProgress() || registry->lease.state < 0)
		return;


	lease_copy(&lease);
	SpinLockAcquire(&registry->mutex);
	release_asked = registry->release != RELEASE_NONE;
	SpinLockRelease(&registry->mutex);

	/* a release asked for now, or one a crash interrupted */
	if (lease.state == SNOWFLAKE_LEASE_RELEASING ||
		(release_asked && lease.state == SNOWFLAKE_LEASE_HELD))
	{
		release_lease(&lease);
		return;
	}

	/* released in an earlier run: this start claims anew */
	if (lease.state == SNOWFLAKE_LEASE_RELEASED &&
		snowflake_identity_node_id() < 0 && !snowflake_identity_withdrawn())
		lease.state = SNOWFLAKE_LEASE_NONE;

	/* no lease, or a claim a crash interrupted: claim (again) */
	if ((lease.state == SNOWFLAKE_LEASE_NONE ||
		 lease.state == SNOWFLAKE_LEASE_CLAIMING) && !claim_lease(&lease))
		return;

	if (lease.state == SNOWFLAKE_LEASE_HELD)
		held_tick(&lease);
}

/* ----------
 * SQL
 * ----------
 */

static const char *
state_name(int state)
{
	switch (state)
	{
		case SNOWFLAKE_LEASE_NONE:
			return "none";
		case SNOWFLAKE_LEASE_CLAIMING:
			return "claiming";
		case SNOWFLAKE_LEASE_HELD:
			return "held";
		case SNOWFLAKE_LEASE_RELEASING:
			return "releasing";
		case SNOWFLAKE_LEASE_RELEASED:
			return "released";
	}
	return "damaged";
}

/*
 * snowflake_node_lease() RETURNS record: the lease as this server keeps it,
 * and what the registry last said.  Reads only.
 */
Datum
snowflake_node_lease(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc = snowflake_result_tupdesc(fcinfo, 7);
	Datum		values[7];
	bool		nulls[7] = {false};
	SnowflakeLease lease;
	int64		reported_at;
	int64		reported_id;
	char		error[ERROR_LEN];

	snowflake_require_preload();
	SpinLockAcquire(&registry->mutex);
	lease = registry->lease;
	reported_at = registry->reported_at;
	reported_id = registry->reported_id;
	memcpy(error, registry->error, ERROR_LEN);
	SpinLockRelease(&registry->mutex);

	values[0] = CStringGetTextDatum(leasing() ? state_name(lease.state) : "not leasing");
	values[1] = Int32GetDatum(lease.node_id);
	nulls[1] = lease.state < SNOWFLAKE_LEASE_HELD;
	values[2] = Int64GetDatum(lease.claim_token);
	nulls[2] = lease.state <= SNOWFLAKE_LEASE_NONE;
	values[3] = Int64GetDatum(lease.floor_id);
	nulls[3] = lease.state < SNOWFLAKE_LEASE_HELD || lease.floor_id < 0;
	if (reported_at > 0)
		values[4] = TimestampTzGetDatum((reported_at - SNOWFLAKE_PG_EPOCH_UNIX_MS) * 1000);
	nulls[4] = reported_at <= 0;
	values[5] = Int64GetDatum(reported_id);
	nulls[5] = reported_at <= 0 || reported_id < 0;
	values[6] = error[0] ? CStringGetTextDatum(error) : (Datum) 0;
	nulls[6] = error[0] == '\0';
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * snowflake_release_node_id() RETURNS boolean
 *
 * Stops generation on this server for good (until a restart, which claims
 * a new lease) and has the worker release the lease with the final
 * high-water mark.  Waits for the registry, up to twice
 * snowflake.peer_timeout; false if it has not taken the release by then
 * (the worker keeps trying).
 */
Datum
snowflake_release_node_id(PG_FUNCTION_ARGS)
{
	SnowflakeLease lease;
	PGPROC	   *worker;
	int64		deadline;
	int			outcome;

	snowflake_require_preload();
	if (!leasing())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this server does not lease its snowflake node ID"),
				 errdetail("Its node ID comes from %s.",
						   snowflake_node_source_name(snowflake_node_source()))));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot release a snowflake node ID during recovery"),
				 errdetail("A standby shares its primary's lease.")));
	lease_copy(&lease);
	if (lease.state == SNOWFLAKE_LEASE_HELD && !run_active())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this server is not the active holder of its snowflake node-ID lease"),
				 errdetail("The registry has not taken this server's run as the lease's active one (it cannot be reached, or another run holds the lease)."),
				 errhint("Release the node ID on the server that generates with it.")));
	if (lease.state != SNOWFLAKE_LEASE_HELD &&
		lease.state != SNOWFLAKE_LEASE_RELEASING &&
		lease.state != SNOWFLAKE_LEASE_RELEASED)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this server holds no snowflake node-ID lease"),
				 errdetail("The lease is \"%s\".", state_name(lease.state))));

	/* no ID from now on; the worker closes the generator and tells */
	snowflake_identity_withdraw(psprintf(_("The lease of node ID %d was released by snowflake_release_node_id(); restart the server to claim another."),
										 lease.node_id));
	SpinLockAcquire(&registry->mutex);
	if (registry->release == RELEASE_NONE || registry->release == RELEASE_FAILED)
		registry->release = RELEASE_PENDING;
	worker = registry->worker;
	SpinLockRelease(&registry->mutex);
	if (worker != NULL)
		SetLatch(&worker->procLatch);

	deadline = snowflake_monotonic_ms() + 2 * (int64) snowflake_peer_timeout +
		RETRY_INTERVAL_MS;
	for (;;)
	{
		SpinLockAcquire(&registry->mutex);
		outcome = registry->release;
		SpinLockRelease(&registry->mutex);
		if (outcome == RELEASE_DONE || outcome == RELEASE_FAILED ||
			snowflake_monotonic_ms() >= deadline)
			break;
		(void) ConditionVariableTimedSleep(&registry->release_changed,
										   RETRY_INTERVAL_MS,
										   snowflake_wait_event("SnowflakeRelease"));
	}
	ConditionVariableCancelSleep();
	if (outcome != RELEASE_DONE)
		ereport(WARNING,
				(errmsg("the snowflake node-ID registry has not taken the release yet"),
				 errdetail("This server generates no more IDs; it keeps trying to release node ID %d.",
						   lease.node_id)));
	PG_RETURN_BOOL(outcome == RELEASE_DONE);
}
