/*
 * observe.pml: snowflake_observe() and the clock it is measured against
 * (src/generator.c, snowflake_generator_observe(); src/clock.c, the
 * trusted time that holds back forward jumps).
 *
 * One server S.  Its trusted clock is right; its raw system clock may
 * jump ahead (FAULT_GLITCH) and the jump is held back, as clock.c does
 * with a jump beyond snowflake.max_clock_jump until the steady clock
 * confirms it.  Its node-ID worker may be stopped and started again
 * (FAULT_WORKER_STOP: the generator is closed meanwhile, as
 * snowflake_registry_stop() leaves it).  A session observes one ID of
 * another server, with any time field from the trusted clock's step
 * before to a few steps past the raw clock.
 *
 * Without switches this is the code on main: the bound of an observation
 * is measured against the trusted clock (observe-bound-trusted), and an
 * observation the generator cannot follow because it is closed is refused
 * (observe-refused-when-closed: an error, so that the caller does not go
 * on as if it had been observed).  1.6 had neither: NO_TRUSTED_BOUND
 * measures against the raw clock, NO_REFUSE_CLOSED answers "above it
 * already" on a closed generator.
 */
#include "common.pml"

#define S	0

byte glitch;			/* how far the raw clock is ahead, held back */
bit closed;
byte last;
byte res;
byte observed;
bit glitched, worker_stopped, worker_back, did_observe;

/* the observation bound: model: observe-bound-trusted */
#ifndef NO_TRUSTED_BOUND
#define within_bound(ms)	((ms) + 1 <= clock(S) + BORROW || NO_BOUND)
#else
#define within_bound(ms)	((ms) + 1 <= clock(S) + glitch + BORROW || NO_BOUND)
#endif
#ifdef NO_OBSERVE_BOUND
#define NO_BOUND	1
#else
#define NO_BOUND	0
#endif

proctype Session()
{
	byte x;

end:
	do
	/*
	 * snowflake_nextval(): above last, within the lead the policy allows;
	 * a closed generator still issues below its reservation, and takes no
	 * new one
	 */
	:: d_step {
		max(last + 1, clock(S)) <= clock(S) + BORROW &&
		(!closed || max(last + 1, clock(S)) <= res) ->
			x = max(last + 1, clock(S));
			if
			:: x > res -> res = x + AHEAD
			:: else -> skip
			fi;
			last = x;
			printf("MSC: S issues ID (ms %d)\n", x);
			if
			:: x <= observed -> I3_above_observed = false
			:: else -> skip
			fi;
			issue(0, 0, x);
			x = 0
		}
	/* snowflake_observe(): an ID of another server, of time x */
	:: atomic {
		!did_observe ->
			did_observe = 1;
			if
			:: x = clock(S) - 1
			:: x = clock(S)
			:: x = clock(S) + 1
			:: x = clock(S) + 2
			:: x = clock(S) + BORROW + 1	/* from a server whose clock is ahead */
			:: x = clock(S) + glitch + 1
			fi;
			printf("MSC: S observes an ID of ms %d\n", x);
			if
			:: last > x -> observed = max(observed, x)	/* above it already */
			:: last <= x && !within_bound(x) -> skip	/* refused: too far ahead */
#ifndef NO_REFUSE_CLOSED
			/* model: observe-refused-when-closed (an error) */
			:: last <= x && within_bound(x) && closed -> skip
#else
			/* 1.6: "given up for this run: nothing more to order" */
			:: last <= x && within_bound(x) && closed -> observed = max(observed, x)
#endif
			:: last <= x && within_bound(x) && !closed ->
				res = max(res, x + 1 + AHEAD);
				last = x;
				observed = max(observed, x);
				/* the generator moved: not beyond what the policy lets IDs lead */
				if
				:: x > clock(S) + BORROW -> I5_not_steered = false
				:: else -> skip
				fi
			fi;
			x = 0;
			check_invariants()
		}
	od
}

proctype Faults()
{
end:
	do
	:: false	/* (no fault at all) */
#ifdef FAULT_GLITCH
	:: d_step { !glitched -> glitched = 1; printf("MSC: the raw clock jumps 3 ahead, held back\n"); glitch = 3 }
	:: d_step { glitch > 0 -> printf("MSC: the jump is confirmed or undone\n"); glitch = 0 }
#endif
#ifdef FAULT_WORKER_STOP
	:: d_step { !worker_stopped -> worker_stopped = 1; printf("MSC: the node-ID worker stops\n"); closed = 1 }
	:: d_step { worker_stopped && closed && !worker_back -> worker_back = 1; printf("MSC: the node-ID worker is back\n"); closed = 0 }
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
		off[S] = OFF0;
		res = 1;
		last = 1;
		run Clock();
		run Faults();
		run Session()
	}
}
