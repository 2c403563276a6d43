#!/usr/bin/env bash
# End-to-end checks of lockstep-explore, which CI need not run (a minute or two; the speed check
# wants an otherwise idle machine with 2 cores or more):
#
#  1. its errors: a test executable that does not exist, a worker killed by a signal, workers that
#     write no summary — each with its exit status and a message that says so;
#  2. the demo's race (ScenarioTests' ScaledExplorationTests: the two-reload race under PCT, random
#     and exhaustive exploration) split over 2, 3 and 4 workers: the merged verdict's first failure
#     of each exploration, its schedule number and its replay token, against those of the same
#     exploration unsharded;
#  3. speed: the schedules a second of `--workers 2` against `--workers 1`, on an exploration of the
#     correct two-reload screen scaled (LOCKSTEP_EXPLORE_SCALE) to a few seconds a worker, in
#     alternating rounds; it prints the medians and fails below MIN_RATIO.
#
#   scripts/explore-workers.sh            # 5 rounds of each, SCALE=150, MIN_RATIO=1.7
#   SCALE=300 scripts/explore-workers.sh 9
#
# Exits non-zero if a check fails. A debug build, as `swift build --build-tests` makes it.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-5}
scale=${SCALE:-150}
min_ratio=${MIN_RATIO:-1.7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

swift build --build-tests -j 2 >/dev/null
swift build -j 2 --product lockstep-explore >/dev/null
swift build -j 2 --product lockstep-report >/dev/null
bin=$(swift build --show-bin-path)
explore=$bin/lockstep-explore
tests=$(ls -d "$bin"/*PackageTests.xctest)

# expect STATUS TEXT COMMAND...: COMMAND exits with STATUS and says TEXT.
expect() {
  local want=$1 text=$2 got=0
  shift 2
  "$@" >"$tmp/out" 2>&1 || got=$?
  [ "$got" = "$want" ] || fail "$* exited $got, not $want: $(tail -3 "$tmp/out")"
  grep -qF -- "$text" "$tmp/out" || fail "$* did not say \"$text\": $(tail -3 "$tmp/out")"
}

echo "== 1. errors"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$tmp/crashes"
printf '#!/bin/sh\nexit 0\n' >"$tmp/explores-nothing"
chmod +x "$tmp/crashes" "$tmp/explores-nothing"
expect 2 "--test-binary $tmp/absent: no such file" "$explore" --test-binary "$tmp/absent"
expect 1 "worker 2/2: the test executable was killed by signal 11 (SIGSEGV)" \
  "$explore" --workers 2 --test-binary "$tmp/crashes" -- --testing-library swift-testing
expect 2 "do the tests the arguments choose" \
  "$explore" --workers 2 --test-binary "$tmp/explores-nothing" -- --testing-library swift-testing
expect 2 "unknown option --filter" "$explore" --filter Race
echo "ok"

echo "== 2. the merged first failure against the unsharded run's"
race=ScaledExplorationTests/theDemoRace
LOCKSTEP_REPORTS="$tmp/unsharded" "$tests" --testing-library swift-testing --filter "$race" >/dev/null 2>&1 ||
  fail "the unsharded run of $race failed"
"$bin/lockstep-report" "$tmp/unsharded" >"$tmp/unsharded.txt" || true

# first FILE STRATEGY: the schedule number and token of STRATEGY's first failure in a verdict.
first() {
  grep -m1 -A1 -F " with $2(" "$1" |
    sed -n -e 's/.*, schedule \([0-9,]*\).*/\1/p' -e 's/.*\.replay("\(.*\)").*/\1/p' | tr '\n' ' '
}
for workers in 2 3 4; do
  status=0
  "$explore" --workers "$workers" --reports "$tmp/workers-$workers" -- --filter "$race" \
    >"$tmp/workers-$workers.txt" 2>"$tmp/workers-$workers.err" || status=$?
  [ "$status" = 1 ] || fail "$workers workers: exit status $status, not 1 (the race is a failure)"
  for strategy in exhaustive pct random; do
    unsharded=$(first "$tmp/unsharded.txt" "$strategy")
    merged=$(first "$tmp/workers-$workers.txt" "$strategy")
    printf '%s workers, %-10s unsharded: %-40s merged: %s\n' "$workers" "$strategy" "$unsharded" "$merged"
    [ -n "$unsharded" ] || fail "no unsharded $strategy failure"
    [ "$unsharded" = "$merged" ] || fail "$workers workers, $strategy: $merged is not $unsharded"
  done
done

echo "== 3. schedules/s, --workers 2 against --workers 1 (LOCKSTEP_EXPLORE_SCALE=$scale, $rounds rounds)"
rate() {
  LOCKSTEP_EXPLORE_SCALE=$scale "$explore" --workers "$1" -- --filter ScaledExplorationTests/theCorrectScreen \
    2>&1 >/dev/null | sed -n 's/.* \([0-9,]*\) schedules\/s with.*/\1/p' | tr -d ,
}
: >"$tmp/one"
: >"$tmp/two"
for round in $(seq 1 "$rounds"); do
  one=$(rate 1)
  two=$(rate 2)
  echo "round $round: 1 worker $one schedules/s, 2 workers $two schedules/s"
  echo "$one" >>"$tmp/one"
  echo "$two" >>"$tmp/two"
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
one=$(median "$tmp/one")
two=$(median "$tmp/two")
ratio=$(awk -v a="$two" -v b="$one" 'BEGIN { printf "%.2f", a / b }')
echo "medians: 1 worker $one schedules/s, 2 workers $two schedules/s: ${ratio}x on $(nproc) core(s)"
awk -v r="$ratio" -v m="$min_ratio" 'BEGIN { exit !(r >= m) }' || fail "${ratio}x is below ${min_ratio}x"

[ "$failed" = 0 ] && echo "PASSED" || { echo "FAILED"; exit 1; }
