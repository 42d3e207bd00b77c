/*-------------------------------------------------------------------------
 *
 * operators.c
 *	  Planner support for comparisons between snowflake and bigint.
 *
 * The comparison operators between snowflake and bigint are members of
 * snowflake's own operator families, so an index on a snowflake column
 * serves "id = 42" directly.  An index on a bigint column belongs to the
 * core integer family, which knows nothing of snowflake; for
 *		orders.id >= snowflake_from_timestamp(...)
 * (orders.id bigint) to use it, the operators' functions carry this support
 * function.  Asked for an index condition, it returns the same comparison
 * written with the core bigint operator, the snowflake side relabeled as
 * bigint: the two types share their representation, so the condition is
 * exact, not lossy.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/operators.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/lsyscache.h"

#include "snowflake.h"

PG_FUNCTION_INFO_V1(snowflake_int8_support);

/*
 * Returns the operator name that means the same with the operands swapped,
 * or NULL for operators an index cannot use.
 */
static const char *
commuted_operator_name(const char *name)
{
	if (strcmp(name, "=") == 0)
		return "=";
	if (strcmp(name, "<") == 0)
		return ">";
	if (strcmp(name, "<=") == 0)
		return ">=";
	if (strcmp(name, ">") == 0)
		return "<";
	if (strcmp(name, ">=") == 0)
		return "<=";
	return NULL;
}

static Expr *
as_int8(Node *node)
{
	if (exprType(node) == INT8OID)
		return (Expr *) node;
	return (Expr *) makeRelabelType((Expr *) node, INT8OID, -1, InvalidOid,
									COERCE_IMPLICIT_CAST);
}

/*
 * snowflake_int8_support(internal) RETURNS internal
 *
 * Handles SupportRequestIndexCondition for the snowflake/bigint comparison
 * operators; returns NULL for every other request.
 */
Datum
snowflake_int8_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestIndexCondition *req;
	OpExpr	   *clause;
	Node	   *indexkey;
	Node	   *other;
	const char *opname;
	Oid			int8_op;

	if (!IsA(rawreq, SupportRequestIndexCondition))
		PG_RETURN_POINTER(NULL);

	req = (SupportRequestIndexCondition *) rawreq;
	if (!is_opclause(req->node))
		PG_RETURN_POINTER(NULL);
	clause = (OpExpr *) req->node;
	if (list_length(clause->args) != 2 ||
		req->indexarg < 0 || req->indexarg > 1)
		PG_RETURN_POINTER(NULL);

	indexkey = (Node *) list_nth(clause->args, req->indexarg);
	other = (Node *) list_nth(clause->args, 1 - req->indexarg);

	/* the index condition must have the index key on the left */
	opname = get_opname(clause->opno);
	if (opname == NULL)
		PG_RETURN_POINTER(NULL);
	if (req->indexarg == 1)
		opname = commuted_operator_name(opname);
	if (opname == NULL || strcmp(opname, "<>") == 0)
		PG_RETURN_POINTER(NULL);

	/* the index's family must know the core bigint operator */
	int8_op = OpernameGetOprid(list_make2(makeString("pg_catalog"),
										  makeString(pstrdup(opname))),
							   INT8OID, INT8OID);
	if (!OidIsValid(int8_op) || !op_in_opfamily(int8_op, req->opfamily))
		PG_RETURN_POINTER(NULL);

	req->lossy = false;
	PG_RETURN_POINTER(list_make1(make_opclause(int8_op, BOOLOID, false,
											   as_int8(indexkey),
											   as_int8(other),
											   InvalidOid, InvalidOid)));
}
