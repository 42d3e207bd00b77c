/*-------------------------------------------------------------------------
 *
 * clock.h
 *	  Reading the clocks, and the trusted time new IDs carry (clock.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/clock.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_CLOCK_H
#define SNOWFLAKE_CLOCK_H

typedef struct SnowflakeClockStatus
{
	uint64		steps_back;
	int64		largest_step_back_ms;
	uint64		jumps_forward;	/* accepted, at once or after the hold */
	int64		largest_jump_forward_ms;
	uint64		jumps_ignored;	/* ended while held: never used */
	int64		held_ms;		/* wall clock ahead of the time in use; 0 */
} SnowflakeClockStatus;

extern Size snowflake_clock_shmem_size(void);
extern void snowflake_clock_shmem_init(void);
extern int64 snowflake_clock_now_ms(void);
extern int64 snowflake_clock_peek_ms(int64 *held_ms);
extern int64 snowflake_wall_clock_ms(void);
extern int64 snowflake_monotonic_ms(void);
extern void snowflake_clock_check(void);
extern void snowflake_clock_trust_up_to(int64 unix_ms);
extern void snowflake_clock_status(SnowflakeClockStatus *status);

#endif							/* SNOWFLAKE_CLOCK_H */
