#!/usr/bin/env bash
# Fails on a new public extension of a type Lockstep does not own. What the modules a client loads
# with `import LockstepTesting` add to the standard library's, Foundation's or a framework's types
# reaches every expression of the client (member lookup ignores which file imports what), so each
# such member or conformance is chosen on purpose: scripts/public-extensions.txt lists them,
# sorted, and this script compares the built modules against it.
#  1. `swift symbolgraph-extract` of Lockstep, LockstepTesting and LockstepReports (which a client
#     loads with LockstepTesting) from an existing debug build: nothing is built here;
#  2. scripts/public-extensions.swift lists each extended foreign type's public members and
#     conformances, from the `Module@OtherModule.symbols.json` files;
#  3. anything not in the list fails; entries no longer found are reported, to be removed.
#
#   scripts/check-public-extensions.sh [scratch-path]          # default .build
#   UPDATE=1 scripts/check-public-extensions.sh [scratch-path] # rewrites the list
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-.build}/debug
[ -d "$bin/Modules" ] || { echo "error: no debug build in ${1:-.build}: build first" >&2; exit 1; }
triple=$(swift -print-target-info | sed -n 's/^ *"triple": "\(.*\)",*$/\1/p' | head -n 1)
[ -n "$triple" ] || { echo "error: cannot determine the target triple" >&2; exit 1; }
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT

for module in Lockstep LockstepTesting LockstepReports; do
  swift symbolgraph-extract -module-name "$module" -I "$bin/Modules" -target "$triple" \
    -minimum-access-level public -skip-synthesized-members -emit-extension-block-symbols \
    -Xcc "-fmodule-map-file=Sources/LockstepInterposition/include/module.modulemap" -output-dir "$graphs"
done
own=Lockstep,LockstepTesting,LockstepReports,LockstepInterposition,LockstepSymbolication
swift scripts/public-extensions.swift --own "$own" "$graphs" | LC_ALL=C sort >"$graphs/found.txt"

list=scripts/public-extensions.txt
header="# Public extensions of other modules' types made by the Lockstep modules a client loads:
# scripts/check-public-extensions.sh fails on any other. Sorted; rewritten by UPDATE=1."
if [ "${UPDATE:-0}" = 1 ]; then
  { echo "$header"; cat "$graphs/found.txt"; } >"$list"
  echo "public extensions: wrote $(wc -l <"$graphs/found.txt") to $list"
  exit 0
fi
grep -v '^#' "$list" | LC_ALL=C sort >"$graphs/listed.txt"
added=$(LC_ALL=C comm -13 "$graphs/listed.txt" "$graphs/found.txt")
gone=$(LC_ALL=C comm -23 "$graphs/listed.txt" "$graphs/found.txt")
if [ -n "$gone" ]; then
  echo "note: no longer found; remove from $list:"
  echo "$gone" | sed 's/^/  /'
fi
if [ -n "$added" ]; then
  echo "error: new public extensions of types Lockstep does not own (not in $list):" >&2
  echo "$added" | sed 's/^/  /' >&2
  echo "Each reaches every expression of a client. Make it internal, move it onto a Lockstep type," >&2
  echo "or, if it is meant, add it to the list (UPDATE=1 $0)." >&2
  exit 1
fi
echo "public extensions: ok ($(wc -l <"$graphs/listed.txt") listed)"
