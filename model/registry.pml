/*
 * registry.pml: the registry protocol of doc/protocol.md ("Leases"),
 * the one the node-identity layer is rebuilt on (registry16.pml is what
 * 1.6 does).
 *
 * One node ID, one registry, two servers X (0) and Y (1).  A lease is
 * claimed once (keyed by the data directory's system identifier and a
 * token saved before the claim) and kept until it is released, with the
 * final mark that covers every ID its holder issued.  With FENCING (a
 * property of the lease, fixed when it is claimed), the registry also
 * grants marks: a holder's durable reservation, which every ID stays
 * below, reaches no further than the registry granted, and the registry
 * grants only to the lease's current run, never further than GRANT_AHEAD
 * past its own clock.  Whenever the current run changes (a claim, or a
 * run taking over from one that stopped reporting for TTL) and whenever
 * the current run reports after a silence longer than TTL, the run starts
 * above the registry's clock + GRANT_AHEAD: above every grant ever made,
 * whatever the registry forgot.
 *
 * Scenarios, faults and switches as in registry16.pml, but nothing here
 * waits for a worker or a call to be on time: every step may be late.
 * FAULT_CLOCK_STEP=n steps X's clock ahead; Y_BEHIND: Y's clock is a
 * step behind the registry's; FAULT_LOST_REPLY loses one
 * answer after the registry committed it.
 */
#define BORROW		1
#include "common.pml"

#define X	0
#define Y	1

#define TTL			2			/* a current run that reports keeps the lease */
#define GRANT_AHEAD	2			/* a grant reaches this far past the registry's clock */

#define L_NONE		0
#define L_HELD		1
#define L_RELEASING	2
#define L_RELEASED	3

/* the registry's row */
byte r_claim;			/* 0 none, 1 X's data directory, 2 Y's */
bit r_rel;				/* released */
byte r_hw;				/* the final mark of the last release */
byte r_cur;				/* the current run's token, 0 none */
byte r_rep;				/* when the current run last reported */
byte r_floor;			/* where the current run starts: sent with every answer */
bit r_fsent;			/* (NO_FLOOR_RESENT: it was sent once) */

/* a backup, taken at any moment (the first from before X claimed) */
byte b_claim; bit b_rel; byte b_hw; byte b_cur; byte b_rep; byte b_floor;
bit backed_up, restored;

/* per server */
bit up[2];
byte claim[2];
byte lst[2];
byte tok[2];
bit adm[2];				/* admission: the node ID usable */
bit withdrawn[2];
bit closed[2];
byte grant[2];			/* how far the reservation may reach (FENCING) */
byte last[2];
byte res[2];
byte dres[2];			/* the reservation on disk (NO_DURABLE_MARK: behind res) */
bit passed[2];
bit lost[2];
byte lin[2];

/* a report under way: the registry answered, the worker has not read it */
bit pend[2];
bit p_ok[2];
bit p_held[2];
bit p_cur[2];
byte p_grant[2];
byte p_floor[2];

bit lost_reply, died, stepped, crashed, restarted, y_started, x_released;

#define running_held(s)	(up[s] && lst[s] == L_HELD)

#ifdef FENCING
#define FENCED	1
#else
#define FENCED	0
#endif

/* mutations that weaken a condition */
#ifdef NO_DURABLE_MARK
#define NO_DURABLE_MARK_ON	1	/* the mark reaches the disk only after its IDs */
#else
#define NO_DURABLE_MARK_ON	0
#endif
#ifdef NO_FLOOR_RESENT
#define NO_FLOOR_RESENT_ON	1	/* the floor goes with the first answer only */
#else
#define NO_FLOOR_RESENT_ON	0
#endif
#ifdef NO_LAPSE_FLOOR
#define NO_LAPSE_FLOOR_ON	1
#else
#define NO_LAPSE_FLOOR_ON	0
#endif
#ifdef NO_GRANT_CAP
#define NO_GRANT_CAP_ON	1
#else
#define NO_GRANT_CAP_ON	0
#endif

#ifdef NO_CURRENT_CHECK
#define NO_CURRENT_CHECK_ON	1
#else
#define NO_CURRENT_CHECK_ON	0
#endif

proctype Backend(byte s)
{
	byte ms;

end:
	do
	:: d_step { up[s] && adm[s] && !passed[s] -> passed[s] = 1 }
	:: d_step {
		up[s] && passed[s] ->
			ms = max(last[s] + 1, clock(s));
			if
			:: ms > clock(s) + BORROW || ms >= 30 -> passed[s] = 0
			:: ms > res[s] && closed[s] -> passed[s] = 0
			/* model: reservation-within-grant */
			:: ms > res[s] && !closed[s] && FENCED && ms > grant[s] && !NO_GRANT_CAP_ON ->
				passed[s] = 0
			:: ms > res[s] && !closed[s] && (!FENCED || ms <= grant[s] || NO_GRANT_CAP_ON) ->
				res[s] = (FENCED && !NO_GRANT_CAP_ON -> min(ms + AHEAD, grant[s]) : ms + AHEAD);
				/* model: mark-before-id: on disk and in WAL before any ID it covers */
				dres[s] = (NO_DURABLE_MARK_ON -> dres[s] : res[s])
			:: ms <= res[s] ->
				last[s] = ms;
				passed[s] = 0;
				printf("MSC: %c issues ID (ms %d)\n", 'X' + s, ms);
				issue(0, lin[s], ms)
			fi;
			ms = 0
		}
	od
}

/* the new current run's floor: model: floor-at-change */
#ifdef NO_FLOOR_AT_CHANGE
#define change_floor	r_hw
#else
#define change_floor	max(r_hw, now + GRANT_AHEAD)
#endif

/* what a grant reaches: model: grant-within-registry-clock (the code
 * grants now + GRANT_AHEAD; the mutation, what the holder's clock asks) */
#ifdef NO_GRANT_LIMIT
#define grant_for(s)	(clock(s) + AHEAD + 1)
#else
#define grant_for(s)	(now + GRANT_AHEAD)
#endif

/* the registry's side of a report: one transaction */
inline report(s)
{
	p_floor[s] = 0;
	p_grant[s] = 0;
	if
	:: r_claim != claim[s] || r_rel -> p_held[s] = 0; p_cur[s] = 0
	:: else ->
		p_held[s] = 1;
		if
		/* the current run, on time: it goes on */
		:: r_cur == tok[s] && (r_rep + TTL >= now || NO_LAPSE_FLOOR_ON) -> p_cur[s] = 1
		/*
		 * a change of current run, or the current run after a silence
		 * longer than TTL (another run may have been current meanwhile,
		 * in a registry that has since forgotten it): above every grant.
		 * model: floor-at-change, floor-after-lapse; takeover-after-
		 * silence is for liveness, not a safety guard
		 */
		:: (r_cur == 0 || r_rep + TTL < now) && !(r_cur == tok[s] && NO_LAPSE_FLOOR_ON) ->
			p_cur[s] = 1;
			r_cur = tok[s];
			r_floor = change_floor;
			r_fsent = 0
		:: else -> p_cur[s] = NO_CURRENT_CHECK_ON
		fi;
		if
		:: p_cur[s] ->
			r_rep = now;
			/* model: floor-in-every-answer (an answer may be lost) */
			p_floor[s] = (NO_FLOOR_RESENT_ON && r_fsent -> 0 : r_floor);
			r_fsent = 1;
			p_grant[s] = grant_for(s)
		:: else -> skip
		fi
	fi
}

proctype Worker(byte s)
{
end:
	do
	:: d_step {
		running_held(s) && !pend[s] && !withdrawn[s] && FENCED ->
			pend[s] = 1;
			if
			:: lost[s] -> p_ok[s] = 0
			:: else -> p_ok[s] = 1; report(s)
			fi
		}
	:: atomic {
		up[s] && pend[s] ->
			pend[s] = 0;
#ifdef FAULT_LOST_REPLY
			/* the answer is lost after the registry committed it (atomic,
			 * not d_step: a d_step would always take the first choice) */
			if
			:: !lost_reply -> lost_reply = 1; p_ok[s] = 0
			:: true
			fi;
#endif
			if
			:: !p_ok[s] -> skip
			:: p_ok[s] && !p_held[s] ->
				printf("MSC: %c: the lease is not ours any more\n", 'X' + s);
				withdrawn[s] = 1;
				adm[s] = 0
			:: p_ok[s] && p_held[s] && !p_cur[s] ->
				printf("MSC: %c waits: another run is current\n", 'X' + s);
				adm[s] = 0
			:: p_ok[s] && p_held[s] && p_cur[s] ->
				/* a floor, durably, before the grant is used */
				last[s] = max(last[s], p_floor[s]);
				res[s] = max(res[s], p_floor[s]);
				dres[s] = max(dres[s], p_floor[s]);
				grant[s] = max(grant[s], p_grant[s]);
				printf("MSC: %c is current, floor %d, granted %d\n", 'X' + s, p_floor[s], p_grant[s]);
				adm[s] = !withdrawn[s]
			fi
		}
#ifndef FENCING
	/* without fencing the saved lease is used as it is */
	:: d_step { running_held(s) && !adm[s] && !withdrawn[s] -> adm[s] = 1 }
#endif
#ifdef SCEN_REUSE
	:: d_step {
		s == Y && up[s] && lst[s] == L_NONE && !lost[s] && (r_claim == 0 || r_rel) ->
			r_claim = 2;
			r_rel = 0;
			r_cur = tok[s];
			r_rep = now;
			claim[s] = 2;
			lst[s] = L_HELD;
			/* model: release-mark; with fencing also floor-at-change (the
			 * code: the claim of a fenced lease's node ID, and the first
			 * report of a fenced lease) */
			r_floor = (FENCED -> change_floor : r_hw);
			last[s] = max(last[s], r_floor);
			res[s] = max(res[s], r_floor);
			dres[s] = max(dres[s], r_floor);
			printf("MSC: Y claims the node ID, above ms %d\n", r_floor)
		}
	/* snowflake_release_node_id(): close, save RELEASING with the mark */
	:: d_step {
		s == X && running_held(s) && !x_released && !pend[s] ->
			x_released = 1;
			printf("MSC: X releases the node ID\n");
			adm[s] = 0;
			withdrawn[s] = 1;
#ifndef NO_RELEASE_CLOSE
			/* model: close-before-release */
			closed[s] = 1;
#endif
			lst[s] = L_RELEASING
		}
	:: d_step {
		s == X && up[s] && lst[s] == L_RELEASING && !lost[s] ->
			if
			:: r_claim == claim[s] ->
#ifndef NO_RELEASE_MARK
				r_hw = max(r_hw, res[s]);
#endif
				r_rel = 1;
				r_cur = 0
			:: else -> skip
			fi;
			lst[s] = L_RELEASED
		}
#endif
	od
}

inline fresh_start(s)
{
	res[s] = dres[s];
	up[s] = 1;
	adm[s] = 0;
	withdrawn[s] = 0;
	closed[s] = 0;
	grant[s] = 0;
	passed[s] = 0;
	pend[s] = 0;
	last[s] = res[s]
}

proctype Postmaster()
{
end:
	do
#ifdef FAULT_CRASH
	:: d_step { up[X] && !crashed -> crashed = 1; printf("MSC: X crashes\n"); fresh_start(X) }
#endif
#ifdef FAULT_DIE
	:: d_step { up[X] && !died -> died = 1; printf("MSC: X dies\n"); up[X] = 0; passed[X] = 0; pend[X] = 0 }
#endif
#ifdef FAULT_CLOCK_STEP
	:: d_step {
		up[X] && !stepped ->
			stepped = 1;
			printf("MSC: X's clock steps %d ahead\n", FAULT_CLOCK_STEP);
			off[X] = off[X] + FAULT_CLOCK_STEP
		}
#endif
#ifdef FAULT_RESTART
	:: d_step {
		up[X] && !restarted ->
			restarted = 1;
			printf("MSC: X restarts\n");
			tok[X] = 3;
			fresh_start(X)
		}
#endif
#ifdef FAULT_PARTITION
	:: d_step { up[X] && !lost[X] -> printf("MSC: X loses the registry\n"); lost[X] = 1 }
#endif
#ifdef FAULT_RESTORE
	:: d_step {
		!backed_up && !restored ->
			backed_up = 1;
			b_claim = r_claim; b_rel = r_rel; b_hw = r_hw; b_cur = r_cur; b_rep = r_rep;
			b_floor = r_floor
		}
	:: d_step {
		!restored ->
			restored = 1;
			printf("MSC: the registry is restored from its backup\n");
			r_claim = b_claim; r_rel = b_rel; r_hw = b_hw; r_cur = b_cur; r_rep = b_rep;
			r_floor = b_floor
		}
#endif
#ifdef SCEN_COPY
	:: d_step {
		!y_started ->
			y_started = 1;
			printf("MSC: Y, a copy of X, starts\n");
			claim[Y] = claim[X];
			lst[Y] = lst[X];
			dres[Y] = dres[X];
			tok[Y] = 2;
			fresh_start(Y)
		}
#endif
#ifdef SCEN_REUSE
	:: d_step {
		!y_started ->
			y_started = 1;
			printf("MSC: Y starts\n");
			lst[Y] = L_NONE;
			tok[Y] = 2;
			fresh_start(Y)
		}
#endif
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
		off[X] = OFF0;
		off[Y] = OFF0;
		lin[X] = 0;
		lin[Y] = 1;
#ifdef Y_BEHIND
		off[Y] = OFF0 - 1;
#endif
#ifdef SCEN_REUSE
		lin[Y] = 0;
#endif
		r_claim = 1;
		r_cur = 1;
		r_rep = 1;
		claim[X] = 1;
		lst[X] = L_HELD;
		tok[X] = 1;
		dres[X] = 1;
		fresh_start(X);
		run Clock();
		run Postmaster();
		run Backend(X);
		run Backend(Y);
		run Worker(X);
		run Worker(Y)
	}
}
