#!/usr/bin/env bash
# Checks that every sleep in a deterministic run lasts exactly its duration in virtual time:
# PROCESSES processes (default 20) of SLEEPS sleeps each (default 5000) of mixed durations, each
# process with its own seed: with virtual now (Linux), durations to the nanosecond (1.5 µs, 80 ms,
# 2.08 s…); with LOCKSTEP_REAL_NOW=1, whole milliseconds and seconds, which the fallback recovers
# from real-clock readings. With LOAD=1, every core is kept busy meanwhile. Prints one line per process and a total; exits non-zero if any sleep was inexact.
#
#   scripts/exact-time.sh                 # 20 × 5000 = 100,000 sleeps
#   LOAD=1 scripts/exact-time.sh          # the same with every core busy
#   LOCKSTEP_REAL_NOW=1 scripts/exact-time.sh   # the fallback
set -uo pipefail
cd "$(dirname "$0")/.."

processes=${PROCESSES:-20}
sleeps=${SLEEPS:-5000}
swift build --build-tests >/dev/null || exit 1
load_pids=()
if [ "${LOAD:-0}" = 1 ]; then
  for _ in $(seq "$(nproc)"); do
    yes >/dev/null &
    load_pids+=($!)
  done
  trap 'kill "${load_pids[@]}" 2>/dev/null' EXIT
fi
total=0
inexact=0
for process in $(seq "$processes"); do
  line=$(LOCKSTEP_SEED=$process LOCKSTEP_EXACT_TIME_SLEEPS=$sleeps swift test --skip-build \
    --filter manySleepsOfMixedDurationsAreExact 2>&1 | grep "exact-time:")
  echo "process $process: ${line:-no result}"
  count=$(echo "$line" | sed -E 's/.*: ([0-9]+) sleeps, ([0-9]+) inexact.*/\1 \2/')
  total=$((total + ${count% *}))
  inexact=$((inexact + ${count#* }))
done
echo "exact-time: $total sleeps in $processes processes, $inexact inexact${LOAD:+ (cores busy)}"
[ "$inexact" = 0 ]
