/*-------------------------------------------------------------------------
 *
 * state_file.h
 *	  The state file, $PGDATA/pg_snowflake/state: reading it at start and
 *	  writing a new high-water mark into it (state_file.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/state_file.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_STATE_FILE_H
#define SNOWFLAKE_STATE_FILE_H

/* What the file held when the server started */
typedef struct SnowflakeSavedMark
{
	int64		mark;			/* every ID issued before is <= this */
	int64		written_at;		/* Unix ms, by the clock of the writer */
	int64		epoch_ms;		/* the layout it was written under */
	int32		node_bits;
	int32		seq_bits;
} SnowflakeSavedMark;

typedef struct SnowflakeStateFileStatus
{
	int64		mark;			/* the mark on disk; -1 if none */
	int64		written_at;		/* Unix ms of the last write, 0 if none */
	uint64		writes;			/* since server start */
	uint64		backend_writes; /* of those, made by backends */
	uint64		failures;		/* writes that failed */
	char	   *last_error;		/* the last write's failure, NULL if it worked */
} SnowflakeStateFileStatus;

/*
 * The node-ID lease of a server that takes its node ID from
 * snowflake.node_registry, as pg_snowflake/lease keeps it (registry.c says
 * what the states mean).
 */
typedef enum SnowflakeLeaseState
{
	SNOWFLAKE_LEASE_NONE,		/* no lease, no claim */
	SNOWFLAKE_LEASE_CLAIMING,	/* a claim with claim_token was sent */
	SNOWFLAKE_LEASE_HELD,		/* node_id is ours; IDs start above floor_id */
	SNOWFLAKE_LEASE_RELEASING,	/* given up; final_mark not yet reported */
	SNOWFLAKE_LEASE_RELEASED	/* the registry has it back */
} SnowflakeLeaseState;

typedef struct SnowflakeLease
{
	int32		state;			/* SnowflakeLeaseState */
	int32		node_id;
	int64		claim_token;
	int64		floor_id;		/* earlier holders' IDs are all <= this */
	int64		final_mark;		/* our IDs are all <= this, once releasing */
	uint64		system_identifier;

	/*
	 * The ID layout the lease was claimed with (snowflake_layout_text()),
	 * so that a server restarted with another refuses the lease without
	 * asking the registry.
	 */
	char		layout[32];

	/*
	 * Claimed with snowflake.registry_fencing: IDs only within what the
	 * registry grants, for as long as the lease is held (A7).  A lease of
	 * 1.6 (file version 2, WAL info XLOG_SNOWFLAKE_LEASE) ends before it,
	 * and is not fenced.
	 */
	int32		fenced;
	int32		padding;		/* zero */
} SnowflakeLease;

#define SNOWFLAKE_LEASE_V2_SIZE		offsetof(SnowflakeLease, fenced)

extern bool snowflake_lease_file_read(SnowflakeLease *lease, char **problem);
extern bool snowflake_lease_file_write(const SnowflakeLease *lease, int elevel);

extern Size snowflake_state_file_shmem_size(void);
extern bool snowflake_state_file_shmem_init(SnowflakeSavedMark *saved);
extern bool snowflake_state_file_write(int64 mark, int elevel, bool by_backend);
extern void snowflake_state_file_write_at_exit(int64 mark);
extern bool snowflake_shut_down_cleanly(void);
extern int64 snowflake_state_file_mark(void);
extern void snowflake_state_file_status(SnowflakeStateFileStatus *status);

#endif							/* SNOWFLAKE_STATE_FILE_H */
