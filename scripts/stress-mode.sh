#!/usr/bin/env bash
# The long real-thread checks of checkLinearizability's stress mode, alone on the machine: the
# Mutex seats reserved in one section pass 10,000 overlapping runs, and the seats checked in one
# section and taken in the next fail, in each of N repetitions (default 10). Beside the suite in
# parallel too few runs overlap for checks this long, so the suite runs smaller ones.
#
#   scripts/stress-mode.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
repetitions="${1:-10}"
swift build --build-tests >/dev/null
binary=".build/debug/LockstepPackageTests.xctest"
failed=0
for run in $(seq 1 "$repetitions"); do
  if ! LOCKSTEP_STRESS_COUNT=10000 "$binary" --testing-library swift-testing \
    --filter "StressedSeatReservationsTests/seatsReservedInOneMutexSectionPass" >/tmp/stress-mode-pass-"$run".log 2>&1; then
    echo "run $run: the correct seats FAILED (see /tmp/stress-mode-pass-$run.log)"
    failed=$((failed + 1))
  fi
  if ! LOCKSTEP_LONG_STRESS=1 "$binary" --testing-library swift-testing \
    --filter "StressedSeatReservationsTests/aCheckThenActAcrossTwoMutexSectionsFails|CheckingActorsExamples/(theStressMode|oneLockSection)" \
    >/tmp/stress-mode-long-"$run".log 2>&1; then
    echo "run $run: a long check FAILED (see /tmp/stress-mode-long-$run.log)"
    failed=$((failed + 1))
  fi
done
echo "repetitions failed: $failed of $repetitions"
[ "$failed" -eq 0 ]
