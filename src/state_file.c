/*-------------------------------------------------------------------------
 *
 * state_file.c
 *	  The state file, $PGDATA/pg_snowflake/state: it keeps the high-water
 *	  mark, a bound on every ID this data directory has ever issued.  And
 *	  its sibling pg_snowflake/lease, which keeps a node-ID lease taken
 *	  from a registry (registry.c), written whole the same way.
 *
 * This module only reads the file at start and writes a mark it is given;
 * what the mark means, and when to raise it, is the generator's business
 * (generator.c), and carrying it to standbys is WAL's (wal.c, redo.c).
 *
 * The file is one record of 56 bytes with a CRC.  The mark is stored as an
 * ID value, not a time, so it stays correct even if the epoch or the field
 * widths change.  Anything but exactly one valid record, a longer file
 * included, means the file cannot be trusted: generation is refused
 * (admission.c) until an operator has looked, and the server starts all
 * the same.
 *
 * Writing.  A write is durable when it returns true, and never raises an
 * error below the elevel it is given: a failure is reported at that
 * elevel, after every file it opened is closed.  Two ways:
 *
 *	- in place: pwrite() of the record over the old one and one fsync(), as
 *	  PostgreSQL writes pg_control; a write this small, within one sector,
 *	  is not torn (and the CRC would show it).  Used while the file is
 *	  known to be intact: read intact at start, or written whole since.
 *	- replace: a new temporary file, written and fsynced, renamed over the
 *	  old one, and the directory fsynced.  Used for the first write of a
 *	  data directory and after any failure.
 *
 * A failed fsync is not retried on the same file: after one, the kernel
 * may have dropped the pages and would report the next fsync as a
 * success.  That is why PostgreSQL PANICs when a data file's fsync fails;
 * here nothing forces that, because the whole file is rewritten: the next
 * write replaces the file with a new one, whose fsync means what it says.
 * Until a write succeeds, the caller issues no ID the new mark would have
 * covered, and the old mark on disk still bounds every ID issued.
 *
 * Shared state: the mark last written and the write statistics, under a
 * spinlock held for a few assignments.  Only one process writes at a time
 * (the generator's reservation writer, the startup process replaying WAL,
 * or the postmaster at exit when no other process is left); the spinlock
 * is for readers.  The postmaster's write at exit touches no shared state,
 * so that it never waits for a lock a dead process held.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/state_file.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog_internal.h"
#include "catalog/pg_control.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "storage/shmem.h"
#include "storage/spin.h"

#include "admission.h"
#include "clock.h"
#include "identity.h"
#include "layout.h"
#include "settings.h"
#include "state_file.h"

#define STATE_MAGIC			0x534E4F57	/* "SNOW" */
#define STATE_VERSION		1
#define STATE_FILE_TMP		SNOWFLAKE_STATE_FILE ".tmp"
#define LEASE_FILE			SNOWFLAKE_STATE_DIR "/lease"
#define LEASE_FILE_TMP		LEASE_FILE ".tmp"
#define LEASE_MAGIC			0x4C454153	/* "LEAS" */
#define LEASE_VERSION		3	/* 2: 1.6's, without "fenced" */
#define ERROR_LEN			256

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

typedef struct StateFileShared
{
	slock_t		mutex;			/* protects the fields below */
	int64		mark;			/* the mark on disk; -1: none yet */
	int64		written_at;		/* Unix ms of the last write, 0 if none */
	uint64		writes;			/* since server start */
	uint64		backend_writes; /* of those, made by backends */
	uint64		failures;		/* writes that failed */
	bool		in_place;		/* the file is intact: overwrite it */
	char		last_error[ERROR_LEN];	/* "" if the last write worked */
} StateFileShared;

static StateFileShared *state = NULL;

/* What failed, for one message per kind of failure */
typedef enum WriteStep
{
	STEP_STAT_DIR,
	STEP_MAKE_DIR,
	STEP_OPEN,
	STEP_CREATE,
	STEP_WRITE,
	STEP_FSYNC,
	STEP_CLOSE,
	STEP_RENAME,
	STEP_FSYNC_DIR
} WriteStep;

typedef struct WriteFailure
{
	WriteStep	step;
	const char *path;
	const char *target;			/* of a rename */
	int			saved_errno;
} WriteFailure;

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

/* pg_snowflake/lease: one lease and its CRC */
typedef struct LeaseRecord
{
	uint32		magic;
	uint32		version;
	SnowflakeLease lease;
	pg_crc32c	crc;			/* CRC-32C of everything above */
} LeaseRecord;

/* ... as 1.6 wrote it: the lease up to "fenced" */
typedef struct LeaseRecordV2
{
	uint32		magic;
	uint32		version;
	char		lease[SNOWFLAKE_LEASE_V2_SIZE];
	pg_crc32c	crc;
} LeaseRecordV2;

static pg_crc32c
lease_crc(const LeaseRecord *rec)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, rec, offsetof(LeaseRecord, crc));
	FIN_CRC32C(crc);
	return crc;
}

/* a record of version 2 (1.6): its lease, not fenced */
static bool
read_lease_v2(const char *buf, SnowflakeLease *lease)
{
	LeaseRecordV2 rec;
	pg_crc32c	crc;

	memcpy(&rec, buf, sizeof(rec));
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &rec, offsetof(LeaseRecordV2, crc));
	FIN_CRC32C(crc);
	if (rec.magic != LEASE_MAGIC || rec.version != 2 || !EQ_CRC32C(rec.crc, crc))
		return false;
	memset(lease, 0, sizeof(SnowflakeLease));
	memcpy(lease, rec.lease, SNOWFLAKE_LEASE_V2_SIZE);
	return memchr(lease->layout, '\0', sizeof(lease->layout)) != NULL;
}

Size
snowflake_state_file_shmem_size(void)
{
	return MAXALIGN(sizeof(StateFileShared));
}

/*
 * The file cannot be trusted: refuse generation until an operator has
 * looked.  Runs in the postmaster at start.
 */
static void
refuse(const char *problem)
{
	snowflake_admission_block(SNOWFLAKE_BLOCK_STATE_FILE, problem);
	ereport(WARNING,
			(errmsg("snowflake ID generation is disabled: %s", problem),
			 errhint("Make sure the system clock is past every ID this server issued, then remove \"%s\" and restart the server.",
					 SNOWFLAKE_STATE_FILE)));
}

typedef enum ReadOutcome
{
	READ_NONE,					/* no file: a new data directory */
	READ_VALID,					/* one valid record */
	READ_UNUSABLE				/* refused, with the reason logged */
} ReadOutcome;

/*
 * Reads the file into *rec, and says what it found.
 */
static ReadOutcome
read_state_file(StateRecord *rec)
{
	char		buf[sizeof(StateRecord) + 1];
	int			fd;
	ssize_t		nread;

	rec->hwm_id = -1;
	fd = OpenTransientFile(SNOWFLAKE_STATE_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno == ENOENT)
			return READ_NONE;
		refuse(psprintf(_("could not open file \"%s\": %m"), SNOWFLAKE_STATE_FILE));
		return READ_UNUSABLE;
	}
	/* one byte more than the record, to see a longer file */
	nread = read(fd, buf, sizeof(buf));
	if (nread < 0)
	{
		int			save_errno = errno;

		CloseTransientFile(fd);
		errno = save_errno;
		refuse(psprintf(_("could not read file \"%s\": %m"), SNOWFLAKE_STATE_FILE));
		return READ_UNUSABLE;
	}
	CloseTransientFile(fd);

	memcpy(rec, buf, Min(nread, (ssize_t) sizeof(StateRecord)));
	if (nread != sizeof(StateRecord) || !record_is_valid(rec))
	{
		rec->hwm_id = -1;
		refuse(psprintf(_("file \"%s\" is corrupt"), SNOWFLAKE_STATE_FILE));
		return READ_UNUSABLE;
	}
	return READ_VALID;
}

/*
 * Creates the shared state and reads the file.  Runs in the postmaster (or
 * a standalone backend) with AddinShmemInitLock held, so it never raises an
 * error.  Returns true with the saved mark in *saved when the file holds
 * one; false when there is none (a new data directory) or it cannot be
 * trusted (generation is then refused, with the reason logged).
 */
bool
snowflake_state_file_shmem_init(SnowflakeSavedMark *saved)
{
	StateRecord rec;
	bool		found;

	state = ShmemInitStruct("snowflake state file", sizeof(StateFileShared),
							&found);
	if (found)
		return false;
	memset(state, 0, sizeof(StateFileShared));
	SpinLockInit(&state->mutex);
	state->mark = -1;

	switch (read_state_file(&rec))
	{
		case READ_NONE:
			ereport(LOG,
					(errmsg("no snowflake high-water mark in \"%s\", IDs start from the system clock",
							SNOWFLAKE_STATE_FILE)));
			return false;
		case READ_UNUSABLE:
			return false;
		case READ_VALID:
			break;
	}

	state->mark = rec.hwm_id;
	state->written_at = rec.written_at;
	state->in_place = true;

	saved->mark = rec.hwm_id;
	saved->written_at = rec.written_at;
	saved->epoch_ms = rec.epoch_ms;
	saved->node_bits = rec.node_bits;
	saved->seq_bits = rec.seq_bits;
	return true;
}

static void
fill_record(StateRecord *rec, int64 mark, int64 now_unix_ms)
{
	const SnowflakeLayout *layout = snowflake_layout();

	memset(rec, 0, sizeof(StateRecord));
	rec->magic = STATE_MAGIC;
	rec->version = STATE_VERSION;
	rec->hwm_id = mark;
	rec->epoch_ms = layout->epoch_ms;
	rec->node_bits = layout->node_bits;
	rec->seq_bits = layout->seq_bits;
	rec->node_id = snowflake_identity_node_id();
	rec->written_at = now_unix_ms;
	rec->crc = record_crc(rec);
}

/* Records a failure: errno is saved now, before anything can change it. */
static bool
failed(WriteFailure *f, WriteStep step, const char *path)
{
	f->step = step;
	f->path = path;
	f->saved_errno = errno;
	return false;
}

/*
 * Closes fd after a failed step, keeping the failure's errno, and removes
 * the temporary file if it was one.
 */
static void
close_after_failure(int fd, const WriteFailure *f, const char *temporary)
{
	CloseTransientFile(fd);
	if (temporary)
		(void) unlink(temporary);
	errno = f->saved_errno;
}

/*
 * Writes len bytes of data to fd at offset 0 and fsyncs it.  Closes fd on
 * failure, and removes the file if it is the temporary one.
 */
static bool
write_and_sync(int fd, const char *path, const void *data, size_t len,
			   const char *temporary, WriteFailure *f)
{
	ssize_t		written;

	errno = 0;
	written = pg_pwrite(fd, data, len, 0);
	if (written != (ssize_t) len)
	{
		/* a short write without errno: assume the disk is full */
		if (errno == 0)
			errno = ENOSPC;
		failed(f, STEP_WRITE, path);
		close_after_failure(fd, f, temporary);
		return false;
	}
	if (pg_fsync(fd) != 0)
	{
		failed(f, STEP_FSYNC, path);
		close_after_failure(fd, f, temporary);
		return false;
	}
	return true;
}

/* fsyncs a directory, as fsync_fname_ext() does, but never escalates */
static bool
sync_directory(const char *path, WriteFailure *f)
{
	int			fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);

	if (fd < 0)
		return failed(f, STEP_FSYNC_DIR, path);
	/* some systems cannot fsync a directory: that is not a failure */
	if (pg_fsync(fd) != 0 && errno != EBADF && errno != EINVAL)
	{
		failed(f, STEP_FSYNC_DIR, path);
		close_after_failure(fd, f, NULL);
		return false;
	}
	CloseTransientFile(fd);
	return true;
}

/*
 * Overwrites the record of an intact file in place.  ENOENT on open sets
 * *missing: the file was removed behind our back.
 */
static bool
overwrite_file(const StateRecord *rec, WriteFailure *f, bool *missing)
{
	int			fd;

	*missing = false;
	fd = OpenTransientFile(SNOWFLAKE_STATE_FILE, O_WRONLY | PG_BINARY);
	if (fd < 0)
	{
		*missing = errno == ENOENT;
		return failed(f, STEP_OPEN, SNOWFLAKE_STATE_FILE);
	}
	if (!write_and_sync(fd, SNOWFLAKE_STATE_FILE, rec, sizeof(StateRecord), NULL, f))
		return false;
	if (CloseTransientFile(fd) != 0)
		return failed(f, STEP_CLOSE, SNOWFLAKE_STATE_FILE);
	return true;
}

/*
 * Writes a new file (path, through the temporary file tmp) and renames it
 * over the old one, durably: the directory (created if need be) is fsynced
 * after the rename.
 */
static bool
replace_file(const char *path, const char *tmp, const void *data, size_t len,
			 WriteFailure *f)
{
	struct stat st;
	int			fd;

	if (stat(SNOWFLAKE_STATE_DIR, &st) != 0)
	{
		if (errno != ENOENT)
			return failed(f, STEP_STAT_DIR, SNOWFLAKE_STATE_DIR);
		if (MakePGDirectory(SNOWFLAKE_STATE_DIR) < 0 && errno != EEXIST)
			return failed(f, STEP_MAKE_DIR, SNOWFLAKE_STATE_DIR);
		/* the new directory's entry in the data directory */
		if (!sync_directory(".", f))
			return false;
	}

	fd = OpenTransientFile(tmp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		return failed(f, STEP_CREATE, tmp);
	if (!write_and_sync(fd, tmp, data, len, tmp, f))
		return false;
	if (CloseTransientFile(fd) != 0)
	{
		failed(f, STEP_CLOSE, tmp);
		(void) unlink(tmp);
		errno = f->saved_errno;
		return false;
	}
	if (rename(tmp, path) != 0)
	{
		failed(f, STEP_RENAME, tmp);
		f->target = path;
		(void) unlink(tmp);
		errno = f->saved_errno;
		return false;
	}
	return sync_directory(SNOWFLAKE_STATE_DIR, f);
}

/*
 * Writes mark into the file, in place if intact allows it.  Returns true
 * when the mark is durable; otherwise fills *f.
 */
static bool
write_record(int64 mark, int64 now_unix_ms, bool intact, WriteFailure *f)
{
	StateRecord rec;
	bool		missing;

	fill_record(&rec, mark, now_unix_ms);
	if (intact)
	{
		if (overwrite_file(&rec, f, &missing))
			return true;
		if (!missing)
			return false;
	}
	return replace_file(SNOWFLAKE_STATE_FILE, STATE_FILE_TMP, &rec,
						sizeof(StateRecord), f);
}

/*
 * The message of a failure, translated, with its errno, into buf (of
 * ERROR_LEN bytes): no allocation, since the processes that write (the
 * clock watcher, the startup process in redo) may fail at every try for
 * as long as the disk is full, with no memory context reset in between.
 */
static void
failure_message(const WriteFailure *f, char *buf)
{
	errno = f->saved_errno;
	switch (f->step)
	{
		case STEP_STAT_DIR:
			snprintf(buf, ERROR_LEN, _("could not stat directory \"%s\": %m"), f->path);
			return;
		case STEP_MAKE_DIR:
			snprintf(buf, ERROR_LEN, _("could not create directory \"%s\": %m"), f->path);
			return;
		case STEP_OPEN:
			snprintf(buf, ERROR_LEN, _("could not open file \"%s\": %m"), f->path);
			return;
		case STEP_CREATE:
			snprintf(buf, ERROR_LEN, _("could not create file \"%s\": %m"), f->path);
			return;
		case STEP_WRITE:
			snprintf(buf, ERROR_LEN, _("could not write file \"%s\": %m"), f->path);
			return;
		case STEP_FSYNC:
			snprintf(buf, ERROR_LEN, _("could not fsync file \"%s\": %m"), f->path);
			return;
		case STEP_CLOSE:
			snprintf(buf, ERROR_LEN, _("could not close file \"%s\": %m"), f->path);
			return;
		case STEP_RENAME:
			snprintf(buf, ERROR_LEN, _("could not rename file \"%s\" to \"%s\": %m"),
					 f->path, f->target);
			return;
		case STEP_FSYNC_DIR:
			snprintf(buf, ERROR_LEN, _("could not fsync directory \"%s\": %m"), f->path);
			return;
	}
	strlcpy(buf, "?", ERROR_LEN);
}

/*
 * Makes mark the high-water mark on disk.  The caller is the only process
 * writing (see the file header).  Returns true once it is durable.  On
 * failure every file is closed, the failure is recorded for
 * snowflake_status(), reported at elevel (SQLSTATE 58030, io_error), and,
 * below ERROR, false is returned.  by_backend counts the write as one a
 * client waited for.
 */
bool
snowflake_state_file_write(int64 mark, int elevel, bool by_backend)
{
	int64		now_unix_ms = snowflake_wall_clock_ms();
	WriteFailure f;
	bool		intact;
	char		message[ERROR_LEN];

	Assert(state != NULL);

	SpinLockAcquire(&state->mutex);
	intact = state->in_place;
	SpinLockRelease(&state->mutex);

	if (write_record(mark, now_unix_ms, intact, &f))
	{
		SpinLockAcquire(&state->mutex);
		state->mark = mark;
		state->written_at = now_unix_ms;
		state->writes++;
		if (by_backend)
			state->backend_writes++;
		state->in_place = true;
		state->last_error[0] = '\0';
		SpinLockRelease(&state->mutex);
		return true;
	}

	failure_message(&f, message);
	SpinLockAcquire(&state->mutex);
	state->failures++;
	state->in_place = false;
	strlcpy(state->last_error, message, ERROR_LEN);
	SpinLockRelease(&state->mutex);

	ereport(elevel,
			(errcode(ERRCODE_IO_ERROR),
			 errmsg_internal("%s", message),
			 errdetail("The snowflake high-water mark could not be raised to %lld; no ID above the mark on disk is issued until a write succeeds.",
					   (long long) mark)));
	return false;
}

/*
 * Writes mark at the postmaster's exit, when no other process is left.
 * Touches no shared state and never raises an error: a failure is logged,
 * and the mark on disk, higher than this one, stays.
 */
void
snowflake_state_file_write_at_exit(int64 mark)
{
	WriteFailure f;
	char		message[ERROR_LEN];

	if (write_record(mark, snowflake_wall_clock_ms(), false, &f))
		return;
	failure_message(&f, message);
	ereport(LOG,
			(errcode(ERRCODE_IO_ERROR),
			 errmsg_internal("%s", message),
				 errdetail("The snowflake high-water mark on disk stays at the last reservation.")));
}

/*
 * Reads pg_snowflake/lease.  Returns true with *lease filled when it holds
 * one valid record; false with *problem NULL when there is no file, or set
 * (a sentence) when it cannot be read or is damaged.  Raises nothing.
 */
bool
snowflake_lease_file_read(SnowflakeLease *lease, char **problem)
{
	LeaseRecord rec;
	char		buf[sizeof(LeaseRecord) + 1];
	ssize_t		nread;
	int			fd;

	*problem = NULL;
	memset(lease, 0, sizeof(SnowflakeLease));
	fd = OpenTransientFile(LEASE_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno != ENOENT)
			*problem = psprintf(_("could not open file \"%s\": %m"), LEASE_FILE);
		return false;
	}
	nread = read(fd, buf, sizeof(buf));
	if (nread < 0)
	{
		int			save_errno = errno;

		CloseTransientFile(fd);
		errno = save_errno;
		*problem = psprintf(_("could not read file \"%s\": %m"), LEASE_FILE);
		return false;
	}
	CloseTransientFile(fd);
	memcpy(&rec, buf, Min(nread, (ssize_t) sizeof(LeaseRecord)));
	if (nread == sizeof(LeaseRecord) && rec.magic == LEASE_MAGIC &&
		rec.version == LEASE_VERSION && EQ_CRC32C(rec.crc, lease_crc(&rec)) &&
		memchr(rec.lease.layout, '\0', sizeof(rec.lease.layout)) != NULL)
		*lease = rec.lease;
	else if (!(nread == sizeof(LeaseRecordV2) && read_lease_v2(buf, lease)))
	{
		*problem = psprintf(_("file \"%s\" is corrupt"), LEASE_FILE);
		return false;
	}
	if (lease->state < SNOWFLAKE_LEASE_NONE ||
		lease->state > SNOWFLAKE_LEASE_RELEASED ||
		(lease->fenced != 0 && lease->fenced != 1))
	{
		memset(lease, 0, sizeof(SnowflakeLease));
		*problem = psprintf(_("file \"%s\" is corrupt"), LEASE_FILE);
		return false;
	}
	return true;
}

/*
 * Writes pg_snowflake/lease whole and durably (a new file, fsynced, renamed
 * over the old one, the directory fsynced).  A failure is reported at
 * elevel, after every file is closed; returns whether the lease is
 * durable.
 */
bool
snowflake_lease_file_write(const SnowflakeLease *lease, int elevel)
{
	LeaseRecord rec;
	WriteFailure f;
	char		message[ERROR_LEN];

	memset(&rec, 0, sizeof(rec));
	rec.magic = LEASE_MAGIC;
	rec.version = LEASE_VERSION;
	rec.lease = *lease;
	rec.crc = lease_crc(&rec);
	if (replace_file(LEASE_FILE, LEASE_FILE_TMP, &rec, sizeof(rec), &f))
		return true;
	failure_message(&f, message);
	ereport(elevel,
			(errcode(ERRCODE_IO_ERROR),
			 errmsg_internal("%s", message),
			 errdetail("The snowflake node-ID lease could not be saved.")));
	return false;
}

/* The mark on disk, or -1: what redo compares a replayed mark with. */
int64
snowflake_state_file_mark(void)
{
	int64		mark;

	SpinLockAcquire(&state->mutex);
	mark = state->mark;
	SpinLockRelease(&state->mutex);
	return mark;
}

/*
 * True when pg_control says the server shut down cleanly: the shutdown
 * checkpoint was written, so every other process has exited in order.
 * False after an immediate shutdown or a crash, and whenever the file
 * cannot be read or is damaged.  For the postmaster's exit path: plain
 * system calls, nothing raised, no lock.
 */
bool
snowflake_shut_down_cleanly(void)
{
	ControlFileData control;
	pg_crc32c	crc;
	ssize_t		n;
	int			fd;

	fd = open(XLOG_CONTROL_FILE, O_RDONLY | PG_BINARY, 0);
	if (fd < 0)
		return false;
	n = read(fd, &control, sizeof(control));
	close(fd);
	if (n != (ssize_t) sizeof(control))
		return false;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &control, offsetof(ControlFileData, crc));
	FIN_CRC32C(crc);
	return EQ_CRC32C(crc, control.crc) && control.state == DB_SHUTDOWNED;
}

void
snowflake_state_file_status(SnowflakeStateFileStatus *status)
{
	char		last_error[ERROR_LEN];

	SpinLockAcquire(&state->mutex);
	status->mark = state->mark;
	status->written_at = state->written_at;
	status->writes = state->writes;
	status->backend_writes = state->backend_writes;
	status->failures = state->failures;
	memcpy(last_error, state->last_error, ERROR_LEN);
	SpinLockRelease(&state->mutex);
	status->last_error = last_error[0] ? pstrdup(last_error) : NULL;
}
