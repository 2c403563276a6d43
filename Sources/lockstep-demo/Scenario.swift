import LockstepExamples
import LockstepTesting

/// One scenario of the demo: a model run the way a Lockstep test runs it. Each of its checks
/// guards against one bug, so that each broken variant is caught on its own.
struct Scenario {
  let title: String
  let proves: String
  let checks: [Check]
}

/// One check of a scenario, aimed at one bug: it must pass on the correct model and catch the
/// broken one. `run` builds the model in the variant it is given — for `.broken`, the model with
/// this check's bug and no other — and returns the expectations the model violated.
struct Check {
  /// What the check does, in a few words.
  let name: String
  /// The bug of the broken model that the check must catch.
  let bug: String
  let run: @MainActor (Variant) async throws -> [String]
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
