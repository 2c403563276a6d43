# Sourced by the repetition scripts (`repeat-debounce.sh`, `queue-sync-seeds.sh`): builds the tests
# into SCRATCH (default .build; SANITIZE=thread for the thread sanitizer), leaving the flags in
# BUILD_FLAGS for `swift test`, then keeps every core busy with a loop until the script exits.
SCRATCH="${SCRATCH:-.build}"
BUILD_FLAGS=(--scratch-path "$SCRATCH")
if [[ -n "${SANITIZE:-}" ]]; then BUILD_FLAGS+=(--sanitize="$SANITIZE"); fi

swift build --build-tests "${BUILD_FLAGS[@]}"

CORES="$(getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu)"
LOAD_PIDS=()
stop_load() {
  for pid in "${LOAD_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_load EXIT
for _ in $(seq "$CORES"); do
  yes >/dev/null &
  LOAD_PIDS+=("$!")
done
