#!/usr/bin/env bash
# Runs the legacy-seam tests (TestQueue, its state machine, withCallback, the DispatchQueue
# conformance, and the legacy image loader and throttled saver scenarios) many times with every
# core busy, and counts failures.
#
# The tests of each broken variant assert that the bug shows, so every run that passes means the
# correct models passed AND every broken variant was caught.
#
#   scripts/repeat-legacy.sh              # 200 runs
#   scripts/repeat-legacy.sh 50           # 50 runs
#   TSAN=1 scripts/repeat-legacy.sh 20    # under the thread sanitizer
#   SCRATCH=/tmp/mybuild scripts/repeat-legacy.sh
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${1:-200}
filter='TestQueue|Callback|WorkScheduler|LegacyImageLoader|ThrottledSaver|TestClock'
scratch=${SCRATCH:-/tmp/build-repeat-legacy}
flags=()
if [ "${TSAN:-0}" = 1 ]; then
  scratch=${SCRATCH:-/tmp/build-repeat-legacy-tsan}
  flags+=(--sanitize=thread)
fi

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
tally=$(mktemp)
for run in $(seq "$runs"); do
  if ! swift test --skip-build --scratch-path "$scratch" "${flags[@]}" --filter "$filter" >"$log" 2>&1; then
    failures=$((failures + 1))
    echo "run $run FAILED:"
    grep -E "✘|error:|failed|WARNING: ThreadSanitizer" "$log" | head -20
  fi
  if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "run $run: ThreadSanitizer report"
  fi
  if ! grep -qE "Test run with [0-9]+ tests? in [0-9]+ suites? passed" "$log"; then
    kept=$(mktemp /tmp/repeat-legacy-run$run.XXXX)
    cp "$log" "$kept"
    echo "run $run: no Swift Testing summary (log kept in $kept)"
  fi
  # Swift Testing: "✔ Test name() passed …"; XCTest: "Test Case 'Class.testName' passed …".
  grep -oE "✔ Test [^ ]+" "$log" | sed 's/^✔ Test //' >>"$tally"
  grep -oE "Test Case '[^']+' passed" "$log" | sed -E "s/^Test Case '([^']+)' passed/\1/" >>"$tally"
done

tests=$(sort -u "$tally" | wc -l)
short=$(sort "$tally" | uniq -c | awk -v runs="$runs" '$1 < runs')
echo "repeat-legacy: $runs runs, $failures failed; $tests tests passed in every run unless listed:"
[ -n "$short" ] && echo "$short"
echo "(load: $(nproc) busy loops${TSAN:+, thread sanitizer})"
rm -f "$log" "$tally"
[ "$failures" = 0 ]
