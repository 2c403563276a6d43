import LockstepExamples
import LockstepTesting

/// One scenario of the demo: a model run the way a Lockstep test runs it, once correct and once
/// broken. `check` returns the expectations the variant violated.
struct Scenario {
  let title: String
  let proves: String
  let check: @MainActor (Variant) async throws -> [String]
}

/// Collects violated expectations, the way a test would fail them.
struct Expectations {
  private(set) var violations: [String] = []

  mutating func expect(_ condition: Bool, _ description: String) {
    if !condition { violations.append(description) }
  }

  mutating func record(_ issues: [ReportedIssue]) {
    violations += issues.map(\.message)
  }
}
