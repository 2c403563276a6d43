import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// The lines of `Account.withdraw(_:)` below.
private enum AccountLines {
  static let balanceCheck = #line + 16
  static let audit = #line + 16
  static let debit = #line + 16
}

private actor AuditLog {
  private(set) var entries: [Int] = []
  func record(_ amount: Int) { entries.append(amount) }
}

/// An account whose withdrawal checks the balance, awaits the audit, then debits: two callers
/// can both pass the check before either debits.
private actor Account {
  private(set) var balance = 100
  private let log = AuditLog()
  func withdraw(_ amount: Int) async -> Bool {
    guard balance >= amount else { return false }
    await log.record(amount)
    balance -= amount
    return true
  }
}

/// Where the callers call `withdraw`.
private enum CallerLines {
  static let first = #line + 7
  static let second = #line + 7
}

/// Two callers withdraw 80 each from 100; the balance must not go below zero.
@Sendable private func twoWithdrawals() async {
  let account = Account()
  let first = Task(name: "caller 1") { await account.withdraw(80) }
  let second = Task(name: "caller 2") { await account.withdraw(80) }
  _ = await (first.value, second.value)
  #expect(await account.balance >= 0)
}

/// The lines of a timeline's steps, without the legend.
private func stepLines(_ timeline: Timeline) -> [String] {
  timeline.description.split(separator: "\n").map(String.init).filter { line in
    line.drop { $0 == " " }.first?.isNumber == true
  }
}

/// Whether a task's line ends by saying the task's state: finished, or where it waits.
private func endsWithAState(_ line: Substring) -> Bool {
  let last = line.components(separatedBy: ", ").last ?? ""
  return ["finished", "awaits in ", "waits to enter ", "waits for ", "sleeps until "].contains {
    last.hasPrefix($0) || last.hasSuffix($0)
  } || last.hasSuffix("  ✗ a check failed here")
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TimelineActorRaceTests {
  /// The failing schedule of the account race.
  private func race() async throws -> ExplorationFailure {
    let (result, _) = await collectingIssues {
      await explore(.pct(schedules: 200, depth: 2, seed: 1)) { await twoWithdrawals() }
    }
    return try #require(result.failure, "the race is found")
  }

  @Test(.enabled(if: SuspendedTaskStacks.unavailability == nil))
  func eachStepNamesTheAwaitByItsLineAndTheCallItWaitsToEnter() async throws {
    let text = try await race().timeline.description
    let file = "TimelineActorRaceTests.swift"
    for (caller, line) in [("caller 1", CallerLines.first), ("caller 2", CallerLines.second)] {
      #expect(
        text.contains(
          "\"\(caller)\"  started, waits to enter Account.withdraw(_:) (called at \(file):\(line))"),
        "\(text)")
    }
    #expect(text.contains("awaits in Account.withdraw(_:) at \(file):\(AccountLines.audit)"), "\(text)")
    // Not the line after the await, nor the first line of the function.
    #expect(!text.contains("\(file):\(AccountLines.debit)"), "\(text)")
    #expect(!text.contains("\(file):\(AccountLines.balanceCheck)"), "\(text)")
  }

  @Test(.enabled(if: SuspendedTaskStacks.unavailability == nil))
  func theActorsJobsAreToldByTheCallersTheyRan() async throws {
    let timeline = try await race().timeline
    let lines = stepLines(timeline)
    #expect(!lines.contains { $0.contains("(actor job)") }, "\(timeline)")
    // Both callers await the audit before either finishes: the race, line by line.
    let audit = "awaits in Account.withdraw(_:) at TimelineActorRaceTests.swift:\(AccountLines.audit)"
    func index(_ caller: String, _ what: String) -> Int? {
      lines.firstIndex { $0.contains("\"\(caller)\"") && $0.contains(what) }
    }
    let waits = try [#require(index("caller 1", audit)), #require(index("caller 2", audit))]
    let finishes = try [#require(index("caller 1", "finished")), #require(index("caller 2", "finished"))]
    #expect(waits.max()! < finishes.min()!, "\(timeline)")
    #expect(lines.contains { $0.contains("\"caller 1\"  resumed on an actor, ") }, "\(timeline)")
  }

  @Test(.enabled(if: SuspendedTaskStacks.unavailability == nil))
  func everyTaskLineSaysTheTasksState() async throws {
    let timeline = try await race().timeline
    for line in stepLines(timeline) where !line.contains("(Task.yield)") && !line.contains("(runtime job)") {
      #expect(endsWithAState(line[...]), "\(line)\n\(timeline)")
    }
    // An `async let` task too, and tasks that finish in a task group.
    let outcome = try await runDeterministically {
      async let first = Task.yield()
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await Task.yield() }
      }
      await first
    }
    for line in stepLines(outcome.trace.timeline) where !line.contains("(Task.yield)") {
      #expect(endsWithAState(line[...]), "\(line)\n\(outcome.trace.timeline)")
    }
  }
}
