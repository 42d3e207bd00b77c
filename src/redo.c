/*-------------------------------------------------------------------------
 *
 * redo.c
 *	  Replaying the high-water mark from WAL: the custom resource manager.
 *
 * A standby (or a primary in crash recovery, or a server restoring a
 * backup) replays each mark record (wal.c): the mark is written into this
 * data directory's state file, then the generator resumes above it and the
 * clock learns that IDs of its time exist.  So after promotion the server
 * starts above every ID the old primary could have issued, even with its
 * clock behind, and recovery starting over from a later restartpoint finds
 * the mark in the file.  A mark the file holds already (a primary's crash
 * recovery replaying its own records) costs one comparison.
 *
 * A state file that cannot be written does not stop recovery: a read
 * replica that never generates must not be taken down by a file it does
 * not need until promotion.  The mark is kept in shared memory (in the
 * generator) and written with the next record that can be; the failure is
 * logged once, and snowflake_status() shows it.  After promotion, no ID is
 * issued until a mark above the replayed one is written: the generator
 * resumes above it, and every ID above a mark needs a reservation write.
 * The one case this cannot cover is a standby that restarts while its file
 * cannot be written: marks replayed before its last restartpoint are then
 * replayed no more.  doc/operations.md says so.
 *
 * Redo is never skipped: a record replayed without the extension's shared
 * state (which cannot happen with the library preloaded, the only way the
 * resource manager gets registered) stops recovery with an error.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/redo.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog_internal.h"

#include "admission.h"
#include "generator.h"
#include "redo.h"
#include "registry.h"
#include "state_file.h"
#include "wal.h"

/* in the startup process: the last write of a replayed mark failed */
static bool write_failing = false;

static void
snowflake_redo(XLogReaderState *record)
{
	int64		mark;

	if (!snowflake_preloaded())
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("cannot replay a snowflake high-water mark without the extension's shared memory")));

	if (snowflake_wal_record_kind(record) == SNOWFLAKE_WAL_LEASE)
	{
		SnowflakeLease lease;

		snowflake_wal_read_lease(record, &lease);
		snowflake_registry_replay_lease(&lease);
		return;
	}
	mark = snowflake_wal_read_mark(record);

	if (mark <= snowflake_state_file_mark())
		return;

	if (snowflake_state_file_write(mark, write_failing ? DEBUG1 : WARNING, false))
	{
		if (write_failing)
			ereport(LOG,
					(errmsg("snowflake high-water mark replayed from WAL is written again")));
		write_failing = false;
	}
	else
		write_failing = true;

	snowflake_generator_replay_mark(mark);
}

static RmgrData snowflake_rmgr = {
	.rm_name = "snowflake",
	.rm_redo = snowflake_redo,
	.rm_desc = snowflake_wal_desc,
	.rm_identify = snowflake_wal_identify,
};

/*
 * Registers the resource manager; called from _PG_init() while preloading.
 */
void
snowflake_redo_register(void)
{
	RegisterCustomRmgr(SNOWFLAKE_RMGR_ID, &snowflake_rmgr);
}
