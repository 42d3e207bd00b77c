/*
 * registry16.pml: node IDs leased from a registry, as 1.6 (107335b) does
 * it: src/registry.c (claim_lease(), held_tick(), report(),
 * snowflake_registry_stop(), release_lease()), src/generator.c
 * (allocate_slots(), extend_reservation(), snowflake_generator_observe()),
 * and the registry's functions in extension/snowflake.sql
 * (snowflake_registry_claim, _heartbeat, _deactivate, _release).
 *
 * One node ID, one registry, two servers X (0) and Y (1).  By scenario:
 *
 *	SCEN_COPY	Y is a copy of X's data directory (or X's standby,
 *				promoted while X runs): it holds X's lease, and starts as a
 *				primary at any time;
 *	SCEN_REUSE	Y is a server of its own, its clock a step behind, that
 *				claims the node ID once X has released it.
 *
 * Faults: FAULT_CRASH, X crashes once (a crash restart is the same run:
 * the postmaster keeps its run token); FAULT_RESTART, X stops cleanly and
 * starts again, once; FAULT_STALL, X's node-ID worker may be late
 * (otherwise it reports before its time runs out: the assumption 1.6's
 * fence relies on); FAULT_INFLIGHT, a call of X that passed admission may
 * take its slot later (otherwise within the same step); FAULT_PARTITION,
 * X loses the registry for good at some moment; FAULT_RELOAD_TTL, a
 * reload raises X's snowflake.peer_check_interval, once;
 * FAULT_FENCING_ON, a reload turns fencing on, once; FAULT_RESTORE, the
 * registry is restored from a backup taken at any earlier moment;
 * FAULT_WORKER_STOP, X's node-ID worker is worker_stopped (SIGTERM) and started
 * again, once.  SCEN_OBSERVE: a session of X observes an ID of another
 * server, once (snowflake_observe()).  FENCING: registry_fencing on.
 * FAULT_DIE: X dies for good.  FAULT_CLOCK_STEP=n: X's clock steps n
 * ahead, once.  FAULT_RELOAD_BORROW: a reload raises X's
 * snowflake.max_borrow, once (the margin of a takeover is counted with the
 * settings of the server that takes over).
 */
#define BORROW		1
#include "common.pml"

#define X	0
#define Y	1

#define TTL			2			/* STALE_REPORTS * (interval + timeout) */
#define FENCE		1			/* the fence: a report's sent time + FENCE */
/* takeover_margin_ms(), with the settings of the server that asks */
#define MARGIN(s)	(bor[s] + AHEAD)
#define RELOAD_TTL	3			/* what FAULT_RELOAD_TTL adds to both */

#ifdef NO_LEASE_WAIT
#define NO_LEASE_WAIT_ON	1
#else
#define NO_LEASE_WAIT_ON	0
#endif

#define L_NONE		0
#define L_HELD		1
#define L_RELEASING	2
#define L_RELEASED	3

/* the registry's row of the node ID (snowflake_node_lease) */
byte r_claim;			/* whose claim: 0 none, 1 X's data directory, 2 Y's */
bit r_rel;				/* released_at is set */
byte r_hw;				/* GREATEST(floor_id, high_water_id), as ms */
byte r_inst;			/* instance_token: the active run, 0 none */
byte r_until;			/* active_until, on the registry's clock */
byte r_off;				/* clock_offset_ms of the active run (+ OFF0) */

/* a backup of the registry (the first, from before X claimed), and
 * whether it was restored */
byte b_claim; bit b_rel; byte b_hw; byte b_inst; byte b_until; byte b_off;
bit backed_up;
bit restored;

/* per server */
bit up[2];
byte claim[2];			/* the claim in pg_snowflake/lease */
byte lst[2];			/* the lease's state there */
byte tok[2];			/* this run's token */
bit assigned[2];		/* the node ID is assigned in this run */
bit adm[2];				/* admission: SNOWFLAKE_BLOCK_NODE_ID not set */
bit withdrawn[2];
bit closed[2];			/* the generator takes no new reservation */
bit is_active[2];			/* the registry took this run as the active one */
byte last_rep[2];		/* when the last report it took was sent */
bit asked_once[2];
byte tick_at[2];		/* when the worker last began a tick */
bit fencing[2];
byte ttl[2];			/* active_time_ms() with the settings in force */
byte bor[2];			/* snowflake.max_borrow in force (a reload may raise it) */
byte last[2];
byte res[2];
bit passed[2];			/* a call passed admission, its slot not taken yet */
bit lost[2];			/* FAULT_PARTITION: no exchange with the registry */
byte observed[2];		/* the largest ID observed, as ms (I3) */

/* a report under way: the registry has answered, the worker has not read it */
byte lin[2];			/* lineage: a node ID's holders in turn are one */
bit pend[2];
bit p_ok[2];
bit p_held[2];
bit p_active[2];
byte p_hw[2];
byte p_sent[2];

bit borrow_raised, died, stepped, crashed, restarted, reloaded, fenced_on, worker_stopped, y_started, x_released, did_observe;

#define running_held(s)	(up[s] && lst[s] == L_HELD)
/* fence_deadline_ms(): the last report's sent time + the fence, with the
 * intervals in force now */
#define fence_deadline(s)	(last_rep[s] + ttl[s] - (TTL - FENCE))

/*
 * The generator: the slot max(last + 1, clock), within the lead the policy
 * allows and below the durable reservation, which a call extends first
 * (extend_reservation(): refused once the generator is closed).
 */
proctype Backend(byte s)
{
	byte ms;

end:
	do
	/* snowflake_admission_check(), once per allocate_slots() */
	:: d_step { up[s] && adm[s] && !passed[s] -> passed[s] = 1 }
	:: d_step {
		up[s] && passed[s] ->
			ms = max(last[s] + 1, clock(s));
			if
			:: ms > clock(s) + bor[s] || ms >= 30 -> passed[s] = 0
			:: else ->
				if
				:: ms > res[s] && closed[s] -> passed[s] = 0
				:: ms > res[s] && !closed[s] -> res[s] = ms + AHEAD
				:: else ->
					last[s] = ms;
					passed[s] = 0;
					printf("MSC: %c issues ID (ms %d)\n", 'X' + s, ms);
					if
					:: ms <= observed[s] -> I3_above_observed = false
					:: else -> skip
					fi;
					issue(0, lin[s], ms)
				fi
			fi;
			ms = 0
		}
#ifdef SCEN_OBSERVE
	/* snowflake_observe() of an ID a step ahead of the clock */
	:: d_step {
		s == X && up[s] && !did_observe && clock(s) + 1 > last[s] ->
			did_observe = 1;
			ms = clock(s) + 1;
			printf("MSC: X observes an ID of ms %d\n", ms);
			observed[s] = ms;	/* undone below if refused */
			/* closed: refused (an error), not recorded as observed;
			 * NO_REFUSE_CLOSED: 1.6 answered "above it already" */
			if
			:: closed[s] ->
#ifdef NO_REFUSE_CLOSED
				skip
#else
				observed[s] = 0
#endif
			:: else ->
				res[s] = max(res[s], ms + AHEAD);
				last[s] = max(last[s], ms)
			fi;
			ms = 0
		}
#endif
	od
}

/* the registry's snowflake_registry_heartbeat(), one transaction */
inline heartbeat(s)
{
	if
	:: r_claim != claim[s] || r_rel -> p_held[s] = 0; p_active[s] = 0
	:: else ->
		p_held[s] = 1;
		/* model: lease-wait (another run's time not out: wait) */
		p_active[s] = (r_inst == 0 || r_inst == tok[s] || r_until < now || NO_LEASE_WAIT_ON);
		p_hw[s] = max(r_hw, res[s]);
		if
		:: p_active[s] && r_inst != 0 && r_inst != tok[s] ->
			/* taking over: above the end of the run's time, on its clock */
#ifndef NO_TAKEOVER_FLOOR
			p_hw[s] = max(p_hw[s], r_until + (r_off > OFF0 -> r_off - OFF0 : 0) + MARGIN(s))
#else
			skip
#endif
		:: else -> skip
		fi;
		if
		:: p_active[s] ->
			r_inst = tok[s];
			r_until = now + ttl[s];
			r_off = off[s];
			r_hw = p_hw[s]
		:: else -> r_hw = max(r_hw, res[s])
		fi
	fi
}

/* the node-ID worker of a server that leases its node ID */
proctype Worker(byte s)
{
end:
	do
	/* held_tick(): the fence, then a report, sent */
	:: d_step {
		running_held(s) && !pend[s] && !withdrawn[s] ->
			tick_at[s] = now;
#ifndef NO_FENCE
			if
			:: fencing[s] && is_active[s] && now >= fence_deadline(s) ->
				printf("MSC: %c fences itself\n", 'X' + s);
				is_active[s] = 0;
				adm[s] = 0
			:: else -> skip
			fi;
#endif
			pend[s] = 1;
			p_sent[s] = now;
			if
			:: lost[s] -> p_ok[s] = 0
			:: else -> p_ok[s] = 1; heartbeat(s)
			fi
		}
	/* ... and its answer, read */
	:: d_step {
		up[s] && pend[s] ->
			pend[s] = 0;
			if
			:: !p_ok[s] ->
				if
				:: !asked_once[s] ->
					asked_once[s] = 1;
					if
					:: fencing[s] -> adm[s] = 0
					:: else -> assigned[s] = 1; adm[s] = !withdrawn[s]
					fi
				:: else -> skip
				fi
			:: p_ok[s] && !p_held[s] ->
				asked_once[s] = 1;
				is_active[s] = 0;
				if
				:: !assigned[s] -> lst[s] = L_NONE
				:: else -> withdrawn[s] = 1; adm[s] = 0
				fi
			:: p_ok[s] && p_held[s] && !p_active[s] ->
				asked_once[s] = 1;
				printf("MSC: %c waits: another run is active\n", 'X' + s);
				is_active[s] = 0;
				adm[s] = 0
			:: p_ok[s] && p_held[s] && p_active[s] ->
				asked_once[s] = 1;
				last_rep[s] = p_sent[s];
				if
				:: !is_active[s] ->
					if
					:: !withdrawn[s] -> closed[s] = 0
					:: else -> skip
					fi;
					/* snowflake_generator_raise_floor() */
					res[s] = max(res[s], p_hw[s] + 1 + AHEAD);
					last[s] = max(last[s], p_hw[s]);
					is_active[s] = 1;
					printf("MSC: %c is the active run, above ms %d\n", 'X' + s, p_hw[s])
				:: else -> skip
				fi;
				if
				:: lst[s] == L_HELD && !withdrawn[s] -> assigned[s] = 1; adm[s] = 1
				:: else -> skip
				fi
			fi
		}
#ifdef SCEN_REUSE
	/* claim_lease(): Y claims the node ID once it is free */
	:: d_step {
		s == Y && up[s] && lst[s] == L_NONE && !lost[s] &&
		(r_claim == 0 || r_rel) ->
			r_claim = 2;
			r_rel = 0;
			r_inst = 0;
			r_until = 0;
			claim[s] = 2;
			lst[s] = L_HELD;
			/* the floor: the last holder's mark */
			last[s] = max(last[s], r_hw);
			res[s] = max(res[s], r_hw);
			printf("MSC: Y claims the node ID, above ms %d\n", r_hw)
		}
	/* release_lease(): X gives the node ID back, once asked to */
	:: d_step {
		s == X && running_held(s) && !x_released && !pend[s] ->
			x_released = 1;
			printf("MSC: X releases the node ID\n");
			adm[s] = 0;
			withdrawn[s] = 1;
			closed[s] = 1;
			lst[s] = L_RELEASING
		}
	:: d_step {
		s == X && up[s] && lst[s] == L_RELEASING && !lost[s] ->
			if
			:: r_claim == claim[s] ->
				r_hw = max(r_hw, res[s]);
				r_rel = 1;
				r_inst = 0
			:: else -> skip
			fi;
			lst[s] = L_RELEASED
		}
#endif
	od
}

/* a start: shared memory made anew, above the mark on disk */
inline fresh_start(s)
{
	up[s] = 1;
	adm[s] = 0;
	assigned[s] = 0;
	withdrawn[s] = 0;
	closed[s] = 0;
	is_active[s] = 0;
	last_rep[s] = 0;
	asked_once[s] = 0;
	passed[s] = 0;
	pend[s] = 0;
	last[s] = res[s]
}

/* X's faults, Y's start, the registry's restore */
proctype Postmaster()
{
end:
	do
#ifdef FAULT_CRASH
	:: d_step {
		up[X] && !crashed ->
			crashed = 1;
			printf("MSC: X crashes\n");
			fresh_start(X)
		}
#endif
#ifdef FAULT_DIE
	/* X's machine is gone: no clean stop, no restart */
	:: d_step {
		up[X] && !died && !pend[X] ->
			died = 1;
			printf("MSC: X dies\n");
			up[X] = 0;
			passed[X] = 0
		}
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
	/* a clean stop gives the run's time up with its mark; a new run */
	:: d_step {
		up[X] && !restarted && !pend[X] ->
			restarted = 1;
			printf("MSC: X restarts\n");
			if
			:: is_active[X] && !lost[X] && r_inst == tok[X] ->
				r_inst = 0; r_until = 0; r_hw = max(r_hw, res[X])
			:: else -> skip
			fi;
			tok[X] = 3;
			fresh_start(X)
		}
#endif
#ifdef FAULT_WORKER_STOP
	/* SIGTERM to the node-ID worker: snowflake_registry_stop(); later
	 * the postmaster starts it again (its statics anew) */
	:: d_step {
		up[X] && !worker_stopped && !pend[X] ->
			worker_stopped = 1;
			printf("MSC: X's node-ID worker stops\n");
			if
			:: is_active[X] && lst[X] == L_HELD ->
				closed[X] = 1;
				is_active[X] = 0;
				if
				:: !lost[X] && r_inst == tok[X] ->
					r_inst = 0; r_until = 0; r_hw = max(r_hw, res[X])
				:: else -> skip
				fi
			:: else -> skip
			fi;
			last_rep[X] = 0;
			asked_once[X] = 0
		}
#endif
#ifdef FAULT_PARTITION
	:: d_step { up[X] && !lost[X] -> printf("MSC: X loses the registry\n"); lost[X] = 1 }
#endif
#ifdef FAULT_RELOAD_TTL
	:: d_step { up[X] && !reloaded -> printf("MSC: X reloads longer intervals\n"); reloaded = 1; ttl[X] = ttl[X] + RELOAD_TTL }
#endif
#ifdef FAULT_RELOAD_BORROW
	:: d_step { up[X] && !borrow_raised -> printf("MSC: X reloads a larger max_borrow\n"); borrow_raised = 1; bor[X] = bor[X] + 3 }
#endif
#ifdef FAULT_FENCING_ON
	:: d_step { up[X] && !fenced_on -> printf("MSC: X reloads fencing on\n"); fenced_on = 1; fencing[X] = 1 }
#endif
#ifdef FAULT_RESTORE
	:: d_step {
		!backed_up && !restored ->
			backed_up = 1;
			b_claim = r_claim; b_rel = r_rel; b_hw = r_hw;
			b_inst = r_inst; b_until = r_until; b_off = r_off
		}
	:: d_step {
		!restored ->
			restored = 1;
			printf("MSC: the registry is restored from its backup\n");
			r_claim = b_claim; r_rel = b_rel; r_hw = b_hw;
			r_inst = b_inst; r_until = b_until; r_off = b_off
		}
#endif
#ifdef SCEN_COPY
	:: d_step {
		!y_started ->
			y_started = 1;
			printf("MSC: Y, a copy of X, starts\n");
			claim[Y] = claim[X];
			lst[Y] = lst[X];
			res[Y] = res[X];
			tok[Y] = 2;
			ttl[Y] = TTL;
			fencing[Y] = fencing[X];
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
			ttl[Y] = TTL;
			fencing[Y] = fencing[X];
			fresh_start(Y)
		}
#endif
	od
}

/*
 * Time.  Unless a fault says otherwise, the node-ID worker is on time:
 * an exchange with the registry ends within the step it began in
 * (snowflake.peer_timeout is shorter than a step); with fencing, the
 * worker checks its fence in the step it falls due; without, it reports
 * before its time as the active run is out.  And a call that passed
 * admission takes its slot in the step it passed in.
 */
#ifdef FAULT_STALL
#define worker_late(s)	false
#else
#define worker_late(s)	(pend[s] || \
	(running_held(s) && is_active[s] && \
	 (fencing[s] -> (now >= fence_deadline(s) && tick_at[s] < fence_deadline(s)) : \
	  (!lost[s] && now + 1 >= last_rep[s] + ttl[s]))))
#endif
#ifdef FAULT_INFLIGHT
#define call_late(s)	false
#else
#define call_late(s)	passed[s]
#endif

proctype Clock()
{
end:
	do
	:: now < TMAX && !worker_late(X) && !worker_late(Y) &&
	   !call_late(X) && !call_late(Y) -> now++
	od
}

init
{
	atomic {
		off[X] = OFF0;
		off[Y] = OFF0;
		lin[X] = 0;
		lin[Y] = 1;
#ifdef SCEN_REUSE
		off[Y] = OFF0 - 1;
		lin[Y] = 0;
#endif
		/* X holds the lease, claimed before; the registry knows it */
		r_claim = 1;
		claim[X] = 1;
		lst[X] = L_HELD;
		tok[X] = 1;
		ttl[X] = TTL;
		bor[X] = BORROW;
		bor[Y] = BORROW;
		res[X] = 1;
#ifdef FENCING
		fencing[X] = 1;
#endif
		fresh_start(X);
		run Clock();
		run Postmaster();
		run Backend(X);
		run Backend(Y);
		run Worker(X);
		run Worker(Y)
	}
}
