/*
 * peers.pml: node IDs set by hand, checked by the peer checker
 * (src/peer_checker.c), and peer observation.
 *
 * Two servers, A (0) and B (1), have the same node ID and list each other
 * in snowflake.peers: the mistake the checker exists to catch.  B is, by
 * scenario:
 *
 *	SCEN_COPY		a server of its own (a copy of A's data directory, or
 *					one given A's node ID by mistake), started as a primary
 *					at any time;
 *	SCEN_STANDBY	A's physical standby, promoted at any time, while A
 *					runs on, or after A died for good.
 *
 * Faults, each at most once: FAULT_CRASH, A crashes and runs crash
 * recovery (with the peer checker running meanwhile: so does a start
 * after an immediate shutdown or a power loss; after a crash restart under
 * a live postmaster PostgreSQL starts background workers only once
 * recovery is over, which the model does not rely on); FAULT_RESTART, A
 * is stopped cleanly, refuses connections while down, and is started
 * again (a new start time); FAULT_HANG, one question to a running peer
 * gets no answer within snowflake.peer_timeout; FAULT_SMART_STOP, A begins a smart
 * shutdown: its sessions go on generating, but it answers no new
 * connection (57P03, "the database system is shutting down");
 * FAULT_RELOAD_EMPTY, B's snowflake.peers is emptied by a reload and set
 * again while B is a standby.
 *
 * Without switches this is the code on main (1.7): claim-then-ask, no
 * following.  V16 is 1.6's peer checker instead (107335b: "began
 * generating later yields", any round lifts the gate, peers' last IDs
 * followed), with V16_GATE (gates judged as a primary, the fix first
 * proposed) and V16_NO_FOLLOW; NO_* take away a guard the proof of the
 * rules relies on, STEPPED_BACK_CLAIMS and RELOAD_OPENS weaken one, and
 * FOLLOW_PEERS puts 1.6's following back (the mutations of model/checks).
 */
#include "common.pml"

/* the mutations that weaken a condition rather than remove a step */
#ifdef NO_CLAIM_FIRST
#define CLAIM_FIRST_OFF	1		/* a round begun before the claim counts */
#else
#define CLAIM_FIRST_OFF	0
#endif
#ifdef NO_HANG_WAIT
#define HANG_COUNTS		1		/* a peer that did not answer counts as absent */
#else
#define HANG_COUNTS		0
#endif
#ifdef NO_57P03_WAIT
#define BUSY57_COUNTS	1		/* 57P03 counts as absent */
#else
#define BUSY57_COUNTS	0
#endif

#define A	0
#define B	1

mtype = { DOWN, RECOVERING, PRIMARY };

/* per server */
mtype role[2];
bit standby[2];			/* in recovery as A's standby (B, SCEN_STANDBY) */
bit gate[2];			/* admission: SNOWFLAKE_BLOCK_FIRST_ROUND */
bit conflict[2];		/* admission: SNOWFLAKE_BLOCK_CONFLICT */
byte since[2];			/* generating_since_ms: 0 until the first ID */
byte started[2];		/* start time (a crash restart keeps it) */
byte last[2];			/* the generator's last slot */
byte res[2];			/* the reservation: state file and WAL */
byte lin[2];			/* lineage */

/* a round of the peer checker: what it asked, kept until it judges */
bit asked[2];
bit a_up[2];			/* the peer answered */
bit a_gone[2];			/* the peer refused: nothing runs there */
bit a_busy57[2];		/* it said 57P03: starting, in crash recovery, or
						 * shutting down */
bit a_hung[2];			/* no answer within snowflake.peer_timeout */
bit a_rec[2];			/* it answered, in recovery (a standby) */
bit a_adm[2];			/* it answered as a primary admitted to generate */
bit a_claim[2];			/* ... as a primary claiming the node ID */
byte a_since[2];
byte a_started[2];
byte a_last[2];			/* its snowflake_node_info().last_id */
byte o_since[2];		/* our generating_since when we asked */
bit o_claiming[2];		/* we were claiming when we asked */

bit stopping[2];		/* in a smart shutdown (FAULT_SMART_STOP) */
bit crashed;			/* FAULT_CRASH spent */
bit restarted;			/* FAULT_RESTART: A stopped */
bit started_again;		/* ... and started again */
bit hung;				/* FAULT_HANG spent */
bit smart_stopped;		/* FAULT_SMART_STOP spent */
bit listless[2];		/* its snowflake.peers emptied by a reload */
bit relisted;			/* FAULT_RELOAD_EMPTY spent */
bit b_started;			/* SCEN_COPY: B has started */

#define admitted(s)		(role[s] == PRIMARY && !gate[s] && !conflict[s])
#define claiming(s)		(role[s] == PRIMARY && gate[s] && !conflict[s])
#ifdef STEPPED_BACK_CLAIMS
/* a round begun while stepped back counts as claimed, unseen by the peer */
#define claimed_round(s)	(role[s] == PRIMARY && gate[s])
#else
#define claimed_round(s)	claiming(s)
#endif
#ifdef NO_CLAIM_BLOCKS
#define CLAIM_BLOCKS	0		/* only an admitted peer holds the gate */
#else
#define CLAIM_BLOCKS	1
#endif

/*
 * A reservation to reach ms, durably, before an ID of ms leaves: the
 * state file, then WAL, which a standby replays (synchronous replication:
 * what a standby never received is lost with the rows that used it).
 */
inline reserve(s, ms)
{
	res[s] = ms + AHEAD;
#ifdef SCEN_STANDBY
	if
	:: s == A && standby[B] -> res[B] = max(res[B], res[A]); last[B] = max(last[B], res[B])
	:: else -> skip
	fi
#endif
}

#define next_slot(s)	max(last[s] + 1, clock(s))

/* snowflake_nextval(): admission, then the slot under the spinlock */
proctype Backend(byte s)
{
	byte ms;

end:
	do
	:: d_step {
		admitted(s) && next_slot(s) <= clock(s) + BORROW && next_slot(s) < 31 ->
			ms = next_slot(s);
			if
			:: ms > res[s] -> reserve(s, ms)
			:: else -> skip
			fi;
			last[s] = ms;
			if
			:: since[s] == 0 -> since[s] = now
			:: else -> skip
			fi;
			printf("MSC: %c issues ID (ms %d, node 0)\n", 'A' + s, ms);
			if
			:: admitted(1 - s) -> P1_exclusive = false
			:: else -> skip
			fi;
			issue(0, lin[s], ms);
			ms = 0
		}
	od
}

/* 1.6's rule, alike on both sides: does s yield to the peer it asked? */
#define yields_by_since(s) \
	(o_since[s] != 0 && a_since[s] != 0 -> \
		(o_since[s] > a_since[s] || (o_since[s] == a_since[s] && s == B)) : \
	(a_since[s] != 0 -> true : \
	(o_since[s] != 0 -> false : \
		(started[s] > a_started[s] || (started[s] == a_started[s] && s == B)))))

/* the peer checker: a round asks the peer, then judges and publishes */
proctype Checker(byte s)
{
	byte p = 1 - s;
	bool self_rec;
	bool conflicts;
	bool blocks;
	bool yields;
	bool absent;

end:
	do
	:: atomic {
		role[s] != DOWN && !asked[s] ->
			asked[s] = 1;
			/*
			 * The answer: the peer answered; refused (nothing runs there);
			 * 57P03 (in crash recovery, it cannot answer yet); or none
			 * within snowflake.peer_timeout (hung).
			 */
			a_up[s] = ((role[p] == PRIMARY && !stopping[p]) || standby[p]) && !listless[s];
			/* a list emptied: nobody to ask, which counts as all answered */
			a_gone[s] = (role[p] == DOWN) || listless[s];
			a_busy57[s] = ((role[p] == RECOVERING && !standby[p]) || stopping[p]) && !listless[s];
			a_hung[s] = 0;
#ifdef FAULT_HANG
			if
			:: !hung && a_up[s] -> hung = 1; a_up[s] = 0; a_hung[s] = 1
			:: true
			fi;
#endif
			a_rec[s] = (role[p] == RECOVERING);
			a_adm[s] = admitted(p);
			a_claim[s] = claiming(p);
			a_since[s] = since[p];
			a_started[s] = started[p];
			a_last[s] = last[p];
			o_since[s] = since[s];
			o_claiming[s] = claimed_round(s);
			printf("MSC: %c asks %c: answered %d (in recovery %d, admitted %d, claiming %d), refused %d, 57P03 %d, hung %d\n",
				   'A' + s, 'A' + p, a_up[s], a_rec[s], a_adm[s], a_claim[s],
				   a_gone[s], a_busy57[s], a_hung[s])
		}
	:: d_step {
		role[s] != DOWN && asked[s] ->
			asked[s] = 0;
			self_rec = (role[s] == RECOVERING);
#ifndef V16
			/*
			 * model: claim-then-ask.  A server claims (as a primary, its gate
			 * closed) before it asks; it lifts its gate only after a round
			 * that began while it claimed found the peer neither admitted
			 * nor claiming, or not running: refused.  A peer that did not
			 * answer in time holds the gate, and so does one that answers
			 * 57P03: it may be in crash recovery, but also shutting down
			 * with sessions that still generate.
			 */
			blocks = a_up[s] && !a_rec[s] && (a_adm[s] || (a_claim[s] && CLAIM_BLOCKS));
			absent = a_gone[s] || (a_up[s] && a_rec[s]) ||
				(a_busy57[s] && BUSY57_COUNTS) || (a_hung[s] && HANG_COUNTS);
			/*
			 * model: yield.  A server steps back (conflict) from a peer that
			 * is admitted, and of two that claim, the one with the larger
			 * instance token (B) steps back; stepping back closes the gate
			 * again, so that it claims anew once a round finds the peer
			 * neither admitted nor claiming.  Liveness only: P1 rests on the
			 * lift below.  (A server admitted never meets an admitted peer
			 * here, P1; the code closes the gate then all the same, for a
			 * peer that broke A5 or does not list it.)
			 */
			yields = a_up[s] && !a_rec[s] &&
				(a_adm[s] || (a_claim[s] && o_claiming[s] && s == B));
			if
			:: yields && !self_rec -> conflict[s] = 1; gate[s] = 1
			:: !blocks && (a_up[s] || absent) && !self_rec -> conflict[s] = 0
			:: else -> skip
			fi;
			/*
			 * model: gate-claim-first, gate-all-answered.  Only a primary
			 * claims, so no round in recovery lifts the gate: the gate set
			 * at start holds through a standby's recovery to its promotion.
			 */
			if
			:: !blocks && (a_up[s] || absent) &&
			   (o_claiming[s] || CLAIM_FIRST_OFF) -> gate[s] = 0
			:: else -> skip
			fi;
#else
			/* 1.6: a standby, or a server in recovery, generates nothing */
			conflicts = a_up[s] && !a_rec[s] && !self_rec;
#ifndef NO_YIELD
			if
			:: conflicts && yields_by_since(s) -> conflict[s] = 1
			:: a_up[s] && !(conflicts && yields_by_since(s)) -> conflict[s] = 0
			:: else -> skip
			fi;
#endif
#ifdef V16_GATE
			/* model: gate-judged-as-primary */
			if
			:: !self_rec && (a_up[s] || a_gone[s]) -> gate[s] = 0
			:: else -> skip
			fi;
#else
			/* 1.6: any round lifts the gate, in recovery too */
			gate[s] = 0;
#endif
#endif
			printf("MSC: %c judges: gate %d, conflict %d\n", 'A' + s, gate[s], conflict[s]);
			/* peer observation: 1.6 follows the peer's last ID */
#if (defined(V16) && !defined(V16_NO_FOLLOW)) || defined(FOLLOW_PEERS)
			if
			:: !self_rec && a_up[s] && a_last[s] > last[s] &&
			   a_last[s] <= clock(s) + BORROW && a_last[s] < 30 ->
				printf("MSC: %c follows %c's last ID, ms %d\n", 'A' + s, 'A' + p, a_last[s]);
				if
				:: a_last[s] > clock(s) -> I5_not_steered = false
				:: else -> skip
				fi;
				if
				:: a_last[s] + 1 > res[s] -> reserve(s, a_last[s] + 1)
				:: else -> skip
				fi;
				last[s] = a_last[s]
			:: else -> skip
			fi;
#endif
			self_rec = 0;
			conflicts = 0;
			blocks = 0;
			yields = 0;
			absent = 0;
			check_invariants()
		}
	od
}

/* a start or a crash: shared memory made anew; above the mark on disk */
inline fresh_shmem(s)
{
#ifndef NO_START_GATE
	gate[s] = 1;
#endif
	conflict[s] = 0;
	since[s] = 0;
	asked[s] = 0;
	last[s] = res[s]
}

/* starts, crashes, recovery, promotion */
proctype Postmaster()
{
end:
	do
#ifdef FAULT_CRASH
	:: d_step {
		role[A] == PRIMARY && !crashed ->
			crashed = 1;
			printf("MSC: A crashes\n");
			role[A] = RECOVERING;
			stopping[A] = 0;
#ifndef NO_RECOVERY_GATE
			fresh_shmem(A)
#else
			conflict[A] = 0; since[A] = 0; asked[A] = 0; last[A] = res[A]
#endif
		}
	:: d_step {
		role[A] == RECOVERING && !standby[A] ->
			printf("MSC: A ends crash recovery\n");
			role[A] = PRIMARY
		}
#endif
#ifdef FAULT_RELOAD_EMPTY
	/*
	 * B's list emptied by a reload, and set again, both while B is a
	 * standby (P1 is a promise between servers that list each other: a
	 * list left empty is the operator's word that nobody shares the node
	 * ID, A4); RELOAD_OPENS: the emptied list opens the gate at once, in
	 * any role (a draft of 1.7, found by the protocol review)
	 */
	:: d_step {
		!relisted && standby[B] ->
			relisted = 1;
			printf("MSC: B's peer list is emptied\n");
			listless[B] = 1;
#ifdef RELOAD_OPENS
			gate[B] = 0
#else
			skip
#endif
		}
	:: d_step {
		listless[B] && standby[B] ->
			printf("MSC: B's peer list is set again\n");
			listless[B] = 0
		}
#endif
#ifdef FAULT_SMART_STOP
	/* a smart shutdown: open sessions go on; then the server is down */
	:: d_step {
		role[A] == PRIMARY && !stopping[A] && !smart_stopped ->
			smart_stopped = 1;
			printf("MSC: A begins a smart shutdown\n");
			stopping[A] = 1
		}
	:: d_step {
		stopping[A] ->
			printf("MSC: A's last session ends; A is down\n");
			stopping[A] = 0;
			role[A] = DOWN;
			asked[A] = 0;
			last[A] = res[A]
		}
#endif
#ifdef FAULT_RESTART
	/* a clean stop: nothing listens until the start (refused) */
	:: d_step {
		role[A] == PRIMARY && !restarted && !stopping[A] ->
			restarted = 1;
			printf("MSC: A stops\n");
			role[A] = DOWN;
			asked[A] = 0;
			last[A] = res[A]
		}
	:: d_step {
		role[A] == DOWN && restarted && !started_again ->
			started_again = 1;
			printf("MSC: A starts again\n");
			role[A] = PRIMARY;
			started[A] = now;
			fresh_shmem(A)
		}
#endif
#ifdef SCEN_COPY
	:: d_step {
		!b_started ->
			b_started = 1;
			printf("MSC: B starts\n");
			role[B] = PRIMARY;
			started[B] = now;
			res[B] = res[A];	/* a copy of A's data directory */
			lin[B] = 1;
			fresh_shmem(B)
		}
#endif
#ifdef SCEN_STANDBY
	/* promotion: generation resumes above every mark replayed */
	:: d_step {
		role[B] == RECOVERING && standby[B] && !listless[B] ->
			printf("MSC: B is promoted\n");
			standby[B] = 0;
			role[B] = PRIMARY;
			last[B] = max(last[B], res[B]);
			since[B] = 0;
#ifdef V16_GATE
			/* model: gate-after-promotion */
			gate[B] = 1;
			asked[B] = 0
#else
			skip
#endif
		}
	/* A dies for good: then the promotion is a failover */
	:: d_step {
		role[A] == PRIMARY ->
			printf("MSC: A dies\n");
			role[A] = DOWN;
			asked[A] = 0
		}
#endif
	od
}

/* time; the clocks of this model are right */
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
		off[A] = OFF0;
		off[B] = OFF0;
		role[A] = PRIMARY;
		started[A] = 1;
		res[A] = 1;
		fresh_shmem(A);
		role[B] = DOWN;
		lin[A] = 0;
#ifdef SCEN_STANDBY
		/* a standby: it replays A's marks; its own lineage once promoted */
		role[B] = RECOVERING;
		standby[B] = 1;
		started[B] = 1;
		res[B] = res[A];
		lin[B] = 2;
		fresh_shmem(B);
#endif
		run Clock();
		run Postmaster();
		run Backend(A);
		run Backend(B);
		run Checker(A);
		run Checker(B)
	}
}
