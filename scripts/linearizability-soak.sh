#!/usr/bin/env bash
# Soak of checkLinearizability: the correct example actors, the Mutex-protected class and a
# main-actor class whose methods never suspend must have no false report in 10,000 scenario runs each
# (LOCKSTEP_EXPLORE_SCALE=20: 20 scenarios × 500 schedules), and the classic bugs must be caught
# within the default budget for every seed from 1 to N (default 20; each test run tries 3 seeds from LOCKSTEP_SEED).
#
#   scripts/linearizability-soak.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-20}"
swift build --build-tests >/dev/null
echo "== no false report in 10,000 runs each"
LOCKSTEP_EXPLORE_SCALE=20 swift test --skip-build \
  --filter "ConcurrentCallsTests/(theCorrectActorsPass|aMutexProtectedClass|aMainActorClass)" 2>&1 | tail -3
echo "== the classic bugs, seeds 1...$seeds"
failed=0
for seed in $(seq 1 3 "$seeds"); do
  if ! LOCKSTEP_SEED="$seed" swift test --skip-build --filter "ConcurrentCallsTests/.*IsCaught" \
    >/tmp/linearizability-soak-"$seed".log 2>&1; then
    echo "seed $seed: FAILED (see /tmp/linearizability-soak-$seed.log)"
    failed=$((failed + 1))
  fi
done
echo "seeds failed: $failed of $seeds"
[ "$failed" -eq 0 ]
