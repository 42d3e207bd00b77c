/*-------------------------------------------------------------------------
 *
 * operators.c
 *	  Planner support for comparisons between snowflake and bigint.
 *
 * The comparison operators between snowflake and bigint are members of
 * snowflake's own operator families, so an index on a snowflake column
 * serves "id = 42" directly.  An index on a bigint column, or a table
 * partitioned on one, belongs to the core integer family, which knows
 * nothing of snowflake.  For
 *		orders.id >= snowflake_from_timestamp(...)		(orders.id bigint)
 * to use them anyway, the operators' functions carry a support function:
 *
 * - SupportRequestSimplify: when the bigint side refers to columns and the
 *	 snowflake side does not, the comparison is rewritten with the core
 *	 bigint operator, the snowflake side relabeled as bigint.  The planner
 *	 then treats it like any bigint comparison: index scans, partition
 *	 pruning, statistics.
 * - SupportRequestIndexCondition: for the remaining cases (a join between
 *	 a bigint and a snowflake column, "id::snowflake = ..." on a bigint
 *	 column), the same rewriting is offered as an index condition.
 *
 * Both are exact: the two types share their representation.
 *
 * The comparison and hash functions themselves are bigint's, called
 * through thin C entry points of this library rather than declared
 * LANGUAGE internal: the executor looks an internal function up by name in
 * the list of all built-in functions each time it prepares a call, which
 * costs more than the comparison, whereas C functions of a loaded library
 * are found in a hash table.
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
#include "optimizer/optimizer.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"

#include "snowflake.h"

PG_FUNCTION_INFO_V1(snowflake_int8_support);

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

/*
 * Returns node as a bigint expression: relabeled, never twice (the planner
 * looks through one RelabelType only).
 */
static Expr *
as_int8(Node *node)
{
	while (IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (exprType(node) == INT8OID)
		return (Expr *) node;
	return (Expr *) makeRelabelType((Expr *) node, INT8OID, -1, InvalidOid,
									COERCE_IMPLICIT_CAST);
}

/*
 * Returns the core bigint comparison operator called opname.
 */
Oid
snowflake_int8_operator(const char *opname)
{
	return OpernameGetOprid(list_make2(makeString("pg_catalog"),
									   makeString(pstrdup(opname))),
							INT8OID, INT8OID);
}

/*
 * The qualified name of one of our functions or operators: name, in the
 * schema of funcid (the extension's schema, wherever it was installed).
 * Support functions look their siblings up this way, never through the
 * search_path.
 */
List *
snowflake_sibling_name(Oid funcid, const char *name)
{
	char	   *schema = get_namespace_name(get_func_namespace(funcid));

	return list_make2(makeString(schema), makeString(pstrdup(name)));
}

/*
 * The operator name of one of our comparison functions, from its SQL name
 * (snowflake_eq, snowflake_lt, ...), or NULL.
 */
static const char *
comparison_of_function(Oid funcid)
{
	static const struct
	{
		const char *function;
		const char *op;
	}			map[] = {
		{"snowflake_eq", "="}, {"snowflake_ne", "<>"},
		{"snowflake_lt", "<"}, {"snowflake_le", "<="},
		{"snowflake_gt", ">"}, {"snowflake_ge", ">="}
	};
	char	   *name = get_func_name(funcid);

	if (name == NULL)
		return NULL;
	for (int i = 0; i < (int) lengthof(map); i++)
	{
		if (strcmp(name, map[i].function) == 0)
			return map[i].op;
	}
	return NULL;
}

/*
 * SupportRequestSimplify: "bigint column OP snowflake value" (either order)
 * becomes the core bigint comparison.
 */
static Node *
simplify_comparison(SupportRequestSimplify *req)
{
	FuncExpr   *call = req->fcall;
	Node	   *left;
	Node	   *right;
	Node	   *int8_side;
	Node	   *snowflake_side;
	const char *opname;
	Oid			opno;
	OpExpr	   *result;

	if (list_length(call->args) != 2)
		return NULL;
	left = (Node *) linitial(call->args);
	right = (Node *) lsecond(call->args);
	if (exprType(left) == INT8OID)
	{
		int8_side = left;
		snowflake_side = right;
	}
	else
	{
		int8_side = right;
		snowflake_side = left;
	}

	/* only columns of type bigint compared with a snowflake value */
	if (exprType(int8_side) != INT8OID || exprType(snowflake_side) == INT8OID ||
		!contain_var_clause(int8_side) || contain_var_clause(snowflake_side))
		return NULL;

	opname = comparison_of_function(call->funcid);
	if (opname == NULL)
		return NULL;
	opno = snowflake_int8_operator(opname);
	if (!OidIsValid(opno))
		return NULL;

	result = (OpExpr *) make_opclause(opno, BOOLOID, false,
									  as_int8(left), as_int8(right),
									  InvalidOid, InvalidOid);
	result->location = call->location;
	set_opfuncid(result);
	return (Node *) result;
}

/*
 * snowflake_int8_support(internal) RETURNS internal
 *
 * Handles SupportRequestSimplify and SupportRequestIndexCondition for the
 * snowflake/bigint comparison operators; returns NULL for every other
 * request and for every case it does not handle.
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

	if (IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(simplify_comparison((SupportRequestSimplify *) rawreq));

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
	int8_op = snowflake_int8_operator(opname);
	if (!OidIsValid(int8_op) || !op_in_opfamily(int8_op, req->opfamily))
		PG_RETURN_POINTER(NULL);

	req->lossy = false;
	PG_RETURN_POINTER(list_make1(make_opclause(int8_op, BOOLOID, false,
											   as_int8(indexkey),
											   as_int8(other),
											   InvalidOid, InvalidOid)));
}
