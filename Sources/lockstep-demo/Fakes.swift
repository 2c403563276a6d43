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

struct DemoBookLoader: BookLoader {
  let calls = ControlledCalls<Int, Book>("book loader")

  func load(id: Int) async throws -> Book { try await calls.call(id) }
}

/// A search backend that holds each query until the test opens its gate. The wait runs in a task
/// of its own, so that, like a request already sent, it ignores the caller's cancellation.
struct DemoSearchBackend: SearchBackend {
  let gates = KeyedGates<String>("search responses")

  func search(_ query: String) async throws -> [String] {
    let gates = self.gates
    try await Task { try await gates.wait(for: query) }.value
    return ["results for \(query)"]
  }
}
