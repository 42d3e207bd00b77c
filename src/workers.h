/*-------------------------------------------------------------------------
 *
 * workers.h
 *	  The background workers: their common loop (bgworker.c), the clock
 *	  watcher (clock_watcher.c) and the peer checker (peer_checker.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/workers.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_WORKERS_H
#define SNOWFLAKE_WORKERS_H

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "storage/lwlock.h"

#include "compat.h"

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
									  int restart_seconds, bool with_database);
pg_noreturn extern void snowflake_worker_run(const SnowflakeWorker *worker);

extern Size snowflake_clock_watcher_shmem_size(void);
extern void snowflake_clock_watcher_shmem_init(void);
extern void snowflake_clock_watcher_status(int *pid, int64 *checked_at);
PGDLLEXPORT void snowflake_clock_watcher_main(Datum main_arg);

extern Size snowflake_peers_shmem_size(void);
extern void snowflake_peers_shmem_init(LWLock *lock);
extern int64 snowflake_instance_token(void);
PGDLLEXPORT void snowflake_peer_checker_main(Datum main_arg);

PGDLLEXPORT void snowflake_node_worker_main(Datum main_arg);

#endif							/* SNOWFLAKE_WORKERS_H */
