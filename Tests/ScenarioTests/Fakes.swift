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
