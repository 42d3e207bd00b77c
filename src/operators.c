/*-------------------------------------------------------------------------
 *
 * operators.c
 *	  The functions behind the comparison, hash and min/max operators of
 *	  snowflake, and of snowflake with bigint.
 *
 * They are bigint's own, called through thin C entry points of this
 * library rather than declared LANGUAGE internal: the executor looks an
 * internal function up by name in the list of all built-in functions each
 * time it prepares a call, which costs more than the comparison, whereas C
 * functions of a loaded library are found in a hash table.  The planner
 * support that lets bigint indexes serve the cross-type comparisons is in
 * planner_support.c.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/operators.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/fmgrprotos.h"

#include "layout.h"

/*
 * snowflake_eq, _ne, _lt, _le, _gt, _ge, _cmp, _hash, _hash_extended,
 * _larger, _smaller: bigint's functions, for every pairing of snowflake and
 * bigint (both are int64 Datums).  Hashes must equal bigint's, since the
 * hash family mixes the two types.
 */
#define INT8_ENTRY_POINT(name, int8fn) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	return int8fn(fcinfo); \
}

INT8_ENTRY_POINT(snowflake_eq, int8eq)
INT8_ENTRY_POINT(snowflake_ne, int8ne)
INT8_ENTRY_POINT(snowflake_lt, int8lt)
INT8_ENTRY_POINT(snowflake_le, int8le)
INT8_ENTRY_POINT(snowflake_gt, int8gt)
INT8_ENTRY_POINT(snowflake_ge, int8ge)
INT8_ENTRY_POINT(snowflake_cmp, btint8cmp)
INT8_ENTRY_POINT(snowflake_hash, hashint8)
INT8_ENTRY_POINT(snowflake_hash_extended, hashint8extended)
INT8_ENTRY_POINT(snowflake_larger, int8larger)
INT8_ENTRY_POINT(snowflake_smaller, int8smaller)
