#!/usr/bin/env bash
# Checks, on Linux, what would break Lockstep on Apple platforms without a Mac to see it:
#  - no Swift runtime symbol that the oldest OS versions Package.swift declares (macOS 13, iOS 16,
#    …) lack is linked: a test bundle that links one does not load there. Such a symbol is looked
#    up when first needed instead (LockstepInterposition/JobTaskIDs.c). APIs the standard library
#    marks with availability are linked weakly by the compiler and need no check;
#  - the runtime's experimental executor SPI is imported in one file only
#    (Runtime/Executors/LockstepExecutors.swift), behind the compilers it was checked against.
#
#   scripts/check-platforms.sh [scratch-path]   # default .build; checks its debug objects too
set -euo pipefail
cd "$(dirname "$0")/.."

# Runtime entry points declared by hand, and whether each is in every declared OS's runtime.
allowed="swift_retainCount"
status=0
while IFS= read -r symbol; do
  if ! grep -qw "$symbol" <<<"$allowed"; then
    echo "error: @_silgen_name(\"$symbol\") links a runtime symbol not known to be in every declared OS version; look it up with dlsym instead" >&2
    status=1
  fi
done < <(grep -rhoE '@_silgen_name\("[A-Za-z0-9_]+"\)' Sources | sed -E 's/.*\("(.*)"\)/\1/' | sort -u)

# Symbols known to be newer than the declared OS versions, which no object may import.
newer="swift_task_getJobTaskId"
objects=$(ls "${1:-.build}"/debug/LockstepTesting.build/*.o 2>/dev/null || true)
if [ -n "$objects" ] && command -v nm >/dev/null; then
  for symbol in $newer; do
    if nm -u $objects 2>/dev/null | grep -qw "$symbol"; then
      echo "error: LockstepTesting imports $symbol, which macOS 13 and iOS 16 lack" >&2
      status=1
    fi
  done
fi
spi_files=$(grep -rl '@_spi(Experimental' Sources | sort)
if [ "$spi_files" != "Sources/LockstepTesting/Scheduling/Runtime/Executors/LockstepExecutors.swift" ]; then
  echo "error: the experimental executor SPI must be imported in LockstepExecutors.swift alone; found in:" >&2
  echo "$spi_files" >&2
  status=1
fi

[ "$status" = 0 ] && echo "platform checks: ok"
exit "$status"
