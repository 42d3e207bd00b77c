/*-------------------------------------------------------------------------
 *
 * time_compare.h
 *	  Comparisons of an ID with a time (time_ops.c), also rewritten by the
 *	  planner support (planner_support.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/time_compare.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_TIME_COMPARE_H
#define SNOWFLAKE_TIME_COMPARE_H

typedef enum TimeComparison
{
	TC_EQ, TC_NE, TC_LT, TC_LE, TC_GT, TC_GE
} TimeComparison;

/* the comparison that means the same with the operands swapped */
static inline TimeComparison
snowflake_commute(TimeComparison cmp)
{
	switch (cmp)
	{
		case TC_LT:
			return TC_GT;
		case TC_LE:
			return TC_GE;
		case TC_GT:
			return TC_LT;
		case TC_GE:
			return TC_LE;
		default:
			return cmp;
	}
}

#endif							/* SNOWFLAKE_TIME_COMPARE_H */
