/*-------------------------------------------------------------------------
 *
 * planner_support.c
 *	  Every planner support function of the extension, in one place.  Each
 *	  rewrites a call into an equivalent expression the planner can do more
 *	  with; each returns NULL for requests and cases it does not handle.
 *
 * snowflake_int8_support: comparisons between snowflake and bigint.
 *	 The comparison operators between snowflake and bigint are members of
 *	 snowflake's own operator families, so an index on a snowflake column
 *	 serves "id = 42" directly.  An index on a bigint column, or a table
 *	 partitioned on one, belongs to the core integer family, which knows
 *	 nothing of snowflake.  For
 *		orders.id >= snowflake_from_timestamp(...)		(orders.id bigint)
 *	 to use them anyway:
 *	 - SupportRequestSimplify: when the bigint side refers to columns and
 *	   the snowflake side does not, the comparison is rewritten with the
 *	   core bigint operator, the snowflake side relabeled as bigint.  The
 *	   planner then treats it like any bigint comparison: index scans,
 *	   partition pruning, statistics.
 *	 - SupportRequestIndexCondition: for comparisons with columns on both
 *	   sides (outer joins, range joins), the same rewriting is offered as
 *	   an index condition of the bigint index.  An inner equi-join never
 *	   gets here: the planner makes it an equivalence class of snowflake's
 *	   family, which a bigint index cannot serve, so such joins probe a
 *	   bigint key only with the snowflake side cast to bigint (the
 *	   regression test operators shows both).
 *	 Both are exact: the two types share their representation.
 *
 * snowflake_time_support: comparisons of IDs with times (time_ops.c),
 *	 rewritten into comparisons of the ID with ID bounds, which are in
 *	 snowflake's btree family: index scans, BRIN, partition pruning and
 *	 selectivity estimates then work on plain ID comparisons.  A bigint
 *	 cast to snowflake is compared as a bigint, on bigint indexes, behind a
 *	 guard that raises the cast's error for a negative one.
 *
 * snowflake_decode_support: snowflake_decode(id) becomes
 *	 ROW(snowflake_timestamp(id), snowflake_node_id(id), snowflake_seq(id)),
 *	 so that a field selection costs one scalar call, where id cannot be
 *	 NULL.
 *
 * A rewrite never changes a result: the rewritten expression gives the
 * value the call gives, and raises the error the call raises, wherever it
 * is evaluated.  Only as a qual in WHERE may a row whose evaluation would
 * raise be left out, by an index condition that never visits it, as with
 * any index scan.  The regression test rewrites checks each against its
 * unrewritten form.
 *
 * Siblings (the functions and operators a rewrite builds) are looked up in
 * the schema of the function being rewritten, never through the
 * search_path.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/planner_support.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "planner_compat.h"
#include "layout.h"
#include "time_compare.h"

PG_FUNCTION_INFO_V1(snowflake_int8_support);
PG_FUNCTION_INFO_V1(snowflake_time_support);
PG_FUNCTION_INFO_V1(snowflake_decode_support);

/* ----------
 * Helpers
 * ----------
 */

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
static Oid
int8_operator(const char *opname)
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
static List *
sibling_name(Oid funcid, const char *name)
{
	char	   *schema = get_namespace_name(get_func_namespace(funcid));

	return list_make2(makeString(schema), makeString(pstrdup(name)));
}

/* ----------
 * snowflake_int8_support
 * ----------
 */

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
	opno = int8_operator(opname);
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
	int8_op = int8_operator(opname);
	if (!OidIsValid(int8_op) || !op_in_opfamily(int8_op, req->opfamily))
		PG_RETURN_POINTER(NULL);

	req->lossy = false;
	PG_RETURN_POINTER(list_make1(make_opclause(int8_op, BOOLOID, false,
											   as_int8(indexkey),
											   as_int8(other),
											   InvalidOid, InvalidOid)));
}

/* ----------
 * snowflake_time_support
 * ----------
 */

/*
 * If id is a bigint expression cast to snowflake ("orders.id::snowflake"
 * or "snowflake(orders.id)", through our cast function or a relabeling),
 * returns the bigint expression and sets *cast to the cast function's call
 * (NULL for a relabeling); otherwise returns NULL.  Comparing the bigint
 * directly lets the planner use bigint indexes and prune bigint-keyed
 * partitions.  The cast function rejects negative values, which the bigint
 * comparison would not: the callers make sure that no row is selected that
 * the cast would have rejected.
 */
static Node *
bigint_under_cast(Oid funcid, Node *id, FuncExpr **cast)
{
	*cast = NULL;
	if (IsA(id, RelabelType))
	{
		Node	   *arg = (Node *) ((RelabelType *) id)->arg;

		return exprType(arg) == INT8OID ? arg : NULL;
	}
	if (IsA(id, FuncExpr))
	{
		FuncExpr   *call = (FuncExpr *) id;
		char	   *name;

		if (list_length(call->args) != 1 ||
			exprType((Node *) linitial(call->args)) != INT8OID ||
			get_func_namespace(call->funcid) != get_func_namespace(funcid))
			return NULL;
		name = get_func_name(call->funcid);
		if (name != NULL && strcmp(name, "snowflake") == 0)
		{
			*cast = call;
			return (Node *) linitial(call->args);
		}
	}
	return NULL;
}

/*
 * The guard of a rewritten comparison of a bigint under our cast function
 * (cast; not a relabeling, which checks nothing):
 *
 *		(snowflake(bigint) IS NOT NULL OR bigint IS NULL)
 *
 * It is true for every bigint the cast accepts and for NULL, and raises
 * the cast's error for a negative one, exactly where the comparison it
 * guards, evaluated unrewritten, would raise it.
 */
static Expr *
cast_guard(FuncExpr *cast, Node *bigint_id)
{
	NullTest   *accepted;
	NullTest   *missing;

	accepted = makeNode(NullTest);
	accepted->arg = (Expr *) copyObject(cast);
	accepted->nulltesttype = IS_NOT_NULL;
	accepted->argisrow = false;
	accepted->location = -1;
	missing = makeNode(NullTest);
	missing->arg = (Expr *) copyObject(bigint_id);
	missing->nulltesttype = IS_NULL;
	missing->argisrow = false;
	missing->location = -1;
	return make_orclause(list_make2(accepted, missing));
}

/*
 * "id OP bound(arg)" where OP is the comparison opname between snowflake
 * and bigint (or between bigints, for a bigint cast to snowflake) and bound
 * is snowflake_last_id_before or _at (or _in) applied to arg.  For a bigint
 * under our cast function, *cast and *bigint_id are set, and the caller
 * must put cast_guard() in front of the clause.
 */
static Expr *
id_bound_clause(Oid funcid, Node *id, const char *opname,
				const char *boundfunc, Node *arg, FuncExpr **cast,
				Node **bigint_id)
{
	Oid			argtype = exprType(arg);
	Oid			boundoid;
	Oid			opno;
	FuncExpr   *bound;
	OpExpr	   *clause;

	*bigint_id = bigint_under_cast(funcid, id, cast);
	boundoid = LookupFuncName(sibling_name(funcid, boundfunc), 1, &argtype, true);
	if (*bigint_id != NULL)
	{
		id = *bigint_id;
		opno = int8_operator(opname);
	}
	else
		opno = OpernameGetOprid(sibling_name(funcid, opname), exprType(id), INT8OID);
	if (!OidIsValid(boundoid) || !OidIsValid(opno))
		return NULL;

	bound = makeFuncExpr(boundoid, INT8OID, list_make1(arg), InvalidOid,
						 InvalidOid, COERCE_EXPLICIT_CALL);
	clause = (OpExpr *) make_opclause(opno, BOOLOID, false, (Expr *) id,
									  (Expr *) bound, InvalidOid, InvalidOid);
	set_opfuncid(clause);
	return (Expr *) clause;
}

/*
 * The rewritten comparison: the bound clauses (one, or a range of two),
 * with the guard of a bigint under our cast in front:
 *
 *		(snowflake(bigint) IS NOT NULL OR bigint IS NULL) AND bigint > below
 *
 * In front, because an AND inside an expression (under NOT, in CASE, in a
 * select list) is evaluated in order and stops at the first false: a guard
 * behind a bound that a negative bigint fails would never run, and the
 * expression would be false (or, negated, true) where the comparison
 * raises the cast's error.  As a qual of its own in WHERE, the guard is a
 * filter on the rows the bounds, the index condition, select; a negative
 * key outside them is left out rather than raising, as with any index scan
 * that never visits a row.  Its estimated selectivity is close to 1, so row
 * estimates are those of the bounds.  The bigint expression then appears
 * more than once, so a volatile one is not rewritten (NULL is returned).
 */
static Node *
guarded_clause(Oid funcid, Node *id, const char *opname, const char *boundfunc,
			   const char *uptofunc, Node *arg)
{
	FuncExpr   *cast;
	Node	   *bigint_id;
	List	   *clauses;
	Expr	   *lower;

	lower = id_bound_clause(funcid, id, opname, boundfunc, arg, &cast, &bigint_id);
	if (lower == NULL)
		return NULL;
	clauses = list_make1(lower);
	if (uptofunc != NULL)
	{
		FuncExpr   *cast2;
		Node	   *bigint_id2;
		Expr	   *upper;

		upper = id_bound_clause(funcid, copyObject(id), "<=", uptofunc,
								copyObject(arg), &cast2, &bigint_id2);
		if (upper == NULL)
			return NULL;
		clauses = lappend(clauses, upper);
	}
	if (cast != NULL)
	{
		if (contain_volatile_functions(bigint_id))
			return NULL;
		clauses = lcons(cast_guard(cast, bigint_id), clauses);
	}
	if (list_length(clauses) == 1)
		return (Node *) linitial(clauses);
	return (Node *) make_andclause(clauses);
}

/*
 * A range "id > below AND id <= upto", or NULL if it cannot be built.
 */
static Node *
id_range_clause(Oid funcid, Node *id, const char *belowfunc,
				const char *uptofunc, Node *arg)
{
	/* both appear twice: do not change how often a volatile one runs */
	if (contain_volatile_functions(id) || contain_volatile_functions(arg))
		return NULL;
	return guarded_clause(funcid, id, ">", belowfunc, uptofunc, arg);
}

static Node *
simplify_time_predicate(SupportRequestSimplify *req)
{
	FuncExpr   *call = req->fcall;
	char	   *name = get_func_name(call->funcid);
	Node	   *left;
	Node	   *right;
	Node	   *id;
	Node	   *other;
	bool		id_first;
	TimeComparison cmp;

	if (name == NULL || list_length(call->args) != 2)
		return NULL;
	left = (Node *) linitial(call->args);
	right = (Node *) lsecond(call->args);
	id_first = exprType(left) != TIMESTAMPTZOID && exprType(left) != TSTZRANGEOID;
	id = id_first ? left : right;
	other = id_first ? right : left;

	if (strcmp(name, "snowflake_time_contained") == 0)
		return id_range_clause(call->funcid, id, "snowflake_last_id_before",
							   "snowflake_last_id_in", other);

	if (strcmp(name, "snowflake_time_eq") == 0)
		cmp = TC_EQ;
	else if (strcmp(name, "snowflake_time_lt") == 0)
		cmp = TC_LT;
	else if (strcmp(name, "snowflake_time_le") == 0)
		cmp = TC_LE;
	else if (strcmp(name, "snowflake_time_gt") == 0)
		cmp = TC_GT;
	else if (strcmp(name, "snowflake_time_ge") == 0)
		cmp = TC_GE;
	else
		return NULL;			/* <> selects no range: leave it */

	if (!id_first)
		cmp = snowflake_commute(cmp);

	switch (cmp)
	{
		case TC_EQ:
			return id_range_clause(call->funcid, id, "snowflake_last_id_before",
								   "snowflake_last_id_at", other);
		case TC_LT:
			return guarded_clause(call->funcid, id, "<=",
								  "snowflake_last_id_before", NULL, other);
		case TC_LE:
			return guarded_clause(call->funcid, id, "<=",
								  "snowflake_last_id_at", NULL, other);
		case TC_GT:
			return guarded_clause(call->funcid, id, ">",
								  "snowflake_last_id_at", NULL, other);
		case TC_GE:
			return guarded_clause(call->funcid, id, ">",
								  "snowflake_last_id_before", NULL, other);
		case TC_NE:
			break;
	}
	return NULL;
}

/*
 * snowflake_time_support(internal) RETURNS internal
 *
 * SupportRequestSimplify for the snowflake/timestamptz comparisons and the
 * tstzrange containment operators: replaces them by comparisons of the ID
 * with ID bounds.  Returns NULL for any other request.
 */
Datum
snowflake_time_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(simplify_time_predicate((SupportRequestSimplify *) rawreq));
	PG_RETURN_POINTER(NULL);
}

/* ----------
 * snowflake_decode_support
 * ----------
 */

/*
 * True if every row that a reference to rte can produce has a non-NULL
 * value in column attnum.
 *
 * The column must have a validated NOT NULL constraint (on 18 one added NOT
 * VALID does not count), and so must the same column of every relation
 * whose rows the reference also reads:
 *
 * - A plain inheritance parent read with its children (no ONLY) is never
 *   trusted.  A child can lose or lack the parent's constraint: DROP NOT
 *   NULL on the child (15 to 17), a parent constraint declared NO INHERIT,
 *   or SET NOT NULL on the parent over a child's NOT VALID one (18 on).
 * - A partitioned table is trusted where PostgreSQL refuses every way of
 *   giving a partition a NULL in a NOT NULL column of the partitioned
 *   table; see SNOWFLAKE_PARTITIONS_KEEP_NOT_NULL in planner_compat.h for
 *   which versions that is.
 *
 * A plan that relies on this depends on the relation, so any change to its
 * constraints or to its list of children (which update its pg_class row)
 * makes the plan be rebuilt.  NOT NULL on a foreign table is taken as
 * declared, as PostgreSQL itself does for the constraints of foreign tables.
 */
static bool
column_never_null(RangeTblEntry *rte, AttrNumber attnum)
{
	Relation	rel;
	bool		result;

	/* the parser (or the plan cache) has locked every relation of the query */
	rel = relation_open(rte->relid, NoLock);
	result = snowflake_column_never_null(RelationGetDescr(rel), attnum);
	if (result && rte->inh && rel->rd_rel->relhassubclass)
		result = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE &&
			SNOWFLAKE_PARTITIONS_KEEP_NOT_NULL;
	relation_close(rel, NoLock);
	return result;
}

/*
 * True if expr can be shown never to be NULL where it is evaluated: a
 * constant that is not NULL, or a column of a table of this query that
 * column_never_null() vouches for, read where no outer join, grouping set
 * or RETURNING old/new can make it NULL.  Otherwise false, which is always
 * safe.
 */
static bool
never_null(PlannerInfo *root, Node *expr)
{
	Var		   *var;
	RangeTblEntry *rte;

	while (IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	if (IsA(expr, Const))
		return !((Const *) expr)->constisnull;
	if (!IsA(expr, Var) || root == NULL || root->parse == NULL)
		return false;

	var = (Var *) expr;
	if (var->varlevelsup != 0 || var->varattno <= 0 ||
		var->varno < 1 || var->varno > list_length(root->parse->rtable) ||
		root->parse->groupingSets != NIL ||
		snowflake_var_may_be_nulled(root->parse, var) ||
		snowflake_var_is_old_or_new(var))
		return false;
	rte = rt_fetch(var->varno, root->parse->rtable);
	if (rte->rtekind != RTE_RELATION)
		return false;
	return column_never_null(rte, var->varattno);
}

/*
 * snowflake_decode_support(internal) RETURNS internal
 *
 * SupportRequestSimplify for snowflake_decode(id): replaces the call by
 * ROW(snowflake_timestamp(id), snowflake_node_id(id), snowflake_seq(id)).
 * The planner then reduces a field selection such as
 * (snowflake_decode(id)).ts to the one accessor it needs, so
 * "SELECT (snowflake_decode(id)).* FROM t" costs three scalar calls per
 * row, without forming a record.
 *
 * The function is strict: for a NULL ID it returns NULL, where the ROW()
 * would be a row of NULLs, which is not NULL (count() counts it).  So the
 * call is replaced only when its argument cannot be NULL, which covers the
 * usual case, a primary key.
 *
 * A field selection keeps only its accessor, so snowflake_timestamp() is
 * then not called; the result is the same only if it cannot fail where the
 * other accessors succeed.  It can, with "timestamp out of range", when the
 * time bits reach beyond the end of timestamptz (a layout with few node and
 * sequence bits): the call is then left as it is.  The layout cannot
 * change while the server runs with the library preloaded.
 *
 * Returns NULL for other requests and cases.
 */
Datum
snowflake_decode_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestSimplify *req;
	FuncExpr   *call;
	Oid			argtype;
	static const char *const accessors[] = {
		"snowflake_timestamp", "snowflake_node_id", "snowflake_seq"
	};
	static const Oid result_types[] = {TIMESTAMPTZOID, INT4OID, INT4OID};
	static const char *const columns[] = {"ts", "node_id", "seq"};
	RowExpr    *row;

	if (!IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestSimplify *) rawreq;
	call = req->fcall;
	if (list_length(call->args) != 1 || call->funcresulttype != RECORDOID)
		PG_RETURN_POINTER(NULL);

	if (snowflake_current_layout == NULL ||
		!snowflake_current_layout->times_fit ||
		!never_null(req->root, (Node *) linitial(call->args)))
		PG_RETURN_POINTER(NULL);
	argtype = exprType((Node *) linitial(call->args));

	row = makeNode(RowExpr);
	row->row_typeid = RECORDOID;
	row->row_format = COERCE_IMPLICIT_CAST;
	row->location = call->location;
	for (int i = 0; i < 3; i++)
	{
		Oid			accessor;

		accessor = LookupFuncName(sibling_name(call->funcid, accessors[i]),
								  1, &argtype, true);
		if (!OidIsValid(accessor))
			PG_RETURN_POINTER(NULL);
		row->args = lappend(row->args,
							makeFuncExpr(accessor, result_types[i],
										 list_make1(copyObject(linitial(call->args))),
										 InvalidOid, InvalidOid,
										 COERCE_EXPLICIT_CALL));
		row->colnames = lappend(row->colnames, makeString(pstrdup(columns[i])));
	}
	PG_RETURN_POINTER(row);
}
