/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  Node IDs leased from snowflake.node_registry: the lease this server
 *	  holds, kept in pg_snowflake/lease and in WAL, and the conversation
 *	  with the registry (the snowflake_registry extension), run by the
 *	  node-ID worker (node_worker.c).
 *
 * The rules are doc/protocol.md's, "Node IDs from a registry", which
 * model/registry.pml checks; each is named where it is kept ("model:").
 *
 * THE LIFE OF A LEASE (SnowflakeLeaseState, in pg_snowflake/lease):
 *
 *	NONE		nothing held: the worker draws a claim token and saves
 *	CLAIMING	before it asks, so that a claim the registry took is never
 *				lost to a crash: asking again with the token returns it.
 *	HELD		the registry gave node_id, and floor_id, above every ID its
 *				earlier holders issued.  Saved before use; the generator
 *				resumes above floor_id (as above a mark replayed from WAL).
 *				Kept until released: a restart uses the lease from the file
 *				(model: claim-once).  A standby holds its primary's, by WAL.
 *	RELEASING	snowflake_release_node_id() withdrew the node ID; the worker
 *				closed the generator and saved final_mark, which covers
 *				every ID this server issued or can still issue (model:
 *				close-before-release), and tells the registry, which gives
 *				the node ID to the next claimer above final_mark (model:
 *				release-mark).  Saved before it tells.
 *	RELEASED	the registry has it.  This run generates no more; the next
 *				start claims a new lease.
 *
 * Every state is written to WAL and then to the file, with checkpoints
 * held off in between (save_lease()); redo (redo.c) hands a replayed lease
 * to snowflake_registry_replay_lease().
 *
 * A lease claimed without fencing is used as it is: the worker reports
 * once after each start (the holder's address, for "registry:" peers, and
 * whether the lease is still this server's), and a registry that does not
 * answer costs nothing.  A copy of the data directory started as a second
 * primary holds the same lease and is not stopped by the registry: the
 * peer checker finds it (doc/operations.md).
 *
 * A lease claimed with fencing (snowflake.registry_fencing at the claim;
 * the lease keeps it, A7) is reported on every second.  The registry takes
 * one run of the holder at a time as current and grants it IDs up to a few
 * seconds past the registry's clock; the generator never reserves past the
 * grant (snowflake_generator_grant(): model: reservation-within-grant), so
 * whatever holds this server up, it stops where the registry said, without
 * a worker tick.  A run that becomes current starts above the floor the
 * registry sends, above every grant it ever made, so a copy, a stalled
 * holder, a lost answer or a registry restored from a backup cannot make
 * two servers issue one ID.  A run (a postmaster: a crash restart is the
 * same run) is drawn at start; a clean restart is a new run, which waits
 * for the last one's silence (5 s) before it is current.
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

/* how often to try again while there is no lease or no answer */
#define RETRY_INTERVAL_MS	1000

/* how often a fenced lease is reported: well within the registry's grant
 * (5 s past its clock) and its silence before another run is current (5 s) */
#define RENEW_INTERVAL_MS	1000
/* ... and once more at once when a grant reaches no further than the floor */
#define RENEW_SOON_MS		20

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
	SnowflakeLease lease;		/* as saved in pg_snowflake/lease; state -1:
								 * the file is damaged */
	int64		reported_at;	/* Unix ms the registry last answered a report */
	int64		granted_until;	/* Unix ms (registry's clock) of the last grant */
	char		error[ERROR_LEN];	/* the last exchange's failure, or "" */
	int			release;		/* ReleaseOutcome */
	pid_t		worker_pid;		/* the node-ID worker, to wake it; 0 */
	int			worker_procno;	/* its slot in ProcGlobal->allProcs */
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
static bool answered = false;	/* the registry answered a report of this
								 * worker's */
static char *logged_failure = NULL;	/* the last failure to reach it logged */
static char *logged_wait = NULL;	/* the last wait logged */
static bool answered_current = false;	/* ... and took this run as current */
static bool renew_soon = false;	/* the last grant reaches no further than
								 * the floor: ask again at once */
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

/* A held lease's floor and fence, for the generator. */
static void
use_lease(const SnowflakeLease *lease)
{
	if (lease->state != SNOWFLAKE_LEASE_HELD)
		return;
	if (lease->fenced)
		snowflake_generator_fence();
	if (lease->floor_id >= 0)
		snowflake_generator_replay_mark(lease->floor_id);
}

/*
 * Creates the shared state and, on a server that leases its node ID, reads
 * pg_snowflake/lease.  A held lease lets the generator resume above its
 * floor at once; the node ID itself is assigned by the worker.  Runs in
 * the postmaster with AddinShmemInitLock held: logs, never raises.
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
		snowflake_identity_withdraw(psprintf(_("%s; remove it and restart the server to claim a new lease."),
											 problem));
		ereport(WARNING,
				(errmsg("snowflake ID generation is disabled: %s", problem),
				 errhint("Remove the file and restart the server; it then claims a new node ID lease.")));
		registry->lease.state = -1;
		return;
	}
	use_lease(&registry->lease);
	if (registry->lease.state != SNOWFLAKE_LEASE_HELD)
		return;
	ereport(LOG,
			(errmsg("snowflake node ID %d leased from \"%s\", held since before this start",
					registry->lease.node_id, "snowflake.node_registry")));
	/* A7: a lease keeps the fencing it was claimed with */
	if ((registry->lease.fenced != 0) != snowflake_registry_fencing)
		ereport(WARNING,
				(errmsg("the lease of snowflake node ID %d was claimed with \"%s\" %s, and keeps it",
						registry->lease.node_id, "snowflake.registry_fencing",
						registry->lease.fenced ? "on" : "off"),
				 errhint("To change it, release the node ID with snowflake_release_node_id() and restart: the next lease is claimed with the setting in force.")));
}

static void
lease_copy(SnowflakeLease *lease)
{
	SpinLockAcquire(&registry->mutex);
	*lease = registry->lease;
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
 * Saves lease: WAL first, then pg_snowflake/lease, then shared memory, with
 * checkpoints held off from the WAL record to the file write: a crash can
 * only leave the file behind a record that recovery then replays, never
 * behind a checkpoint that would skip it.  False if the file could not be
 * written (logged); nothing may be acted on then.
 */
static bool
save_lease(const SnowflakeLease *lease)
{
	volatile bool saved = false;

	Assert((MyProc->delayChkptFlags & DELAY_CHKPT_START) == 0);
	MyProc->delayChkptFlags |= DELAY_CHKPT_START;
	PG_TRY();
	{
		snowflake_wal_log_lease(lease);
		saved = snowflake_lease_file_write(lease, LOG);
	}
	PG_FINALLY();
	{
		MyProc->delayChkptFlags &= ~DELAY_CHKPT_START;
	}
	PG_END_TRY();
	if (!saved)
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
	use_lease(lease);
}

/* ----------
 * The conversation with the registry
 * ----------
 */

/* Logs line once, until another one replaces it in *logged. */
static void
log_once(char **logged, int elevel, const char *message, const char *detail)
{
	char	   *line = psprintf("%s: %s", message, detail);

	if (*logged != NULL && strcmp(*logged, line) == 0)
		return;
	ereport(elevel, (errmsg_internal("%s", message), errdetail_internal("%s", detail)));
	if (*logged)
		pfree(*logged);
	*logged = MemoryContextStrdup(TopMemoryContext, line);
}

/*
 * Runs query on the registry, connecting first; a result with exactly one
 * row, or NULL with the failure recorded for snowflake_node_lease() and
 * logged once.
 */
static PGresult *
registry_ask(const char *query, const char *what, int timeout_ms)
{
	SnowflakePeerExchange ex;
	PGresult   *res = NULL;
	const char *error = NULL;

	if (wait_event == 0)
		wait_event = snowflake_wait_event("SnowflakeRegistry");
	for (int attempt = 0;; attempt++)
	{
		bool		kept = conn != NULL;

		snowflake_peer_exchange_begin(&ex, timeout_ms, wait_event);
		ex.application_name = "snowflake node ID worker";
		if (!snowflake_peer_connect(&conn, snowflake_node_registry, &ex))
			error = ex.error;
		else if ((res = snowflake_peer_query(&conn, query, &ex)) == NULL)
			error = ex.error;
		if (res != NULL || !kept || attempt > 0)
			break;
		/* the connection kept from before may have been closed since */
		snowflake_peer_disconnect(&conn);
	}
	if (res != NULL && !snowflake_peer_check_rows(res, what, 1, 1, 8, &error))
	{
		PQclear(res);
		res = NULL;
		snowflake_peer_disconnect(&conn);
	}
	if (res == NULL)
	{
		char	   *line = psprintf("%s: %s", what, error ? error : _("unknown failure"));

		set_error(line);
		log_once(&logged_failure, LOG, _("could not reach the snowflake node-ID registry"), line);
		return NULL;
	}
	set_error(NULL);
	if (logged_failure != NULL)
	{
		ereport(LOG, (errmsg("the snowflake node-ID registry answers again")));
		pfree(logged_failure);
		logged_failure = NULL;
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

/* The registry's claim, into lease: node_id and floor_id.  False: not. */
static bool
claim(SnowflakeLease *lease)
{
	const char *what = "snowflake_registry.claim()";
	PGresult   *res;
	const char *error = NULL;
	int			c_node;
	int			c_floor;
	int64		node_id;
	int64		floor_id;
	bool		ok;

	/* every argument typed: no overload a role of the registry made fits */
	res = registry_ask(psprintf("SELECT * FROM snowflake_registry.claim(%llu::pg_catalog.numeric,"
								" %lld::pg_catalog.int8, %s::pg_catalog.text, %s::pg_catalog.text,"
								" %d::pg_catalog.int4, %s::pg_catalog.bool)",
								(unsigned long long) lease->system_identifier,
								(long long) lease->claim_token, quote_literal_cstr(holder_name()),
								quote_literal_cstr(lease->layout), snowflake_layout()->max_node,
								lease->fenced ? "true" : "false"),
					   what, snowflake_peer_timeout);
	if (res == NULL)
		return false;
	ok = (c_node = snowflake_peer_column(res, what, "node_id", INT4OID, true, &error)) >= 0 &&
		(c_floor = snowflake_peer_column(res, what, "floor_id", INT8OID, true, &error)) >= 0 &&
		snowflake_peer_get_int(res, 0, c_node, what, 0, snowflake_layout()->max_node,
							   NULL, &node_id, &error) &&
		snowflake_peer_get_int(res, 0, c_floor, what, -1, PG_INT64_MAX, NULL,
							   &floor_id, &error);
	PQclear(res);
	if (!ok)
	{
		set_error(error);
		log_once(&logged_failure, LOG, _("the snowflake node-ID registry's answer cannot be used"), error);
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
	bool		current;		/* fenced: this run is granted IDs */
	int64		floor_id;		/* fenced and current: start above it */
	int64		granted_until;	/* ... IDs up to this Unix ms */
	int64		other_run_ms;	/* not current: how long the other lasts */
	char		layout[65];		/* the layout the lease was claimed with */
} Report;

/*
 * Reports to the registry (snowflake_registry.report()).  With it goes the
 * address at which other servers reach this one, for their "registry:"
 * entries of snowflake.peers: snowflake.advertise_address, or (NULL) the
 * address the registry sees this connection come from, with our port.
 * False if the registry did not answer so.
 */
static bool
report(const SnowflakeLease *lease, Report *r)
{
	const char *what = "snowflake_registry.report()";
	PGresult   *res;
	const char *error = NULL;
	const char *address = snowflake_advertise_address;
	int			c_held,
				c_current,
				c_floor,
				c_grant,
				c_other,
				c_layout;
	bool		isnull;
	bool		ok;

	memset(r, 0, sizeof(Report));
	res = registry_ask(psprintf("SELECT * FROM snowflake_registry.report(%d::pg_catalog.int4,"
								" %llu::pg_catalog.numeric, %lld::pg_catalog.int8,"
								" %lld::pg_catalog.int8, %s::pg_catalog.text,"
								" %d::pg_catalog.int4)",
								lease->node_id, (unsigned long long) lease->system_identifier,
								(long long) lease->claim_token, (long long) run_token,
								address && address[0] ? quote_literal_cstr(address) : "NULL",
								PostPortNumber),
					   what, snowflake_peer_timeout);
	if (res == NULL)
		return false;
	ok = (c_held = snowflake_peer_column(res, what, "held", BOOLOID, true, &error)) >= 0 &&
		(c_current = snowflake_peer_column(res, what, "current", BOOLOID, true, &error)) >= 0 &&
		(c_floor = snowflake_peer_column(res, what, "floor_id", INT8OID, true, &error)) >= 0 &&
		(c_grant = snowflake_peer_column(res, what, "granted_until_ms", INT8OID, true, &error)) >= 0 &&
		(c_other = snowflake_peer_column(res, what, "other_run_ms", INT8OID, true, &error)) >= 0 &&
		(c_layout = snowflake_peer_column(res, what, "layout", TEXTOID, true, &error)) >= 0 &&
		snowflake_peer_get_bool(res, 0, c_held, what, &r->held, &error);
	if (ok && r->held)
	{
		const char *layout;

		ok = snowflake_peer_get_bool(res, 0, c_current, what, &r->current, &error) &&
			snowflake_peer_get_int(res, 0, c_floor, what, -1, PG_INT64_MAX, NULL,
								   &r->floor_id, &error) &&
			snowflake_peer_get_int(res, 0, c_grant, what, 0, PG_INT64_MAX, &isnull,
								   &r->granted_until, &error) &&
			snowflake_peer_get_int(res, 0, c_other, what, PG_INT64_MIN, PG_INT64_MAX,
								   &isnull, &r->other_run_ms, &error) &&
			(layout = snowflake_peer_get_string(res, 0, c_layout, what, 64, false,
												&error)) != NULL;
		if (ok)
			strlcpy(r->layout, layout, sizeof(r->layout));
	}
	PQclear(res);
	if (!ok)
	{
		set_error(error);
		log_once(&logged_failure, LOG, _("the snowflake node-ID registry's answer cannot be used"), error);
		snowflake_peer_disconnect(&conn);
		return false;
	}
	SpinLockAcquire(&registry->mutex);
	registry->reported_at = snowflake_wall_clock_ms();
	if (r->current && r->granted_until > registry->granted_until)
		registry->granted_until = r->granted_until;
	SpinLockRelease(&registry->mutex);
	return true;
}

/* Tells the registry the lease is released with final_mark. */
static bool
release(const SnowflakeLease *lease)
{
	const char *what = "snowflake_registry.release()";
	PGresult   *res;

	res = registry_ask(psprintf("SELECT snowflake_registry.release(%d::pg_catalog.int4,"
								" %llu::pg_catalog.numeric, %lld::pg_catalog.int8,"
								" %lld::pg_catalog.int8) AS released",
								lease->node_id, (unsigned long long) lease->system_identifier,
								(long long) lease->claim_token, (long long) lease->final_mark),
					   what, snowflake_peer_timeout);
	if (res == NULL)
		return false;
	/* NULL: not ours any more (an operator reclaimed it): nothing to give */
	if (PQgetisnull(res, 0, 0))
		ereport(LOG,
				(errmsg("the snowflake node-ID registry no longer had node ID %d of this server to release",
						lease->node_id)));
	PQclear(res);
	return true;
}

/* ----------
 * The worker's part
 * ----------
 */

int
snowflake_registry_interval_ms(void)
{
	SnowflakeLease lease;
	int			release;

	SpinLockAcquire(&registry->mutex);
	lease = registry->lease;
	release = registry->release;
	SpinLockRelease(&registry->mutex);
	if (RecoveryInProgress() || lease.state < 0 ||
		lease.state == SNOWFLAKE_LEASE_RELEASING ||
		release == RELEASE_PENDING || release == RELEASE_FAILED)
		return RETRY_INTERVAL_MS;
	/* released, or the lease not ours any more: until a release is asked */
	if (snowflake_identity_withdrawn())
		return 0;
	if (lease.state == SNOWFLAKE_LEASE_HELD && lease.fenced)
		return renew_soon ? RENEW_SOON_MS : RENEW_INTERVAL_MS;
	if (lease.state == SNOWFLAKE_LEASE_HELD && answered)
		return 0;
	return RETRY_INTERVAL_MS;
}

void
snowflake_registry_start(void)
{
	SpinLockAcquire(&registry->mutex);
	registry->worker_pid = MyProcPid;
	registry->worker_procno = (int) (MyProc - ProcGlobal->allProcs);
	SpinLockRelease(&registry->mutex);
	snowflake_peer_limit_memory();
}

void
snowflake_registry_stop(void)
{
	SpinLockAcquire(&registry->mutex);
	registry->worker_pid = 0;
	SpinLockRelease(&registry->mutex);
	snowflake_peer_disconnect(&conn);
}

/* Saves lease, or says so for snowflake_status().  True once saved. */
static bool
save_or_wait(const SnowflakeLease *lease)
{
	if (save_lease(lease))
		return true;
	snowflake_identity_waiting(_("The node-ID lease could not be saved in \"pg_snowflake/lease\"; the server log says why."));
	return false;
}

/*
 * Claims a lease: saves a new claim token first (CLAIMING), then asks.
 * Returns true once the lease is HELD and saved.
 */
static bool
claim_lease(SnowflakeLease *lease)
{
	const char *running = snowflake_layout_text(snowflake_layout());

	if (lease->state != SNOWFLAKE_LEASE_CLAIMING)
	{
		memset(lease, 0, sizeof(SnowflakeLease));
		lease->state = SNOWFLAKE_LEASE_CLAIMING;
		lease->node_id = -1;
		lease->floor_id = -1;
		lease->final_mark = -1;
		lease->system_identifier = GetSystemIdentifier();
		lease->fenced = snowflake_registry_fencing;
		/* any value but 0; collisions only matter with the same system ID */
		do
			lease->claim_token = (int64) pg_prng_uint64(&pg_global_prng_state);
		while (lease->claim_token == 0);
	}
	else if (strcmp(lease->layout, running) == 0)
		running = NULL;
	/*
	 * The layout the claim asks for: this run's, also for a claim saved by a
	 * run of another layout (should the registry have taken that one, the
	 * first report says which layout the lease serves).
	 */
	if (running != NULL)
	{
		strlcpy(lease->layout, running, sizeof(lease->layout));
		if (!save_or_wait(lease))
			return false;
	}
	if (!claim(lease))
	{
		snowflake_identity_waiting(psprintf(_("No node ID could be claimed from \"%s\" yet; snowflake_node_lease() says why."),
											"snowflake.node_registry"));
		return false;
	}
	lease->state = SNOWFLAKE_LEASE_HELD;
	if (!save_or_wait(lease))
		return false;
	use_lease(lease);
	ereport(LOG,
			(errmsg("snowflake node ID %d leased from \"%s\"%s", lease->node_id,
					"snowflake.node_registry", lease->fenced ? ", fenced" : ""),
			 lease->floor_id >= 0 ?
			 errdetail("It was held before; IDs start above %lld.",
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
	int			outcome = RELEASE_FAILED;

	if (lease->state == SNOWFLAKE_LEASE_HELD)
	{
		/* model: close-before-release */
		lease->final_mark = Max(snowflake_generator_close(), lease->floor_id);
		lease->state = SNOWFLAKE_LEASE_RELEASING;
		if (!save_lease(lease))
			return;
	}
	if (release(lease))
	{
		lease->state = SNOWFLAKE_LEASE_RELEASED;
		if (save_lease(lease))
		{
			outcome = RELEASE_DONE;
			ereport(LOG,
					(errmsg("snowflake node ID %d released to the registry, above ID %lld",
							lease->node_id, (long long) lease->final_mark)));
		}
	}
	SpinLockAcquire(&registry->mutex);
	if (registry->release != RELEASE_NONE)
		registry->release = outcome;
	SpinLockRelease(&registry->mutex);
	ConditionVariableBroadcast(&registry->release_changed);
}

/* Stops generating with lease for this run, saying why, once. */
static void
withdraw(const char *why, const char *message)
{
	if (snowflake_identity_withdrawn())
		return;
	snowflake_identity_withdraw(why);
	ereport(WARNING,
			(errmsg_internal("%s", message),
			 errdetail_internal("%s", why)));
}

/*
 * A held lease.  Without fencing: generate with it (the layout it was
 * claimed with permitting), and report once.  With fencing: report, and
 * generate only within what the registry grants this run.
 */
static void
held_tick(SnowflakeLease *lease)
{
	const char *running = snowflake_layout_text(snowflake_layout());
	bool		layout_ok = strcmp(lease->layout, running) == 0;
	Report		r;

	/* model: claim-once: the saved lease is used as it is */
	if (!lease->fenced && layout_ok)
		snowflake_identity_assign(lease->node_id);
	if (!lease->fenced && layout_ok && answered)
	{
		snowflake_peer_disconnect(&conn);
		return;
	}

	if (!report(lease, &r))
	{
		/* a lease answers for its layout: only the registry may say more */
		if (!layout_ok)
		{
			snowflake_identity_waiting(psprintf(_("The lease of node ID %d was claimed with the ID layout %s, and this server runs %s; the registry cannot say now whether this server still holds it."),
												lease->node_id, lease->layout, running));
			log_once(&logged_wait, WARNING,
					 psprintf(_("snowflake node ID %d was leased for another ID layout; this server generates no IDs until the registry answers"),
							  lease->node_id),
					 psprintf(_("The lease was claimed with the layout %s; this server runs %s."),
							  lease->layout, running));
		}
		else if (lease->fenced && snowflake_identity_node_id() < 0)
			snowflake_identity_waiting(psprintf(_("The lease of node ID %d is fenced, and the registry has not granted this server IDs yet; snowflake_node_lease() says why."),
												lease->node_id));
		return;
	}
	answered = true;

	if (!r.held)
	{
		if (snowflake_identity_node_id() < 0)
		{
			/* never used in this run: claim another */
			ereport(LOG,
					(errmsg("the snowflake node-ID registry no longer leases node ID %d to this server; claiming another",
							lease->node_id)));
			lease->state = SNOWFLAKE_LEASE_NONE;
			(void) save_lease(lease);
			return;
		}
		withdraw(psprintf(_("The registry no longer leases node ID %d to this server (it was reclaimed); restart the server to claim another."),
						  lease->node_id),
				 psprintf(_("snowflake node ID %d was taken back by the registry; this server stops generating IDs"),
						  lease->node_id));
		return;
	}

	/* the registry's layout of the lease is the one it serves */
	if (strcmp(lease->layout, r.layout) != 0)
	{
		strlcpy(lease->layout, r.layout, sizeof(lease->layout));
		if (!save_lease(lease))
			return;
	}
	if (strcmp(r.layout, running) != 0)
	{
		/* others judge this server's IDs by the lease's layout */
		withdraw(psprintf(_("The lease of node ID %d was claimed with the ID layout %s, and this server runs %s: a lease serves the layout it was claimed with; restore that layout and restart."),
						  lease->node_id, r.layout, running),
				 psprintf(_("snowflake node ID %d was leased for another ID layout; this server generates no IDs"),
						  lease->node_id));
		return;
	}
	if (!lease->fenced)
	{
		snowflake_identity_assign(lease->node_id);
		return;
	}

	if (!r.current)
	{
		/*
		 * Another run holds the lease: a copy of this data directory, the
		 * old primary after a failover, or this server before a restart.
		 */
		snowflake_identity_waiting(psprintf(_("Another run of a server with the lease of node ID %d is current at the registry, for %lld ms more unless it reports again: a copy of this data directory, the old primary after a failover, or this server before a restart."),
											lease->node_id, (long long) Max(r.other_run_ms, 0)));
		log_once(&logged_wait, WARNING,
				 psprintf(_("snowflake node ID %d waits: another server reports with this lease"),
						  lease->node_id),
				 _("If two servers run with one lease, stop the one that should not; a copy of a data directory must claim a lease of its own (remove its \"pg_snowflake/lease\" before it starts)."));
		return;
	}

	/* model: floor-in-every-answer, durably before the grant is used */
	if (!snowflake_generator_raise_floor(r.floor_id, LOG))
		return;
	snowflake_generator_grant(r.granted_until);

	/*
	 * A run that has just become current is granted up to its floor only:
	 * ask again at once, and let calls in when there is room above it.
	 */
	renew_soon = snowflake_id_ms(snowflake_layout(), r.floor_id) >=
		r.granted_until - snowflake_layout()->epoch_ms;
	if (renew_soon)
	{
		snowflake_identity_waiting(psprintf(_("The lease of node ID %d is fenced, and this run has just become its current one: it waits for its first grant past its floor."),
											lease->node_id));
		return;
	}
	if (snowflake_id_ms(snowflake_layout(), r.floor_id) + snowflake_layout()->epoch_ms >
		snowflake_wall_clock_ms() + snowflake_allowed_lead_ms() + snowflake_max_wait_ms())
	{
		/* rarely: a clock far behind the registry's, or a policy of no lead */
		snowflake_identity_waiting(psprintf(_("The lease of node ID %d starts above ID %lld, further ahead of this server's clock than \"%s\" lets IDs run."),
											lease->node_id, (long long) r.floor_id,
											"snowflake.clock_policy"));
		return;
	}
	/* after a wait, or at the start of this worker: said once */
	if (logged_wait != NULL || !answered_current)
		ereport(LOG,
				(errmsg("snowflake node ID %d: this run is the current one of its fenced lease, granted IDs up to %s",
						lease->node_id, snowflake_unix_ms_to_str(r.granted_until))));
	if (logged_wait != NULL)
	{
		pfree(logged_wait);
		logged_wait = NULL;
	}
	answered_current = true;
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
	if (RecoveryInProgress())
		return;
	lease_copy(&lease);
	if (lease.state < 0)
		return;
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
	if (snowflake_identity_withdrawn())
		return;
	/* released in an earlier run: this start claims anew */
	if (lease.state == SNOWFLAKE_LEASE_RELEASED)
		lease.state = SNOWFLAKE_LEASE_NONE;
	if ((lease.state == SNOWFLAKE_LEASE_NONE ||
		 lease.state == SNOWFLAKE_LEASE_CLAIMING) && !claim_lease(&lease))
		return;
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

static Datum
unix_ms_datum(int64 unix_ms)
{
	return TimestampTzGetDatum((unix_ms - SNOWFLAKE_PG_EPOCH_UNIX_MS) * 1000);
}

/*
 * snowflake_node_lease() RETURNS record: the lease as this server keeps it,
 * and what the registry last said.  Reads only.
 */
Datum
snowflake_node_lease(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc = snowflake_result_tupdesc(fcinfo, 8);
	Datum		values[8];
	bool		nulls[8] = {false};
	SnowflakeLease lease;
	int64		reported_at;
	int64		granted_until;
	char		error[ERROR_LEN];
	bool		held;

	snowflake_require_preload();
	SpinLockAcquire(&registry->mutex);
	lease = registry->lease;
	reported_at = registry->reported_at;
	granted_until = registry->granted_until;
	memcpy(error, registry->error, ERROR_LEN);
	SpinLockRelease(&registry->mutex);
	held = lease.state >= SNOWFLAKE_LEASE_HELD;

	values[0] = CStringGetTextDatum(leasing() ? state_name(lease.state) : "not leasing");
	values[1] = Int32GetDatum(lease.node_id);
	nulls[1] = !held;
	values[2] = Int64GetDatum(lease.claim_token);
	nulls[2] = lease.state <= SNOWFLAKE_LEASE_NONE;
	values[3] = Int64GetDatum(lease.floor_id);
	nulls[3] = !held || lease.floor_id < 0;
	values[4] = BoolGetDatum(lease.fenced != 0);
	nulls[4] = lease.state <= SNOWFLAKE_LEASE_NONE;
	values[5] = unix_ms_datum(reported_at);
	nulls[5] = reported_at <= 0;
	values[6] = unix_ms_datum(granted_until);
	nulls[6] = granted_until <= 0;
	values[7] = error[0] ? CStringGetTextDatum(error) : (Datum) 0;
	nulls[7] = error[0] == '\0';
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
	pid_t		worker_pid;
	int			worker_procno;
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
	worker_pid = registry->worker_pid;
	worker_procno = registry->worker_procno;
	SpinLockRelease(&registry->mutex);

	/*
	 * The worker has no database, so it is not in the proc array: its slot
	 * is found by number, and woken only if it still has the worker's pid
	 * (a latch of a process that took the slot since only wakes it once).
	 */
	if (worker_pid != 0 &&
		ProcGlobal->allProcs[worker_procno].pid == worker_pid)
		SetLatch(&ProcGlobal->allProcs[worker_procno].procLatch);

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
