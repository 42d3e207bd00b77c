/*-------------------------------------------------------------------------
 *
 * type_io.c
 *	  Input and conversion functions of the snowflake type.
 *
 * A snowflake is stored exactly like a bigint; every non-negative int64 is
 * a valid value.  Output and binary send are bigint's; input, binary
 * receive and the casts from bigint and integer reject negative values and
 * name the type in their errors.  Text that looks like a date or time gets
 * a hint: an untyped literal compared with a snowflake is read as an ID
 * ("WHERE id >= '2026-11-25'"), and the fix is to type it.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/type_io.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "libpq/pqformat.h"
#include "nodes/nodes.h"
#include "utils/fmgrprotos.h"

#include "compat.h"
#include "layout.h"

PG_FUNCTION_INFO_V1(snowflake_in);
PG_FUNCTION_INFO_V1(snowflake_out);
PG_FUNCTION_INFO_V1(snowflake_send);
PG_FUNCTION_INFO_V1(snowflake_recv);
PG_FUNCTION_INFO_V1(snowflake_from_int8);
PG_FUNCTION_INFO_V1(snowflake_from_int4);

/*
 * Whether text that is not an ID looks like a date or a time: digits, then
 * "-", "/" or "." with digits, then the same separator with digits
 * ("2026-11-25", "25.11.2026"); digits, ":" and digits ("10:30"); or one of
 * the words PostgreSQL reads as a time ("now", "today", ...).  Only a hint
 * depends on it.
 */
static bool
looks_like_time(const char *p)
{
	static const char *const words[] = {"now", "today", "tomorrow", "yesterday"};
	char		sep;

	while (isspace((unsigned char) *p))
		p++;
	for (size_t i = 0; i < lengthof(words); i++)
	{
		size_t		len = strlen(words[i]);
		const char *rest = p + len;

		if (pg_strncasecmp(p, words[i], len) != 0)
			continue;
		while (isspace((unsigned char) *rest))
			rest++;
		if (*rest == '\0')
			return true;
	}

	if (!isdigit((unsigned char) *p))
		return false;
	while (isdigit((unsigned char) *p))
		p++;
	if (*p == ':')
		return isdigit((unsigned char) p[1]);
	sep = *p;
	if (sep != '-' && sep != '/' && sep != '.')
		return false;
	p++;
	if (!isdigit((unsigned char) *p))
		return false;
	while (isdigit((unsigned char) *p))
		p++;
	return *p == sep && isdigit((unsigned char) p[1]);
}

/*
 * snowflake_in(cstring) RETURNS snowflake
 *
 * Accepts a decimal integer from 0 to 2^63-1 with optional surrounding
 * white space and an optional sign ("-0" is zero).  Reports soft errors
 * when the caller provides an error context (PostgreSQL 16 and later).
 */
Datum
snowflake_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Node	   *escontext = fcinfo->context;
	const char *p = str;
	bool		negative = false;
	uint64		value = 0;

	while (isspace((unsigned char) *p))
		p++;
	if (*p == '+')
		p++;
	else if (*p == '-')
	{
		negative = true;
		p++;
	}

	if (!isdigit((unsigned char) *p))
		goto invalid_syntax;

	while (isdigit((unsigned char) *p))
	{
		int			digit = *p - '0';

		if (value > (uint64) (PG_INT64_MAX - digit) / 10)
			goto out_of_range;
		value = value * 10 + digit;
		p++;
	}

	while (isspace((unsigned char) *p))
		p++;
	if (*p != '\0')
		goto invalid_syntax;

	if (negative && value != 0)
		goto out_of_range;

	PG_RETURN_INT64((int64) value);

invalid_syntax:
	ereturn(escontext, (Datum) 0,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"",
					"snowflake", str),
			 looks_like_time(str) ?
			 errhint("Text given as a snowflake is read as an ID. To compare IDs with a time, cast the time to timestamptz, as in '2026-11-25'::timestamptz.") : 0));

out_of_range:
	ereturn(escontext, (Datum) 0,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value \"%s\" is out of range for type %s",
					str, "snowflake")));
}

/*
 * snowflake_out(snowflake) RETURNS cstring, and snowflake_send(snowflake)
 * RETURNS bytea: bigint's, through a C entry point of this library (see
 * operators.c for why not LANGUAGE internal).
 */
Datum
snowflake_out(PG_FUNCTION_ARGS)
{
	return int8out(fcinfo);
}

Datum
snowflake_send(PG_FUNCTION_ARGS)
{
	return int8send(fcinfo);
}

/*
 * snowflake_recv(internal) RETURNS snowflake
 *
 * The binary format is int8's: eight bytes in network byte order.
 */
Datum
snowflake_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int64		value = pq_getmsgint64(buf);

	snowflake_check_id(value);
	PG_RETURN_INT64(value);
}

/*
 * snowflake(bigint) RETURNS snowflake: the assignment cast from bigint.
 */
Datum
snowflake_from_int8(PG_FUNCTION_ARGS)
{
	int64		value = PG_GETARG_INT64(0);

	snowflake_check_id(value);
	PG_RETURN_INT64(value);
}

/*
 * snowflake(integer) RETURNS snowflake: the assignment cast from integer,
 * so that "INSERT ... VALUES (42)" works on a snowflake column.
 */
Datum
snowflake_from_int4(PG_FUNCTION_ARGS)
{
	int32		value = PG_GETARG_INT32(0);

	snowflake_check_id((int64) value);
	PG_RETURN_INT64((int64) value);
}
