/*-------------------------------------------------------------------------
 *
 * wal.c
 *	  The high-water mark in WAL: the record, writing it, and describing
 *	  it for pg_waldump.  Replaying it is redo.c's.
 *
 * Every new reservation (generator.c) is written to WAL as one small
 * record and flushed before any ID it covers is issued.  A standby replays
 * it (redo.c), so that after promotion it resumes above every ID the old
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

#include "identity.h"
#include "settings.h"
#include "state_file.h"
#include "wal.h"

#define XLOG_SNOWFLAKE_HWM		0x00
#define XLOG_SNOWFLAKE_LEASE_V2	0x10	/* 1.6's: the lease up to "fenced" */
#define XLOG_SNOWFLAKE_LEASE	0x20

typedef struct xl_snowflake_hwm
{
	int64		hwm_id;			/* every ID issued is <= this */
	int32		node_id;		/* for pg_waldump readers */
	int32		padding;		/* zero */
} xl_snowflake_hwm;

/*
 * Writes and flushes a record of a new high-water mark.
 */
void
snowflake_wal_log_mark(int64 mark)
{
	xl_snowflake_hwm rec;
	XLogRecPtr	lsn;

	memset(&rec, 0, sizeof(rec));
	rec.hwm_id = mark;
	rec.node_id = snowflake_identity_node_id();

	XLogBeginInsert();
	XLogRegisterData((char *) &rec, sizeof(rec));
	lsn = XLogInsert(SNOWFLAKE_RMGR_ID, XLOG_SNOWFLAKE_HWM);
	XLogFlush(lsn);
}

/*
 * Writes and flushes a record of the node-ID lease (pg_snowflake/lease), so
 * that standbys keep the same: after promotion a standby holds its
 * primary's lease.
 */
void
snowflake_wal_log_lease(const SnowflakeLease *lease)
{
	XLogRecPtr	lsn;

	XLogBeginInsert();
	XLogRegisterData((char *) lease, sizeof(SnowflakeLease));
	lsn = XLogInsert(SNOWFLAKE_RMGR_ID, XLOG_SNOWFLAKE_LEASE);
	XLogFlush(lsn);
}

/*
 * What a record being replayed is.  A record of another kind was not
 * written by this code: recovery must not go on as if it had been
 * replayed.
 */
SnowflakeWalRecord
snowflake_wal_record_kind(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info == XLOG_SNOWFLAKE_HWM)
		return SNOWFLAKE_WAL_MARK;
	if (info == XLOG_SNOWFLAKE_LEASE || info == XLOG_SNOWFLAKE_LEASE_V2)
		return SNOWFLAKE_WAL_LEASE;
	elog(PANIC, "snowflake_redo: unknown op code %u", info);
	pg_unreachable();
}

/* The mark of a high-water mark record being replayed. */
int64
snowflake_wal_read_mark(XLogReaderState *record)
{
	xl_snowflake_hwm rec;

	if (XLogRecGetDataLen(record) != sizeof(xl_snowflake_hwm))
		elog(PANIC, "snowflake high-water mark record has %u bytes, not %zu",
			 XLogRecGetDataLen(record), sizeof(xl_snowflake_hwm));
	memcpy(&rec, XLogRecGetData(record), sizeof(xl_snowflake_hwm));
	return rec.hwm_id;
}

/*
 * The lease of a lease record being replayed: one of 1.6
 * (XLOG_SNOWFLAKE_LEASE_V2) is a prefix of one now, and not fenced.
 */
void
snowflake_wal_read_lease(XLogReaderState *record, SnowflakeLease *lease)
{
	uint32		len = XLogRecGetDataLen(record);
	uint32		expected = (XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_SNOWFLAKE_LEASE ?
		sizeof(SnowflakeLease) : SNOWFLAKE_LEASE_V2_SIZE;

	if (len != expected)
		elog(PANIC, "snowflake lease record has %u bytes, not %u", len, expected);
	memset(lease, 0, sizeof(SnowflakeLease));
	memcpy(lease, XLogRecGetData(record), len);
	lease->layout[sizeof(lease->layout) - 1] = '\0';
	lease->fenced = lease->fenced != 0;
}

void
snowflake_wal_desc(StringInfo buf, XLogReaderState *record)
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
	else if ((info == XLOG_SNOWFLAKE_LEASE &&
			  XLogRecGetDataLen(record) == sizeof(SnowflakeLease)) ||
			 (info == XLOG_SNOWFLAKE_LEASE_V2 &&
			  XLogRecGetDataLen(record) == SNOWFLAKE_LEASE_V2_SIZE))
	{
		SnowflakeLease lease;

		snowflake_wal_read_lease(record, &lease);
		appendStringInfo(buf, "state %d node_id %d floor_id %lld final_mark %lld layout \"%s\" fenced %d",
						 lease.state, lease.node_id, (long long) lease.floor_id,
						 (long long) lease.final_mark, lease.layout, lease.fenced);
	}
}

const char *
snowflake_wal_identify(uint8 info)
{
	if ((info & ~XLR_INFO_MASK) == XLOG_SNOWFLAKE_HWM)
		return "HWM";
	if ((info & ~XLR_INFO_MASK) == XLOG_SNOWFLAKE_LEASE)
		return "LEASE";
	if ((info & ~XLR_INFO_MASK) == XLOG_SNOWFLAKE_LEASE_V2)
		return "LEASE_V2";
	return NULL;
}
