/*-------------------------------------------------------------------------
 *
 * node_info.c
 *	  snowflake_node_info(): what a peer's checker (peer_checker.c) asks
 *	  this server about itself.
 *
 * Node ID, instance token, start time, recovery state, clock, layout and
 * since when this server generates IDs: nothing secret, so every role may
 * call it, and the peer checker may connect as any role.  Times are Unix
 * milliseconds, to spare the caller any time zone.
 *
 * It fills the columns its SQL declaration has: 8 in version 1.5, 10 in
 * 1.6 (generating_since_ms, and last_id, the last ID this server issued
 * since it started or was promoted), 12 from 1.7 (claiming and admitted,
 * which the peers' claim-then-ask reads: peer_checker.c), so that the
 * library works under each until ALTER EXTENSION ... UPDATE.  The checker
 * reads columns by name and copes with any of them.
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

#include "admission.h"
#include "clock.h"
#include "generator.h"
#include "identity.h"
#include "layout.h"
#include "records.h"
#include "settings.h"
#include "workers.h"

PG_FUNCTION_INFO_V1(snowflake_node_info);

#define NODE_INFO_COLUMNS_1_5	8
#define NODE_INFO_COLUMNS_1_6	10
#define NODE_INFO_COLUMNS		12

/*
 * snowflake_node_info() RETURNS record (node_id, instance_token,
 * started_at_ms, in_recovery, clock_ms, epoch_ms, node_bits, sequence_bits,
 * generating_since_ms, last_id, claiming, admitted)
 */
Datum
snowflake_node_info(PG_FUNCTION_ARGS)
{
	const SnowflakeLayout *layout = snowflake_layout();
	SnowflakeGeneratorStatus gen;
	TupleDesc	tupdesc;
	Datum		values[NODE_INFO_COLUMNS];
	bool		nulls[NODE_INFO_COLUMNS] = {false};
	int			natts;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	natts = tupdesc->natts == NODE_INFO_COLUMNS_1_5 ? NODE_INFO_COLUMNS_1_5 :
		tupdesc->natts == NODE_INFO_COLUMNS_1_6 ? NODE_INFO_COLUMNS_1_6 :
		NODE_INFO_COLUMNS;
	tupdesc = snowflake_result_tupdesc(fcinfo, natts);

	values[0] = Int32GetDatum(snowflake_identity_node_id());
	values[1] = Int64GetDatum(snowflake_instance_token());
	values[2] = Int64GetDatum(PgStartTime / 1000 + SNOWFLAKE_PG_EPOCH_UNIX_MS);
	values[3] = BoolGetDatum(RecoveryInProgress());
	values[4] = Int64GetDatum(snowflake_wall_clock_ms());
	values[5] = Int64GetDatum(layout->epoch_ms);
	values[6] = Int32GetDatum(layout->node_bits);
	values[7] = Int32GetDatum(layout->seq_bits);

	/* NULL: no IDs reserved since this server started or was promoted */
	snowflake_generator_status(&gen);
	values[8] = Int64GetDatum(gen.generating_since_ms);
	nulls[8] = gen.generating_since_ms == 0;

	if (natts >= NODE_INFO_COLUMNS_1_6)
	{
		int32		node_id = snowflake_identity_node_id();

		/*
		 * NULL: none issued since start or promotion (the floor a restart
		 * or a replayed reservation sets is no ID handed out), or no node
		 * ID to make one with
		 */
		nulls[9] = gen.generating_since_ms == 0 || gen.last_slot < 0 ||
			node_id < 0;
		values[9] = nulls[9] ? (Datum) 0 :
			Int64GetDatum(snowflake_slot_to_id(layout, gen.last_slot, node_id));
	}
	if (natts >= NODE_INFO_COLUMNS)
	{
		bool		claiming;
		bool		admitted;

		snowflake_admission_claim_state(&claiming, &admitted);
		values[10] = BoolGetDatum(claiming);
		values[11] = BoolGetDatum(admitted);
	}

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
