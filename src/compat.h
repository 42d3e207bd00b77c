/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL major versions we support
 *	  (15 to 19) is bridged here, and only here.
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

#if PG_VERSION_NUM < 150000
#error "snowflake requires PostgreSQL 15 or later"
#endif

#include "utils/wait_event.h"

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
 * Custom wait events can be named from 17 on; earlier versions report the
 * generic "Extension" wait event.
 */
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
 * pg_noreturn (18) goes before a declaration; before 18 the attribute was
 * spelled pg_attribute_noreturn(), which GCC and Clang accept there too.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * Whether this process is a background worker: AmBackgroundWorkerProcess()
 * (17) replaced the variable IsBackgroundWorker.
 */
#if PG_VERSION_NUM >= 170000
#define snowflake_am_background_worker() AmBackgroundWorkerProcess()
#else
#define snowflake_am_background_worker() (IsBackgroundWorker)
#endif

#endif							/* SNOWFLAKE_COMPAT_H */
