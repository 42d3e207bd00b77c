/*-------------------------------------------------------------------------
 *
 * snowflake.h
 *	  A map of the code for whoever reads it next, and the one function of
 *	  the top layer (shmem.c) that _PG_init() calls.  Each file's own
 *	  declarations are in the header the map names beside it.
 *
 * An ID is a non-negative int64 made of three fields, most significant
 * first: milliseconds since the configured epoch, the node ID and a
 * per-millisecond sequence.  The widths of the node and sequence fields are
 * server-start settings; the time field gets the remaining bits of the 63
 * below the sign bit.
 *
 * THE LAYERS
 *
 * Each file calls only files of the layers below it (and never one that
 * calls it back): "make check-structure" builds the call graph from the
 * objects' symbols and fails on a cycle.  Bottom up, with each file's
 * header and [the shared state it owns, if any]:
 *
 *  1. pure: no shared memory, no I/O
 *	layout.c	layout.h		the layout in force (one source of truth) and
 *								all arithmetic of IDs and slots
 *	peer_list.c	peer_list.h		the syntax of snowflake.peers
 *	records.c	records.h		row types of record-returning functions
 *	guc.c		settings.h		the snowflake.* settings and their checks
 *
 *  2. SQL on IDs: the type and decoding, read the layout only
 *	type_io.c, operators.c, time_ops.c (time_compare.h), decode.c,
 *	foreign_layouts.c, uuid.c; planner_support.c (planner_compat.h: its
 *	version switches)
 *
 *  3. services of the generator, each with one piece of shared state
 *	admission.c	admission.h		may this server generate now, and if not
 *								why [one bit per reason, one writer each]
 *	clock.c		clock.h			reading the clocks; the trusted time that
 *								holds back forward jumps [clock state]
 *	identity.c	identity.h		the node ID in use and where it comes from
 *								[the node ID, set once]
 *	wal.c		wal.h			the reservation's WAL record
 *	state_file.c state_file.h	pg_snowflake/state: load at start, write a
 *								mark at an elevel [its bookkeeping]
 *	bgworker.c	workers.h		the workers' common loop
 *	peer_client.c peer_client.h	questions to a peer, with a deadline;
 *								answers checked before they are read
 *	citus_node.c citus_node.h	this server's Citus group, from its own
 *								metadata (SPI)
 *
 *  4. the generator
 *	generator.c	generator.h		snowflake_nextval/reserve/currval; owns the
 *								last slot issued and the reservation
 *								[under one spinlock]
 *
 *  5. what drives or watches the generator
 *	clock_watcher.c	workers.h	worker: clock checks, renewals [its pid]
 *	peer_checker.c	workers.h	worker: node-ID conflicts with peers,
 *								snowflake_peers() [what it saw]
 *	registry.c	registry.h		node IDs leased from snowflake.node_registry
 *								[the lease as saved, the registry's answers]
 *	redo.c		redo.h			replays the WAL records: the file, then the
 *								generator; a lease, to the registry module
 *	node_worker.c	workers.h	worker: obtains the node ID (Citus group or
 *								lease) where none is set by hand
 *
 *  6. SQL over the whole server
 *	node_info.c					snowflake_node_info(), what peers ask us
 *	observe.c					snowflake_observe() and its trigger: causal
 *								order across servers
 *	status.c					snowflake_status(), from the owners' copies
 *	shmem.c		snowflake.h		shared memory: size, create, call each
 *								owner's init
 *
 *  7. snowflake.c	_PG_init(): settings, shared memory, redo, hooks,
 *					workers
 *
 * compat.h holds the differences between PostgreSQL versions that more
 * than one layer needs.  Shared state is private to its owner: others call
 * the functions in its header, which hand out copies.
 *
 * THE PATH OF ONE snowflake_nextval()
 *
 *	In generator.c: the backend's plan (the layout, the node ID and the
 *	policy's bounds, copied once per change of a setting) is current, and
 *	one atomic load says the server may generate (admission.h); one read
 *	of the system clock gives the trusted time (clock.h, inline; the
 *	steady clock is read only when the reading is outside the window last
 *	confirmed); then one spinlock section takes the next slot, max(last
 *	slot + 1, now), if the layout has one, within the clock policy's lead
 *	and well inside the durable reservation.  The slot and the node ID
 *	make the ID (layout.h).  Anything else (a reservation to
 *	write, a lead to wait out, an error) goes to allocate_slots(), which
 *	writes the state file and the WAL record with no lock held, waits on a
 *	condition variable or the latch, and starts over.
 *
 * LOCKING RULES
 *
 *	- The generator's spinlock covers its last slot, reservation and
 *	  counters: compares, stores and adds only.  Nothing is called,
 *	  allocated, logged or waited for while it is held, and the postmaster
 *	  never takes it (it may be held by a process that died).
 *	- One process at a time writes a new mark (a flag under the spinlock);
 *	  others sleep on a condition variable, which answers cancel,
 *	  statement_timeout and postmaster death.  No lock is held across the
 *	  write, the fsync or the WAL flush.
 *	- The peer checker's LWLock covers what it saw of each peer; readers
 *	  copy out under it.
 *	- Admission and the clock state are atomics: admission decides whether
 *	  an ID may be issued at all, the clock state which time it carries,
 *	  never whether it is unique.
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

/* shmem.c: the top layer, called from _PG_init() only */
extern void snowflake_shmem_install_hooks(void);

#endif							/* SNOWFLAKE_H */
