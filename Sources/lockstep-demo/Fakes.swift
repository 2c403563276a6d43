import LockstepExamples
import LockstepTesting

struct DemoProfileService: ProfileService {
  var gate: Gate?

  func fetchName() async throws -> String {
    // Like a real network stack once the request is sent, it ignores the caller's cancellation.
    if let gate { try await Task { try await gate.wait() }.value }
    return "Blob"
  }
}

struct DemoValidator: DraftValidator {
  let barrier: Barrier

  func validate(_ id: Int) async throws { try await barrier.arriveAndWait() }
}

final class DemoReadingSource: ReadingSource {
  let gate = Gate("fourth reading")
  private let served = EventCounter("readings")

  func nextReading() async throws -> Int {
    served.record()
    if served.count > 3 { try await gate.wait() }
    return served.count
  }
}
