/*-------------------------------------------------------------------------
 *
 * node_info.c
 *	  snowflake_node_info(): what a peer's checker (peer_checker.c) asks
 *	  this server about itself.
 *
 * Node ID, instance token, start time, recovery state, clock and layout:
 * nothing secret, so every role may call it, and the peer checker may
 * connect as any role.  Times are Unix milliseconds, to spare the caller
 * any time zone.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/node_info.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/timestamp.h"

#include "clock.h"
#include "layout.h"
#include "records.h"
#include "settings.h"
#include "workers.h"

PG_FUNCTION_INFO_V1(snowflake_node_info);

/*
 * snowflake_node_info() RETURNS record (node_id, instance_token,
 * started_at_ms, in_recovery, clock_ms, epoch_ms, node_bits, sequence_bits)
 */
Datum
snowflake_node_info(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout = snowflake_layout();
	TupleDesc	tupdesc;
	Datum		values[8];
	bool		nulls[8] = {false};

	tupdesc = snowflake_result_tupdesc(fcinfo, 8);

	values[0] = Int32GetDatum(snowflake_node_id);
	values[1] = Int64GetDatum(snowflake_instance_token());
	values[2] = Int64GetDatum(PgStartTime / 1000 + SNOWFLAKE_PG_EPOCH_UNIX_MS);
	values[3] = BoolGetDatum(RecoveryInProgress());
	values[4] = Int64GetDatum(snowflake_wall_clock_ms());
	values[5] = Int64GetDatum(layout->epoch_ms);
	values[6] = Int32GetDatum(layout->node_bits);
	values[7] = Int32GetDatum(layout->seq_bits);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
