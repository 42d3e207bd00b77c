/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL major versions we support
 *	  (13 to 18) is bridged here, and only here.
 *
 * The rest of the code is written against the newest API; for older
 * servers this file supplies an equivalent.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_COMPAT_H
#define SNOWFLAKE_COMPAT_H

#if PG_VERSION_NUM < 130000
#error "snowflake requires PostgreSQL 13 or later"
#endif

/*
 * Soft error reporting for input functions arrived in 16.  Before that an
 * input function always throws, which is what this shim does.
 */
#if PG_VERSION_NUM < 160000
#define ereturn(context, dummy_value, ...) \
	do { \
		(void) (context); \
		ereport(ERROR, __VA_ARGS__); \
		return dummy_value; \
	} while (0)
#endif

/*
 * GUC check hooks must allocate *extra with guc_malloc() from 16 on; plain
 * malloc() was the rule before.  Both are freed by guc.c with free().
 */
#if PG_VERSION_NUM < 160000
#define guc_malloc(elevel, size) malloc(size)
#endif

/*
 * MarkGUCPrefixReserved() replaced EmitWarningsOnPlaceholders() in 15.
 */
#if PG_VERSION_NUM < 150000
#define MarkGUCPrefixReserved(className) EmitWarningsOnPlaceholders(className)
#endif

/*
 * From 15 on, shared memory and LWLocks must be requested from
 * shmem_request_hook; before 15 that hook does not exist and the requests
 * are made directly from _PG_init().  SNOWFLAKE_SHMEM_REQUEST_HOOK tells
 * shmem.c which of the two to do.
 */
#if PG_VERSION_NUM >= 150000
#define SNOWFLAKE_SHMEM_REQUEST_HOOK 1
#else
#define SNOWFLAKE_SHMEM_REQUEST_HOOK 0
#endif

/*
 * Wait events moved from pgstat.h to utils/wait_event.h in 14.  Custom wait
 * events can be named from 17 on; earlier versions report the generic
 * "Extension" wait event.
 */
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"
#else
#include "pgstat.h"
#endif

#if PG_VERSION_NUM >= 170000
#define snowflake_wait_event(name) WaitEventExtensionNew(name)
#else
#define snowflake_wait_event(name) PG_WAIT_EXTENSION
#endif

/*
 * PG_MODULE_MAGIC_EXT (18) records the module's name and version for
 * pg_get_loaded_modules().
 */
#if PG_VERSION_NUM >= 180000
#define SNOWFLAKE_MODULE_MAGIC \
	PG_MODULE_MAGIC_EXT(.name = "snowflake", .version = SNOWFLAKE_VERSION)
#else
#define SNOWFLAKE_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/*
 * Custom WAL resource managers exist from 15 on.  On 13 and 14 the
 * high-water mark is kept in the data directory only and does not reach
 * standbys through WAL.
 */
#if PG_VERSION_NUM >= 150000
#define SNOWFLAKE_HAVE_CUSTOM_RMGR 1
#else
#define SNOWFLAKE_HAVE_CUSTOM_RMGR 0
#endif

/*
 * InitMaterializedSRF() (15) sets up a set-returning function that fills a
 * tuplestore in one call; before 15 it is done by hand.
 */
#if PG_VERSION_NUM < 150000
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/tuplestore.h"

static inline void
InitMaterializedSRF(FunctionCallInfo fcinfo, bits32 flags)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext oldcxt;
	TupleDesc	tupdesc;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		!(rsinfo->allowedModes & SFRM_Materialize))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("materialize mode required, but it is not allowed in this context")));
	oldcxt = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = tuplestore_begin_heap(true, false, work_mem);
	rsinfo->setDesc = CreateTupleDescCopy(tupdesc);
	MemoryContextSwitchTo(oldcxt);
}
#endif

#endif							/* SNOWFLAKE_COMPAT_H */
