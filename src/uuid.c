/*-------------------------------------------------------------------------
 *
 * uuid.c
 *	  The bridge between snowflake IDs and UUIDv7 (RFC 9562).
 *
 * snowflake_to_uuid() maps an ID to the UUIDv7 of the same millisecond:
 *
 *	 48 bits  unix_ts_ms   the ID's time, as Unix milliseconds
 *	  4 bits  version      7
 *	 12 bits  rand_a   \
 *	  2 bits  variant   >  the ID's node and sequence fields, most
 *	 62 bits  rand_b   /   significant first, then zeros
 *
 * RFC 9562 lets these 74 bits hold a counter instead of random data
 * (section 6.2); here they hold the ID's own node and sequence, so the UUID
 * is unique whenever the ID is, the mapping is one-to-one, and UUIDs sort
 * (by their bytes, as PostgreSQL compares uuid) exactly as the IDs do.
 * snowflake_from_uuid() inverts it; it refuses UUIDs that are not the image
 * of an ID in this layout, such as a random UUIDv7.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/uuid.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/uuid.h"

#include "layout.h"

PG_FUNCTION_INFO_V1(snowflake_to_uuid);
PG_FUNCTION_INFO_V1(snowflake_from_uuid);

#define UUID_UNIX_MS_BITS	48
#define UUID_PAYLOAD_BITS	74	/* rand_a and rand_b together */

/*
 * snowflake_to_uuid(snowflake) RETURNS uuid
 */
Datum
snowflake_to_uuid(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	const SnowflakeLayout *layout;
	pg_uuid_t  *uuid = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));
	int64		unix_ms;
	uint64		low;
	uint64		rand_a;
	uint64		rand_b;

	snowflake_check_id(id);
	layout = snowflake_layout();

	unix_ms = layout->epoch_ms + snowflake_id_ms(layout, id);
	if (unix_ms >= (INT64CONST(1) << UUID_UNIX_MS_BITS))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("snowflake ID %lld is too late for a UUIDv7 timestamp",
						(long long) id)));

	/* node and sequence, left-aligned in the 74 payload bits */
	low = snowflake_id_tail(layout, id);
	rand_a = low >> (layout->shift - Min(layout->shift, 12));
	rand_a <<= 12 - Min(layout->shift, 12);
	rand_b = layout->shift > 12 ?
		(low & ((UINT64CONST(1) << (layout->shift - 12)) - 1)) << (62 - (layout->shift - 12)) :
		0;

	for (int i = 0; i < 6; i++)
		uuid->data[i] = (unsigned char) (unix_ms >> (8 * (5 - i)));
	uuid->data[6] = (unsigned char) (0x70 | (rand_a >> 8));
	uuid->data[7] = (unsigned char) rand_a;
	uuid->data[8] = (unsigned char) (0x80 | ((rand_b >> 56) & 0x3f));
	for (int i = 9; i < 16; i++)
		uuid->data[i] = (unsigned char) (rand_b >> (8 * (15 - i)));

	PG_RETURN_UUID_P(uuid);
}

/*
 * snowflake_from_uuid(uuid) RETURNS snowflake
 */
Datum
snowflake_from_uuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *uuid = PG_GETARG_UUID_P(0);
	const SnowflakeLayout *layout;
	int64		unix_ms = 0;
	int64		ms;
	uint64		rand_a;
	uint64		rand_b = 0;
	uint64		low;
	uint64		rest;

	if ((uuid->data[6] >> 4) != 7 || (uuid->data[8] >> 6) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("UUID is not a version 7 UUID"),
				 errdetail("Only UUIDv7 values carry a millisecond timestamp.")));

	for (int i = 0; i < 6; i++)
		unix_ms = (unix_ms << 8) | uuid->data[i];
	rand_a = ((uint64) (uuid->data[6] & 0x0f) << 8) | uuid->data[7];
	rand_b = uuid->data[8] & 0x3f;
	for (int i = 9; i < 16; i++)
		rand_b = (rand_b << 8) | uuid->data[i];

	layout = snowflake_layout();

	/* the 74 payload bits as rand_a:rand_b; node and sequence lead */
	if (layout->shift <= 12)
	{
		low = rand_a >> (12 - layout->shift);
		rest = (rand_a & ((UINT64CONST(1) << (12 - layout->shift)) - 1)) | rand_b;
	}
	else
	{
		int			from_b = layout->shift - 12;

		low = (rand_a << from_b) | (rand_b >> (62 - from_b));
		rest = rand_b & ((UINT64CONST(1) << (62 - from_b)) - 1);
	}
	if (rest != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("UUID does not correspond to a snowflake ID"),
				 errdetail("Its bits after the node and sequence fields are not zero, as they are in UUIDs made by snowflake_to_uuid()."),
				 errhint("For the first ID of its millisecond, use snowflake_from_timestamp() on the UUID's time.")));

	ms = unix_ms - layout->epoch_ms;
	if (ms < 0 || ms > layout->max_ms)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("UUID timestamp %s is outside the snowflake time range",
						snowflake_unix_ms_to_str(unix_ms)),
				 errdetail("Snowflake IDs represent times from %s to before %s.",
						   snowflake_unix_ms_to_str(layout->epoch_ms),
						   snowflake_unix_ms_to_str(layout->epoch_ms + layout->max_ms + 1))));

	PG_RETURN_INT64(snowflake_id_from_tail(layout, ms, low));
}
