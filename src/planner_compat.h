/*-------------------------------------------------------------------------
 *
 * planner_compat.h
 *	  The differences between PostgreSQL major versions that the planner
 *	  support functions depend on: when a column reference can be NULL
 *	  although its column is declared NOT NULL.
 *
 * Included by planner_support.c only; every other version switch lives in
 * compat.h.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/planner_compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_PLANNER_COMPAT_H
#define SNOWFLAKE_PLANNER_COMPAT_H

#include "access/tupdesc.h"
#include "nodes/parsenodes.h"
#include "nodes/primnodes.h"

/*
 * Whether an outer join of query can make var NULL.  From 16 on the parser
 * records that in the Var (varnullingrels); before, any outer join in the
 * query counts.
 */
#if PG_VERSION_NUM >= 160000
#define snowflake_var_may_be_nulled(query, var) \
	(!bms_is_empty((var)->varnullingrels))
#else
static inline bool
snowflake_var_may_be_nulled(Query *query, Var *var)
{
	ListCell   *lc;

	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		if (rte->rtekind == RTE_JOIN && rte->jointype != JOIN_INNER)
			return true;
	}
	return false;
}
#endif

/*
 * Whether var is "old.col" or "new.col" of a RETURNING list (18).  Such a
 * Var is NULL where that row does not exist (old of an INSERT, new of a
 * DELETE, either in MERGE), whatever the column's constraints.
 */
#if PG_VERSION_NUM >= 180000
#define snowflake_var_is_old_or_new(var) \
	((var)->varreturningtype != VAR_RETURNING_DEFAULT)
#else
#define snowflake_var_is_old_or_new(var) ((void) (var), false)
#endif

/*
 * Whether column attnum of the relation described by tupdesc (a relcache
 * descriptor) has a validated NOT NULL constraint: no row of that relation
 * itself holds a NULL there.  From 18 on a NOT NULL constraint can be
 * added NOT VALID, which sets attnotnull while existing rows keep their
 * NULLs; the relcache records whether the constraint is validated.  Before
 * 18 attnotnull is only ever set on a validated column.
 */
static inline bool
snowflake_column_never_null(TupleDesc tupdesc, AttrNumber attnum)
{
	if (attnum < 1 || attnum > tupdesc->natts)
		return false;
#if PG_VERSION_NUM >= 180000
	return TupleDescCompactAttr(tupdesc, attnum - 1)->attnullability ==
		ATTNULLABLE_VALID;
#else
	return TupleDescAttr(tupdesc, attnum - 1)->attnotnull;
#endif
}

/*
 * Whether PostgreSQL guarantees that every partition of a partitioned
 * table has a validated NOT NULL constraint on each column where the
 * partitioned table has one.
 *
 * 15 to 17: yes.  Dropping the partition's NOT NULL is refused ("column is
 * marked NOT NULL in parent table"), ATTACH PARTITION refuses a table (or a
 * partitioned table) whose column is nullable, and SET NOT NULL on the
 * partitioned table either reaches every partition or is refused ("must be
 * added to child tables too"); NOT VALID does not exist for NOT NULL.
 *
 * 18 and later: no.  "ALTER TABLE parent ALTER col SET NOT NULL" accepts a
 * partition whose NOT NULL constraint was added NOT VALID, adopts that
 * constraint as the inherited one and leaves it not validated, so the
 * partitioned table's constraint is valid while the partition holds NULLs
 * (PostgreSQL's own planner then drops "col IS NULL" as always false).
 * Checked on 18.4 and 19beta2.
 */
#if PG_VERSION_NUM >= 180000
#define SNOWFLAKE_PARTITIONS_KEEP_NOT_NULL false
#else
#define SNOWFLAKE_PARTITIONS_KEEP_NOT_NULL true
#endif

#endif							/* SNOWFLAKE_PLANNER_COMPAT_H */
