/*-------------------------------------------------------------------------
 *
 * snowflake.h
 *	  Declarations shared by the files of the snowflake extension.
 *
 * An ID is a non-negative int64 made of three fields, most significant
 * first: milliseconds since the configured epoch, the node ID and a
 * per-millisecond sequence.  The widths of the node and sequence fields are
 * server-start settings; the time field gets the remaining bits of the 63
 * below the sign bit.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/snowflake.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_H
#define SNOWFLAKE_H

#include "access/tupdesc.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "nodes/pg_list.h"
#include "port/atomics.h"
#include "storage/lwlock.h"
#include "storage/spin.h"

#include "compat.h"

/* ----------
 * Bit layout limits
 * ----------
 */
#define SNOWFLAKE_ID_BITS			63	/* the sign bit is never used */
#define SNOWFLAKE_MIN_TIME_BITS		35	/* 2^35 ms is a little over a year */
#define SNOWFLAKE_MAX_FIELD_BITS	(SNOWFLAKE_ID_BITS - SNOWFLAKE_MIN_TIME_BITS)
#define SNOWFLAKE_MAX_NODE_ID		((1 << SNOWFLAKE_MAX_FIELD_BITS) - 1)

#define SNOWFLAKE_DEFAULT_EPOCH		"2025-01-01 00:00:00+00"
#define SNOWFLAKE_DEFAULT_NODE_BITS 10
#define SNOWFLAKE_DEFAULT_SEQ_BITS	12

#define SNOWFLAKE_MS_PER_DAY		INT64CONST(86400000)

/* Unix time of the PostgreSQL epoch (2000-01-01), in milliseconds */
#define SNOWFLAKE_PG_EPOCH_UNIX_MS	INT64CONST(946684800000)

/*
 * The layout in force, derived from the GUCs by snowflake_get_layout().
 */
typedef struct SnowflakeLayout
{
	int64		epoch_ms;		/* Unix time of the epoch, in ms */
	int			node_bits;
	int			seq_bits;
	int			time_bits;		/* 63 - node_bits - seq_bits */
	int			shift;			/* node_bits + seq_bits */
	int64		max_ms;			/* largest representable time, ms after epoch */
	int32		max_node;
	int32		max_seq;
	bool		times_fit;		/* every time field fits a timestamptz */
} SnowflakeLayout;

/* snowflake.node_conflict */
typedef enum SnowflakeConflictPolicy
{
	SNOWFLAKE_CONFLICT_REFUSE,	/* stop generating */
	SNOWFLAKE_CONFLICT_WARN		/* only log */
} SnowflakeConflictPolicy;

#define SNOWFLAKE_MAX_PEERS			16
#define SNOWFLAKE_PEER_NAME_LEN		128
#define SNOWFLAKE_PEER_STATUS_LEN	160

/* What the peer checker last saw of one peer (peers.c) */
typedef struct SnowflakePeerStatus
{
	char		name[SNOWFLAKE_PEER_NAME_LEN];	/* host, port, dbname */
	char		status[SNOWFLAKE_PEER_STATUS_LEN];
	int			node_id;
	bool		reachable;
	bool		self;			/* the list names this very server */
	bool		in_recovery;
	bool		warned;			/* we logged that it conflicts with us */
	int64		skew_ms;		/* its clock minus ours */
	int64		rtt_ms;
	int64		checked_at;		/* Unix ms, 0 if never */
} SnowflakePeerStatus;

/* Clock policies for snowflake.clock_policy */
typedef enum SnowflakeClockPolicy
{
	SNOWFLAKE_CLOCK_BORROW,		/* run ahead of the clock, within a bound */
	SNOWFLAKE_CLOCK_WAIT,		/* wait for the clock, within a bound */
	SNOWFLAKE_CLOCK_ERROR		/* raise an error at once */
} SnowflakeClockPolicy;

/* ----------
 * GUC variables (guc.c)
 * ----------
 */
extern int	snowflake_node_id;
extern char *snowflake_epoch;
extern int	snowflake_node_bits;
extern int	snowflake_sequence_bits;
extern int	snowflake_clock_policy;
extern int	snowflake_max_borrow;
extern int	snowflake_clock_wait_timeout;
extern int	snowflake_reserve_ahead;
extern int	snowflake_clock_check_interval;
extern int	snowflake_clock_step_threshold;
extern int	snowflake_epoch_warning_days;
extern char *snowflake_peers;
extern int	snowflake_peer_check_interval;
extern int	snowflake_node_conflict;

/* Unix ms of snowflake.epoch, kept up to date by its assign hook */
extern int64 snowflake_epoch_ms;

extern void snowflake_define_gucs(bool preloading);
extern bool snowflake_parse_epoch(const char *str, int64 *unix_ms,
								  const char **detail);
extern bool snowflake_layout_is_valid(char **detail);
extern void snowflake_check_startup_settings(void);

/* ----------
 * Layout arithmetic (layout.c)
 * ----------
 */
extern SnowflakeLayout snowflake_current_layout;
extern bool snowflake_current_layout_ok;
extern void snowflake_set_layout(int64 epoch_ms, int node_bits, int seq_bits);
pg_noinline extern void snowflake_layout_error(void);
pg_noinline extern void snowflake_id_out_of_range(int64 id);

/*
 * Fills *layout with the layout in force, kept up to date by the GUC assign
 * hooks.  Raises an error when the widths leave too few time bits, which
 * can only happen in a backend that loaded the library without preloading
 * (the postmaster refuses to start with such settings).
 */
static inline void
snowflake_get_layout(SnowflakeLayout *layout)
{
	if (unlikely(!snowflake_current_layout_ok))
		snowflake_layout_error();
	*layout = snowflake_current_layout;
}

/*
 * Raises the type's out-of-range error for a negative value.  Every int64
 * that is not negative is a valid snowflake.
 */
static inline void
snowflake_check_id(int64 id)
{
	if (unlikely(id < 0))
		snowflake_id_out_of_range(id);
}
extern int64 snowflake_compose(const SnowflakeLayout *layout,
							   int64 ms, int32 node, int32 seq);
extern TimestampTz snowflake_ms_to_timestamptz(const SnowflakeLayout *layout,
											   int64 ms);
extern int64 snowflake_timestamptz_to_ms(const SnowflakeLayout *layout,
										 TimestampTz ts);
extern int64 snowflake_unix_ms_now(void);
extern int64 snowflake_monotonic_ms(void);
extern TimestampTz snowflake_unix_ms_to_timestamptz(int64 unix_ms);
extern const char *snowflake_unix_ms_to_str(int64 unix_ms);
extern void snowflake_check_lifetime(void);
extern void snowflake_log_layout(void);

/* ----------
 * Shared memory (shmem.c)
 *
 * One SnowflakeSharedState per server.  Locking rules:
 *
 * - mutex (a spinlock) protects every plain field below it.  It is held only
 *	 to compare, copy and bump a few integers: no function calls, no
 *	 allocation, no errors, no waits.
 * - reserve_lock (an LWLock) serializes writers of the high-water mark file;
 *	 whoever holds it may do I/O, then publishes the new reservation under
 *	 mutex.  It is never taken while mutex is held.
 * - peers_lock (an LWLock) protects the peer checker's fields, strings and
 *	 all, so that copying them never holds up the generator's mutex.
 *	 node_conflict is also read without it, as a hint: a reader that sees
 *	 it set takes the lock for the details.
 * - The pg_atomic_uint64 counters are updated without either lock.
 * ----------
 */
typedef struct SnowflakeSharedState
{
	slock_t		mutex;

	/*
	 * generator: the last ID issued, without its node field, as a "slot"
	 * (time field << sequence_bits | sequence).  Slots are consecutive
	 * integers, so the next ID's slot is last_slot + 1, or the current
	 * millisecond's first slot if the clock is past it.  -1: none yet.
	 */
	int64		last_slot;

	/*
	 * IDs may be issued with time fields up to reserved_ms: a high-water
	 * mark covering them is durable on disk.  -1 means nothing is reserved.
	 */
	int64		reserved_ms;

	uint64		ids_issued;		/* since server start */
	int64		max_lead_ms;	/* largest lead over the clock ever used */

	/* high-water mark bookkeeping, written by holders of reserve_lock */
	int64		hwm_id;			/* every ID ever issued is <= this; -1: none */
	int64		hwm_written_at; /* Unix ms of the last write, 0 if none */
	uint64		hwm_writes;		/* since server start */
	uint64		hwm_backend_writes; /* of those, made by backends (which waited) */
	bool		hwm_refused;	/* the file was unreadable: refuse to generate */
	char		hwm_problem[256];	/* why, for the error message */

	/* clock watcher (worker.c), written by the worker */
	int			worker_pid;		/* 0 when not running */
	int64		worker_checked_at;	/* Unix ms of its last check, 0 if none */
	uint64		clock_steps_back;
	int64		largest_step_back_ms;
	uint64		clock_jumps_forward;
	int64		largest_jump_forward_ms;

	/* peer checker (peers.c): written by the peer worker under peers_lock */
	int64		instance_token; /* random, set at start, then constant */
	bool		node_conflict;	/* another server has our node ID */
	char		node_conflict_detail[SNOWFLAKE_PEER_NAME_LEN + 128];
	int			npeers;
	SnowflakePeerStatus peers[SNOWFLAKE_MAX_PEERS];

	LWLock	   *reserve_lock;
	LWLock	   *peers_lock;

	pg_atomic_uint64 seq_exhaustions;	/* calls that found their ms used up */
	pg_atomic_uint64 clock_waits;	/* calls that waited for the clock */
	pg_atomic_uint64 clock_errors;	/* calls that gave up on the clock */
} SnowflakeSharedState;

extern SnowflakeSharedState *snowflake_state;

extern void snowflake_shmem_install_hooks(void);
extern SnowflakeSharedState *snowflake_shared_state(void);

/* ----------
 * Generator (generator.c)
 * ----------
 */
extern int64 snowflake_generate(void);

/* ----------
 * Durable high-water mark (hwm.c)
 * ----------
 */
#define SNOWFLAKE_STATE_DIR		"pg_snowflake"
#define SNOWFLAKE_STATE_FILE	SNOWFLAKE_STATE_DIR "/state"

extern void snowflake_hwm_load(SnowflakeSharedState *state);
extern void snowflake_hwm_redo(int64 hwm_id);
extern void snowflake_hwm_save_at_shutdown(SnowflakeSharedState *state);
extern bool snowflake_extend_reservation(SnowflakeSharedState *state,
										 int64 needed_ms, bool conditional,
										 int elevel);

/*
 * How far past the IDs it must cover a new reservation reaches, given how
 * far ahead of the clock those IDs are (lead_ms).  Normally half of
 * snowflake.reserve_ahead (W), so that one write serves many IDs.  When IDs
 * already run more than W ahead (generation resumed at the reservation
 * after a crash, or a burst borrows future milliseconds), W/8 and at most
 * 250 ms: borrowing at full speed then costs a few writes a second, and a
 * string of crashes cannot push IDs further ahead each time, because a
 * restart takes longer than that.  Inline: the hot path asks it per call.
 */
#define SNOWFLAKE_AHEAD_HEADROOM_MAX_MS	250

static inline int64
snowflake_reservation_headroom(int64 lead_ms)
{
	if (lead_ms <= snowflake_reserve_ahead)
		return snowflake_reserve_ahead / 2;
	return Min(snowflake_reserve_ahead / 8, SNOWFLAKE_AHEAD_HEADROOM_MAX_MS);
}

/* ----------
 * WAL (wal.c)
 *
 * The custom WAL resource manager ID of the high-water mark records.  IDs
 * from 128 up are for extensions; each should be reserved on the
 * PostgreSQL wiki page "CustomWALResourceManagers".
 * ----------
 */
#define SNOWFLAKE_RMGR_ID		142

extern void snowflake_wal_register(void);
extern void snowflake_wal_log_hwm(int64 hwm_id);

/* ----------
 * Result rows of record-returning functions (records.c)
 * ----------
 */
extern TupleDesc snowflake_result_tupdesc(FunctionCallInfo fcinfo, int natts);
extern void snowflake_check_result_columns(FunctionCallInfo fcinfo,
										   TupleDesc tupdesc, int natts);

/* ----------
 * Comparisons of an ID with a time (time_ops.c), also rewritten by the
 * planner support (planner_support.c)
 * ----------
 */
typedef enum TimeComparison
{
	TC_EQ, TC_NE, TC_LT, TC_LE, TC_GT, TC_GE
} TimeComparison;

/* the comparison that means the same with the operands swapped */
static inline TimeComparison
snowflake_commute(TimeComparison cmp)
{
	switch (cmp)
	{
		case TC_LT:
			return TC_GT;
		case TC_LE:
			return TC_GE;
		case TC_GT:
			return TC_LT;
		case TC_GE:
			return TC_LE;
		default:
			return cmp;
	}
}

/* ----------
 * Background worker (worker.c)
 * ----------
 */
extern bool snowflake_am_worker;
extern void snowflake_register_worker(void);
PGDLLEXPORT void snowflake_worker_main(Datum main_arg);

/* ----------
 * Peer checker (peers.c)
 * ----------
 */
extern void snowflake_register_peer_worker(void);
PGDLLEXPORT void snowflake_peer_worker_main(Datum main_arg);

#endif							/* SNOWFLAKE_H */
