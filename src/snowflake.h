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
 *	peer_client.c		questions to a peer, asynchronous, with a deadline;
 *						answers checked before they are read (peer_client.h)
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

/*
 * Transitional: every header of the extension, for the files that still
 * include this one alone.
 */
#include "access/tupdesc.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "nodes/pg_list.h"
#include "storage/lwlock.h"

#include "admission.h"
#include "clock.h"
#include "compat.h"
#include "generator.h"
#include "layout.h"
#include "records.h"
#include "settings.h"
#include "state_file.h"
#include "time_compare.h"
#include "workers.h"

/* shmem.c: the top layer, called from _PG_init() only */
extern void snowflake_shmem_install_hooks(void);

#endif							/* SNOWFLAKE_H */
