/*-------------------------------------------------------------------------
 *
 * settings.h
 *	  The snowflake.* configuration parameters (guc.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/settings.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_SETTINGS_H
#define SNOWFLAKE_SETTINGS_H

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

/* the state file, relative to the data directory */
#define SNOWFLAKE_STATE_DIR		"pg_snowflake"
#define SNOWFLAKE_STATE_FILE	SNOWFLAKE_STATE_DIR "/state"

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
extern char *snowflake_node_registry;
extern char *snowflake_database;
extern int	snowflake_sequence_random_start;
extern bool snowflake_registry_fencing;
extern char *snowflake_advertise_address;

/*
 * Changes whenever a setting changes that the generator caches something
 * of (its policy bounds, the fast path's plan: the clock policy, borrow,
 * wait, reserve_ahead, clock_step_threshold, sequence_random_start); the
 * assign hook of each of them bumps it (guc.c).
 */
extern uint32 snowflake_policy_version;

extern void snowflake_define_settings(bool preloading);
extern void snowflake_check_startup_settings(void);
extern bool snowflake_parse_epoch(const char *str, int64 *unix_ms,
								  const char **detail);
extern const char *snowflake_clock_policy_name(void);

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

#endif							/* SNOWFLAKE_SETTINGS_H */
