/*-------------------------------------------------------------------------
 *
 * redo.h
 *	  The custom WAL resource manager that replays the high-water mark
 *	  (redo.c).
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/redo.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_REDO_H
#define SNOWFLAKE_REDO_H

extern void snowflake_redo_register(void);

#endif							/* SNOWFLAKE_REDO_H */
