/*-------------------------------------------------------------------------
 *
 * wal.h
 *	  The high-water mark's WAL record (wal.c); its replay is in redo.c.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/wal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_WAL_H
#define SNOWFLAKE_WAL_H

#include "access/xlogreader.h"
#include "lib/stringinfo.h"

#include "state_file.h"

/*
 * The resource manager ID.  Extensions choose theirs from 128 up and record
 * them on the PostgreSQL wiki page "CustomWALResourceManagers"; should
 * another extension on the same server use 142, build snowflake with
 * another one, on every server that replays the WAL, before any of them
 * writes WAL with it:
 *		make PG_CPPFLAGS='-DSNOWFLAKE_RMGR_ID=143' ...
 */
#ifndef SNOWFLAKE_RMGR_ID
#define SNOWFLAKE_RMGR_ID		142
#endif

typedef enum SnowflakeWalRecord
{
	SNOWFLAKE_WAL_MARK,			/* a new high-water mark */
	SNOWFLAKE_WAL_LEASE			/* the node-ID lease, as pg_snowflake/lease */
} SnowflakeWalRecord;

extern void snowflake_wal_log_mark(int64 mark);
extern void snowflake_wal_log_lease(const SnowflakeLease *lease);
extern SnowflakeWalRecord snowflake_wal_record_kind(XLogReaderState *record);
extern int64 snowflake_wal_read_mark(XLogReaderState *record);
extern void snowflake_wal_read_lease(XLogReaderState *record,
									 SnowflakeLease *lease);
extern void snowflake_wal_desc(StringInfo buf, XLogReaderState *record);
extern const char *snowflake_wal_identify(uint8 info);

#endif							/* SNOWFLAKE_WAL_H */
