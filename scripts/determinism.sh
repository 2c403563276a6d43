#!/usr/bin/env bash
# Shows that one seed is one schedule, also for code that iterates a Dictionary, and that a replay
# that does not follow its token says so. It runs DeterminismScriptTests (skipped in a normal
# `swift test`) in many processes on a workload that resumes continuations in dictionary order:
#
#  1. as a user runs it, with no variable set (on Linux, LockstepTesting makes hashing
#     deterministic before main): in each process, seed 7 runs RUNS times; every timeline of every
#     process must be byte-identical; each process explores and prints a failing token (all the
#     same), and replays it RUNS times: every replay must reproduce it;
#  2. with LOCKSTEP_RANDOM_HASHING=1 (per-process hash seeds): each process replays the token of
#     step 1 RUNS times; every replay that runs another schedule must report that it diverged
#     (none silent), and none may report a divergence that did not happen. For comparison, seed
#     7's timelines are counted there too.
#
#   scripts/determinism.sh            # 10 processes x 100 runs each, per step
#   scripts/determinism.sh 20 500     # 20 processes x 500 runs
#
# Exits non-zero if a check fails. Takes about a minute (the processes run one after another).
set -euo pipefail
cd "$(dirname "$0")/.."

processes=${1:-10}
runs=${2:-100}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
filter=DeterminismScriptTests

swift build --build-tests >/dev/null

# run DIR [VAR=value...]: one process of the test, writing into DIR.
run() {
  local dir=$1
  shift
  mkdir -p "$dir"
  if ! env "$@" LOCKSTEP_DETERMINISM_DIR="$dir" LOCKSTEP_DETERMINISM_RUNS="$runs" \
    swift test --skip-build --filter "$filter" >"$dir/log" 2>&1; then
    cat "$dir/log"
    echo "determinism: a test process failed" >&2
    exit 1
  fi
  grep -q "writeTimelinesAndReplayTallies() passed" "$dir/log" || {
    cat "$dir/log"
    echo "determinism: the test did not run" >&2
    exit 1
  }
}

# sum FILES...: adds up the tallies of replays.txt files.
sum() {
  awk '{ r += $2; d += $4; s += $6; f += $8 } END { printf "%d reproduced, %d reported as divergent, %d silent, %d false alarms\n", r, d, s, f }' "$@"
}

status=0

echo "== 1. no variable set: $processes processes x $runs runs of seed 7"
for p in $(seq "$processes"); do
  run "$out/on/$p" -u SWIFT_DETERMINISTIC_HASHING -u LOCKSTEP_RANDOM_HASHING
done
timelines=$(cat "$out"/on/*/seed-*.txt | wc -c)
files=$(ls "$out"/on/*/seed-*.txt | wc -l)
distinct=$(sha256sum "$out"/on/*/seed-*.txt | cut -d' ' -f1 | sort -u | wc -l)
echo "   $files timelines ($timelines bytes): $distinct distinct"
[ "$distinct" = 1 ] || status=1
tokens=$(cat "$out"/on/*/token.txt | sort -u | wc -l)
token=$(cat "$out/on/1/token.txt")
echo "   explored in every process: $tokens distinct failing token(s) ($token)"
[ "$tokens" = 1 ] || status=1
tally=$(sum "$out"/on/*/replays.txt)
echo "   $((processes * runs)) replays in the processes that found it: $tally"
case $tally in "$((processes * runs)) reproduced"*) ;; *) status=1 ;; esac

echo "== 2. LOCKSTEP_RANDOM_HASHING=1: $processes processes x $runs replays of $token"
for p in $(seq "$processes"); do
  run "$out/off/$p" -u SWIFT_DETERMINISTIC_HASHING LOCKSTEP_RANDOM_HASHING=1 \
    LOCKSTEP_DETERMINISM_TOKEN="$token" LOCKSTEP_DETERMINISM_REFERENCE="$out/on/1/failure.txt"
done
tally=$(sum "$out"/off/*/replays.txt)
echo "   $((processes * runs)) replays: $tally"
case $tally in *" 0 silent, 0 false alarms") ;; *) status=1 ;; esac
for p in $(seq "$processes"); do
  run "$out/offseed/$p" -u SWIFT_DETERMINISTIC_HASHING LOCKSTEP_RANDOM_HASHING=1
done
distinct=$(sha256sum "$out"/offseed/*/seed-*.txt | cut -d' ' -f1 | sort -u | wc -l)
echo "   for comparison, seed 7 without it: $distinct distinct timelines in $((processes * runs)) runs"

if [ "$status" = 0 ]; then echo "determinism: every check passed"; else echo "determinism: FAILED"; fi
exit "$status"
