#!/usr/bin/env bash
# The main actor's promise under the thread sanitizer: deterministic runs beside plain
# `@MainActor` tests in the same process, in parallel (Swift Testing's default), writing the same
# `@MainActor` state. Any data race the sanitizer sees, any lost write, any main-actor job of a
# run off the main queue fails the run.
#
#   scripts/main-actor-tsan.sh        # 20 runs in a row
#   scripts/main-actor-tsan.sh 100    # 100 runs
#
# Prints one line per failing run and a summary; exits non-zero if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${1:-20}
scratch=.build-tsan
export LOCKSTEP_TIMEOUT_SCALE=${LOCKSTEP_TIMEOUT_SCALE:-5}
swift build --build-tests --scratch-path "$scratch" --sanitize=thread >/dev/null || exit 1

failures=0
log=$(mktemp)
for run in $(seq "$runs"); do
  if ! swift test --skip-build --scratch-path "$scratch" --sanitize=thread \
    --filter "MainActorExclusion|MainActorThread|MainQueue" >"$log" 2>&1 \
    || grep -q "WARNING: ThreadSanitizer" "$log"; then
    failures=$((failures + 1))
    kept="$scratch/main-actor-failed-run-$run.log"
    cp "$log" "$kept"
    echo "run $run FAILED (whole log: $kept):"
    grep -E "^✘ Test .*(recorded|failed)|: error: |WARNING: ThreadSanitizer|Fatal error|Crash" "$kept" \
      | head -20
  fi
done
echo "main-actor-tsan: $runs runs, $failures failed"
[ "$failures" = 0 ]
