/*-------------------------------------------------------------------------
 *
 * hwm.c
 *	  The durable high-water mark: a bound on every ID this data directory
 *	  has ever issued, kept in $PGDATA/pg_snowflake/state.
 *
 * Invariant: every ID issued is <= the high-water mark in the state file.
 * The generator issues an ID only if its time field is within the
 * reservation it was given, and it is given a reservation (allow_up_to)
 * only once a mark covering it is written and fsynced, and in WAL.  This
 * is how sequences pre-log values: a crash skips IDs, it never repeats
 * them.  On server start the generator resumes above the saved mark,
 * whatever the clock says.  The mark is stored as an ID value, not a time,
 * so it stays correct even if the epoch or the field widths change.
 *
 * A reservation reaches snowflake.reserve_ahead (W) past the clock, so that
 * one write serves many IDs, and at least S = min(W/8, 250 ms) past the IDs
 * that need it, for when they run ahead of the clock.  The clock is the
 * trusted time of clock.c, which does not follow a forward jump until it
 * has lasted; and the clock watcher renews only while IDs are issued.  So
 * a clock glitch moves no mark.  After a crash, generation resumes at the
 * mark, ahead of the clock; a string of crashes then pushes IDs ahead by
 * at most S each, not by W.
 *
 * The file is one record of 56 bytes with a CRC.  The first write in a data
 * directory creates it through a temporary file and durable_rename(); every
 * later write overwrites it in place and fsyncs it once, as PostgreSQL
 * writes pg_control: a write this small, within one disk sector, is not
 * torn.  Should it be all the same, the CRC shows it, and generation is
 * refused until an operator has looked (a torn write would have been
 * interrupted before its fsync returned, so its mark was not yet used, but
 * damage of another kind cannot be told apart).  Anything but exactly one
 * valid record, a longer file included, counts as corrupt.
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
#include "storage/shmem.h"

#include "snowflake.h"

#define STATE_MAGIC			0x534E4F57	/* "SNOW" */
#define STATE_VERSION		1
#define STATE_FILE_TMP		SNOWFLAKE_STATE_FILE ".tmp"

#define AHEAD_STEP_MAX_MS	250

/*
 * The record.  Only hwm_id matters for correctness; the rest is kept for
 * the log and for people reading the file with a hex dump.
 */
typedef struct StateRecord
{
	uint32		magic;
	uint32		version;
	int64		hwm_id;			/* every ID issued is <= this */
	int64		epoch_ms;		/* layout in force when written */
	int32		node_bits;
	int32		seq_bits;
	int32		node_id;
	int32		padding;		/* zero */
	int64		written_at;		/* Unix ms */
	pg_crc32c	crc;			/* CRC-32C of everything above */
} StateRecord;

StaticAssertDecl(sizeof(StateRecord) == 56, "the state file's record is 56 bytes");

typedef struct HwmShared
{
	LWLock	   *lock;			/* serializes writers; protects the fields */
	int64		hwm_id;			/* the mark on disk; -1: none yet */
	int64		written_at;		/* Unix ms of the last write, 0 if none */
	uint64		writes;			/* since server start */
	uint64		backend_writes; /* of those, made by backends (which waited) */
	bool		file_exists;	/* written in place from now on */
	bool		refused;		/* the file could not be trusted at start */
	char		problem[256];	/* why generation is refused, if it is */
	char		write_error[256];	/* the last write's failure; "" if it worked */
} HwmShared;

static HwmShared *hwm = NULL;

static pg_crc32c
record_crc(const StateRecord *rec)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, rec, offsetof(StateRecord, crc));
	FIN_CRC32C(crc);
	return crc;
}

static bool
record_is_valid(const StateRecord *rec)
{
	return rec->magic == STATE_MAGIC && rec->version == STATE_VERSION &&
		EQ_CRC32C(rec->crc, record_crc(rec)) && rec->hwm_id >= 0;
}

Size
snowflake_hwm_shmem_size(void)
{
	return MAXALIGN(sizeof(HwmShared));
}

/*
 * Marks generation as refused because the state file cannot be trusted.
 * Called only in the postmaster at startup, before any backend exists.
 */
static void
refuse(const char *problem)
{
	hwm->refused = true;
	strlcpy(hwm->problem, problem, sizeof(hwm->problem));
	ereport(WARNING,
			(errmsg("snowflake ID generation is disabled: %s", problem),
			 errhint("Make sure the system clock is past every ID this server issued, then remove \"%s\" and restart the server.",
					 SNOWFLAKE_STATE_FILE)));
}

/*
 * Reads the state file; returns true with its record in *rec, or false
 * (after refuse()) if the file exists but cannot be trusted, or false
 * with rec->hwm_id = -1 if there is none.
 */
static bool
read_state_file(StateRecord *rec)
{
	char		buf[sizeof(StateRecord) + 1];
	int			fd;
	ssize_t		nread;

	rec->hwm_id = -1;
	fd = OpenTransientFile(SNOWFLAKE_STATE_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno != ENOENT)
			refuse(psprintf(_("could not open file \"%s\": %m"), SNOWFLAKE_STATE_FILE));
		return false;
	}
	/* one byte more than the record, to see a longer file */
	nread = read(fd, buf, sizeof(buf));
	if (nread < 0)
	{
		refuse(psprintf(_("could not read file \"%s\": %m"), SNOWFLAKE_STATE_FILE));
		CloseTransientFile(fd);
		return false;
	}
	CloseTransientFile(fd);
	hwm->file_exists = true;

	memcpy(rec, buf, Min(nread, (ssize_t) sizeof(StateRecord)));
	if (nread != sizeof(StateRecord) || !record_is_valid(rec))
	{
		rec->hwm_id = -1;
		refuse(psprintf(_("file \"%s\" is corrupt"), SNOWFLAKE_STATE_FILE));
		return false;
	}
	return true;
}

/*
 * Creates the high-water mark's state and reads the state file, raising
 * the generator above the mark.  Runs in the postmaster (or a standalone
 * backend) with AddinShmemInitLock held, so it never raises an error: a
 * missing file means a new data directory, an unreadable one disables
 * generation with a message saying why.
 */
void
snowflake_hwm_shmem_init(LWLock *lock)
{
	const SnowflakeLayout *layout = snowflake_layout();
	StateRecord rec;
	bool		found;
	int64		floor_ms;
	int64		now_ms;

	hwm = ShmemInitStruct("snowflake high-water mark", sizeof(HwmShared), &found);
	if (found)
		return;
	memset(hwm, 0, sizeof(HwmShared));
	hwm->lock = lock;
	hwm->hwm_id = -1;

	if (!read_state_file(&rec))
	{
		if (!hwm->refused)
			ereport(LOG,
					(errmsg("no snowflake high-water mark in \"%s\", IDs start from the system clock",
							SNOWFLAKE_STATE_FILE)));
		return;
	}

	hwm->hwm_id = rec.hwm_id;
	hwm->written_at = rec.written_at;

	/*
	 * Resume in the millisecond after the one holding the mark, in the
	 * current layout: every ID from there on is larger than the mark.  A
	 * mark of another layout may lie beyond this one's last millisecond;
	 * the generator then resumes at the end, and refuses.
	 */
	floor_ms = Min(rec.hwm_id >> layout->shift, layout->max_ms);
	snowflake_generator_resume_above(floor_ms);
	snowflake_clock_trust_up_to(layout->epoch_ms + floor_ms);

	ereport(LOG,
			(errmsg("snowflake IDs resume above high-water mark %lld (%s)",
					(long long) rec.hwm_id,
					snowflake_unix_ms_to_str(layout->epoch_ms + floor_ms))));

	if (rec.epoch_ms != layout->epoch_ms ||
		rec.node_bits != layout->node_bits ||
		rec.seq_bits != layout->seq_bits)
		ereport(LOG,
				(errmsg("the snowflake ID layout changed since the high-water mark was written"),
				 errdetail("New IDs still start above the old ones on this server, but other servers must use the same layout to avoid collisions.")));

	now_ms = snowflake_wall_clock_ms() - layout->epoch_ms;
	if (floor_ms > now_ms)
		ereport(WARNING,
				(errmsg("system clock is %lld ms behind the snowflake high-water mark",
						(long long) (floor_ms - now_ms)),
				 errdetail("IDs will be generated ahead of the clock or refused until it catches up, according to \"%s\".",
						   "snowflake.clock_policy"),
				 errhint("If the clock is right and IDs really were issued that far ahead, raise \"%s\" above this lead for as long as it lasts.",
						 "snowflake.max_borrow")));
}

/*
 * Fills the record for mark hwm_id.
 */
static void
fill_record(StateRecord *rec, int64 hwm_id, int64 now_unix_ms)
{
	const SnowflakeLayout *layout = snowflake_layout();

	memset(rec, 0, sizeof(StateRecord));
	rec->magic = STATE_MAGIC;
	rec->version = STATE_VERSION;
	rec->hwm_id = hwm_id;
	rec->epoch_ms = layout->epoch_ms;
	rec->node_bits = layout->node_bits;
	rec->seq_bits = layout->seq_bits;
	rec->node_id = snowflake_node_id;
	rec->written_at = now_unix_ms;
	rec->crc = record_crc(rec);
}

/*
 * Writes a new file: a temporary file, then durable_rename(), which fsyncs
 * the file, renames it over the old one (if any) and fsyncs the directory.
 * Used for the first write in a data directory.
 */
static bool
create_state_file(int64 hwm_id, int64 now_unix_ms, int elevel)
{
	StateRecord rec;
	int			fd;
	struct stat st;

	fill_record(&rec, hwm_id, now_unix_ms);

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
	if (write(fd, &rec, sizeof(rec)) != sizeof(rec))
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
 * Overwrites the record in the file with the mark, and fsyncs it.
 */
static bool
overwrite_state_file(int64 hwm_id, int64 now_unix_ms, int elevel)
{
	StateRecord rec;
	int			fd;

	fill_record(&rec, hwm_id, now_unix_ms);

	fd = OpenTransientFile(SNOWFLAKE_STATE_FILE, O_WRONLY | PG_BINARY);
	if (fd < 0 && errno == ENOENT)
	{
		/* removed behind our back: create it again */
		return create_state_file(hwm_id, now_unix_ms, elevel);
	}
	if (fd < 0)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", SNOWFLAKE_STATE_FILE)));
		return false;
	}
	errno = 0;
	if (pwrite(fd, &rec, sizeof(rec), 0) != sizeof(rec))
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", SNOWFLAKE_STATE_FILE)));
		CloseTransientFile(fd);
		return false;
	}
	if (pg_fsync(fd) != 0)
	{
		ereport(data_sync_elevel(elevel),
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", SNOWFLAKE_STATE_FILE)));
		CloseTransientFile(fd);
		return false;
	}
	if (CloseTransientFile(fd) != 0)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", SNOWFLAKE_STATE_FILE)));
		return false;
	}
	return true;
}

/*
 * Makes hwm_id the mark on disk.  The caller holds the lock.  A failure is
 * recorded for snowflake_status() and reported at elevel (an ERROR is the
 * original one, raised again); returns false if the mark is not durable.
 */
static bool
write_mark(int64 hwm_id, int elevel)
{
	int64		now_unix_ms = snowflake_wall_clock_ms();
	MemoryContext oldcxt = CurrentMemoryContext;
	ErrorData  *edata = NULL;

	PG_TRY();
	{
		if (hwm->file_exists)
			(void) overwrite_state_file(hwm_id, now_unix_ms, ERROR);
		else
			(void) create_state_file(hwm_id, now_unix_ms, ERROR);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
	}
	PG_END_TRY();

	if (edata != NULL)
	{
		strlcpy(hwm->write_error, edata->message, sizeof(hwm->write_error));
		if (elevel >= ERROR)
			ReThrowError(edata);
		ereport(elevel,
				(errcode(edata->sqlerrcode),
				 errmsg("could not write the snowflake high-water mark: %s",
						edata->message)));
		return false;
	}

	hwm->write_error[0] = '\0';
	hwm->file_exists = true;
	hwm->hwm_id = hwm_id;
	hwm->written_at = now_unix_ms;
	hwm->writes++;
	if (!snowflake_am_worker && !AmStartupProcess())
		hwm->backend_writes++;
	return true;
}

/*
 * The reservation wanted for IDs up to time field ms, with the trusted
 * clock at now_ms: W past the clock, at least S past the IDs, and never
 * past the layout's last millisecond (see the file header).
 *
 * W is snowflake.reserve_ahead, but no more than the clock policy lets IDs
 * run ahead of the clock, waits included: after a crash, generation
 * resumes at the reservation, and must not find itself further ahead than
 * the policy accepts.
 */
int64
snowflake_reservation_target(int64 ms, int64 now_ms)
{
	const SnowflakeLayout *layout = snowflake_layout();
	int64		ahead = Min((int64) snowflake_reserve_ahead,
							snowflake_allowed_lead_ms() + snowflake_max_wait_ms());
	int64		step = Min(ahead / 8, AHEAD_STEP_MAX_MS);
	int64		target = Max(now_ms + ahead, ms + Max(step, 1));

	return Min(target, layout->max_ms);
}

/*
 * Makes sure IDs with time fields up to needed_ms may be issued: unless
 * the reservation covers them already, writes a new mark reaching
 * target_ms (>= needed_ms).
 *
 * With conditional, gives up at once if another process is writing; the
 * caller only wanted to renew early.  Failures are reported at elevel;
 * returns true when needed_ms is covered on return.
 */
bool
snowflake_hwm_extend(int64 needed_ms, int64 target_ms, bool conditional, int elevel)
{
	const SnowflakeLayout *layout = snowflake_layout();
	SnowflakeGeneratorStatus gen;
	int64		new_hwm;

	Assert(needed_ms <= target_ms && target_ms <= layout->max_ms);

	if (conditional)
	{
		if (!LWLockConditionalAcquire(hwm->lock, LW_EXCLUSIVE))
			return false;
	}
	else
		LWLockAcquire(hwm->lock, LW_EXCLUSIVE);

	if (hwm->refused)
	{
		char		problem[sizeof(hwm->problem)];

		strlcpy(problem, hwm->problem, sizeof(problem));
		LWLockRelease(hwm->lock);
		ereport(elevel,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake ID generation is disabled: %s", problem),
				 errhint("Make sure the system clock is past every ID this server issued, then remove \"%s\" and restart the server.",
						 SNOWFLAKE_STATE_FILE)));
		return false;
	}

	/* someone else got there first */
	snowflake_generator_status(&gen);
	if (gen.reserved_ms >= needed_ms)
	{
		LWLockRelease(hwm->lock);
		return true;
	}

	new_hwm = snowflake_last_id_of_ms(layout, target_ms);

	/* an ERROR releases the lock on the way out, with the transaction */
	if (!write_mark(new_hwm, elevel))
	{
		LWLockRelease(hwm->lock);
		return false;
	}

	/* to standbys, before any ID it covers is issued */
	snowflake_wal_log_hwm(new_hwm);

	/* durable now: let the generator use it */
	snowflake_generator_allow_up_to(target_ms);

	LWLockRelease(hwm->lock);
	return true;
}

/*
 * Replays a high-water mark record from WAL (wal.c): on a standby, or on a
 * primary in crash recovery.  A mark above the one on disk is written into
 * this data directory's file before the next record is replayed, so that
 * recovery starting over after a crash, from a later restartpoint, finds
 * it; then the generator is raised to it, so that generation after
 * promotion starts above it.  A mark the file holds already (crash
 * recovery of a primary replaying its own records) costs nothing.  Runs in
 * the startup process; an error here stops recovery, as a failed redo
 * must.
 */
void
snowflake_hwm_redo(int64 hwm_id)
{
	const SnowflakeLayout *layout;

	if (hwm == NULL)
		return;

	layout = snowflake_layout();
	LWLockAcquire(hwm->lock, LW_EXCLUSIVE);
	if (hwm_id > hwm->hwm_id)
	{
		int64		floor_ms = Min(hwm_id >> layout->shift, layout->max_ms);

		(void) write_mark(hwm_id, ERROR);
		snowflake_generator_resume_above(floor_ms);
		snowflake_clock_trust_up_to(layout->epoch_ms + floor_ms);
	}
	LWLockRelease(hwm->lock);
}

/*
 * Called in the postmaster after a clean shutdown, when no other process is
 * left: replaces the reservation on disk with the bound of the IDs really
 * issued (last_slot, -1 if none), so that a clean restart resumes right
 * after them instead of up to snowflake.reserve_ahead later.
 */
void
snowflake_hwm_save_at_shutdown(int64 last_slot)
{
	const SnowflakeLayout *layout;
	int64		issued_hwm;

	if (hwm == NULL || hwm->refused || last_slot < 0)
		return;

	layout = snowflake_layout();
	issued_hwm = snowflake_last_id_of_ms(layout, last_slot >> layout->seq_bits);
	if (issued_hwm >= hwm->hwm_id)
		return;

	if (write_mark(issued_hwm, LOG))
		ereport(DEBUG1,
				(errmsg_internal("saved snowflake high-water mark %lld at shutdown",
								 (long long) issued_hwm)));
}

void
snowflake_hwm_status(SnowflakeHwmStatus *status)
{
	LWLockAcquire(hwm->lock, LW_SHARED);
	status->hwm_id = hwm->hwm_id;
	status->written_at = hwm->written_at;
	status->writes = hwm->writes;
	status->backend_writes = hwm->backend_writes;
	if (hwm->refused)
		status->problem = pstrdup(hwm->problem);
	else if (hwm->write_error[0] != '\0')
		status->problem = psprintf(_("could not write the high-water mark: %s"),
								   hwm->write_error);
	else
		status->problem = NULL;
	LWLockRelease(hwm->lock);
}
