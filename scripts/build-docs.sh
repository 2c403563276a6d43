#!/usr/bin/env bash
# Builds the DocC documentation of Lockstep and LockstepTesting with the toolchain's own tools
# (no swift-docc-plugin), and fails if DocC printed any warning but one it is expected to print:
# that an entry point's list leaves out the call-site parameters (CallSiteParameters.md has them).
#
#   scripts/build-docs.sh                       # builds into .build-docs/site
#   SCRATCH=/tmp/docs scripts/build-docs.sh     # another scratch path
#   ANALYZE=1 scripts/build-docs.sh             # also print DocC's notes (not counted as failures)
#
# Steps:
#  1. `swift build --target LockstepTesting` (debug, into a scratch path of its own, so it never
#     invalidates the build that `swift test` uses); this builds Lockstep too.
#  2. `swift symbolgraph-extract` for each module, from the built .swiftmodule files: always fresh,
#     even when the build was a no-op.
#  3. `docc convert` for each catalog, Sources/<Module>/<Module>.docc, with its module's graphs.
#  4. Exit non-zero if either conversion printed a warning or an error.
#
# The output is .build-docs/site/<Module>.doccarchive (static hosting layout), and the logs are
# .build-docs/site/<Module>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

scratch=${SCRATCH:-.build-docs}
case $scratch in /*) ;; *) scratch=$root/$scratch ;; esac
graphs=$scratch/symbol-graphs
site=$scratch/site

docc=${DOCC:-}
if [ -z "$docc" ]; then
  if command -v docc >/dev/null 2>&1; then
    docc=$(command -v docc)
  else
    # The docc that ships next to the swift driver in the toolchain.
    docc=$(dirname "$(readlink -f "$(command -v swift)")")/docc
  fi
fi
[ -x "$docc" ] || { echo "error: docc not found (set DOCC=/path/to/docc)" >&2; exit 1; }

triple=$(swift -print-target-info | sed -n 's/^ *"triple": "\(.*\)",*$/\1/p' | head -n 1)
[ -n "$triple" ] || { echo "error: cannot determine the target triple" >&2; exit 1; }

echo "== building Lockstep and LockstepTesting (debug, scratch path $scratch)"
swift build --target LockstepTesting --scratch-path "$scratch"
bin=$(swift build --target LockstepTesting --scratch-path "$scratch" --show-bin-path)
modules=$bin/Modules
# LockstepTesting imports the C target LockstepInterposition: its module map (the target's own,
# in include/) has to be found when the module is loaded.
clang_modules=(-Xcc "-fmodule-map-file=$root/Sources/LockstepInterposition/include/module.modulemap"
  -Xcc "-I$root/Sources/LockstepInterposition/include")

rm -rf "$graphs" "$site"
mkdir -p "$site"

status=0
for module in Lockstep LockstepTesting; do
  echo "== symbol graph of $module"
  mkdir -p "$graphs/$module"
  # LockstepTesting re-exports Lockstep (`@_exported import`): its documentation includes
  # TaskFactory, WorkScheduler and the rest, as a test target that imports it sees them.
  reexported=()
  [ "$module" = LockstepTesting ] && reexported+=(-experimental-allowed-reexported-modules=Lockstep)
  swift symbolgraph-extract \
    -module-name "$module" -I "$modules" -target "$triple" \
    -minimum-access-level public -skip-synthesized-members -emit-extension-block-symbols \
    "${reexported[@]}" "${clang_modules[@]}" -output-dir "$graphs/$module"

  echo "== docc convert $module"
  log=$site/$module.log
  analyze=()
  [ "${ANALYZE:-0}" = 1 ] && analyze+=(--analyze)
  if ! "$docc" convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir "$graphs/$module" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "lockstep.$module" \
    --output-path "$site/$module.doccarchive" \
    --transform-for-static-hosting --hosting-base-path "$module" \
    "${analyze[@]}" >"$log" 2>&1; then
    cat "$log"
    echo "error: docc convert failed for $module" >&2
    status=1
    continue
  fi
  # The call-site parameters (isolation, fileID, filePath, line, column) are documented once, in
  # CallSiteParameters.md, not in each entry point's parameter list: DocC's note that they are
  # missing there is expected and not counted.
  warnings=$(grep -E '^(warning|error):' "$log" \
    | grep -cvE "^warning: Parameter '(isolation|fileID|filePath|line|column)' is missing documentation" \
    || true)
  if [ "$warnings" -gt 0 ]; then
    cat "$log"
    echo "error: docc printed $warnings warning(s) or error(s) for $module" >&2
    status=1
  else
    echo "   no warnings; $site/$module.doccarchive"
  fi
done

exit "$status"
