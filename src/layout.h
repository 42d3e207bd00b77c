/*-------------------------------------------------------------------------
 *
 * layout.h
 *	  The layout of an ID (layout.c): what its bits mean, and the only
 *	  place that packs and unpacks them.
 *
 * An ID is a non-negative int64 made of three fields, most significant
 * first: milliseconds since the configured epoch, the node ID and a
 * per-millisecond sequence.  The widths of the node and sequence fields are
 * server-start settings; the time field gets the remaining bits of the 63
 * below the sign bit.  A "slot" is an ID without its node field:
 * time << seq_bits | sequence.  Slots of one node are consecutive integers,
 * from 0 to max_slot, in the order of the IDs they make.
 *
 * Nothing here touches shared memory: decoding works the same whether or
 * not the library was preloaded.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/layout.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_LAYOUT_H
#define SNOWFLAKE_LAYOUT_H

#include "datatype/timestamp.h"

#define SNOWFLAKE_ID_BITS			63	/* the sign bit is never used */
#define SNOWFLAKE_MIN_TIME_BITS		35	/* 2^35 ms is a little over a year */
#define SNOWFLAKE_MAX_FIELD_BITS	(SNOWFLAKE_ID_BITS - SNOWFLAKE_MIN_TIME_BITS)
#define SNOWFLAKE_MAX_NODE_ID		((1 << SNOWFLAKE_MAX_FIELD_BITS) - 1)

#define SNOWFLAKE_DEFAULT_EPOCH		"2025-01-01 00:00:00+00"
#define SNOWFLAKE_DEFAULT_NODE_BITS 10
#define SNOWFLAKE_DEFAULT_SEQ_BITS	12

#define SNOWFLAKE_MS_PER_DAY		INT64CONST(86400000)

/* Unix time of the PostgreSQL epoch (2000-01-01), in milliseconds */
#define SNOWFLAKE_PG_EPOCH_UNIX_MS	INT64CONST(946684800000)

/* The layout in force, derived from the epoch and the two widths */
typedef struct SnowflakeLayout
{
	int64		epoch_ms;		/* Unix time of the epoch, in ms */
	int			node_bits;
	int			seq_bits;
	int			time_bits;		/* 63 - node_bits - seq_bits */
	int			shift;			/* node_bits + seq_bits */
	int64		max_ms;			/* largest time field, ms after the epoch */
	int64		max_slot;		/* max_ms << seq_bits | max_seq */
	int32		max_node;
	int32		max_seq;
	bool		times_fit;		/* every time field fits a timestamptz */
} SnowflakeLayout;

extern void snowflake_set_layout(int64 epoch_ms, int node_bits, int seq_bits);
extern bool snowflake_layout_widths_valid(int node_bits, int seq_bits,
										  char **detail);
extern const SnowflakeLayout *snowflake_layout_or_error(void);
pg_noinline extern void snowflake_id_out_of_range(int64 id);

extern const SnowflakeLayout *snowflake_current_layout;

/*
 * The layout in force.  Raises an error when the widths leave too few time
 * bits, which can only happen in a backend that loaded the library without
 * preloading (a server with such settings does not start).
 */
static inline const SnowflakeLayout *
snowflake_layout(void)
{
	if (likely(snowflake_current_layout != NULL))
		return snowflake_current_layout;
	return snowflake_layout_or_error();
}

/*
 * Raises the type's out-of-range error for a negative value.  Every int64
 * that is not negative is a valid snowflake.
 */
static inline void
snowflake_check_id(int64 id)
{
	if (unlikely(id < 0))
		snowflake_id_out_of_range(id);
}

/* ----------
 * Taking IDs and slots apart and putting them together.  The callers have
 * checked the ranges (an ID is not negative; a time field is at most
 * max_ms; a node ID at most max_node).
 * ----------
 */

/* The largest node ID node_bits hold (for another server's layout). */
static inline int64
snowflake_max_node_of(int node_bits)
{
	return (INT64CONST(1) << node_bits) - 1;
}

/* the time field of an ID: ms after the epoch */
static inline int64
snowflake_id_ms(const SnowflakeLayout *layout, int64 id)
{
	return id >> layout->shift;
}

/* the node field of an ID */
static inline int32
snowflake_id_node(const SnowflakeLayout *layout, int64 id)
{
	return (int32) ((id >> layout->seq_bits) & layout->max_node);
}

/* the sequence field of an ID */
static inline int32
snowflake_id_seq(const SnowflakeLayout *layout, int64 id)
{
	return (int32) (id & layout->max_seq);
}

/* the time field of a slot */
static inline int64
snowflake_slot_ms(const SnowflakeLayout *layout, int64 slot)
{
	return slot >> layout->seq_bits;
}

/* the sequence field of a slot */
static inline int32
snowflake_slot_seq(const SnowflakeLayout *layout, int64 slot)
{
	return (int32) (slot & layout->max_seq);
}

/* the number of slots in n milliseconds */
static inline int64
snowflake_slots_in_ms(const SnowflakeLayout *layout, int64 n)
{
	return n << layout->seq_bits;
}

/* the first slot of a millisecond */
static inline int64
snowflake_first_slot_of_ms(const SnowflakeLayout *layout, int64 ms)
{
	return ms << layout->seq_bits;
}

/* the last slot of a millisecond */
static inline int64
snowflake_last_slot_of_ms(const SnowflakeLayout *layout, int64 ms)
{
	return (ms << layout->seq_bits) | layout->max_seq;
}

/* the ID of a slot on a node */
static inline int64
snowflake_slot_to_id(const SnowflakeLayout *layout, int64 slot, int32 node)
{
	return ((slot >> layout->seq_bits) << layout->shift) |
		((int64) node << layout->seq_bits) |
		(slot & layout->max_seq);
}

/* the slot of an ID, its node field dropped */
static inline int64
snowflake_id_to_slot(const SnowflakeLayout *layout, int64 id)
{
	return ((id >> layout->shift) << layout->seq_bits) |
		(id & layout->max_seq);
}

/* the node and sequence fields of an ID together, as one number */
static inline uint64
snowflake_id_tail(const SnowflakeLayout *layout, int64 id)
{
	return (uint64) id & ((UINT64CONST(1) << layout->shift) - 1);
}

/* the ID of a millisecond and a tail (node and sequence fields together) */
static inline int64
snowflake_id_from_tail(const SnowflakeLayout *layout, int64 ms, uint64 tail)
{
	return (ms << layout->shift) | (int64) tail;
}

/* the smallest ID of a millisecond, whatever the node */
static inline int64
snowflake_first_id_of_ms(const SnowflakeLayout *layout, int64 ms)
{
	return ms << layout->shift;
}

/* the largest ID of a millisecond, whatever the node: its whole range */
static inline int64
snowflake_last_id_of_ms(const SnowflakeLayout *layout, int64 ms)
{
	return (ms << layout->shift) | ((INT64CONST(1) << layout->shift) - 1);
}

extern int64 snowflake_compose(const SnowflakeLayout *layout,
							   int64 ms, int32 node, int32 seq);
extern TimestampTz snowflake_ms_to_timestamptz(const SnowflakeLayout *layout,
											   int64 ms);
extern int64 snowflake_timestamptz_to_ms(const SnowflakeLayout *layout,
										 TimestampTz ts);
extern TimestampTz snowflake_unix_ms_to_timestamptz(int64 unix_ms);
extern const char *snowflake_unix_ms_to_str(int64 unix_ms);
extern char *snowflake_layout_text(const SnowflakeLayout *layout);
extern void snowflake_check_lifetime(int64 now_unix_ms, int warning_days);

#endif							/* SNOWFLAKE_LAYOUT_H */
