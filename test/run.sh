#!/bin/bash
# test/run.sh: install what the tests need, build with warnings as errors,
# install the extension, and run every test suite (pg_regress, isolation,
# TAP), each against servers it starts itself.  Ends with "N passed,
# N failed", counting one per regression test, isolation spec and TAP
# script.
#
#   sudo test/run.sh                 everything
#   sudo test/run.sh regress tap     only some suites (regress, isolation, tap)
#   PROVE_TESTS='test/t/002_restart.pl' sudo test/run.sh tap
#
# Run it as root on Debian 12: packages are installed with apt-get and the
# servers run as the unprivileged "postgres" user (initdb refuses root), in
# a copy of the tree under /tmp.  Diffs and server logs of failures are
# printed and kept in test-artifacts/.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_USER=${PG_USER:-postgres}
SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(regress isolation tap)

log() { printf '\n=== %s\n' "$*"; }

"$ROOT/test/install-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }

# --- build and install --------------------------------------------------------
log "building with -Werror"
cd "$ROOT" || exit 1
make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
if ! make -s PG_CONFIG="$PG_CONFIG" \
	PG_CFLAGS="-Wall -Wextra -Werror -Wno-unused-parameter" ||
	! make -s install PG_CONFIG="$PG_CONFIG" >/dev/null; then
	echo "build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

# --- a copy of the tree the test user can write to ---------------------------
WORK=$(mktemp -d /tmp/snowflake-test.XXXXXX)
cp -a "$ROOT"/. "$WORK"/
rm -rf "$WORK"/test-artifacts "$WORK"/results "$WORK"/output_iso "$WORK"/tmp_check*
chown -R "$PG_USER": "$WORK"
ARTIFACTS="$ROOT/test-artifacts"
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"

as_test_user() {
	(cd "$WORK" && runuser -u "$PG_USER" -- env PG_CONFIG="$PG_CONFIG" \
		PG_TEST_TIMEOUT_DEFAULT="${PG_TEST_TIMEOUT_DEFAULT:-120}" \
		${SNOWFLAKE_SQLSMITH_QUERIES:+SNOWFLAKE_SQLSMITH_QUERIES="$SNOWFLAKE_SQLSMITH_QUERIES"} \
		${SNOWFLAKE_SQLSMITH_SEED:+SNOWFLAKE_SQLSMITH_SEED="$SNOWFLAKE_SQLSMITH_SEED"} \
		${SNOWFLAKE_FUZZ_CALLS:+SNOWFLAKE_FUZZ_CALLS="$SNOWFLAKE_FUZZ_CALLS"} \
		"$@")
}

passed=0
failed=0

# pg_regress (15) prints "test NAME ... ok|FAILED" per test
count_regress() {
	local out=$1 p f
	p=$(grep -cE '^(test| ) +[a-z_0-9]+ +\.\.\. ok' "$out")
	f=$(grep -cE '^(test| ) +[a-z_0-9]+ +\.\.\. (FAILED|failed)' "$out")
	passed=$((passed + p))
	failed=$((failed + f))
	echo "--- $2: $p passed, $f failed"
	return "$f"
}

for suite in "${SUITES[@]}"; do
	case $suite in
	regress)
		log "pg_regress"
		as_test_user make installcheck ISOLATION= TAP_TESTS= 2>&1 | tee "$ARTIFACTS/regress.out"
		if ! count_regress "$ARTIFACTS/regress.out" regress ||
			! grep -qE 'All [0-9]+ tests passed' "$ARTIFACTS/regress.out"; then
			grep -qE '\.\.\. (ok|FAILED|failed)' "$ARTIFACTS/regress.out" || failed=$((failed + 1))
			cp -r "$WORK/results" "$ARTIFACTS/regress-results" 2>/dev/null
			[ -f "$WORK/regression.diffs" ] && { log "regression.diffs"; cat "$WORK/regression.diffs"; cp "$WORK/regression.diffs" "$ARTIFACTS/"; }
			[ -f "$WORK/log/postmaster.log" ] && { log "server log (tail)"; tail -50 "$WORK/log/postmaster.log"; cp "$WORK/log/postmaster.log" "$ARTIFACTS/regress-postmaster.log"; }
		fi
		;;
	isolation)
		log "isolation"
		as_test_user make installcheck REGRESS= TAP_TESTS= 2>&1 | tee "$ARTIFACTS/isolation.out"
		if ! count_regress "$ARTIFACTS/isolation.out" isolation ||
			! grep -qE 'All [0-9]+ tests passed' "$ARTIFACTS/isolation.out"; then
			grep -qE '\.\.\. (ok|FAILED|failed)' "$ARTIFACTS/isolation.out" || failed=$((failed + 1))
			cp -r "$WORK/output_iso/results" "$ARTIFACTS/isolation-results" 2>/dev/null
			[ -f "$WORK/output_iso/regression.diffs" ] && { log "output_iso/regression.diffs"; cat "$WORK/output_iso/regression.diffs"; cp "$WORK/output_iso/regression.diffs" "$ARTIFACTS/isolation.diffs"; }
			[ -f "$WORK/output_iso/log/postmaster.log" ] && { log "server log (tail)"; tail -50 "$WORK/output_iso/log/postmaster.log"; }
		fi
		;;
	tap)
		log "TAP"
		as_test_user make installcheck REGRESS= ISOLATION= \
			${PROVE_TESTS:+PROVE_TESTS="$PROVE_TESTS"} PROVE_FLAGS="--timer" 2>&1 |
			tee "$ARTIFACTS/tap.out"
		# prove prints "test/t/NNN_name.pl .. ok" (or "Failed" / "Dubious") per script
		p=$(grep -cE '^(\[[0-9:]+\] )?test/t/[^ ]+\.pl \.+ ok' "$ARTIFACTS/tap.out")
		f=$(grep -E '^(\[[0-9:]+\] )?test/t/[^ ]+\.pl \.+' "$ARTIFACTS/tap.out" | grep -cvE '\.+ ok')
		if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi
		passed=$((passed + p))
		failed=$((failed + f))
		echo "--- tap: $p passed, $f failed"
		cp -r "$WORK/tmp_check/log" "$ARTIFACTS/tap-log" 2>/dev/null
		if [ "$f" -gt 0 ]; then
			for l in "$WORK"/tmp_check/log/regress_log_*; do
				[ -f "$l" ] || continue
				grep -qE '^not ok' "$l" || continue
				log "$(basename "$l") (failing checks and the end of the log)"
				grep -E '^not ok|^#' "$l" | head -60
				tail -40 "$l"
			done
		fi
		;;
	*)
		echo "unknown suite: $suite (regress, isolation, tap)"
		failed=$((failed + 1))
		;;
	esac
done

rm -rf "$WORK"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
