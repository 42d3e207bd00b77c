#!/bin/bash
# model/run.sh: check the models of the protocol with SPIN, one check per
# line of model/checks, two at a time.  Each check is an exhaustive
# search (safety: every assertion, every interleaving, no bit-state
# hashing) of one model with the line's switches; a check passes when SPIN
# finds what the line expects: no violation ("holds"), or a violation of
# the named invariant.
#
#   model/run.sh                       every check
#   model/run.sh peers_claim_copy ...  the checks named
#   MODEL_TRACES=DIR model/run.sh      also writes, for each violation
#                                      found, its trace (the model's MSC
#                                      lines) to DIR/NAME.txt
#
# Prints one line per check, "ok NAME (kind): expected, N states" or
# "not ok NAME (kind): expected ..., found ...", then
# "model: N passed, N failed".  Needs spin and a C compiler.
set -uo pipefail

MODEL_DIR=$(cd "$(dirname "$0")" && pwd)
JOBS=${MODEL_JOBS:-2}
# the search depth: far beyond any run of the models (pan says when not)
DEPTH=100000

if ! command -v spin >/dev/null || ! command -v cc >/dev/null; then
	echo "model/run.sh needs spin and cc (test/install-deps.sh test installs them)"
	echo "model: 0 passed, 1 failed"
	exit 1
fi

WORK=$(mktemp -d /tmp/snowflake-model.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# traces go where the caller said, from wherever the checks run
if [ -n "${MODEL_TRACES:-}" ]; then
	mkdir -p "$MODEL_TRACES" && MODEL_TRACES=$(cd "$MODEL_TRACES" && pwd)
fi

# the checks to run, as "kind name model expect switches...", with no
# blank at the end of a line (xargs would join it with the next)
if [ ! -s "$MODEL_DIR/checks" ]; then
	echo "no checks: $MODEL_DIR/checks is missing or empty"
	echo "model: 0 passed, 1 failed"
	exit 1
fi
grep -vE '^\s*(#|$)' "$MODEL_DIR/checks" | sed -E 's/[[:space:]]+$//' >"$WORK/all"
# every name once: each check has a directory and a result of its own
dups=$(awk '{ print $2 }' "$WORK/all" | sort | uniq -d)
if [ -n "$dups" ]; then
	echo "checks named twice in model/checks: $dups"
	echo "model: 0 passed, 1 failed"
	exit 1
fi
if [ $# -gt 0 ]; then
	: >"$WORK/list"
	for want in "$@"; do
		awk -v n="$want" '$2 == n' "$WORK/all" >>"$WORK/list"
		awk -v n="$want" '$2 == n { f = 1 } END { exit !f }' "$WORK/all" ||
			echo "no such check: $want" >>"$WORK/unknown"
	done
else
	cp "$WORK/all" "$WORK/list"
fi
if [ ! -s "$WORK/list" ] && [ ! -f "$WORK/unknown" ]; then
	echo "no checks to run"
	echo "model: 0 passed, 1 failed"
	exit 1
fi

# one check: writes $WORK/NAME.result, a line "ok ..." or "not ok ..."
run_check() {
	local kind=$1 name=$2 model=$3 expect=$4 dir found states defs=() d
	shift 4
	dir=$WORK/$name
	mkdir -p "$dir"
	cp "$MODEL_DIR"/*.pml "$dir"/
	cd "$dir" || return
	# a misspelled switch would be defined, used nowhere, and weaken the check
	for d in "$@"; do
		if ! grep -qw -- "${d%%=*}" ./*.pml; then
			echo "not ok $name ($kind): no model uses the switch ${d%%=*}" >"$WORK/$name.result"
			return
		fi
		defs+=("-D$d")
	done
	if ! spin -a "${defs[@]}" "$model" >spin.out 2>&1 ||
		! cc -O2 -w -DSAFETY -DCOLLAPSE -DMEMLIM=8192 -o pan pan.c >cc.out 2>&1; then
		echo "not ok $name ($kind): the model does not compile: $(cat spin.out cc.out 2>/dev/null | head -3 | tr '\n' ' ')" >"$WORK/$name.result"
		return
	fi
	./pan -m$DEPTH >pan.out 2>&1
	states=$(sed -nE 's/^ *([0-9]+) states, stored.*/\1/p' pan.out | head -1)
	# pan stops at the first violation ("Search not completed" then too);
	# without one, a search cut short (depth, memory) proves nothing
	if grep -qE 'max search depth too small|out of memory|reached -DMEMLIM|aborting' pan.out ||
		{ grep -q 'errors: 0' pan.out && grep -q 'Search not completed' pan.out; } ||
		[ -z "$states" ] || [ "$states" -eq 0 ]; then
		echo "not ok $name ($kind): the search did not complete: $(grep -E 'depth too small|out of memory|MEMLIM|aborting|not completed' pan.out | head -1)" >"$WORK/$name.result"
		return
	fi
	if grep -q 'errors: 0' pan.out; then
		found=holds
	else
		found=$(sed -nE 's/^pan:1: assertion violated \(?([A-Za-z0-9_]+)\)? .*/\1/p' pan.out | head -1)
		[ -n "$found" ] || found="an error: $(grep -m1 '^pan' pan.out)"
		if [ -n "${MODEL_TRACES:-}" ]; then
			{
				echo "# $name ($kind): $model ${*}"
				echo "# SPIN's counterexample: $found broken"
				spin -t "${defs[@]}" "$model" 2>/dev/null |
					sed -nE 's/^ *MSC: (.*)$/\1/p'
			} >"$MODEL_TRACES/$name.txt"
		fi
	fi
	if [ "$found" = "$expect" ]; then
		echo "ok $name ($kind): $expect, ${states:-?} states" >"$WORK/$name.result"
	else
		echo "not ok $name ($kind): expected $expect, found $found (${states:-?} states)" >"$WORK/$name.result"
	fi
}
export -f run_check
export WORK MODEL_DIR DEPTH MODEL_TRACES

xargs -P "$JOBS" -L 1 bash -c 'run_check "$@"' _ <"$WORK/list"

passed=0
failed=0
while read -r kind name rest; do
	line=$(cat "$WORK/$name.result" 2>/dev/null || echo "not ok $name ($kind): no result")
	echo "$line"
	case $line in
	ok*) passed=$((passed + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
done <"$WORK/list"
if [ -f "$WORK/unknown" ]; then
	cat "$WORK/unknown"
	failed=$((failed + $(wc -l <"$WORK/unknown")))
fi
echo "model: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
