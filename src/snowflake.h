/*-------------------------------------------------------------------------
 *
 * snowflake.h
 *	  Declarations shared by the files of the snowflake extension, and a
 *	  map of the code for whoever reads it next.
 *
 * An ID is a non-negative int64 made of three fields, most significant
 * first: milliseconds since the configured epoch, the node ID and a
 * per-millisecond sequence.  The widths of the node and sequence fields are
 * server-start settings; the time field gets the remaining bits of the 63
 * below the sign bit.
 *
 * WHO OWNS WHAT
 *
 *	snowflake.c			_PG_init: settings, hooks, workers
 *	guc.c				the snowflake.* settings and their checks
 *	layout.c			the layout in force (one source of truth): fields,
 *						slots, time conversions
 *	clock.c				reading the clocks; the trusted time that ignores
 *						forward jumps; steps seen [shared: clock state]
 *	generator.c			allocation of IDs, snowflake_nextval/currval/reserve
 *						[shared: the last slot issued, the reservation]
 *	hwm.c				the durable high-water mark, pg_snowflake/state
 *						[shared: the mark and its bookkeeping]
 *	wal.c				the high-water mark in WAL, for standbys
 *	shmem.c				shared memory hooks; calls each owner's init
 *	bgworker.c			registration and main loop of our workers
 *	clock_watcher.c		the clock-watcher worker's work [shared: its pid]
 *	peer_checker.c		the peer-checker worker and snowflake_peers()
 *						[shared: what it saw of each peer]
 *	peer_client.c		one query to a peer, asynchronous, with timeouts
 *	node_info.c			snowflake_node_info(), what peers ask us
 *	status.c			snowflake_status(), from the owners' snapshots
 *	type_io.c			the type's input, output and casts
 *	operators.c			comparison, hash and min/max functions
 *	time_ops.c			comparing IDs with times
 *	planner_support.c	every planner support function
 *	decode.c			taking IDs apart and building them
 *	foreign_layouts.c	decoding other systems' IDs
 *	uuid.c				the UUIDv7 bridge
 *	records.c			row types of record-returning functions
 *	compat.h			every difference between PostgreSQL versions
 *
 * Shared state is private to its owner; other files use the functions
 * declared below.
 *
 * THE PATH OF ONE snowflake_nextval()
 *
 *	snowflake_nextval() (generator.c) checks that this server may generate
 *	(preloaded, node ID set, no node-ID conflict reported by the peer
 *	checker, not in recovery), reads the trusted time (clock.c), and in
 *	one spinlock section takes the next slot: max(last slot + 1, now).  If
 *	that slot lies beyond the durable reservation, it asks hwm.c to extend
 *	it (write the file, fsync, log to WAL) and tries again; if it lies too
 *	far ahead of the clock, it waits or fails by snowflake.clock_policy,
 *	after releasing the spinlock.  The slot, with the node ID, is the ID
 *	(layout.c).
 *
 * LOCKING RULES
 *
 *	- The generator's spinlock covers its last slot and reservation: a
 *	  compare and an add per call.  Nothing is called, allocated, logged or
 *	  waited for while it is held.  This is what makes IDs unique and
 *	  increasing across backends.
 *	- The high-water mark's LWLock serializes writers of the state file,
 *	  who may do I/O while holding it; a writer publishes the new
 *	  reservation to the generator (taking the spinlock briefly) only after
 *	  the file is durable.  The spinlock is never held while taking it.
 *	- The peer checker's LWLock covers what it saw of each peer; readers
 *	  copy out under it.  The conflict flag is also read without it, as a
 *	  hint, on the generator's path.
 *	- The clock state is atomics only: what it holds decides which time an
 *	  ID carries, never whether it is unique.
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
#include "storage/lwlock.h"

#include "compat.h"

/* ----------
 * The layout (layout.c)
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
 * The layout in force, derived from snowflake.epoch, snowflake.node_bits
 * and snowflake.sequence_bits.  A "slot" is an ID without its node field:
 * time << seq_bits | sequence.  Slots of one node are consecutive
 * integers, from 0 to max_slot, in the order of the IDs they make.
 */
typedef struct SnowflakeLayout
{
	int64		epoch_ms;		/* Unix time of the epoch, in ms */
	int			node_bits;
	int			seq_bits;
	int			time_bits;		/* 63 - node_bits - seq_bits */
	int			shift;			/* node_bits + seq_bits */
	int64		max_ms;			/* largest time field, ms after the epoch */
	int64		max_slot;		/* max_ms << seq_bits | max_seq */
	int32		max_node;
	int32		max_seq;
	bool		times_fit;		/* every time field fits a timestamptz */
} SnowflakeLayout;

extern void snowflake_set_layout(int64 epoch_ms, int node_bits, int seq_bits);
extern const SnowflakeLayout *snowflake_layout_or_error(void);
pg_noinline extern void snowflake_id_out_of_range(int64 id);

extern const SnowflakeLayout *snowflake_current_layout;

/*
 * The layout in force.  Raises an error when the widths leave too few time
 * bits, which can only happen in a backend that loaded the library without
 * preloading (a server with such settings does not start).
 */
static inline const SnowflakeLayout *
snowflake_layout(void)
{
	if (likely(snowflake_current_layout != NULL))
		return snowflake_current_layout;
	return snowflake_layout_or_error();
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

/* The ID of a slot on a node; the caller has checked the ranges. */
static inline int64
snowflake_slot_to_id(const SnowflakeLayout *layout, int64 slot, int32 node)
{
	return ((slot >> layout->seq_bits) << layout->shift) |
		((int64) node << layout->seq_bits) |
		(slot & layout->max_seq);
}

/* The largest ID of a millisecond, whatever the node: its whole range. */
static inline int64
snowflake_last_id_of_ms(const SnowflakeLayout *layout, int64 ms)
{
	return (ms << layout->shift) | ((INT64CONST(1) << layout->shift) - 1);
}

extern int64 snowflake_compose(const SnowflakeLayout *layout,
							   int64 ms, int32 node, int32 seq);
extern TimestampTz snowflake_ms_to_timestamptz(const SnowflakeLayout *layout,
											   int64 ms);
extern int64 snowflake_timestamptz_to_ms(const SnowflakeLayout *layout,
										 TimestampTz ts);
extern TimestampTz snowflake_unix_ms_to_timestamptz(int64 unix_ms);
extern const char *snowflake_unix_ms_to_str(int64 unix_ms);
extern void snowflake_check_lifetime(void);
extern void snowflake_log_layout(void);

/* ----------
 * Settings (guc.c)
 * ----------
 */

/* snowflake.clock_policy */
typedef enum SnowflakeClockPolicy
{
	SNOWFLAKE_CLOCK_BORROW,		/* run ahead of the clock, within a bound */
	SNOWFLAKE_CLOCK_WAIT,		/* wait for the clock, within a bound */
	SNOWFLAKE_CLOCK_ERROR		/* fail at once on a step back */
} SnowflakeClockPolicy;

/* snowflake.node_conflict */
typedef enum SnowflakeConflictPolicy
{
	SNOWFLAKE_CONFLICT_REFUSE,	/* stop generating */
	SNOWFLAKE_CONFLICT_WARN		/* only log */
} SnowflakeConflictPolicy;

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
extern int	snowflake_max_clock_jump;
extern int	snowflake_clock_jump_hold;
extern int	snowflake_epoch_warning_days;
extern char *snowflake_peers;
extern int	snowflake_peer_check_interval;
extern int	snowflake_peer_timeout;
extern int	snowflake_node_conflict;

extern void snowflake_define_gucs(bool preloading);
extern bool snowflake_parse_epoch(const char *str, int64 *unix_ms,
								  const char **detail);
extern bool snowflake_layout_is_valid(char **detail);
extern void snowflake_check_startup_settings(void);
extern const char *snowflake_clock_policy_name(void);

/* ----------
 * Clocks (clock.c)
 * ----------
 */
extern Size snowflake_clock_shmem_size(void);
extern void snowflake_clock_shmem_init(void);
extern int64 snowflake_clock_now_ms(void);
extern int64 snowflake_wall_clock_ms(void);
extern int64 snowflake_monotonic_ms(void);
extern void snowflake_clock_check(void);
extern void snowflake_clock_trust_up_to(int64 unix_ms);

typedef struct SnowflakeClockStatus
{
	uint64		steps_back;
	int64		largest_step_back_ms;
	uint64		jumps_forward;	/* accepted, at once or after the hold */
	int64		largest_jump_forward_ms;
	uint64		jumps_ignored;	/* ended while held: never used */
	int64		held_ms;		/* wall clock ahead of the time in use; 0 */
} SnowflakeClockStatus;

extern void snowflake_clock_status(SnowflakeClockStatus *status);

/* ----------
 * Generator (generator.c)
 * ----------
 */
extern Size snowflake_generator_shmem_size(void);
extern void snowflake_generator_shmem_init(void);
extern void snowflake_generator_install_hooks(void);
extern void snowflake_generator_resume_above(int64 ms);
extern void snowflake_generator_allow_up_to(int64 ms);
extern void snowflake_generator_renew(void);

typedef struct SnowflakeGeneratorStatus
{
	int64		last_slot;		/* -1 if none issued since start */
	int64		reserved_ms;	/* -1 if nothing reserved */
	uint64		ids_issued;
	int64		max_lead_ms;
	uint64		seq_exhaustions;
	uint64		clock_waits;
	uint64		clock_errors;
} SnowflakeGeneratorStatus;

extern void snowflake_generator_status(SnowflakeGeneratorStatus *status);

/*
 * How far a call may let IDs run ahead of the clock at once, and how long
 * it may then wait for the clock to catch up, under the clock policy in
 * force (doc/operations.md, "When the clock steps back").
 */
static inline int64
snowflake_allowed_lead_ms(void)
{
	return snowflake_clock_policy == SNOWFLAKE_CLOCK_BORROW ?
		snowflake_max_borrow : 0;
}

static inline int64
snowflake_max_wait_ms(void)
{
	if (snowflake_clock_policy == SNOWFLAKE_CLOCK_ERROR)
		return Min(snowflake_clock_step_threshold, snowflake_clock_wait_timeout);
	return snowflake_clock_wait_timeout;
}

/* ----------
 * Durable high-water mark (hwm.c)
 * ----------
 */
#define SNOWFLAKE_STATE_DIR		"pg_snowflake"
#define SNOWFLAKE_STATE_FILE	SNOWFLAKE_STATE_DIR "/state"

extern Size snowflake_hwm_shmem_size(void);
extern void snowflake_hwm_shmem_init(LWLock *lock);
extern int64 snowflake_reservation_target(int64 ms, int64 now_ms);
extern bool snowflake_hwm_extend(int64 needed_ms, int64 target_ms,
								 bool conditional, int elevel);
extern void snowflake_hwm_redo(int64 hwm_id);
extern void snowflake_hwm_save_at_shutdown(int64 last_slot);

typedef struct SnowflakeHwmStatus
{
	int64		hwm_id;			/* -1 if none */
	int64		written_at;		/* Unix ms, 0 if never */
	uint64		writes;
	uint64		backend_writes;
	const char *problem;		/* why generation is refused, or NULL */
} SnowflakeHwmStatus;

extern void snowflake_hwm_status(SnowflakeHwmStatus *status);

/* ----------
 * WAL (wal.c)
 * ----------
 */
extern void snowflake_wal_register(void);
extern void snowflake_wal_log_hwm(int64 hwm_id);

/* ----------
 * Shared memory (shmem.c)
 * ----------
 */
extern void snowflake_shmem_install_hooks(void);
extern bool snowflake_shmem_ready(void);
extern void snowflake_require_shmem(void);

/* ----------
 * Background workers (bgworker.c, clock_watcher.c, peer_checker.c)
 * ----------
 */
typedef struct SnowflakeWorker
{
	const char *name;			/* bgw_name and bgw_type */
	const char *wait_event;		/* its wait event between ticks */
	int			(*interval_ms) (void);	/* time between ticks */
	void		(*start) (void);	/* once, before the first tick */
	void		(*tick) (void);	/* one bounded unit of work */
	void		(*reload) (void);	/* after the configuration was reread */
	void		(*stop) (void);	/* once, when asked to stop */
} SnowflakeWorker;

extern void snowflake_register_worker(const char *name, const char *function,
									  int restart_seconds);
pg_noreturn extern void snowflake_worker_run(const SnowflakeWorker *worker);
extern bool snowflake_am_worker;

extern Size snowflake_clock_watcher_shmem_size(void);
extern void snowflake_clock_watcher_shmem_init(void);
extern void snowflake_clock_watcher_status(int *pid, int64 *checked_at);
PGDLLEXPORT void snowflake_clock_watcher_main(Datum main_arg);

extern Size snowflake_peers_shmem_size(void);
extern void snowflake_peers_shmem_init(LWLock *lock);
extern bool snowflake_peers_conflict(char *detail, size_t len);
extern bool snowflake_parse_peers(const char *value, List **result,
								  char **error, bool *legacy);
extern int64 snowflake_instance_token(void);
PGDLLEXPORT void snowflake_peer_checker_main(Datum main_arg);

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

#endif							/* SNOWFLAKE_H */
