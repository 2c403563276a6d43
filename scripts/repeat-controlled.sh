#!/usr/bin/env bash
# Runs the controlled-dependency scenario tests (scenario 2 "two reloads, out of order" and the
# "every arrival order" part of scenario 3) many times with every core busy, and counts failures.
#
# The tests of each broken variant assert that the bug shows, so every run that passes means the
# correct models passed AND every broken variant was caught. The script also tallies each test:
# a test that passed in fewer than all runs is listed.
#
#   scripts/repeat-controlled.sh              # 200 runs
#   scripts/repeat-controlled.sh 50           # 50 runs
#   TSAN=1 scripts/repeat-controlled.sh 20    # under the thread sanitizer
#   SCRATCH=/tmp/mybuild scripts/repeat-controlled.sh
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${1:-200}
filter='BookScreen|SearchOrder|ControlledCalls|KeyedGates|Interleavings'
scratch=${SCRATCH:-/tmp/build-repeat-controlled}
flags=()
if [ "${TSAN:-0}" = 1 ]; then
  scratch=${SCRATCH:-/tmp/build-repeat-controlled-tsan}
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
    kept=$(mktemp /tmp/repeat-controlled-run$run.XXXX)
    cp "$log" "$kept"
    echo "run $run: no Swift Testing summary (log kept in $kept)"
  fi
  # Swift Testing: "✔ Test name() passed …"; XCTest: "Test Case 'Class.testName' passed …".
  # Not anchored: the two frameworks write to stdout and stderr, whose lines may interleave.
  grep -oE "✔ Test [^ ]+" "$log" | sed 's/^✔ Test //' >>"$tally"
  grep -oE "Test Case '[^']+' passed" "$log" | sed -E "s/^Test Case '([^']+)' passed/\1/" >>"$tally"
done

tests=$(sort -u "$tally" | wc -l)
short=$(sort "$tally" | uniq -c | awk -v runs="$runs" '$1 < runs')
echo "repeat-controlled: $runs runs, $failures failed; $tests tests passed in every run unless listed:"
[ -n "$short" ] && echo "$short"
echo "(load: $(nproc) busy loops${TSAN:+, thread sanitizer})"
[ "$failures" = 0 ]
