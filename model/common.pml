/*
 * common.pml: what every model of the protocol shares: abstract time, the
 * clocks of the servers, IDs, and the invariants of doc/protocol.md,
 * checked at the moment an ID is handed out.
 *
 * TIME.  One global step of real time, "now", from 1 to TMAX; the Clock
 * process advances it.  A server reads now + its clock's error (off[s],
 * biased by OFF0 so that it fits a byte); a clock step changes off[s].
 * Every step of time is a millisecond of an ID's time field and, for
 * the workers, a check interval: the bounds below are counted in steps.
 *
 * IDS.  One ID per millisecond and node (sequence_bits = 0 in effect): a
 * server's generator hands out the slot max(last + 1, clock), and the ID
 * (ms, node) is ordered by ms, then node, as the real layout orders it.
 * Issued IDs are kept as a bit mask per node ID; the lineage of a data
 * directory (its restarts, crashes and the promotion of its standbys) is
 * a number per server, lin[s].
 */

#ifndef TMAX
#define TMAX		6			/* the last step of real time */
#endif
#define OFF0		2			/* off[s] == OFF0: the clock is right */
#ifndef AHEAD
#define AHEAD		1			/* snowflake.reserve_ahead, in steps */
#endif
#ifndef BORROW
#define BORROW		2			/* snowflake.max_borrow, in steps */
#endif
#define NODES		2			/* node IDs 0 and 1 */
#define LINEAGES	3

byte now = 1;
byte off[3];					/* per server: its clock's error + OFF0 */

#define clock(s)		(now + off[s] - OFF0)
#define max(a, b)		((a) > (b) -> (a) : (b))
#define min(a, b)		((a) < (b) -> (a) : (b))

/* the invariants of doc/protocol.md, false once broken */
bool I1_unique = true;			/* no two servers issue the same ID */
bool I2_increasing = true;		/* a lineage's IDs strictly increase */
bool I3_above_observed = true;	/* IDs are above every ID observed */
bool I5_not_steered = true;		/* only this server moves its IDs ahead */
bool P1_exclusive = true;		/* peers.pml: one node ID, one generator */

int issued[NODES];				/* per node ID: a bit per ms issued */
byte lin_last[LINEAGES];		/* per lineage: the last ms issued */

/* the checks, one assertion per invariant, so that SPIN names it */
inline check_invariants()
{
#ifndef SKIP_I1
	assert(I1_unique);
#endif
	assert(I2_increasing);
	assert(I3_above_observed);
#ifndef SKIP_I5
	assert(I5_not_steered);
#endif
	assert(P1_exclusive)
}

/*
 * Hands out the ID (ms, node) on a server of lineage l: the one place
 * where an ID leaves, so every invariant is checked here.
 */
inline issue(node, l, ms)
{
	if
	:: (issued[node] & (1 << (ms))) != 0 -> I1_unique = false
	:: else -> skip
	fi;
	issued[node] = issued[node] | (1 << (ms));
	if
	:: (ms) <= lin_last[l] -> I2_increasing = false
	:: else -> lin_last[l] = ms
	fi;
	check_invariants()
}
