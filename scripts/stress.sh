#!/usr/bin/env bash
# Runs the test suite many times in a row with every core busy, to prove that no test flakes.
# A flaky test in this project is a bug in the product.
#
#   scripts/stress.sh                 # 200 runs of the whole suite, both frameworks
#   scripts/stress.sh 500 Gate        # 500 runs of the tests matching "Gate"
#   TSAN=1 scripts/stress.sh 20       # under the thread sanitizer, one test at a time
#   TSAN=1 PARALLEL=1 scripts/stress.sh 20 "MainActor|MainQueue"
#                                     # ... tests in parallel: deterministic runs beside plain
#                                     # `@MainActor` tests, as Swift Testing runs them by default
#
# Prints one line per failing run and a summary; exits non-zero if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${1:-200}
filter=${2:-}
scratch=.build-stress
flags=()
test_flags=()
if [ "${TSAN:-0}" = 1 ]; then
  scratch=.build-tsan
  flags+=(--sanitize=thread)
  # The sanitizer and the busy loops make every test many times slower: lengthen Lockstep's
  # real-time failure bounds, as the README advises for sanitizer runs.
  export LOCKSTEP_TIMEOUT_SCALE=${LOCKSTEP_TIMEOUT_SCALE:-5}
  # One test at a time: run in parallel under the sanitizer and the busy loops, the explorations'
  # tests exceed their one-minute `.timeLimit`, which no scale reaches. PARALLEL=1 keeps Swift
  # Testing's parallel default, for a filter of quick tests whose subject is running side by side.
  [ "${PARALLEL:-0}" = 1 ] || test_flags+=(--no-parallel)
fi
filter_args=()
[ -n "$filter" ] && filter_args+=(--filter "$filter")

swift build --build-tests --scratch-path "$scratch" "${flags[@]}" >/dev/null || exit 1

# Keep every core busy so that scheduling is as hostile as on a loaded CI runner.
load_pids=()
for _ in $(seq "$(nproc)"); do
  yes >/dev/null &
  load_pids+=($!)
done
trap 'kill "${load_pids[@]}" 2>/dev/null' EXIT

failures=0
log=$(mktemp)
for run in $(seq "$runs"); do
  # A sanitizer report fails the run even where the process exits 0.
  if ! swift test --skip-build --scratch-path "$scratch" "${flags[@]}" "${test_flags[@]}" "${filter_args[@]}" >"$log" 2>&1 \
    || grep -q "WARNING: ThreadSanitizer" "$log"; then
    failures=$((failures + 1))
    kept="$scratch/failed-run-$run.log"
    cp "$log" "$kept"
    echo "run $run FAILED (whole log: $kept):"
    # Failures only: Swift Testing's ✘ lines, XCTest's error lines, sanitizer reports, crashes.
    grep -E "^✘ Test .*(recorded|failed)|: error: |WARNING: ThreadSanitizer|Fatal error|Crash" "$kept" \
      | head -20
  fi
done
echo "stress: $runs runs, $failures failed (load: $(nproc) busy loops${TSAN:+, thread sanitizer})"
[ "$failures" = 0 ]
