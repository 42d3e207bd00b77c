/*-------------------------------------------------------------------------
 *
 * hwm.c
 *	  The durable high-water mark: a bound on every ID this data directory
 *	  has ever issued, kept in $PGDATA/pg_snowflake/state.
 *
 * Invariant: every ID issued is <= the hwm_id in the state file on disk.
 * The generator may only issue IDs whose time field is <= reserved_ms in
 * shared memory, and reserved_ms is raised only after a state file covering
 * it has been written, fsynced and renamed into place (durable_rename()
 * fsyncs the file and its directory).  The reservation runs
 * snowflake.reserve_ahead milliseconds ahead of the clock, so the hot path
 * never writes; the background worker renews it before it runs out, and a
 * backend does so itself when it must.  This is how sequences pre-log
 * values: a crash skips IDs, it never repeats them.
 *
 * On server start the generator resumes above the saved bound, whatever
 * the clock says.  The bound is stored as an ID value, not a time, so it
 * stays correct even if the epoch or the field widths were changed.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/hwm.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "utils/timestamp.h"

#include "snowflake.h"

#define STATE_FILE_MAGIC	0x534E4F57	/* "SNOW" */
#define STATE_FILE_VERSION	1
#define STATE_FILE_TMP		SNOWFLAKE_STATE_FILE ".tmp"

/*
 * On-disk format.  Only hwm_id matters for correctness; the rest is kept
 * for the log and for people reading the file with a hex dump.
 */
typedef struct StateFileData
{
	uint32		magic;
	uint32		version;
	int64		hwm_id;			/* every ID issued is <= this */
	int64		epoch_ms;		/* layout in force when written */
	int32		node_bits;
	int32		seq_bits;
	int32		node_id;
	int32		padding;
	int64		written_at;		/* Unix ms */
	pg_crc32c	crc;			/* CRC-32C of everything above */
} StateFileData;

static pg_crc32c
state_file_crc(const StateFileData *data)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, offsetof(StateFileData, crc));
	FIN_CRC32C(crc);
	return crc;
}

/*
 * Marks generation as refused because the state file cannot be trusted.
 * Called only in the postmaster at startup, before any backend exists.
 */
static void
refuse(SnowflakeSharedState *state, const char *problem)
{
	state->hwm_refused = true;
	strlcpy(state->hwm_problem, problem, sizeof(state->hwm_problem));
	ereport(WARNING,
			(errmsg("snowflake ID generation is disabled: %s", problem),
			 errhint("Make sure the system clock is past every ID this server issued, then remove \"%s\" and restart the server.",
					 SNOWFLAKE_STATE_FILE)));
}

/*
 * Reads the state file into *state while shared memory is created.  Runs
 * in the postmaster (or a standalone backend), so it never raises an error:
 * a missing file means a new data directory, an unreadable one disables
 * generation with a message saying why.
 */
void
snowflake_hwm_load(SnowflakeSharedState *state)
{
	SnowflakeLayout layout;
	StateFileData data;
	int			fd;
	int			nread;
	int64		floor_ms;
	int64		now_ms;

	snowflake_get_layout(&layout);

	/* nothing issued yet: the first ID will need a reservation */
	state->last_slot = -1;
	state->reserved_ms = -1;
	state->hwm_id = -1;

	fd = OpenTransientFile(SNOWFLAKE_STATE_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno == ENOENT)
		{
			ereport(LOG,
					(errmsg("snowflake: no high-water mark in \"%s\", IDs start from the system clock",
							SNOWFLAKE_STATE_FILE)));
			return;
		}
		refuse(state, psprintf("could not open file \"%s\": %m",
							   SNOWFLAKE_STATE_FILE));
		return;
	}

	nread = read(fd, &data, sizeof(data));
	if (nread < 0)
	{
		refuse(state, psprintf("could not read file \"%s\": %m",
							   SNOWFLAKE_STATE_FILE));
		CloseTransientFile(fd);
		return;
	}
	CloseTransientFile(fd);

	if (nread != sizeof(data) ||
		data.magic != STATE_FILE_MAGIC ||
		data.version != STATE_FILE_VERSION ||
		!EQ_CRC32C(data.crc, state_file_crc(&data)) ||
		data.hwm_id < 0)
	{
		refuse(state, psprintf("file \"%s\" is corrupt", SNOWFLAKE_STATE_FILE));
		return;
	}

	/*
	 * Resume in the millisecond after the one holding hwm_id, in the
	 * current layout: every ID from there on is larger than hwm_id.
	 */
	floor_ms = data.hwm_id >> layout.shift;
	state->last_slot = (floor_ms << layout.seq_bits) | layout.max_seq;
	state->reserved_ms = floor_ms;
	state->hwm_id = data.hwm_id;
	state->hwm_written_at = data.written_at;

	ereport(LOG,
			(errmsg("snowflake: IDs resume above high-water mark " INT64_FORMAT " (%s)",
					data.hwm_id,
					snowflake_unix_ms_to_str(layout.epoch_ms + floor_ms))));

	if (data.epoch_ms != layout.epoch_ms ||
		data.node_bits != layout.node_bits ||
		data.seq_bits != layout.seq_bits)
		ereport(LOG,
				(errmsg("snowflake: the ID layout changed since the high-water mark was written"),
				 errdetail("New IDs still start above the old ones on this server, but other servers must use the same layout to avoid collisions.")));

	now_ms = snowflake_unix_ms_now() - layout.epoch_ms;
	if (floor_ms > now_ms)
		ereport(WARNING,
				(errmsg("snowflake: the system clock is " INT64_FORMAT " ms behind the high-water mark",
						floor_ms - now_ms),
				 errdetail("IDs will be generated ahead of the clock or refused until it catches up, according to \"%s\".",
						   "snowflake.clock_policy")));
}

/*
 * Writes hwm_id durably: a temporary file, then durable_rename(), which
 * fsyncs the file, renames it over the old one and fsyncs the directory.
 * Failures are reported at elevel; returns false if it did not complete.
 */
static bool
write_state_file(int64 hwm_id, int64 now_unix_ms, int elevel)
{
	SnowflakeLayout layout;
	StateFileData data;
	int			fd;
	struct stat st;

	snowflake_get_layout(&layout);

	memset(&data, 0, sizeof(data));
	data.magic = STATE_FILE_MAGIC;
	data.version = STATE_FILE_VERSION;
	data.hwm_id = hwm_id;
	data.epoch_ms = layout.epoch_ms;
	data.node_bits = layout.node_bits;
	data.seq_bits = layout.seq_bits;
	data.node_id = snowflake_node_id;
	data.written_at = now_unix_ms;
	data.crc = state_file_crc(&data);

	if (stat(SNOWFLAKE_STATE_DIR, &st) != 0)
	{
		if (MakePGDirectory(SNOWFLAKE_STATE_DIR) < 0 && errno != EEXIST)
		{
			ereport(elevel,
					(errcode_for_file_access(),
					 errmsg("could not create directory \"%s\": %m",
							SNOWFLAKE_STATE_DIR)));
			return false;
		}
		/* make the new directory entry itself durable */
		if (fsync_fname_ext(".", true, false, elevel) != 0)
			return false;
	}

	fd = OpenTransientFile(STATE_FILE_TMP, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", STATE_FILE_TMP)));
		return false;
	}

	errno = 0;
	if (write(fd, &data, sizeof(data)) != sizeof(data))
	{
		/* if write didn't set errno, assume the problem is no disk space */
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", STATE_FILE_TMP)));
		CloseTransientFile(fd);
		return false;
	}

	if (CloseTransientFile(fd) != 0)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", STATE_FILE_TMP)));
		return false;
	}

	return durable_rename(STATE_FILE_TMP, SNOWFLAKE_STATE_FILE, elevel) == 0;
}

/*
 * Makes sure IDs with time fields up to needed_ms may be issued, writing a
 * new high-water mark if the current reservation does not cover them.  The
 * new reservation reaches snowflake.reserve_ahead (W) past the clock, and
 * past needed_ms by snowflake_reservation_headroom(): W/2 normally, so that
 * one write serves many IDs, but only W/8 (at most 250 ms) when needed_ms is
 * already more than W ahead of the clock.
 *
 * Basing it on the clock rather than on the last ID matters after a crash:
 * generation resumes at the reservation, ahead of the clock; were the next
 * reservation W past that, every crash would push IDs another W ahead.  As
 * it is, crashes in a row leave IDs at most about 1.5 W ahead of the clock
 * (or where a burst had legitimately borrowed to), whatever the number of
 * crashes: once IDs run more than W ahead, a restart takes longer than the
 * small headroom adds.
 *
 * With conditional, gives up at once (returning false) if another process
 * is writing; the caller only wanted to renew early.  Write failures are
 * reported at elevel; returns true when needed_ms is covered on return.
 *
 * The caller guarantees needed_ms <= the layout's max_ms.
 */
bool
snowflake_extend_reservation(SnowflakeSharedState *state, int64 needed_ms,
							 bool conditional, int elevel)
{
	SnowflakeLayout layout;
	int64		reserved_ms;
	int64		now_unix_ms;
	int64		now_ms;
	int64		new_ms;
	int64		new_hwm;
	bool		refused;

	snowflake_get_layout(&layout);
	Assert(needed_ms <= layout.max_ms);

	if (conditional)
	{
		if (!LWLockConditionalAcquire(state->reserve_lock, LW_EXCLUSIVE))
			return false;
	}
	else
		LWLockAcquire(state->reserve_lock, LW_EXCLUSIVE);

	SpinLockAcquire(&state->mutex);
	refused = state->hwm_refused;
	reserved_ms = state->reserved_ms;
	SpinLockRelease(&state->mutex);

	if (refused)
	{
		LWLockRelease(state->reserve_lock);
		ereport(elevel,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("snowflake ID generation is disabled: %s",
						state->hwm_problem),
				 errhint("Make sure the system clock is past every ID this server issued, then remove \"%s\" and restart the server.",
						 SNOWFLAKE_STATE_FILE)));
		return false;
	}

	/* someone else got there first */
	if (reserved_ms >= needed_ms)
	{
		LWLockRelease(state->reserve_lock);
		return true;
	}

	now_unix_ms = snowflake_unix_ms_now();
	now_ms = now_unix_ms - layout.epoch_ms;
	new_ms = Max(now_ms + snowflake_reserve_ahead,
				 needed_ms + snowflake_reservation_headroom(needed_ms - now_ms));
	new_ms = Min(new_ms, layout.max_ms);
	new_hwm = (new_ms << layout.shift) | ((INT64CONST(1) << layout.shift) - 1);

	if (!write_state_file(new_hwm, now_unix_ms, elevel))
	{
		LWLockRelease(state->reserve_lock);
		return false;
	}

	/* and to standbys, before any ID it covers is issued */
	snowflake_wal_log_hwm(new_hwm);

	/* durable now: publish */
	SpinLockAcquire(&state->mutex);
	state->reserved_ms = new_ms;
	state->hwm_id = new_hwm;
	state->hwm_written_at = now_unix_ms;
	state->hwm_writes++;
	if (!snowflake_am_worker)
		state->hwm_backend_writes++;
	SpinLockRelease(&state->mutex);

	LWLockRelease(state->reserve_lock);
	return true;
}

/*
 * Replays a high-water mark record from WAL (wal.c): on a standby, or on a
 * primary in crash recovery.  Makes the bound durable in this data
 * directory too, then raises the shared state to it, so that generation
 * after promotion starts above it.  Runs in the startup process; an error
 * here stops recovery, as a failed redo must.
 */
void
snowflake_hwm_redo(int64 hwm_id)
{
	SnowflakeSharedState *state = snowflake_state;
	SnowflakeLayout layout;
	int64		floor_ms;
	int64		floor_slot;
	int64		now_unix_ms;

	if (state == NULL)
		return;

	snowflake_get_layout(&layout);
	floor_ms = hwm_id >> layout.shift;
	floor_slot = (floor_ms << layout.seq_bits) | layout.max_seq;

	LWLockAcquire(state->reserve_lock, LW_EXCLUSIVE);

	/* hwm_id only changes under reserve_lock, which we hold */
	if (hwm_id > state->hwm_id)
	{
		now_unix_ms = snowflake_unix_ms_now();
		(void) write_state_file(hwm_id, now_unix_ms, ERROR);

		SpinLockAcquire(&state->mutex);
		state->hwm_id = hwm_id;
		state->hwm_written_at = now_unix_ms;
		if (floor_slot > state->last_slot)
			state->last_slot = floor_slot;
		if (floor_ms > state->reserved_ms)
			state->reserved_ms = floor_ms;
		SpinLockRelease(&state->mutex);
	}

	LWLockRelease(state->reserve_lock);
}

/*
 * Called in the postmaster after a clean shutdown, when no other process is
 * left: replaces the reservation on disk with the bound of the IDs really
 * issued, so that a clean restart resumes right after them instead of up
 * to snowflake.reserve_ahead later.
 */
void
snowflake_hwm_save_at_shutdown(SnowflakeSharedState *state)
{
	SnowflakeLayout layout;
	int64		issued_hwm;

	if (state->hwm_refused || state->ids_issued == 0 || state->last_slot < 0)
		return;

	snowflake_get_layout(&layout);
	issued_hwm = ((state->last_slot >> layout.seq_bits) << layout.shift) |
		((INT64CONST(1) << layout.shift) - 1);

	if (issued_hwm >= state->hwm_id)
		return;

	if (write_state_file(issued_hwm, snowflake_unix_ms_now(), LOG))
		ereport(DEBUG1,
				(errmsg_internal("snowflake: saved high-water mark " INT64_FORMAT " at shutdown",
								 issued_hwm)));
}
