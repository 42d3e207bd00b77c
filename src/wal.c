/*-------------------------------------------------------------------------
 *
 * wal.c
 *	  Carries the high-water mark to standbys through WAL, with a custom
 *	  WAL resource manager.
 *
 * Every new reservation (hwm.c) is written to WAL as one small record and
 * flushed before any ID it covers is issued.  A standby replays it: it
 * writes the mark into its own pg_snowflake/state and raises its
 * generator, so that after promotion it resumes above every ID the old
 * primary could have issued, even with its clock behind.  Crash recovery
 * of a primary replays the same records, harmlessly.
 *
 * The record precedes, in WAL order, the commit record of any transaction
 * that used an ID it covers.  So with synchronous replication, a committed
 * row's ID is always covered on the synchronous standby; with asynchronous
 * replication, as with sequences, IDs handed out in the last moments
 * before a failover may be known to the old primary only.
 *
 * Consequence for operators: every server that replays this WAL (standbys,
 * and any server restoring a base backup with archived WAL) must have
 * snowflake in shared_preload_libraries, or recovery stops with an error
 * about an unregistered resource manager.
 *
 * The resource manager ID is 142.  Extensions choose theirs from 128 up
 * and record them on the PostgreSQL wiki page "CustomWALResourceManagers";
 * should another extension on the same server use 142, build snowflake
 * with another one, on every server that replays the WAL, before any of
 * them writes WAL with it:
 *		make PG_CPPFLAGS='-DSNOWFLAKE_RMGR_ID=143' ...
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/wal.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"

#include "snowflake.h"

#ifndef SNOWFLAKE_RMGR_ID
#define SNOWFLAKE_RMGR_ID		142
#endif

#define XLOG_SNOWFLAKE_HWM		0x00

typedef struct xl_snowflake_hwm
{
	int64		hwm_id;			/* every ID issued is <= this */
	int32		node_id;		/* for pg_waldump readers */
	int32		padding;		/* zero */
} xl_snowflake_hwm;

/*
 * The record of rec's kind, copied out after checking its length: a
 * record of another length was not written by this code.
 */
static void
read_record(XLogReaderState *record, xl_snowflake_hwm *rec)
{
	if (XLogRecGetDataLen(record) != sizeof(xl_snowflake_hwm))
		elog(PANIC, "snowflake high-water mark record has %u bytes, not %zu",
			 XLogRecGetDataLen(record), sizeof(xl_snowflake_hwm));
	memcpy(rec, XLogRecGetData(record), sizeof(xl_snowflake_hwm));
}

static void
snowflake_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	xl_snowflake_hwm rec;

	if (info != XLOG_SNOWFLAKE_HWM)
		elog(PANIC, "snowflake_redo: unknown op code %u", info);
	read_record(record, &rec);
	snowflake_hwm_redo(rec.hwm_id);
}

static void
snowflake_desc(StringInfo buf, XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info == XLOG_SNOWFLAKE_HWM &&
		XLogRecGetDataLen(record) == sizeof(xl_snowflake_hwm))
	{
		xl_snowflake_hwm rec;

		memcpy(&rec, XLogRecGetData(record), sizeof(rec));
		appendStringInfo(buf, "hwm_id %lld node_id %d",
						 (long long) rec.hwm_id, rec.node_id);
	}
}

static const char *
snowflake_identify(uint8 info)
{
	if ((info & ~XLR_INFO_MASK) == XLOG_SNOWFLAKE_HWM)
		return "HWM";
	return NULL;
}

static RmgrData snowflake_rmgr = {
	.rm_name = "snowflake",
	.rm_redo = snowflake_redo,
	.rm_desc = snowflake_desc,
	.rm_identify = snowflake_identify,
};

/*
 * Registers the resource manager; called from _PG_init() while preloading.
 */
void
snowflake_wal_register(void)
{
	RegisterCustomRmgr(SNOWFLAKE_RMGR_ID, &snowflake_rmgr);
}

/*
 * Writes and flushes a record of a new high-water mark.
 */
void
snowflake_wal_log_hwm(int64 hwm_id)
{
	xl_snowflake_hwm rec;
	XLogRecPtr	lsn;

	memset(&rec, 0, sizeof(rec));
	rec.hwm_id = hwm_id;
	rec.node_id = snowflake_node_id;

	XLogBeginInsert();
	XLogRegisterData((char *) &rec, sizeof(rec));
	lsn = XLogInsert(SNOWFLAKE_RMGR_ID, XLOG_SNOWFLAKE_HWM);
	XLogFlush(lsn);
}
