#!/usr/bin/env bash
# Runs the debounce scenario (five keystrokes, then two in-flight requests released in both orders)
# REPETITIONS times (default 10,000) inside one test process, while a busy loop keeps every core
# loaded, and prints the number of failures. Exits non-zero if there was any.
#
#   scripts/repeat-debounce.sh [repetitions]
#   SCRATCH=/tmp/build-time SANITIZE=thread scripts/repeat-debounce.sh 1000
set -euo pipefail
cd "$(dirname "$0")/.."

REPETITIONS="${1:-10000}"
SCRATCH="${SCRATCH:-.build}"
BUILD_FLAGS=(--scratch-path "$SCRATCH")
if [[ -n "${SANITIZE:-}" ]]; then BUILD_FLAGS+=(--sanitize="$SANITIZE"); fi

swift build --build-tests "${BUILD_FLAGS[@]}"

CORES="$(getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu)"
LOAD_PIDS=()
stop_load() {
  for pid in "${LOAD_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_load EXIT
for _ in $(seq "$CORES"); do
  yes >/dev/null &
  LOAD_PIDS+=("$!")
done
echo "Busy-looping on $CORES core(s); running the debounce scenario $REPETITIONS times..."

LOG="$(mktemp)"
set +e
LOCKSTEP_DEBOUNCE_REPETITIONS="$REPETITIONS" swift test --skip-build "${BUILD_FLAGS[@]}" \
  --filter 'DebounceRepetitionTests' >"$LOG" 2>&1
STATUS=$?
set -e

SUMMARY="$(grep -E '^debounce repetitions:' "$LOG" || true)"
if [[ -z "$SUMMARY" ]]; then
  cat "$LOG"
  echo "The repetition test did not report (exit status $STATUS)."
  exit 1
fi
echo "$SUMMARY"
FAILURES="$(sed -E 's/.*failures: ([0-9]+).*/\1/' <<<"$SUMMARY")"
if [[ "$FAILURES" != "0" || "$STATUS" != "0" ]]; then
  grep -E '✘|error|failures' "$LOG" | head -20
  exit 1
fi
