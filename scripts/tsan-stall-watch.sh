#!/usr/bin/env bash
# Runs the whole suite under the thread sanitizer, as users run it (in parallel), and when its
# output falls silent for a while, records what every thread of the test process does: the
# system call each waits in (/proc/PID/task/*/syscall; a futex's word for each futex wait) and a
# backtrace of each (gdb). For a hang or a stall that only shows in the full parallel suite.
#
#   scripts/tsan-stall-watch.sh              # silent for 40 s: record, at most twice
#   SILENCE=90 SHOTS=3 scripts/tsan-stall-watch.sh
#
# Writes into OUT (default: a new temporary directory): suite.log, and stall-N.txt for each
# record. Needs gdb. Exits with the suite's status.
set -u
cd "$(dirname "$0")/.."
silence=${SILENCE:-40}
shots=${SHOTS:-2}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
echo "suite log and stall records in $out"

swift build --build-tests --sanitize=thread --scratch-path .build-tsan || exit 1
LOCKSTEP_TIMEOUT_SCALE=${LOCKSTEP_TIMEOUT_SCALE:-5} \
  swift test --skip-build --sanitize=thread --scratch-path .build-tsan >"$out/suite.log" 2>&1 &
suite=$!

last=0
quiet=0
taken=0
while kill -0 "$suite" 2>/dev/null; do
  sleep 5
  size=$(stat -c %s "$out/suite.log")
  if [ "$size" = "$last" ]; then quiet=$((quiet + 5)); else quiet=0; last=$size; fi
  if [ "$quiet" -ge "$silence" ] && [ "$taken" -lt "$shots" ]; then
    taken=$((taken + 1))
    quiet=0
    for pid in $(pgrep -f "PackageTests.xctest"); do
      record="$out/stall-$taken.txt"
      echo "=== process $pid, silent for $silence s" >>"$record"
      commands=()
      for task in /proc/"$pid"/task/*; do
        call=$(cat "$task/syscall" 2>/dev/null)
        echo "thread $(basename "$task") $(awk '{print $3, "user=" $14, "system=" $15}' "$task/stat") syscall: $call" >>"$record"
        # A futex wait (202): the word it waits on, whose low bits name a PI lock's owner.
        set -- $call
        if [ "${1:-}" = "202" ]; then commands+=(-ex "x/wx $2"); fi
      done
      # Dispatch's timers: a timer armed far ahead (its deadline read from a run's virtual clock)
      # shows as a large it_value.
      for fd in /proc/"$pid"/fd/*; do
        if [ "$(readlink "$fd")" = "anon_inode:[timerfd]" ]; then
          echo "timerfd $(basename "$fd"): $(tr '\n' ' ' <"/proc/$pid/fdinfo/$(basename "$fd")")" >>"$record"
        fi
      done
      timeout 120 gdb -batch -p "$pid" "${commands[@]}" -ex "thread apply all bt 30" >>"$record" 2>&1
    done
    echo "recorded a stall in $out/stall-$taken.txt"
  fi
done
wait "$suite"
status=$?
grep -E "Test run with|Executed .* tests" "$out/suite.log" | tail -3
exit $status
