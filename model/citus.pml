/*
 * citus.pml: node IDs taken from Citus group IDs (src/citus_node.c,
 * src/node_worker.c).
 *
 * A coordinator's metadata gives worker W1 group 1, which is its node ID.
 * W1 generates; the operator removes it; then a worker joins with group 1
 * given again (citus_add_node(..., groupid => 1)): a new server W2, its
 * clock a step behind, or (SCEN_READD) W1 itself, added back with its data
 * directory.
 *
 * Without switches this is 1.6: the joining worker takes the group's node
 * ID with no floor.  FIX_GROUP_OWNER keeps, where Citus keeps its
 * metadata, the data directory (system identifier) that generated with
 * each group; a group may be taken only by that data directory, which
 * resumes above its own mark, and any other server refuses it.
 */
#include "common.pml"

#define W1	0
#define W2	1

bit up[2];
bit assigned[2];
byte last[2];
byte res[2];
byte owner;				/* FIX_GROUP_OWNER: 1 + the server that used group 1 */
bit removed, joined;

proctype Worker(byte s)
{
	byte ms;

end:
	do
	:: d_step {
		up[s] && assigned[s] && max(last[s] + 1, clock(s)) <= clock(s) + BORROW ->
			ms = max(last[s] + 1, clock(s));
			if
			:: ms > res[s] -> res[s] = ms + AHEAD
			:: else -> skip
			fi;
			last[s] = ms;
			printf("MSC: W%d issues ID (ms %d, node 1)\n", s + 1, ms);
			issue(1, 0, ms);
			ms = 0
		}
	od
}

proctype Coordinator()
{
end:
	do
	:: d_step {
		!removed && up[W1] ->
			removed = 1;
			printf("MSC: W1 is removed\n");
			up[W1] = 0
		}
	:: d_step {
		removed && !joined ->
			joined = 1;
#ifdef SCEN_READD
			printf("MSC: W1 is added back with group 1\n");
			up[W1] = 1;
			last[W1] = res[W1];
#ifdef FIX_GROUP_OWNER
			assigned[W1] = (owner == 0 || owner == 1 + W1)
#endif
#else
			printf("MSC: W2 joins with group 1\n");
			up[W2] = 1;
#ifdef FIX_GROUP_OWNER
			/* model: group-owner */
			assigned[W2] = (owner == 0 || owner == 1 + W2)
#else
			assigned[W2] = 1
#endif
#endif
		}
	od
}

proctype Clock()
{
end:
	do
	:: now < TMAX -> now++
	od
}

init
{
	atomic {
		off[W1] = OFF0;
		off[W2] = OFF0 - 1;
		up[W1] = 1;
		assigned[W1] = 1;
		owner = 1 + W1;
		res[W1] = 1;
		last[W1] = 1;
		run Clock();
		run Coordinator();
		run Worker(W1);
		run Worker(W2)
	}
}
