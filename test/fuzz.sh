#!/bin/bash
# test/fuzz.sh: the long fuzzing run, as a separate command (CI runs short
# ones).  As root on Debian 12:
#
#   test/fuzz.sh [QUERIES] [SEED]       default 20000 sqlsmith queries, seed 1
#
# Runs the sqlsmith TAP test with that many queries and the direct fuzz of
# the SQL functions with ten times its default number of calls.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export SNOWFLAKE_SQLSMITH_QUERIES=${1:-20000}
export SNOWFLAKE_SQLSMITH_SEED=${2:-1}
export SNOWFLAKE_FUZZ_CALLS=${SNOWFLAKE_FUZZ_CALLS:-200000}
export PROVE_TESTS="test/t/014_fuzz.pl test/t/015_sqlsmith.pl"
exec "$ROOT/test/run.sh" tap
