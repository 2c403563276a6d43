#!/usr/bin/env bash
# Runs the `queue.sync`-behind-a-waiting-block pattern (`aSyncCallForAQueueWithTheRunsBlocksIsParked`:
# a block on a serial queue waits on a semaphore a task of the run signals, while the body calls
# `queue.sync` on that queue) under seeds 1…LAST (default 1,000), in one test process, while a busy
# loop keeps every core loaded. Any seed that reports a deadlock fails it.
#
#   scripts/queue-sync-seeds.sh [last]
#   SANITIZE=thread SCRATCH=.build-tsan scripts/queue-sync-seeds.sh 1000
set -euo pipefail
cd "$(dirname "$0")/.."

LAST="${1:-1000}"
# shellcheck source=lib/build-with-busy-cores.sh
source scripts/lib/build-with-busy-cores.sh
echo "Busy-looping on $CORES core(s); running the pattern under seeds 1...$LAST..."

LOG="$(mktemp)"
trap 'stop_load; rm -f "$LOG"' EXIT
status=0
LOCKSTEP_SEEDS="$LAST" LOCKSTEP_TIMEOUT_SCALE="${LOCKSTEP_TIMEOUT_SCALE:-5}" swift test --skip-build \
  "${BUILD_FLAGS[@]}" --filter "aSyncCallForAQueueWithTheRunsBlocksIsParked" >"$LOG" 2>&1 || status=$?
failed=$(grep -c "recorded an issue with 1 argument" "$LOG" || true)
echo "seeds 1...$LAST: $failed failed"
grep -m 3 "recorded an issue" "$LOG" || true
[[ "$status" == 0 && "$failed" == 0 ]]
