/*-------------------------------------------------------------------------
 *
 * clock_watcher.c
 *	  The "snowflake clock watcher" background worker.
 *
 * Every snowflake.clock_check_interval milliseconds it
 *	- looks at the system clock (clock.c), so that steps and jumps are
 *	  noticed and logged when they happen, not at the next ID, and the
 *	  trusted time stays fresh;
 *	- renews the durable reservation while IDs are being generated, before
 *	  backends would have to wait for a write (generator.c);
 *	- once a day, warns when the time bits of the layout are running out.
 *
 * It is registered at every start (not for pg_upgrade), also while
 * snowflake.clock_check_interval is 0: then it only sleeps, so that setting
 * the interval by a reload takes effect without a restart.
 *
 * Its shared state is its process ID and the time of its last check, for
 * snowflake_status(); both are atomics, written by the worker only.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/clock_watcher.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/shmem.h"

#include "clock.h"
#include "generator.h"
#include "layout.h"
#include "settings.h"
#include "workers.h"

#define WORKER_NAME					"snowflake clock watcher"
#define LIFETIME_CHECK_INTERVAL_MS	(24 * 60 * 60 * 1000)

typedef struct ClockWatcherShared
{
	pg_atomic_uint32 pid;		/* 0 when not running */
	pg_atomic_uint64 checked_at;	/* Unix ms of the last check, 0 if none */
} ClockWatcherShared;

static ClockWatcherShared *watcher = NULL;

/* when the next lifetime warning is due (monotonic ms), in the worker */
static int64 next_lifetime_check = 0;

Size
snowflake_clock_watcher_shmem_size(void)
{
	return MAXALIGN(sizeof(ClockWatcherShared));
}

void
snowflake_clock_watcher_shmem_init(void)
{
	bool		found;

	watcher = ShmemInitStruct("snowflake clock watcher",
							  sizeof(ClockWatcherShared), &found);
	if (found)
		return;
	pg_atomic_init_u32(&watcher->pid, 0);
	pg_atomic_init_u64(&watcher->checked_at, 0);
}

void
snowflake_clock_watcher_status(int *pid, int64 *checked_at)
{
	*pid = (int) pg_atomic_read_u32(&watcher->pid);
	*checked_at = (int64) pg_atomic_read_u64(&watcher->checked_at);
}

/* on_shmem_exit callback: the worker is gone */
static void
watcher_exit(int code, Datum arg)
{
	pg_atomic_write_u32(&watcher->pid, 0);
}

static int
watcher_interval(void)
{
	return snowflake_clock_check_interval;
}

static void
watcher_start(void)
{
	pg_atomic_write_u32(&watcher->pid, (uint32) MyProcPid);
	on_shmem_exit(watcher_exit, (Datum) 0);
	next_lifetime_check = snowflake_monotonic_ms();
	if (snowflake_clock_check_interval > 0)
		ereport(LOG,
				(errmsg("%s started, checking the clock every %d ms",
						WORKER_NAME, snowflake_clock_check_interval)));
	else
		ereport(LOG,
				(errmsg("%s started; it checks nothing while \"%s\" is 0",
						WORKER_NAME, "snowflake.clock_check_interval")));
}

static void
watcher_tick(void)
{
	/* snowflake.clock_check_interval = 0 pauses the checks */
	if (snowflake_clock_check_interval <= 0)
		return;

	snowflake_clock_check();
	snowflake_generator_renew();

	if (snowflake_monotonic_ms() >= next_lifetime_check)
	{
		snowflake_check_lifetime(snowflake_wall_clock_ms(), snowflake_epoch_warning_days);
		next_lifetime_check = snowflake_monotonic_ms() + LIFETIME_CHECK_INTERVAL_MS;
	}
	pg_atomic_write_u64(&watcher->checked_at, (uint64) snowflake_wall_clock_ms());
}

static void
watcher_reload(void)
{
	if (snowflake_clock_check_interval > 0)
		ereport(LOG,
				(errmsg("%s reloaded its configuration, checking the clock every %d ms",
						WORKER_NAME, snowflake_clock_check_interval)));
	else
		ereport(LOG,
				(errmsg("%s reloaded its configuration; it checks nothing while \"%s\" is 0",
						WORKER_NAME, "snowflake.clock_check_interval")));
}

static const SnowflakeWorker clock_watcher = {
	.name = WORKER_NAME,
	.wait_event = "SnowflakeClockWatcher",
	.interval_ms = watcher_interval,
	.start = watcher_start,
	.tick = watcher_tick,
	.reload = watcher_reload,
};

/*
 * Entry point of the worker (bgw_function_name).
 */
void
snowflake_clock_watcher_main(Datum main_arg)
{
	snowflake_worker_run(&clock_watcher);
}
