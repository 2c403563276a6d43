#!/usr/bin/env bash
# Wraps a folder of XCTest files the way a user wraps an existing suite — every `func test…()` body
# in `withDeterministicSchedulingBlocking { … }` (an `async` test's in `withDeterministicScheduling`)
# and `import LockstepTesting` added — builds them in a scratch package that depends on this
# checkout, and runs each test in a process of its own, reporting pass, fail, hang or crash.
#
#   scripts/wrap-xctests.sh Tests/LegacyXCTestSuite            # FIFO runs (no seed)
#   SEED=7 scripts/wrap-xctests.sh Tests/LegacyXCTestSuite     # every run with seed 7
#   SEEDS="1 2 3" scripts/wrap-xctests.sh Tests/LegacyXCTestSuite
#   MODE=6 HANG=30 scripts/wrap-xctests.sh path/to/Tests       # Swift 6 mode; 30 s makes a hang
#
# Every other .swift file of the folder (the code under test, helpers) is copied unchanged.
# Exits non-zero when any test did not pass.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
folder=${1:?usage: scripts/wrap-xctests.sh FOLDER}
folder=$(cd "$folder" && pwd)
mode=${MODE:-5}
hang=${HANG:-120}
seeds=${SEEDS:-${SEED:-none}}
work="$root/.build-wrapped"
package="$work/package"

rm -rf "$package/Tests"
mkdir -p "$package/Tests/WrappedTests"
cat >"$package/Package.swift" <<EOF
// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "WrappedSuite",
  dependencies: [.package(path: "$root")],
  targets: [
    .testTarget(
      name: "WrappedTests",
      dependencies: [.product(name: "LockstepTesting", package: "$(basename "$root" | tr '[:upper:]' '[:lower:]')")],
      path: "Tests/WrappedTests",
      swiftSettings: [.swiftLanguageMode(.v$mode)])
  ]
)
EOF

# The seed is read from the environment when a test runs, so that one build serves every seed.
python3 - "$folder" "$package/Tests/WrappedTests" <<'PYTHON'
import os, re, sys

source_folder, target = sys.argv[1], sys.argv[2]
signature = re.compile(r'func\s+test\w*\s*\(\s*\)\s*(async\s+)?(throws\s+)?\{')

def body_end(text, start):
    """The index of the brace closing the one at `start`, skipping strings and comments."""
    depth, index = 0, start
    while index < len(text):
        if text.startswith('//', index):
            index = text.find('\n', index)
            if index < 0: return -1
            continue
        if text.startswith('/*', index):
            index = text.find('*/', index) + 2
            continue
        if text.startswith('"""', index):
            index = text.find('"""', index + 3) + 3
            continue
        char = text[index]
        if char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == '\\' else 1
        elif char == '{':
            depth += 1
        elif char == '}':
            depth -= 1
            if depth == 0: return index
        index += 1
    return -1

def wrap(text):
    out, position, wrapped = [], 0, 0
    for match in signature.finditer(text):
        if match.start() < position: continue
        opening = match.end() - 1
        closing = body_end(text, opening)
        if closing < 0: continue
        is_async = match.group(1) is not None
        effects = 'async throws ' if is_async else 'throws '
        head = text[match.start():match.start() + text[match.start():].index('(')] + '() ' + effects + '{'
        call = ('try await withDeterministicScheduling(seed: wrappedSeed) {' if is_async
                else 'try withDeterministicSchedulingBlocking(seed: wrappedSeed) {')
        out.append(text[position:match.start()])
        out.append(head + '\n' + call + text[opening + 1:closing] + '}\n' + '}')
        position = closing + 1
        wrapped += 1
    out.append(text[position:])
    return ''.join(out), wrapped

total = 0
for name in sorted(os.listdir(source_folder)):
    if not name.endswith('.swift'): continue
    text = open(os.path.join(source_folder, name)).read()
    text, count = wrap(text)
    total += count
    if count:
        imports = list(re.finditer(r'^(@testable\s+)?import\s+\w+.*$', text, re.M))
        at = imports[-1].end() if imports else 0
        text = text[:at] + '\nimport LockstepTesting\n' + text[at:]
    open(os.path.join(target, name), 'w').write(text)
seed = '''import Foundation

/// The seed of every wrapped run: `LOCKSTEP_WRAPPED_SEED`, or none (FIFO).
let wrappedSeed: UInt64? = ProcessInfo.processInfo.environment["LOCKSTEP_WRAPPED_SEED"].flatMap(UInt64.init)
'''
open(os.path.join(target, 'WrappedSeed.swift'), 'w').write(seed)
print(f'wrapped {total} test bodies from {source_folder}')
PYTHON

echo "building the wrapped suite (Swift $mode mode) in $package"
swift build --build-tests --package-path "$package" >"$work/build.log" 2>&1 || {
  grep -E "error:" "$work/build.log" | head -20
  echo "the wrapped suite does not build: $work/build.log"
  exit 1
}
binary=$(find -L "$package/.build/debug" -maxdepth 1 -name "*.xctest" | head -n 1)
tests=$(swift test list --skip-build --package-path "$package" 2>/dev/null | grep '/')
[ -n "$tests" ] || { echo "no tests found"; exit 1; }

passed=0 failed=0 hung=0 crashed=0
for seed in $seeds; do
  for test in $tests; do
    log="$work/last.log"
    if [ "$seed" = none ]; then unset LOCKSTEP_WRAPPED_SEED; else export LOCKSTEP_WRAPPED_SEED=$seed; fi
    timeout -k 5 "$hang" "$binary" "$test" >"$log" 2>&1
    status=$?
    if [ $status -eq 0 ]; then
      passed=$((passed + 1))
      continue
    elif [ $status -eq 124 ] || [ $status -eq 137 ]; then
      verdict=hang hung=$((hung + 1))
    elif [ $status -gt 128 ]; then
      verdict=crash crashed=$((crashed + 1))
    else
      verdict=fail failed=$((failed + 1))
    fi
    echo "$verdict  seed $seed  $test"
    grep -E "error:" "$log" | head -3 | cut -c1-300 | sed 's/^/      /'
  done
done
echo "wrapped: $passed passed, $failed failed, $hung hung, $crashed crashed"
[ $((failed + hung + crashed)) -eq 0 ]
