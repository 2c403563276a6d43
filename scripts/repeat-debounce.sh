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
# shellcheck source=lib/build-with-busy-cores.sh
source scripts/lib/build-with-busy-cores.sh
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
