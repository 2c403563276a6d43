import LockstepExamples
import LockstepTesting

/// A profile service whose answer the test can hold at a gate.
///
/// Like many real network stacks once a request is sent, it ignores the caller's cancellation and
/// answers anyway: the wait runs in a task of its own, which the caller's cancellation does not
/// reach. That is what lets a test prove the *model* discards a cancelled result.
struct FakeProfileService: ProfileService {
  var name = "Blob"
  /// When set, every fetch waits here until the test opens it.
  var gate: Gate?

  func fetchName() async throws -> String {
    if let gate { try await Task { try await gate.wait() }.value }
    return name
  }
}

/// A validator that holds every caller at a barrier: with two parties, both callers are past the
/// store's existence check before either of them writes.
struct BarrierValidator: DraftValidator {
  let barrier: Barrier

  func validate(_ id: Int) async throws {
    try await barrier.arriveAndWait()
  }
}

/// A reading source that answers `ready` readings at once, then holds the next one at a gate.
final class GatedReadingSource: ReadingSource {
  let ready: Int
  let gate = Gate("next reading")
  private let served = EventCounter("readings served")

  init(ready: Int) {
    self.ready = ready
  }

  func nextReading() async throws -> Int {
    served.record()
    if served.count > ready { try await gate.wait() }
    return served.count
  }
}

/// A reading source that measures one reading at a time, held at a gate until the test opens it.
/// It checks that its caller still wants a reading before it measures, and then delivers the
/// measurement even if its caller was cancelled meanwhile: the wait runs in a task of its own.
final class HeldReadingSource: ReadingSource {
  let measurement = Gate("measurement")
  private let measured = EventCounter("readings measured")

  func nextReading() async throws -> Int {
    try Task.checkCancellation()
    let gate = measurement
    try await Task { try await gate.wait() }.value
    measured.record()
    return measured.count
  }
}

/// Scenario 6's procedure: starts the tracker; once it has really started (three readings in,
/// waiting for the fourth), stops it and waits for it to wind down. Under exploration the tracker
/// may also be cancelled at its wait for the reading.
@MainActor
func runTrackerUntilStopped(_ variant: Variant) async throws -> (readings: [Int], attempts: Int) {
  let source = GatedReadingSource(ready: 3)
  let tasks = TestTaskFactory()
  let tracker = ActivityTracker(source: source, tasks: tasks, variant: variant)
  tracker.start()
  try await source.gate.waitForArrivals(1)  // it has really started
  tracker.stop()
  try await tasks.waitUntilIdle()  // it has wound down
  return (tracker.readings, tracker.attempts)
}
