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

extern void snowflake_wal_log_mark(int64 mark);
extern int64 snowflake_wal_read_mark(XLogReaderState *record);
extern void snowflake_wal_desc(StringInfo buf, XLogReaderState *record);
extern const char *snowflake_wal_identify(uint8 info);

#endif							/* SNOWFLAKE_WAL_H */
