import LockstepTestSupport
import Synchronization
import Testing

@testable import LockstepTesting

/// Continuations nobody resumes while a test looks at the deadlock they cause; the test resumes
/// them at its end (their tasks are quarantined by then: the run holds their jobs for good).
private final class ParkingLot: Sendable {
  private let parked = Mutex<[CheckedContinuation<Void, Never>]>([])

  func park() async {
    await withCheckedContinuation { continuation in parked.withLock { $0.append(continuation) } }
  }

  func resumeAll() {
    for continuation in parked.withLock({ $0 }) { continuation.resume() }
  }
}

/// An unnamed task, made in a function of its own so that a report can say where.
private func startUnnamedParker(_ lot: ParkingLot) -> (task: Task<Void, Never>, line: Int) {
  (Task { await lot.park() }, #line)
}

private func startDetachedParker(_ lot: ParkingLot) -> Task<Void, Never> {
  Task.detached(name: "detached parker") { await lot.park() }
}

/// The deadlock of `body`, which must deadlock.
private func deadlock(of body: @escaping @Sendable () async -> Void) async throws -> DeterministicDeadlock {
  do {
    try await withDeterministicScheduling { await body() }
  } catch let deadlock as DeterministicDeadlock {
    return deadlock
  }
  Issue.record("the run did not deadlock")
  throw CancellationError()
}

/// Tasks made with `Task(name:)`, `Task.detached(name:)` and `Task {}` are named, or placed, in
/// reports and timelines from their creation (Linux: Lockstep sees `swift_task_create`).
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TaskCreationNamesTests {
  @Test func theHookIsInEffectWhereThePlatformAllowsIt() {
    #if os(Linux)
      #expect(TaskCreationHook.isInEffect == (TaskLayoutReading.turnedOff == nil))
    #else
      #expect(!TaskCreationHook.isInEffect)
    #endif
  }

  @Test(.enabled(if: TaskCreationHook.isInEffect))
  func aDeadlockReportNamesTaskNameTasksThatOnlyParkOnAContinuation() async throws {
    let lot = ParkingLot()
    defer { lot.resumeAll() }
    let report = try await deadlock {
      let first = Task(name: "first parker") { await lot.park() }
      let second = Task(name: "second parker") { await lot.park() }
      await first.value
      await second.value
    }
    let tasks = report.tasks
    #expect(tasks.contains { $0.hasPrefix("task 2 \"first parker\"") }, "\(tasks)")
    #expect(tasks.contains { $0.hasPrefix("task 3 \"second parker\"") }, "\(tasks)")
    #expect(report.trace.taskNames == [2: "first parker", 3: "second parker"])
    let names = Set(report.trace.timeline.entries.map(\.taskName))
    #expect(names.isSuperset(of: ["\"first parker\"", "\"second parker\""]), "\(report.trace.timeline)")
  }

  @Test(.enabled(if: TaskCreationHook.isInEffect)) func anUnnamedTaskIsIdentifiedByWhereItWasCreated()
    async throws
  {
    let lot = ParkingLot()
    defer { lot.resumeAll() }
    let line = Mutex(0)
    let report = try await deadlock {
      let (task, created) = startUnnamedParker(lot)
      line.withLock { $0 = created }
      await task.value
    }
    let parker = try #require(report.tasks.first { $0.hasPrefix("task 2") }, "\(report.tasks)")
    #expect(parker.contains("created in startUnnamedParker(_:)"), "\(parker)")
    #expect(parker.contains("TaskCreationNamesTests.swift:\(line.withLock { $0 })"), "\(parker)")
    let entry = report.trace.timeline.entries.first { $0.task == 2 }
    #expect(entry?.taskName.contains("startUnnamedParker(_:)") == true, "\(report.trace.timeline)")
  }

  /// Also in release builds, where the group's body is inlined into `withTaskGroup` and that into
  /// the closure that calls it (``TaskOriginSymbols``).
  @Test(.enabled(if: TaskCreationHook.isInEffect))
  func theChildrenOfATaskGroupAreIdentifiedByTheirOwnAddTaskLines() async throws {
    let lot = ParkingLot()
    defer { lot.resumeAll() }
    let first = #line + 3
    let report = try await deadlock {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await lot.park() }
        group.addTask { await lot.park() }
      }
    }
    let children = try ["task 2", "task 3"].map { prefix in
      try #require(report.tasks.first { $0.hasPrefix(prefix) }, "\(report.tasks)")
    }
    #expect(children[0].contains("TaskCreationNamesTests.swift:\(first))"), "\(children[0])")
    #expect(children[1].contains("TaskCreationNamesTests.swift:\(first + 1))"), "\(children[1])")
  }

  @Test(.enabled(if: TaskCreationHook.isInEffect)) func aDetachedNamedTaskIsNamed() async throws {
    let lot = ParkingLot()
    defer { lot.resumeAll() }
    let report = try await deadlock { await startDetachedParker(lot).value }
    let parker = try #require(report.tasks.first { $0.hasPrefix("task 2") }, "\(report.tasks)")
    #expect(parker.hasPrefix("task 2 \"detached parker\" (created in startDetachedParker(_:)"), "\(parker)")
    #expect(report.trace.taskNames[2] == "detached parker")
  }

  @Test(.enabled(if: TaskCreationHook.isInEffect)) func tasksNamedOutsideRunsLendNoNameToTheTasksOfARun()
    async throws
  {
    // Named tasks that finish before the run: the run's tasks may be allocated where they were.
    for index in 0..<200 { await Task(name: "outside \(index)") {}.value }
    let outcome = try await runDeterministically {
      for _ in 0..<20 { await Task {}.value }
    }
    #expect(outcome.trace.taskNames.isEmpty, "\(outcome.trace.taskNames)")
  }
}
