/*-------------------------------------------------------------------------
 *
 * peer_checker.c
 *	  Catching two servers that use the same node ID, without a
 *	  coordinator: the "snowflake peer checker" background worker, what it
 *	  found (shared state), and snowflake_peers(), which shows it.
 *
 * snowflake.peers lists the other servers (its syntax is peer_list.c's;
 * the checker reads the list the setting's assign hook installed).  An
 * entry "citus:<conninfo>" stands for every active primary node of the
 * Citus cluster that server belongs to, as its pg_dist_node lists them at
 * each round: nodes added later are checked too.  An entry
 * "registry:<conninfo>" stands for every server that holds a lease in the
 * registry snowflake.node_registry names, at the address each advertises
 * there (snowflake_registry.node_lease.address), read at each round the
 * same way: a fleet that shares one configuration checks itself, holders
 * that join later included.  Both kinds reach their servers with the entry's
 * connection string, its host, hostaddr and port replaced.
 *
 * A ROUND, every snowflake.peer_check_interval, has three steps:
 *
 *	ask		the network part.  Work out the targets (the listed servers,
 *			the nodes of each listed Citus cluster, read from it, and the
 *			holders of the registry's leases, read from the registry), then
 *			ask each for snowflake_node_info() (node_info.c): its node ID,
 *			layout, start time, since when it generates IDs, whether it is
 *			in recovery, and its clock.  The function is called in the
 *			schema where the peer's extension lives, looked up in
 *			pg_extension, with search_path set to pg_catalog, so that no
 *			object another role created on the peer can answer in its
 *			place.  Each exchange has its deadline, snowflake.peer_timeout,
 *			and every answer is checked before it is read (peer_client.c):
 *			what a peer sends can make it "unreachable", never crash or
 *			stall us.
 *	judge	pure logic, no I/O: judge_round() decides from the answers
 *			alone which peers conflict with us and whether we yield.
 *	publish	one short LWLock section puts the round's findings in shared
 *			memory; then the log messages.
 *
 * Two primaries that both generate IDs (each has a node ID) with the same
 * node ID, or with different layouts, whose fields overlap, would hand out
 * colliding IDs.  The checker keeps that from happening by the rules of
 * doc/protocol.md, which model/peers.pml proves (P1: of two servers that
 * list each other, never both generate with one node ID at once):
 *
 *	gate-at-start	a server that lists peers starts with its gate closed
 *					(SNOWFLAKE_BLOCK_FIRST_ROUND), in shared memory, so that a
 *					crash restart closes it again;
 *	claim-then-ask	a primary whose gate is closed claims its node ID:
 *					snowflake_node_info() says so before it asks anyone.  It
 *					opens its gate only after a round that began while it
 *					claimed found no peer with its node ID (or an overlapping
 *					layout) admitted or claiming.  Only a primary claims, so
 *					no round in recovery opens the gate: a promoted standby
 *					asks before its first ID;
 *	gate-all-answered  a round counts only when every peer answered, or
 *					refused the connection (nothing listens there).  A peer
 *					that does not answer within snowflake.peer_timeout holds
 *					the gate, and so does one that answers with an error:
 *					57P03 comes from a server in crash recovery, but also
 *					from one in a smart shutdown whose sessions generate;
 *	yield			a server steps back (the conflict, which closes its gate
 *					again) from a peer that is admitted; of two that claim,
 *					the one with the larger instance token steps back.  This
 *					only makes sure one of two gets through: the gate alone
 *					keeps P1;
 *	no following	the checker never moves the generator: causal order
 *					between servers comes from snowflake_observe().
 *
 * Under snowflake.node_conflict = warn the checker only warns, and the
 * gate opens at the first round begun while claiming, whatever answered.
 *
 * A standby legitimately shares its primary's node ID, and a server
 * without a node ID generates nothing: both are left alone.  A server
 * finding itself in the list (same instance token) skips itself.  The same
 * round trip measures each peer's clock against ours.
 *
 * A conflict, once found, lasts until a round in which every peer answered
 * or refused finds none that conflicts: losing sight of a peer is no
 * evidence that it went away, and neither is a reload of the peer list.
 *
 * Each target keeps its state (its connection, whether we warned about it)
 * across rounds and reloads, found again by its connection string, for as
 * long as it is listed: the list may be reordered.  Shared memory holds
 * what the last round published, in list order, for snowflake_peers().
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

#include "peer_client.h"
#include "admission.h"
#include "clock.h"
#include "compat.h"
#include "identity.h"
#include "layout.h"
#include "peer_list.h"
#include "records.h"
#include "settings.h"
#include "workers.h"

PG_FUNCTION_INFO_V1(snowflake_peers_report);

#define WORKER_NAME				"snowflake peer checker"
#define MAX_PEERS				64
#define PEER_NAME_LEN			128
#define PEER_STATUS_LEN			256
#define CONFLICT_DETAIL_LEN		256

/* 9999-12-31 23:59:59.999 UTC: a later time in an answer is nonsense */
#define MAX_UNIX_MS				INT64CONST(253402300799999)

/* the longest host name (or socket directory) taken from pg_dist_node */
#define MAX_HOST_LEN			1024
/* how soon to try again while generation waits for a first round */
#define FIRST_ROUND_RETRY_MS	200

/* rows of pg_dist_node read at most; MAX_PEERS of them are checked */
#define MAX_CITUS_ROWS			4096

#define CITUS_NODES_QUERY \
	"SELECT nodename, nodeport FROM pg_catalog.pg_dist_node" \
	" WHERE isactive AND noderole OPERATOR(pg_catalog.=) 'primary'" \
	" ORDER BY nodename, nodeport"

/*
 * The holders of the registry's leases whose address is known (a fenced
 * lease's only while its current run reports), one more than can be
 * checked (%d), so that a longer list is noticed.  Addresses are cut one
 * character past the longest allowed: a row of any size costs a bounded
 * answer, and is refused on its own.
 */
#define REGISTRY_HOLDERS_QUERY \
	"SELECT l.node_id, pg_catalog.\"left\"(l.address, 1025) AS address" \
	" FROM snowflake_registry.node_lease l" \
	" WHERE l.released_at IS NULL AND l.address IS NOT NULL" \
	" AND (NOT l.fenced OR l.reported_at OPERATOR(pg_catalog.>)" \
	" (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) '10 s'::pg_catalog.interval))" \
	" ORDER BY l.node_id LIMIT %d"

/*
 * What the registry's leases say of this server's own node ID and layout,
 * whatever addresses its holders gave: a lease is a server, which may not
 * be able to check us.  A lease counts until it is released.  Only an
 * operator's reservation of a hand-set number, system identifier 0 (no
 * server has that one), is no lease.  See leases_query().
 */
#define LIVE_LEASE \
	"l.released_at IS NULL AND l.system_identifier OPERATOR(pg_catalog.<>) 0"

/* expected_node_id of a target that is no lease holder */
#define NOT_A_HOLDER			(-1)
/* ... of an entry whose list could not be read */
#define FAILED_ENTRY			(-2)
/* ... of a lease of our own node ID, held by another server */
#define LEASED_TO_OTHER			(-3)
/* ... and of a lease of another layout that we yield to */
#define OTHER_LAYOUT			(-4)

/* What the checker last saw of one peer, as snowflake_peers() shows it */
typedef struct PeerStatus
{
	char		name[PEER_NAME_LEN];	/* host, port, dbname */
	char		status[PEER_STATUS_LEN];
	int			node_id;		/* -1: none, or not known */
	bool		reachable;
	bool		self;			/* the list names this very server */
	bool		in_recovery;
	int64		skew_ms;		/* its clock minus ours */
	int64		rtt_ms;
	int64		checked_at;		/* Unix ms, 0 if never */
} PeerStatus;

typedef struct PeersShared
{
	LWLock	   *lock;			/* protects everything below but the flag */
	int64		instance_token; /* random, set at start, then constant */
	pg_atomic_uint32 conflict;	/* a ConflictKind; NO_CONFLICT: none */
	char		conflict_detail[CONFLICT_DETAIL_LEN];
	int			npeers;
	PeerStatus	peers[MAX_PEERS];	/* in the order of the targets */
} PeersShared;

static PeersShared *peers_shared = NULL;

/* what kind of conflict is in force, if any (PeersShared.conflict) */
typedef enum ConflictKind
{
	NO_CONFLICT = 0,
	NODE_ID_CONFLICT,			/* a server with our node ID generates */
	LAYOUT_CONFLICT				/* a server of another ID layout generates */
} ConflictKind;

/* What a server says of itself (snowflake_node_info()) */
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
	bool		claiming;		/* it claims its node ID (SQL 1.7 on) */
	bool		admitted;		/* it may generate; before 1.7: a primary */
} NodeInfo;

/* What asking one target gave this round */
typedef struct Answer
{
	bool		done;			/* there is an answer, good or bad */
	bool		reachable;		/* and info holds it */
	bool		hanging;		/* the deadline passed */
	bool		refused;		/* nothing listens there: no server runs */
	const char *problem;		/* why not reachable */
	NodeInfo	info;
	int64		sent_ms;		/* Unix ms around the question */
	int64		received_ms;
} Answer;

/*
 * A server to check: a listed entry, a node of a listed Citus cluster, or
 * a holder of a lease in the registry.  Its connection string and the node
 * ID expected of it are its identity; a target of the next round with the
 * same ones takes over its connection and its state.
 */
typedef struct Target
{
	char	   *conninfo;
	int			expected_node_id;	/* a lease holder's node ID, or
									 * NOT_A_HOLDER, or FAILED_ENTRY */
	char	   *entry;			/* the entry it came from, with its prefix,
								 * if a Citus node or a lease holder */
	char	   *label;			/* its name in snowflake_peers(), if not
								 * made from conninfo */
	int			leased_node_id; /* LEASED_TO_OTHER: our node ID, which the
								 * registry leases to another server */
	char	   *other_layout;	/* OTHER_LAYOUT: the layout of that lease */
	bool		synthetic;		/* its answer was made here, not asked for:
								 * a failed lookup or row; never carried */
	PGconn	   *conn;
	bool		warned;			/* we logged that it conflicts with us */
	Answer		answer;			/* this round's */
} Target;

/* This server, as the judge compares it with its peers */
typedef struct SelfView
{
	int			node_id;
	int64		instance_token;
	bool		in_recovery;
	bool		claimed;		/* it claimed when the round began */
	bool		admitted;		/* ... or was admitted then */
	const SnowflakeLayout *layout;
} SelfView;

/* What the judge made of one answer */
typedef struct Verdict
{
	char		status[PEER_STATUS_LEN];
	bool		self;
	bool		counts;			/* answered, or refused: it may open the gate */
	bool		conflicts;		/* it generates, or claims, with our node ID
								 * (or an overlapping layout) */
	bool		we_yield;
	bool		going_on;		/* a conflict this server wins: it generates,
								 * or claims first */
	bool		layout;			/* the conflict is one of ID layouts */
} Verdict;

/* ... and of the whole round */
typedef struct RoundVerdict
{
	bool		yield;			/* we yield to some peer */
	bool		complete;		/* every target answered or refused */
	bool		conflicts;		/* some target conflicts */
	bool		listed;			/* no registry: entry, or the registry
								 * lists this server among its holders */
	char		conflict[CONFLICT_DETAIL_LEN];	/* the first we yield to */
	ConflictKind kind;			/* ... and its kind */
} RoundVerdict;

/* In the worker: the targets, in a memory context of their own */
static MemoryContext targets_cxt = NULL;
static Target *targets = NULL;
static int	ntargets = 0;
static bool reported_too_many = false;
static uint32 wait_event = 0;

/* What the rounds told of the gate: for the cadence and the log */
static bool last_round_complete = true;
static bool reported_wait = false;
static int64 next_round_ms = 0; /* monotonic: the next round in recovery */

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
	pg_atomic_init_u32(&peers_shared->conflict, NO_CONFLICT);
	/*
	 * model: gate-at-start.  Peers listed at start: no ID before a round
	 * has asked them (a server started with another's node ID would
	 * otherwise generate until then).  A server that starts as a standby,
	 * or for a targeted recovery, keeps the gate whatever its list says
	 * now: a reload may list peers before it is promoted, and no round in
	 * recovery opens the gate, so it asks before its first ID as a
	 * primary (with nobody listed then, its first round opens at once).
	 * A list set by a reload on a running primary finds it generating:
	 * its rounds catch a conflict, and its peers see it admitted.
	 */
	if ((snowflake_peer_list != NULL && snowflake_peer_list->nentries > 0) ||
		access(STANDBY_SIGNAL_FILE, F_OK) == 0 ||
		access(RECOVERY_SIGNAL_FILE, F_OK) == 0)
		snowflake_admission_block(SNOWFLAKE_BLOCK_FIRST_ROUND, NULL);
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

/* whether this server claims its node ID now */
static bool
claiming_now(void)
{
	bool		claiming;
	bool		admitted;

	snowflake_admission_claim_state(&claiming, &admitted);
	return claiming;
}

/* ----------
 * Ask: the targets, and what each says of itself
 * ----------
 */

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
 * The connection string of base with host, hostaddr and port replaced by
 * the values given (NULL: not set): one node of a Citus cluster, or one
 * holder of a lease, reached with the same database, user and options.
 */
static char *
conninfo_at(const char *base, const char *host, const char *hostaddr,
			const char *port)
{
	PQconninfoOption *opts = PQconninfoParse(base, NULL);
	StringInfoData buf;
	const char *sep = "";

	initStringInfo(&buf);
	if (host != NULL)
	{
		appendStringInfoString(&buf, "host=");
		append_conninfo_value(&buf, host);
		sep = " ";
	}
	if (hostaddr != NULL)
	{
		appendStringInfo(&buf, "%shostaddr=", sep);
		append_conninfo_value(&buf, hostaddr);
		sep = " ";
	}
	if (port != NULL)
	{
		appendStringInfo(&buf, "%sport=", sep);
		append_conninfo_value(&buf, port);
	}
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

/* One node of a Citus cluster: conninfo_at() with its host and port. */
static char *
conninfo_for_node(const char *base, const char *host, int port)
{
	char		port_text[16];

	snprintf(port_text, sizeof(port_text), "%d", port);
	/* hostaddr set empty: none from the environment (conninfo_for_address()) */
	return conninfo_at(base, host, "", port_text);
}

/*
 * One holder of a lease: conninfo_at() with the host, hostaddr and port of
 * its address, as snowflake_address_parse() read it.  All three are set, so that nothing
 * comes from a service file or the environment (PGHOST, PGHOSTADDR): libpq
 * looks up the password in ~/.pgpass by host, and it must be the server
 * connected to.  An address by number is also the host; a name has an
 * empty hostaddr; no port is the default port.
 */
static char *
conninfo_for_address(const char *base, const SnowflakeAddress *address)
{
	return conninfo_at(base, address->host, address->by_number ? address->host : "",
					   address->port ? address->port : DEF_PGPORT_STR);
}

/* The targets being built for a round, and those of the last one */
typedef struct TargetSet
{
	MemoryContext cxt;
	Target	   *targets;		/* MAX_PEERS of them */
	int			n;
	bool		too_many;		/* more were listed */
} TargetSet;

/*
 * Adds conninfo, expected to be the server of expected_node_id, to the new
 * set, unless it is there already, taking over the connection and state
 * of the last round's target of that identity.  Returns the target, or
 * NULL if there is no room or it was there.
 */
static Target *
add_target(TargetSet *set, const char *conninfo, int expected_node_id,
		   const char *entry)
{
	Target	   *t;

	for (int i = 0; i < set->n; i++)
	{
		if (strcmp(set->targets[i].conninfo, conninfo) == 0 &&
			set->targets[i].expected_node_id == expected_node_id)
			return NULL;
	}
	if (set->n == MAX_PEERS)
	{
		set->too_many = true;
		return NULL;
	}

	t = &set->targets[set->n++];
	memset(t, 0, sizeof(Target));
	t->conninfo = MemoryContextStrdup(set->cxt, conninfo);
	t->expected_node_id = expected_node_id;
	t->entry = entry ? MemoryContextStrdup(set->cxt, entry) : NULL;
	for (int i = 0; i < ntargets; i++)
	{
		Target	   *old = &targets[i];

		if (old->conninfo != NULL && strcmp(old->conninfo, conninfo) == 0 &&
			old->expected_node_id == expected_node_id)
		{
			t->conn = old->conn;
			t->warned = old->warned;
			/* taken: what is left in the old set is closed */
			old->conn = NULL;
			old->conninfo = NULL;
			break;
		}
	}
	return t;
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
 * Adds a target whose answer is made here, never asked for (a failed
 * lookup, an unusable row, what the leases prove): named label, failed
 * with problem (copied), and never carried into the next round as a
 * server to ask.  Returns it, or NULL as add_target() does.
 */
static Target *
add_made_up_target(TargetSet *set, const char *base, int key,
				   const char *entry, const char *label, const char *problem)
{
	Target	   *t = add_target(set, base, key, entry);

	if (t == NULL)
		return NULL;
	t->label = label ? MemoryContextStrdup(set->cxt, label) : NULL;
	t->synthetic = true;
	t->answer.done = true;
	t->answer.problem = MemoryContextStrdup(set->cxt, problem);
	t->answer.received_ms = snowflake_wall_clock_ms();
	return t;
}

/*
 * The lookup of an entry that stands for several servers failed: the entry
 * becomes a target of its own that failed, so that the failure shows in
 * snowflake_peers() (named label, if given), and the servers it stood for
 * last time stay targets: a coordinator or a registry out of sight hides
 * no conflict among the servers it listed.
 */
static void
add_failed_entry(TargetSet *set, const char *base, const char *entry,
				 const char *label, const char *problem, bool timed_out)
{
	Target	   *t = add_made_up_target(set, base, FAILED_ENTRY, entry, label,
										   problem);

	if (t != NULL)
	{
		t->answer.hanging = timed_out;
		/* once per failure, not every round; named without its password */
		if (!t->warned)
		{
			char		name[PEER_NAME_LEN];

			if (label != NULL)
				strlcpy(name, label, sizeof(name));
			else
				snowflake_describe_peer(base, name, sizeof(name));
			ereport(WARNING,
					(errmsg("snowflake peer \"%s\": %s", name, problem),
					 errdetail("The servers it stood for when it was last read are still checked.")));
		}
		t->warned = true;
	}
	for (int i = 0; i < ntargets; i++)
	{
		if (targets[i].conninfo != NULL && targets[i].entry != NULL &&
			!targets[i].synthetic && strcmp(targets[i].entry, entry) == 0)
			(void) add_target(set, targets[i].conninfo,
							  targets[i].expected_node_id, entry);
	}
}

/*
 * Adds the nodes of the Citus cluster that base (a connection string of
 * one of its servers) belongs to.  If the list cannot be read, the entry
 * shows the failure and the nodes read last time stay targets
 * (add_failed_entry()).
 */
static void
add_citus_targets(TargetSet *set, const char *base)
{
	SnowflakePeerExchange ex;
	PGconn	   *conn = NULL;
	PGresult   *res = NULL;
	const char *error = NULL;
	char	   *entry = psprintf("%s%s", SNOWFLAKE_CITUS_PREFIX, base);
	char	  **hosts;
	int		   *ports;
	int			n;
	bool		ok = false;

	/* a connection of its own, closed at once: it is a lookup */
	snowflake_peer_exchange_begin(&ex, snowflake_peer_timeout, wait_event);
	if (snowflake_peer_connect(&conn, base, &ex))
		res = snowflake_peer_query(&conn, CITUS_NODES_QUERY, &ex);
	snowflake_peer_disconnect(&conn);
	if (res == NULL)
		error = ex.error;
	else
	{
		ok = read_citus_nodes(res, &hosts, &ports, &n, &error);
		PQclear(res);
	}

	if (ok)
	{
		for (int i = 0; i < n; i++)
			(void) add_target(set, conninfo_for_node(base, hosts[i], ports[i]),
							  NOT_A_HOLDER, entry);
		return;
	}
	add_failed_entry(set, base, entry, NULL,
					 psprintf(_("could not read the Citus node list: %s"),
							  error ? error : _("unknown failure")),
					 ex.timed_out);
}

/* One row of the registry's list of lease holders */
typedef struct Holder
{
	int			node_id;
	bool		usable;
	SnowflakeAddress address;	/* if usable */
	const char *problem;		/* if not, why */
} Holder;

/*
 * Reads the registry's list of lease holders into holders (*n of them),
 * checking the shape of the answer, then each address.  An address that
 * cannot be used spoils its own row only: one bad row hides no holder.
 * Returns false with *error set if the answer as a whole is unfit.
 */
static bool
read_registry_holders(const PGresult *res, Holder **holders, int *n,
					  const char **error)
{
	const char *what = "snowflake_registry.node_lease";
	int			node_col;
	int			address_col;

	if (!snowflake_peer_check_rows(res, what, 0, MAX_PEERS + 1, 2, error))
		return false;
	node_col = snowflake_peer_column(res, what, "node_id", INT4OID, true, error);
	if (node_col < 0)
		return false;
	address_col = snowflake_peer_column(res, what, "address", TEXTOID, true, error);
	if (address_col < 0)
		return false;

	*n = PQntuples(res);
	*holders = palloc0(sizeof(Holder) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		Holder	   *h = &(*holders)[i];
		int64		node_id;
		const char *address;
		const char *row_error = NULL;
		char	   *invalid = NULL;

		if (!snowflake_peer_get_int(res, i, node_col, what, 0, PG_INT32_MAX,
									NULL, &node_id, error))
			return false;
		h->node_id = (int) node_id;
		address = snowflake_peer_get_string(res, i, address_col, what,
											SNOWFLAKE_MAX_ADDRESS_LEN, true,
											&row_error);
		if (address == NULL)
			h->problem = psprintf(_("the registry's address for node ID %d is not usable: %s"),
								  h->node_id, row_error);
		else if (!snowflake_address_parse(address, &h->address, &invalid))
			h->problem = psprintf(_("the registry's address for node ID %d is not usable: %s"),
								  h->node_id, invalid);
		else
			h->usable = true;
	}
	return true;
}

/*
 * The question of what the leases say of a server whose node ID is not
 * leased (LIVE_LEASE), in the registry's schema: "leased", whether another
 * server holds a lease of our node ID, and "other_layout", the layout of a
 * lease of another layout, or NULL.  Their holders cannot see us, so we
 * yield to either.  A holder does not ask: the registry leases to one
 * layout (a claim of another is refused), and each holder checks at every
 * report that it runs the layout of its lease (registry.c).
 */
static char *
leases_query(int own)
{
	/* the layout text is ours: digits and slashes */
	return psprintf("SELECT EXISTS (SELECT FROM snowflake_registry.node_lease l"
					" WHERE l.node_id OPERATOR(pg_catalog.=) %d AND " LIVE_LEASE
					") AS leased,"
					" (SELECT pg_catalog.\"left\"(l.layout, 64)"
					" FROM snowflake_registry.node_lease l WHERE " LIVE_LEASE
					" AND l.layout OPERATOR(pg_catalog.<>) '%s'"
					" ORDER BY l.node_id LIMIT 1) AS other_layout",
					own, snowflake_layout_text(snowflake_layout()));
}

/* Reads the answer of leases_query(). */
static bool
read_leases(const PGresult *res, bool *leased, char **other_layout,
			const char **error)
{
	const char *what = "snowflake_registry.node_lease";
	int			leased_col;
	int			layout_col;
	const char *layout;

	*other_layout = NULL;
	if (!snowflake_peer_check_rows(res, what, 1, 1, 2, error))
		return false;
	leased_col = snowflake_peer_column(res, what, "leased", BOOLOID, true, error);
	if (leased_col < 0)
		return false;
	layout_col = snowflake_peer_column(res, what, "other_layout", TEXTOID, true, error);
	if (layout_col < 0)
		return false;
	if (!snowflake_peer_get_bool(res, 0, leased_col, what, leased, error))
		return false;
	if (PQgetisnull(res, 0, layout_col))
		return true;
	layout = snowflake_peer_get_string(res, 0, layout_col, what, 64, true, error);
	if (layout == NULL)
		return false;
	*other_layout = pstrdup(layout);
	return true;
}

/*
 * Adds the servers that hold a lease in the registry snowflake.node_registry
 * names and generate now, each at the address it reported, with the
 * options of base, each expected to answer with the node ID of its lease.
 * This server is among them, if its address is known: it finds itself by
 * its instance token when it asks.  A row whose address cannot be used
 * becomes a failed target of its own.  If the list cannot be read, the
 * entry shows the failure and the holders read last time stay targets
 * (add_failed_entry()).
 */
static void
add_registry_targets(TargetSet *set, const char *base)
{
	SnowflakePeerExchange ex;
	PGconn	   *conn = NULL;
	PGresult   *res = NULL;
	const char *error = NULL;
	char	   *entry = psprintf("%s%s", SNOWFLAKE_REGISTRY_PREFIX, base);
	const char *registry = snowflake_node_registry;
	char		label[PEER_NAME_LEN];
	Holder	   *holders;
	int			n;
	bool		ok = false;
	int			own = snowflake_identity_node_id();
	bool		ask_leases = own >= 0 && !RecoveryInProgress() &&
		snowflake_node_source() != SNOWFLAKE_NODE_REGISTRY;
	PGresult   *leases_res = NULL;
	bool		leased = false;
	char	   *other_layout = NULL;

	/* a connection of its own, closed at once: it is a lookup */
	snowflake_peer_exchange_begin(&ex, snowflake_peer_timeout, wait_event);
	if (registry == NULL || registry[0] == '\0')
		error = psprintf(_("\"%s\" is not set"), "snowflake.node_registry");
	else if (snowflake_peer_connect(&conn, registry, &ex))
	{
		res = snowflake_peer_query(&conn,
								   psprintf(REGISTRY_HOLDERS_QUERY, MAX_PEERS + 1),
								   &ex);
		if (res != NULL && ask_leases)
			leases_res = snowflake_peer_query(&conn, leases_query(own), &ex);
	}
	snowflake_peer_disconnect(&conn);
	if (res != NULL)
	{
		ok = read_registry_holders(res, &holders, &n, &error);
		PQclear(res);
	}
	else if (error == NULL)
		error = ex.error;
	if (ok && ask_leases)
	{
		ok = leases_res != NULL &&
			read_leases(leases_res, &leased, &other_layout, &error);
		if (leases_res == NULL && error == NULL)
			error = ex.error;
	}
	if (leases_res != NULL)
		PQclear(leases_res);

	if (ok)
	{
		if (leased)
		{
			Target	   *t;

			snprintf(label, sizeof(label), "%snode ID %d",
					 SNOWFLAKE_REGISTRY_PREFIX, own);
			t = add_made_up_target(set, base, LEASED_TO_OTHER, entry, label,
								   _("leased to another server"));
			if (t != NULL)
				t->leased_node_id = own;
		}
		if (other_layout != NULL)
		{
			Target	   *t;

			snprintf(label, sizeof(label), "%slayout %s",
					 SNOWFLAKE_REGISTRY_PREFIX, other_layout);
			t = add_made_up_target(set, base, OTHER_LAYOUT, entry, label,
								   _("a lease of another layout"));
			if (t != NULL)
				t->other_layout = MemoryContextStrdup(set->cxt, other_layout);
		}
		for (int i = 0; i < n; i++)
		{
			Target	   *t;

			if (holders[i].usable)
			{
				(void) add_target(set, conninfo_for_address(base, &holders[i].address),
								  holders[i].node_id, entry);
				continue;
			}
			/* a row that cannot be used: shown, and logged once */
			snprintf(label, sizeof(label), "%snode ID %d",
					 SNOWFLAKE_REGISTRY_PREFIX, holders[i].node_id);
			t = add_made_up_target(set, base, holders[i].node_id, entry, label,
								   holders[i].problem);
			if (t == NULL)
				continue;
			if (!t->warned)
				ereport(WARNING,
						(errmsg("snowflake peer \"%s\": %s", label, holders[i].problem),
						 errdetail("The server that holds node ID %d is not checked.",
								   holders[i].node_id)));
			t->warned = true;
		}
		return;
	}

	/* named after the registry, where the lookup failed (no password) */
	{
		char		where[PEER_NAME_LEN];

		snowflake_describe_peer(registry != NULL && registry[0] != '\0' ?
								registry : base, where, sizeof(where));
		snprintf(label, sizeof(label), "%s%s", SNOWFLAKE_REGISTRY_PREFIX, where);
	}
	add_failed_entry(set, base, entry, label,
					 psprintf(_("could not read the registry's lease list: %s"),
							  error ? error : _("unknown failure")),
					 ex.timed_out);
}

/*
 * Works out this round's targets from the list in force: the listed
 * servers, the nodes of each listed Citus cluster as it lists them now,
 * and the holders of the registry's leases as it lists them now.  Targets of the last round that are no longer listed are dropped,
 * their connections closed.
 */
static void
update_targets(void)
{
	const SnowflakePeerList *list = snowflake_peer_list;
	TargetSet	set;

	set.cxt = AllocSetContextCreate(TopMemoryContext, "snowflake peer targets",
									ALLOCSET_SMALL_SIZES);
	set.targets = MemoryContextAllocZero(set.cxt, sizeof(Target) * MAX_PEERS);
	set.n = 0;
	set.too_many = false;

	for (int i = 0; list != NULL && i < list->nentries; i++)
	{
		const char *conninfo = snowflake_peer_conninfo(list, i);

		if (ShutdownRequestPending)
			break;
		switch (list->entries[i].kind)
		{
			case SNOWFLAKE_PEER_CITUS:
				add_citus_targets(&set, conninfo);
				break;
			case SNOWFLAKE_PEER_REGISTRY:
				add_registry_targets(&set, conninfo);
				break;
			case SNOWFLAKE_PEER_SERVER:
				(void) add_target(&set, conninfo, NOT_A_HOLDER, NULL);
				break;
		}
	}

	for (int i = 0; i < ntargets; i++)
		snowflake_peer_disconnect(&targets[i].conn);
	if (targets_cxt != NULL)
		MemoryContextDelete(targets_cxt);
	targets_cxt = set.cxt;
	targets = set.targets;
	ntargets = set.n;

	if (set.too_many && !reported_too_many)
		ereport(WARNING,
				(errmsg("\"%s\" lists more than %d servers; the rest are not checked",
						"snowflake.peers", MAX_PEERS)));
	reported_too_many = set.too_many;
}

/*
 * The query for snowflake_node_info() in the schema of the peer's
 * extension, which it asks the peer for on *conn.  NULL with *error set if
 * the extension is missing or the answer is not fit to use.
 */
static char *
node_info_query(PGconn **conn, SnowflakePeerExchange *ex, const char **error)
{
	char	   *schema = snowflake_peer_extension_schema(conn, ex, error);

	if (schema == NULL)
		return NULL;
	return psprintf("SELECT * FROM %s.snowflake_node_info()", schema);
}

/*
 * Reads the answer of snowflake_node_info() into *info, checking it all
 * first.  Its columns are found by name: a peer of a later version may
 * have more.  One of SQL version 1.6 or older does not say whether it
 * claims or is admitted: see below.
 */
static bool
read_node_info(const PGresult *res, NodeInfo *info, const char **error)
{
	const char *what = "snowflake_node_info()";
	enum
	{
		NODE_ID, TOKEN, STARTED_AT, IN_RECOVERY, CLOCK, EPOCH, NODE_BITS,
		SEQ_BITS, GENERATING_SINCE, CLAIMING, ADMITTED, NCOLUMNS
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
		[GENERATING_SINCE] = {"generating_since_ms", INT8OID},
		[CLAIMING] = {"claiming", BOOLOID},
		[ADMITTED] = {"admitted", BOOLOID},
	};
	int			col[NCOLUMNS];
	int64		v;

	if (!snowflake_peer_check_rows(res, what, 1, 1, 64, error))
		return false;
	for (int i = 0; i < NCOLUMNS; i++)
	{
		col[i] = snowflake_peer_column(res, what, columns[i].name, columns[i].type,
									   i < GENERATING_SINCE, error);
		if (col[i] < 0 && *error != NULL)
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
								snowflake_max_node_of(info->node_bits),
								NULL, &v, error))
		return false;
	info->node_id = (int) v;

	if (!snowflake_peer_get_int(res, 0, col[TOKEN], what, PG_INT64_MIN,
								PG_INT64_MAX, NULL, &info->instance_token, error) ||
		!snowflake_peer_get_int(res, 0, col[STARTED_AT], what, 1, MAX_UNIX_MS,
								NULL, &info->started_at_ms, error) ||
		!snowflake_peer_get_bool(res, 0, col[IN_RECOVERY], what,
								 &info->in_recovery, error) ||
		!snowflake_peer_get_int(res, 0, col[CLOCK], what, 1, MAX_UNIX_MS,
								NULL, &info->clock_ms, error))
		return false;

	if (col[CLAIMING] >= 0 && col[ADMITTED] >= 0)
	{
		if (!snowflake_peer_get_bool(res, 0, col[CLAIMING], what,
									 &info->claiming, error) ||
			!snowflake_peer_get_bool(res, 0, col[ADMITTED], what,
									 &info->admitted, error))
			return false;
	}
	else
	{
		/*
		 * SQL 1.6 or older: a primary with a node ID that has generated
		 * since its start (1.5, which does not say: taken to have) is
		 * admitted, any other primary claims.  Either holds our gate; the
		 * one that generates goes on.
		 */
		bool		primary = !info->in_recovery && info->node_id >= 0;
		bool		isnull = true;
		int64		since;

		if (col[GENERATING_SINCE] >= 0 &&
			!snowflake_peer_get_int(res, 0, col[GENERATING_SINCE], what, 1,
									MAX_UNIX_MS, &isnull, &since, error))
			return false;
		info->admitted = primary && (col[GENERATING_SINCE] < 0 || !isnull);
		info->claiming = primary && !info->admitted;
	}
	return true;
}

/*
 * Whether what answered at a lease holder's address is not that holder:
 * a server with another node ID, or this server for a lease not ours (an
 * address seen through NAT or a connection pooler, or from the registry's
 * own host, or forged in the registry).  Returns why, or NULL.  Such an
 * answer is not judged: it is not the server the registry meant.
 */
static const char *
wrong_holder(const Target *target, const NodeInfo *info)
{
	int			expected = target->expected_node_id;

	if (expected < 0)
		return NULL;
	if (info->instance_token == peers_shared->instance_token)
		return expected == snowflake_identity_node_id() ? NULL :
			psprintf(_("the registry's address for node ID %d reaches this server"),
					 expected);
	if (info->node_id == expected)
		return NULL;
	if (info->node_id < 0)
		return psprintf(_("the registry's address for node ID %d reaches a server without a node ID"),
						expected);
	return psprintf(_("the registry's address for node ID %d reaches the server of node ID %d"),
					expected, info->node_id);
}

/*
 * Asks a target for its node info, within one deadline: connecting if its
 * connection is not open, looking up the schema, calling the function.
 * Fills target->answer.  A target that failed, or answered nonsense, is
 * disconnected, so that the next round starts afresh.
 */
static void
ask_target(Target *target)
{
	Answer	   *a = &target->answer;
	SnowflakePeerExchange ex;
	PGresult   *res = NULL;
	char	   *query = NULL;
	const char *error = NULL;

	snowflake_peer_exchange_begin(&ex, snowflake_peer_timeout, wait_event);
	a->done = true;
	a->sent_ms = snowflake_wall_clock_ms();
	if (snowflake_peer_connect(&target->conn, target->conninfo, &ex))
		query = node_info_query(&target->conn, &ex, &error);
	if (query != NULL)
	{
		/* the clocks are compared around this question alone */
		a->sent_ms = snowflake_wall_clock_ms();
		res = snowflake_peer_query(&target->conn, query, &ex);
	}
	a->received_ms = snowflake_wall_clock_ms();
	if (res != NULL)
	{
		a->reachable = read_node_info(res, &a->info, &error);
		PQclear(res);
		if (a->reachable && (error = wrong_holder(target, &a->info)) != NULL)
			a->reachable = false;
	}

	if (!a->reachable)
	{
		a->problem = error ? error : ex.error ? ex.error : _("unknown failure");
		a->hanging = ex.timed_out;
		a->refused = ex.refused;
		snowflake_peer_disconnect(&target->conn);
	}
}

/* ----------
 * Judge: what the answers mean, without any I/O
 * ----------
 */

/*
 * The verdict on one target's answer.  unseen: the peer cannot check this
 * server (it finds its peers in a registry that does not list us), so on a
 * conflict we yield whatever the order: the peer would never learn of it.
 */
static void
judge_answer(const SelfView *self, const Answer *a, bool unseen, Verdict *v)
{
	const NodeInfo *info = &a->info;
	const SnowflakeLayout *layout = self->layout;
	bool		same_node;
	bool		layout_differs;
	const char *why;

	memset(v, 0, sizeof(Verdict));
	if (!a->reachable)
	{
		/* model: gate-all-answered (only a refusal proves no server runs) */
		v->counts = a->refused;
		snprintf(v->status, sizeof(v->status), "%s: %s",
				 a->refused ? "refused" : a->hanging ? "hanging" : "unreachable",
				 a->problem);
		return;
	}
	v->counts = true;
	if (info->instance_token == self->instance_token)
	{
		v->self = true;
		strlcpy(v->status, "this server", sizeof(v->status));
		return;
	}

	/*
	 * A standby shares its primary's node ID, and a server without a node
	 * ID generates nothing: neither can collide with us.  Nor can we while
	 * in recovery: promoted, we claim and ask again.
	 */
	same_node = info->node_id == self->node_id;
	layout_differs = info->epoch_ms != layout->epoch_ms ||
		info->node_bits != layout->node_bits ||
		info->seq_bits != layout->seq_bits;
	v->conflicts = info->node_id >= 0 && self->node_id >= 0 &&
		!info->in_recovery && !self->in_recovery &&
		(info->admitted || info->claiming) && (same_node || layout_differs);

	if (!v->conflicts)
	{
		if (info->node_id < 0)
			strlcpy(v->status, "ok: no node ID, generates no IDs", sizeof(v->status));
		else if (!info->in_recovery && !info->admitted && !info->claiming)
			snprintf(v->status, sizeof(v->status), "ok: node %d, stepped back",
					 info->node_id);
		else
			snprintf(v->status, sizeof(v->status), "ok: node %d%s",
					 info->node_id, info->in_recovery ? ", standby" : "");
		return;
	}

	/*
	 * model: yield.  Whoever generates goes on; of two that claim, the
	 * larger instance token steps back.  Only liveness depends on it: our
	 * gate stays closed on any conflict.
	 */
	if (info->admitted)
	{
		v->we_yield = true;
		why = _("generating");
	}
	else if (self->claimed && self->instance_token > info->instance_token)
	{
		v->we_yield = true;
		why = _("claiming it too, first by instance token");
	}
	else if (self->claimed)
		why = _("claiming it too; this server claims it first");
	else if (self->admitted)
		why = _("claiming it, which this server generates with");
	else
		why = _("claiming it; this server has stepped back");
	if (unseen)
	{
		v->we_yield = true;
		why = _("which cannot check this server: the registry does not list it");
	}
	v->going_on = !v->we_yield && (self->claimed || self->admitted);
	v->layout = !same_node;
	if (same_node)
		snprintf(v->status, sizeof(v->status), "conflict: same node ID %d, %s",
				 info->node_id, why);
	else
		snprintf(v->status, sizeof(v->status), "conflict: different ID layout, %s",
				 why);
}

/*
 * Refuses generation (admission.c) while a conflict is in force and
 * snowflake.node_conflict is "refuse", for the reason of its kind; lets it
 * go on otherwise.  The peer checker is the only writer of both reasons.
 */
static void
apply_conflict_policy(void)
{
	ConflictKind kind = (ConflictKind) pg_atomic_read_u32(&peers_shared->conflict);
	SnowflakeBlock reason;
	char		detail[CONFLICT_DETAIL_LEN];

	if (kind == NO_CONFLICT ||
		snowflake_node_conflict != SNOWFLAKE_CONFLICT_REFUSE)
	{
		snowflake_admission_unblock(SNOWFLAKE_BLOCK_CONFLICT);
		snowflake_admission_unblock(SNOWFLAKE_BLOCK_LAYOUT_CONFLICT);
		return;
	}
	reason = kind == LAYOUT_CONFLICT ?
		SNOWFLAKE_BLOCK_LAYOUT_CONFLICT : SNOWFLAKE_BLOCK_CONFLICT;
	LWLockAcquire(peers_shared->lock, LW_SHARED);
	strlcpy(detail, peers_shared->conflict_detail, sizeof(detail));
	LWLockRelease(peers_shared->lock);

	/*
	 * model: yield.  Stepping back closes the gate too: once the conflict
	 * is over, this server claims and asks again before its next ID.
	 * Block first, so that generation is never open in between.
	 */
	snowflake_admission_block(SNOWFLAKE_BLOCK_FIRST_ROUND, NULL);
	snowflake_admission_block(reason, detail);
	snowflake_admission_unblock(reason == SNOWFLAKE_BLOCK_CONFLICT ?
								SNOWFLAKE_BLOCK_LAYOUT_CONFLICT :
								SNOWFLAKE_BLOCK_CONFLICT);
}

/* Whether any of the n targets came from a "registry:" entry. */
static bool
from_registry_entry(const Target *round_targets, int n)
{
	for (int i = 0; i < n; i++)
	{
		const char *entry = round_targets[i].entry;

		if (entry != NULL && strncmp(entry, SNOWFLAKE_REGISTRY_PREFIX,
									 strlen(SNOWFLAKE_REGISTRY_PREFIX)) == 0)
			return true;
	}
	return false;
}

/*
 * Judges a round: a verdict per target (n of them, with their answers),
 * and on the whole.  Pure logic: reads nothing but its arguments.
 */
static void
judge_round(const SelfView *self, const Target *round_targets, int n,
			const char *const *names, Verdict *verdicts, RoundVerdict *round)
{
	memset(round, 0, sizeof(RoundVerdict));
	round->complete = true;
	round->listed = !from_registry_entry(round_targets, n);
	for (int i = 0; i < n; i++)
	{
		const Answer *a = &round_targets[i].answer;

		if (round_targets[i].expected_node_id >= 0 && a->reachable &&
			a->info.instance_token == self->instance_token)
			round->listed = true;
	}
	for (int i = 0; i < n; i++)
	{
		Verdict    *v = &verdicts[i];

		if (round_targets[i].expected_node_id == LEASED_TO_OTHER)
		{
			/* the lease alone proves it: no address needed */
			memset(v, 0, sizeof(Verdict));
			v->counts = v->conflicts = v->we_yield = true;
			snprintf(v->status, sizeof(v->status),
					 "conflict: the registry leases node ID %d to another server, which cannot check this server",
					 round_targets[i].leased_node_id);
		}
		else if (round_targets[i].expected_node_id == OTHER_LAYOUT)
		{
			memset(v, 0, sizeof(Verdict));
			v->counts = v->conflicts = v->we_yield = v->layout = true;
			snprintf(v->status, sizeof(v->status),
					 "conflict: the registry leases a node ID to a server of another ID layout (%s), which cannot check this server",
					 round_targets[i].other_layout);
		}
		else
		{
			judge_answer(self, &round_targets[i].answer,
						 !round->listed && round_targets[i].expected_node_id >= 0,
						 v);

			/*
			 * A holder the registry leases another node ID (of our layout:
			 * one of another layout is OTHER_LAYOUT above) cannot share
			 * ours, by the lease: silent, it need not hold the gate.
			 */
			if (round_targets[i].expected_node_id >= 0 &&
				round_targets[i].expected_node_id != self->node_id)
				v->counts = true;
		}
		if (!v->counts)
			round->complete = false;
		if (v->conflicts)
			round->conflicts = true;
		if (v->we_yield && !round->yield)
		{
			round->yield = true;
			round->kind = v->layout ? LAYOUT_CONFLICT : NODE_ID_CONFLICT;
			snprintf(round->conflict, sizeof(round->conflict),
					 "peer \"%s\" (%s)", names[i], v->status);
		}
	}
}

/* ----------
 * Publish: the round's findings to shared memory, then to the log
 * ----------
 */
static void
publish_round(Target *round_targets, int n, const char *const *names,
			  const Verdict *verdicts, const RoundVerdict *round)
{
	PeerStatus *found = palloc0(sizeof(PeerStatus) * Max(n, 1));
	bool		new_conflict = false;
	bool		resolved = false;
	ConflictKind in_force;

	for (int i = 0; i < n; i++)
	{
		const Answer *a = &round_targets[i].answer;
		PeerStatus *ps = &found[i];

		strlcpy(ps->name, names[i], sizeof(ps->name));
		strlcpy(ps->status, verdicts[i].status, sizeof(ps->status));
		ps->checked_at = a->received_ms;
		ps->reachable = a->reachable;
		ps->self = verdicts[i].self;
		ps->node_id = a->reachable ? a->info.node_id : -1;
		ps->in_recovery = a->reachable && a->info.in_recovery;
		if (a->reachable)
		{
			/* its clock against the middle of our round trip */
			ps->skew_ms = a->info.clock_ms - (a->sent_ms + a->received_ms) / 2;
			ps->rtt_ms = a->received_ms - a->sent_ms;
		}
	}

	LWLockAcquire(peers_shared->lock, LW_EXCLUSIVE);
	/* the peer checker is the only writer of the kind */
	in_force = (ConflictKind) pg_atomic_read_u32(&peers_shared->conflict);
	memcpy(peers_shared->peers, found, sizeof(PeerStatus) * n);
	peers_shared->npeers = n;
	if (round->yield)
	{
		new_conflict = in_force != round->kind;
		strlcpy(peers_shared->conflict_detail, round->conflict,
				sizeof(peers_shared->conflict_detail));
		pg_atomic_write_u32(&peers_shared->conflict, round->kind);
	}
	else if (round->complete && !round->conflicts && in_force != NO_CONFLICT)
	{
		/* silence proves nothing: only a round that heard from all lifts it */
		pg_atomic_write_u32(&peers_shared->conflict, NO_CONFLICT);
		peers_shared->conflict_detail[0] = '\0';
		resolved = true;
	}
	LWLockRelease(peers_shared->lock);
	apply_conflict_policy();

	for (int i = 0; i < n; i++)
	{
		Target	   *t = &round_targets[i];
		const Verdict *v = &verdicts[i];
		bool		winning = v->going_on;

		/* the server that goes on warns once per conflict, not every round */
		if (winning && !t->warned)
			ereport(WARNING,
					(errmsg("snowflake peer \"%s\" conflicts with this server (%s)",
							names[i], v->status),
					 errdetail("This server goes on; the peer steps back.")));
		if (t->answer.reachable)
			t->warned = winning;
	}

	if (new_conflict && round->kind == LAYOUT_CONFLICT)
		ereport(WARNING,
				(errmsg("snowflake ID layout %s conflicts with %s",
						snowflake_layout_text(snowflake_layout()), round->conflict),
				 snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE ?
				 errdetail("This server stops generating IDs until the conflict is resolved.") :
				 errdetail("\"%s\" is \"%s\": this server keeps generating IDs, which may collide.",
						   "snowflake.node_conflict", "warn")));
	else if (new_conflict)
		ereport(WARNING,
				(errmsg("snowflake node ID %d conflicts with %s",
						snowflake_identity_node_id(), round->conflict),
				 snowflake_node_conflict == SNOWFLAKE_CONFLICT_REFUSE ?
				 errdetail("This server stops generating IDs until the conflict is resolved.") :
				 errdetail("\"%s\" is \"%s\": this server keeps generating IDs, which may collide.",
						   "snowflake.node_conflict", "warn")));
	else if (resolved && in_force == LAYOUT_CONFLICT)
		ereport(LOG, (errmsg("snowflake ID layout conflict resolved")));
	else if (resolved)
		ereport(LOG, (errmsg("snowflake node ID conflict resolved")));
}

/*
 * Says once, until it changes, that the servers which read their peers
 * from the registry cannot check this one, which then yields on any
 * conflict with them (judge_answer()).  Not at the first such round: a
 * holder's first report, which gives its address, may still be on its way.
 */
static void
report_unlisted(const SelfView *self, const RoundVerdict *round)
{
	static int	unlisted_rounds = 0;

	if (round->listed || self->node_id < 0 || self->in_recovery)
	{
		unlisted_rounds = 0;
		return;
	}
	if (unlisted_rounds < 2 && ++unlisted_rounds == 2)
		ereport(WARNING,
				(errmsg("the servers that find their peers in the snowflake registry cannot check this server"),
				 errdetail("No address the registry lists for its lease holders reaches this server and its extension; on a node ID conflict with one of those servers, this server stops generating IDs."),
				 errhint("A server with a leased node ID is listed at the address of its reports: set \"%s\" if the registry cannot reach it at the address it sees.",
						 "snowflake.advertise_address")));
}

/*
 * One round over all peers: ask, judge, publish.  A shutdown request ends
 * it before anything is published.
 */
static void
check_peers(void)
{
	SelfView	self;
	Verdict    *verdicts;
	RoundVerdict round;
	char	  **names;

	/*
	 * model: claim-then-ask.  Whether we claim is fixed before the first
	 * question: a peer that claims too, and asks us later, sees our claim.
	 */
	snowflake_admission_claim_state(&self.claimed, &self.admitted);

	/* ask */
	update_targets();
	for (int i = 0; i < ntargets; i++)
	{
		if (ShutdownRequestPending)
			return;
		if (!targets[i].answer.done)
			ask_target(&targets[i]);
	}
	if (ShutdownRequestPending)
		return;

	/* judge */
	self.node_id = snowflake_identity_node_id();
	self.instance_token = peers_shared->instance_token;
	self.in_recovery = RecoveryInProgress();
	self.layout = snowflake_layout();
	names = palloc(sizeof(char *) * Max(ntargets, 1));
	for (int i = 0; i < ntargets; i++)
	{
		names[i] = palloc(PEER_NAME_LEN);
		if (targets[i].label != NULL)
			strlcpy(names[i], targets[i].label, PEER_NAME_LEN);
		else
			snowflake_describe_peer(targets[i].conninfo, names[i], PEER_NAME_LEN);
	}
	verdicts = palloc(sizeof(Verdict) * Max(ntargets, 1));
	judge_round(&self, targets, ntargets, (const char *const *) names,
				verdicts, &round);

	/* publish */
	publish_round(targets, ntargets, (const char *const *) names, verdicts, &round);
	report_unlisted(&self, &round);

	/*
	 * model: claim-then-ask, gate-all-answered.  Under "warn" the round
	 * need not be complete, nor free of conflicts: the operator chose to
	 * be warned rather than stopped.
	 */
	last_round_complete = round.complete;
	if (self.claimed &&
		(snowflake_node_conflict == SNOWFLAKE_CONFLICT_WARN ||
		 (round.complete && !round.conflicts)))
	{
		snowflake_admission_unblock(SNOWFLAKE_BLOCK_FIRST_ROUND);
		ereport(LOG,
				(errmsg("snowflake peers checked: this server generates IDs with node ID %d",
						self.node_id)));
		reported_wait = false;
	}
	else if (self.claimed && !round.complete && !reported_wait)
	{
		for (int i = 0; i < ntargets; i++)
		{
			if (verdicts[i].counts)
				continue;
			ereport(WARNING,
					(errmsg("snowflake ID generation waits for peer \"%s\" (%s)",
							names[i], verdicts[i].status),
					 errdetail("This server generates no ID before every listed peer has answered, or refused the connection."),
					 errhint("Make the peer answer, or take it off \"%s\" and reload the configuration.",
							 "snowflake.peers")));
			reported_wait = true;
			break;
		}
	}
}

/* ----------
 * The worker
 * ----------
 */

/* the number of entries of snowflake.peers in force */
static int
peer_count(void)
{
	return snowflake_peer_list != NULL ? snowflake_peer_list->nentries : 0;
}

static int
checker_interval(void)
{
	bool		gate_closed = (pg_atomic_read_u32(snowflake_admission_blocked_reasons) &
							   SNOWFLAKE_BLOCK_FIRST_ROUND) != 0;

	/*
	 * The gate closed: soon again while in recovery (only to see the
	 * promotion: a promoted standby, with nobody listed too, claims and
	 * asks at once), and while claiming after a round that heard from
	 * every peer (one more may open it); a silent peer is asked at the
	 * configured interval.
	 */
	if (gate_closed &&
		(RecoveryInProgress() || (claiming_now() && last_round_complete)))
		return Min(snowflake_peer_check_interval, FIRST_ROUND_RETRY_MS);
	/* nothing listed: sleep until a reload (which sets the latch) */
	if (peer_count() == 0 && !gate_closed)
		return 0;
	return snowflake_peer_check_interval;
}

/*
 * Says what is worth saying of the list in force, once per reload.
 */
static void
report_list(void)
{
	reported_too_many = false;
	if (snowflake_peer_list != NULL && snowflake_peer_list->legacy)
		ereport(WARNING,
				(errmsg("parameter \"%s\" uses the unquoted list form of version 1.4", "snowflake.peers"),
				 errdetail("Each entry is split at every comma."),
				 errhint("Write each connection string in double quotes, for example '\"host=a port=5432 dbname=app\", \"host=b dbname=app\"'.")));
}

/* Logs what the checker does now: check the listed servers, or nothing. */
static void
log_activity(const char *what)
{
	if (peer_count() == 0)
		ereport(LOG,
				(errmsg("%s %s; it checks nothing while \"%s\" is empty",
						WORKER_NAME, what, "snowflake.peers")));
	else
		ereport(LOG,
				(errmsg("%s %s, checking %d listed servers every %d ms",
						WORKER_NAME, what, peer_count(),
						snowflake_peer_check_interval)));
}

static void
checker_start(void)
{
	wait_event = snowflake_wait_event("SnowflakePeerCheck");
	snowflake_peer_limit_memory();
	report_list();
	log_activity("started");
}

static void
checker_tick(void)
{
	/* in recovery, a round every interval; the ticks between watch only */
	if (RecoveryInProgress() && snowflake_monotonic_ms() < next_round_ms)
		return;
	next_round_ms = snowflake_monotonic_ms() + snowflake_peer_check_interval;
	check_peers();
}

static void
checker_stop(void)
{
	for (int i = 0; i < ntargets; i++)
		snowflake_peer_disconnect(&targets[i].conn);
}

/*
 * After a reload: says what is worth saying of the new list, and applies
 * snowflake.node_conflict, which may have changed, to a conflict in force.
 * A list emptied opens the gate at the next round begun while claiming,
 * which has nobody to ask: never in recovery.
 */
static void
checker_reload(void)
{
	report_list();
	log_activity("reloaded its configuration");
	apply_conflict_policy();
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
