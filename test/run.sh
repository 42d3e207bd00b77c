#!/bin/bash
# test/run.sh: install what the tests need, build with warnings as errors,
# install the extension, and run every test suite (the model of the
# protocol, pg_regress, isolation, TAP), each against servers it starts
# itself.  Ends with "N passed, N failed, N skipped", counting one per
# model check, regression test, isolation spec and TAP script, and one for
# the structure check (make check-structure: the C files call each other
# down the layers of src/snowflake.h).
#
#   sudo test/run.sh                        everything, on Debian's PostgreSQL 15
#   sudo test/run.sh regress tap            only some suites (model, regress, isolation, tap)
#   sudo test/run.sh model                  only the model checks (SPIN; no
#                                           PostgreSQL is built or started)
#   sudo PG_CONFIG=/opt/pg/18/bin/pg_config test/run.sh
#                                           against another PostgreSQL installation
#   sudo PROVE_TESTS='test/t/002_restart.pl' test/run.sh tap
#
# Run it as root on Debian 12: packages are installed with apt-get and the
# servers run as the unprivileged "postgres" user (initdb refuses root), in
# a copy of the tree under /tmp.  Diffs, failing TAP checks and server logs
# of failures are printed and kept in test-artifacts/.
#
# A test whose optional dependency (pg_partman, pglogical, sqlsmith,
# libfaketime, Citus, the npm registry, Python frameworks) is missing for
# this PostgreSQL is skipped and counted as skipped, with the reason.
# SNOWFLAKE_NO_SKIP=1 counts every skip as a failure (CI on Debian's 15,
# where every dependency is available).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_USER=${PG_USER:-postgres}
SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(model regress isolation tap)

log() { printf '\n=== %s\n' "$*"; }

"$ROOT/test/install-deps.sh" test || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

# The model checks (model/run.sh: SPIN, no server) need no build: run
# alone, they are all there is.
run_model() {
	local out p f rc
	log "model: the protocol checked by SPIN (model/checks)"
	out=$(mktemp /tmp/snowflake-model-out.XXXXXX)
	MODEL_TRACES="$ROOT/test-artifacts/model-traces" "$ROOT/model/run.sh" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	p=$(sed -nE 's/^model: ([0-9]+) passed, ([0-9]+) failed$/\1/p' "$out")
	f=$(sed -nE 's/^model: ([0-9]+) passed, ([0-9]+) failed$/\2/p' "$out")
	[ -n "$p" ] || { p=0; f=1; }
	# an exit that contradicts the count is a failure too
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	rm -f "$out"
	echo "--- model: $p passed, $f failed"
	model_passed=$p
	model_failed=$f
}
if [ "${SUITES[*]}" = model ]; then
	mkdir -p "$ROOT/test-artifacts"
	run_model
	echo
	echo "$model_passed passed, $model_failed failed, 0 skipped"
	[ "$model_failed" -eq 0 ]
	exit
fi

if [ ! -x "$PG_CONFIG" ]; then
	echo "PG_CONFIG=$PG_CONFIG is not an executable pg_config"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
PG_VERSION=$("$PG_CONFIG" --version)

# --- build and install --------------------------------------------------------
log "building with -Werror against $PG_VERSION ($PG_CONFIG)"
cd "$ROOT" || exit 1
make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
# bench/floor (bench/perid.sh's module) is built too, and not installed,
# so that it does not rot unseen
if ! make -s -j2 PG_CONFIG="$PG_CONFIG" \
	PG_CFLAGS="-Wall -Wextra -Werror -Wno-unused-parameter" ||
	! make -s install PG_CONFIG="$PG_CONFIG" >/dev/null ||
	! make -s -C bench/floor PG_CONFIG="$PG_CONFIG" \
	PG_CFLAGS="-Wall -Wextra -Werror -Wno-unused-parameter"; then
	echo "build failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
# the layers of the C files (src/snowflake.h), from the objects just built:
# one check, counted with the others
log "structure: no call cycle, every call down the layers of src/snowflake.h"
if make -s --no-print-directory check-structure PG_CONFIG="$PG_CONFIG" | tail -2; then
	structure_passed=1
else
	structure_passed=0
fi
make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
make -s -C bench/floor clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1

# --- a copy of the tree the test user can write to ---------------------------
WORK=$(mktemp -d /tmp/snowflake-test.XXXXXX)
cp -a "$ROOT"/. "$WORK"/
rm -rf "$WORK"/.git "$WORK"/test-artifacts "$WORK"/results "$WORK"/output_iso "$WORK"/tmp_check*
chown -R "$PG_USER": "$WORK"
ARTIFACTS="$ROOT/test-artifacts"
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"

as_test_user() {
	(cd "$WORK" && runuser -u "$PG_USER" -- env PG_CONFIG="$PG_CONFIG" \
		PG_TEST_TIMEOUT_DEFAULT="${PG_TEST_TIMEOUT_DEFAULT:-180}" \
		${SNOWFLAKE_SQLSMITH_QUERIES:+SNOWFLAKE_SQLSMITH_QUERIES="$SNOWFLAKE_SQLSMITH_QUERIES"} \
		${SNOWFLAKE_SQLSMITH_SEED:+SNOWFLAKE_SQLSMITH_SEED="$SNOWFLAKE_SQLSMITH_SEED"} \
		${SNOWFLAKE_FUZZ_CALLS:+SNOWFLAKE_FUZZ_CALLS="$SNOWFLAKE_FUZZ_CALLS"} \
		"$@")
}

passed=$structure_passed
failed=$((1 - structure_passed))
skipped=0

# count_skip NAME REASON
count_skip() {
	if [ "${SNOWFLAKE_NO_SKIP:-0}" = 1 ]; then
		echo "FAILED (skips are not allowed here): $1: $2"
		failed=$((failed + 1))
	else
		echo "skipped: $1: $2"
		skipped=$((skipped + 1))
	fi
}

# pg_regress of 15 prints "test NAME ... ok" (or "     NAME ... ok" inside a
# parallel group); from 16 on it prints TAP: "ok 1 - NAME" / "not ok 1 - NAME"
# ("+" instead of "-" inside a parallel group).
count_regress() {
	local out=$1 suite=$2 p f
	p=$(grep -cE '^(test| ) +[a-z_0-9]+ +\.\.\. ok|^ok [0-9]+ +[-+] ' "$out")
	f=$(grep -cE '^(test| ) +[a-z_0-9]+ +\.\.\. (FAILED|failed)|^not ok [0-9]+ +[-+] ' "$out")
	# no result lines at all: pg_regress itself failed (initdb, server start)
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	echo "--- $suite: $p passed, $f failed"
	[ "$f" -eq 0 ]
}

# Tests the Makefile left out for this PostgreSQL, one "name: reason" a line
report_make_skips() {
	local name reason
	while IFS=: read -r name reason; do
		[ -n "$name" ] && count_skip "$name" "${reason# }"
	done < <(as_test_user make -s --no-print-directory print-skipped-$1)
}

show_tap_failures() {
	local script name l
	for script in "$@"; do
		name=$(basename "$script" .pl)
		l="$WORK/tmp_check/log/regress_log_$name"
		[ -f "$l" ] || continue
		log "$name: failing checks"
		# lines carry a "[hh:mm:ss.mmm](n.nnns) " prefix from 16 on
		sed -E 's/^\[[0-9:.]+\]\([0-9.]+s\) //' "$l" |
			grep -E '^not ok|^#   (Failed|at |got|expected)|^# +(got|expected|Looks like)| at test/t/[^ ]+ line [0-9]+' | head -60
		log "$name: end of its log"
		tail -40 "$l"
		for s in "$WORK"/tmp_check/log/"${name}"_*.log; do
			[ -f "$s" ] || continue
			log "$(basename "$s") (server log, last lines)"
			tail -25 "$s"
		done
	done
}

for suite in "${SUITES[@]}"; do
	case $suite in
	model)
		run_model
		passed=$((passed + model_passed))
		failed=$((failed + model_failed))
		;;
	regress)
		log "pg_regress"
		report_make_skips regress
		as_test_user make installcheck ISOLATION= TAP_TESTS= 2>&1 | tee "$ARTIFACTS/regress.out"
		if ! count_regress "$ARTIFACTS/regress.out" regress; then
			cp -r "$WORK/results" "$ARTIFACTS/regress-results" 2>/dev/null
			[ -f "$WORK/regression.diffs" ] && { log "regression.diffs"; cat "$WORK/regression.diffs"; cp "$WORK/regression.diffs" "$ARTIFACTS/"; }
			[ -f "$WORK/log/postmaster.log" ] && { log "server log (tail)"; tail -50 "$WORK/log/postmaster.log"; cp "$WORK/log/postmaster.log" "$ARTIFACTS/regress-postmaster.log"; }
		fi
		;;
	isolation)
		log "isolation"
		as_test_user make installcheck REGRESS= TAP_TESTS= 2>&1 | tee "$ARTIFACTS/isolation.out"
		if ! count_regress "$ARTIFACTS/isolation.out" isolation; then
			cp -r "$WORK/output_iso/results" "$ARTIFACTS/isolation-results" 2>/dev/null
			[ -f "$WORK/output_iso/regression.diffs" ] && { log "output_iso/regression.diffs"; cat "$WORK/output_iso/regression.diffs"; cp "$WORK/output_iso/regression.diffs" "$ARTIFACTS/isolation.diffs"; }
			[ -f "$WORK/output_iso/log/postmaster.log" ] && { log "server log (tail)"; tail -50 "$WORK/output_iso/log/postmaster.log"; }
		fi
		;;
	tap)
		log "TAP"
		as_test_user make installcheck REGRESS= ISOLATION= \
			${PROVE_TESTS:+PROVE_TESTS="$PROVE_TESTS"} \
			PROVE_FLAGS="--timer ${PROVE_FLAGS:--j2}" 2>&1 |
			tee "$ARTIFACTS/tap.out"
		make_rc=${PIPESTATUS[0]}
		# prove prints one line per script: "test/t/NNN_name.pl .. ok",
		# ".. skipped: reason", or ".. Failed n/m subtests" / "Dubious ..."
		results=$(sed -nE 's/^(\[[0-9:]+\] )?(test\/t\/[^ ]+\.pl) \.+ (.*)$/\2 \3/p' "$ARTIFACTS/tap.out")
		p=0
		f=0
		failing=()
		while read -r script result; do
			[ -n "$script" ] || continue
			case $result in
			ok*) p=$((p + 1)) ;;
			skipped:*) count_skip "$script" "${result#skipped: }" ;;
			*) f=$((f + 1)); failing+=("$script") ;;
			esac
		done <<<"$results"
		# a script that died before printing its line, or a bail-out (prove
		# may still print "ok" and "Result: PASS" for the script that bailed
		# out, e.g. when a node could not be stopped), fails the run; prove
		# says "Result: NOTESTS" when every script it ran was skipped
		if [ "$f" -eq 0 ] && { [ "$make_rc" -ne 0 ] ||
			! grep -Eq '^Result: (PASS|NOTESTS)' "$ARTIFACTS/tap.out" ||
			grep -q '^Bailout called\|^FAILED--Further testing stopped' "$ARTIFACTS/tap.out"; }; then
			echo "FAILED: prove bailed out or make installcheck failed (exit code $make_rc)"
			f=1
			[ "$p" -gt 0 ] && p=$((p - 1))
		fi
		passed=$((passed + p))
		failed=$((failed + f))
		echo "--- tap: $p passed, $f failed"
		cp -r "$WORK/tmp_check/log" "$ARTIFACTS/tap-log" 2>/dev/null
		[ ${#failing[@]} -gt 0 ] && show_tap_failures "${failing[@]}"
		;;
	*)
		echo "unknown suite: $suite (model, regress, isolation, tap)"
		failed=$((failed + 1))
		;;
	esac
done

rm -rf "$WORK"
echo
echo "$PG_VERSION: $passed passed, $failed failed, $skipped skipped"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
