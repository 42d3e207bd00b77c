/*-------------------------------------------------------------------------
 *
 * observe.c
 *	  Causal order across servers, from SQL: snowflake_observe(id) and the
 *	  trigger snowflake_observe_trigger(), which make every ID this server
 *	  issues from then on greater than an ID seen elsewhere
 *	  (snowflake_generator_observe() in generator.c does the work).
 *
 * The trigger is for tables a subscription writes into: attached
 * ENABLE ALWAYS, it fires in logical replication's apply worker (native or
 * pglogical, which run as session_replication_role = replica) and
 * observes the key of every applied row, so that a row written here after
 * one that arrived gets a larger ID.  Arguments: the key column (default
 * "id"), and "strict" to raise an error, instead of only counting, for an
 * ID it cannot follow: too far ahead of this server's clock, or observed
 * while the generator is closed.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/observe.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "generator.h"
#include "layout.h"

PG_FUNCTION_INFO_V1(snowflake_observe);
PG_FUNCTION_INFO_V1(snowflake_observe_trigger);

/*
 * snowflake_observe(id) RETURNS boolean: every ID this server issues from
 * now on is greater than id; true when that moved the generator, false
 * when it was above already.  An ID too far ahead of this server's clock
 * to follow (more than snowflake.max_borrow), or any ID while the
 * generator is closed, is an error.
 */
Datum
snowflake_observe(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);

	snowflake_check_id(id);
	PG_RETURN_BOOL(snowflake_generator_observe(id, true, ERROR) == OBSERVE_MOVED);
}

/* What a trigger needs, found once per query (fn_extra) */
typedef struct ObserveTrigger
{
	Oid			relid;
	Oid			tgoid;
	AttrNumber	attnum;
	bool		strict;
} ObserveTrigger;

/*
 * True when type is bigint or the extension's snowflake type, or a domain
 * over either.  The extension's type is the one named snowflake in the
 * schema of the trigger function: a type of that name elsewhere may be
 * anything.
 */
static bool
is_id_type(Oid type, Oid function)
{
	HeapTuple	tuple;
	Form_pg_type form;
	bool		result;

	type = getBaseType(type);
	if (type == INT8OID)
		return true;
	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	if (!HeapTupleIsValid(tuple))
		return false;
	form = (Form_pg_type) GETSTRUCT(tuple);
	result = strcmp(NameStr(form->typname), "snowflake") == 0 &&
		form->typnamespace == get_func_namespace(function) &&
		form->typlen == 8 && form->typbyval;
	ReleaseSysCache(tuple);
	return result;
}

static ObserveTrigger *
trigger_setup(FunctionCallInfo fcinfo, TriggerData *trigdata)
{
	ObserveTrigger *cache = (ObserveTrigger *) fcinfo->flinfo->fn_extra;
	Trigger    *trigger = trigdata->tg_trigger;
	Relation	rel = trigdata->tg_relation;
	const char *column = "id";
	AttrNumber	attnum;

	if (cache != NULL && cache->relid == RelationGetRelid(rel) &&
		cache->tgoid == trigger->tgoid)
		return cache;

	if (trigger->tgnargs > 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\" gives snowflake_observe_trigger() %d arguments",
						trigger->tgname, trigger->tgnargs),
				 errhint("Give the key column, and \"strict\" if an ID too far ahead must be an error.")));
	if (trigger->tgnargs >= 1)
		column = trigger->tgargs[0];
	if (trigger->tgnargs == 2 && strcmp(trigger->tgargs[1], "strict") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid argument \"%s\" of trigger \"%s\"",
						trigger->tgargs[1], trigger->tgname),
				 errhint("The second argument, if any, must be \"strict\".")));
	attnum = SPI_fnumber(RelationGetDescr(rel), column);
	if (attnum <= 0 ||
		!is_id_type(TupleDescAttr(RelationGetDescr(rel), attnum - 1)->atttypid,
					fcinfo->flinfo->fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("table \"%s\" has no column \"%s\" of type bigint or snowflake",
						RelationGetRelationName(rel), column),
				 errhint("Name the key column as the first argument of snowflake_observe_trigger().")));

	cache = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(ObserveTrigger));
	cache->relid = RelationGetRelid(rel);
	cache->tgoid = trigger->tgoid;
	cache->attnum = attnum;
	cache->strict = trigger->tgnargs == 2;
	fcinfo->flinfo->fn_extra = cache;
	return cache;
}

/*
 * snowflake_observe_trigger() RETURNS trigger: observes the key of the row
 * inserted or updated, for each row, before or after; NULLs and negative
 * values (no IDs) are passed over.
 */
Datum
snowflake_observe_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	ObserveTrigger *cache;
	HeapTuple	tuple;
	Datum		value;
	bool		isnull;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("snowflake_observe_trigger() must be called as a trigger")));
	if (!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) ||
		!(TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) ||
		  TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event)))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("snowflake_observe_trigger() must be fired for each row, on INSERT or UPDATE")));

	cache = trigger_setup(fcinfo, trigdata);
	tuple = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ?
		trigdata->tg_newtuple : trigdata->tg_trigtuple;
	value = heap_getattr(tuple, cache->attnum,
						 RelationGetDescr(trigdata->tg_relation), &isnull);
	if (!isnull && DatumGetInt64(value) >= 0)
		(void) snowflake_generator_observe(DatumGetInt64(value), cache->strict, ERROR);

	/* a BEFORE trigger keeps the row as it is; an AFTER one returns nothing */
	if (TRIGGER_FIRED_BEFORE(trigdata->tg_event))
		return PointerGetDatum(tuple);
	return PointerGetDatum(NULL);
}
