/*-------------------------------------------------------------------------
 *
 * records.h
 *	  Result rows of record-returning functions (records.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/records.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_RECORDS_H
#define SNOWFLAKE_RECORDS_H

#include "access/tupdesc.h"
#include "fmgr.h"

extern TupleDesc snowflake_result_tupdesc(FunctionCallInfo fcinfo, int natts);
extern void snowflake_check_result_columns(FunctionCallInfo fcinfo,
										   TupleDesc tupdesc, int natts);

#endif							/* SNOWFLAKE_RECORDS_H */
