/*-------------------------------------------------------------------------
 *
 * records.c
 *	  The row types of the extension's record-returning SQL functions.
 *
 * The C code fills a fixed number of columns, and the SQL declaration of
 * the function decides its row type.  A library newer than the SQL objects
 * (installed, but ALTER EXTENSION ... UPDATE not run yet) could disagree
 * with them; these helpers raise an error then, rather than return
 * misaligned columns.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/records.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/regproc.h"

#include "records.h"

/*
 * Returns the blessed row type the calling function was declared with,
 * after checking that it has natts columns.
 */
TupleDesc
snowflake_result_tupdesc(FunctionCallInfo fcinfo, int natts)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	snowflake_check_result_columns(fcinfo, tupdesc, natts);
	return BlessTupleDesc(tupdesc);
}

/*
 * Raises an error unless tupdesc, the row type of the calling function,
 * has natts columns.
 */
void
snowflake_check_result_columns(FunctionCallInfo fcinfo, TupleDesc tupdesc,
							   int natts)
{
	if (tupdesc->natts != natts)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("function %s returns %d columns, but the snowflake library fills %d",
						format_procedure(fcinfo->flinfo->fn_oid),
						tupdesc->natts, natts),
				 errhint("Run ALTER EXTENSION snowflake UPDATE to bring the SQL objects up to date with the library.")));
}
