/// Thrown by ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)`` when
/// the body can no longer make progress: it has not finished, no job is ready, no task sleeps in
/// virtual time, and nothing arrived from outside the run within the grace period.
///
/// The run does not wait in real time to find this out. Its ``description`` lists what the
/// scheduler knew about the run's tasks:
///
/// ```swift
/// do {
///   try await withDeterministicScheduling {
///     await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }  // never resumed
///   }
/// } catch let deadlock as DeterministicDeadlock {
///   print(deadlock)   // "Deadlock in the deterministic run started at MyTests.swift:12:…"
/// }
/// ```
public struct DeterministicDeadlock: Error, CustomStringConvertible, Sendable {
  /// Where the deterministic run was started.
  ///
  /// ```swift
  /// print(deadlock.site)   // "MyTests/SearchTests.swift:12:5"
  /// ```
  public let site: CallSite
  /// The run's tasks, one description each: its number, its name if the scheduler saw it, and
  /// what it was doing. A task created through a `TaskFactory` also says where it was created. A
  /// task waiting at a Lockstep primitive (a gate, a controlled call, a test clock, a barrier) or
  /// in a sleep says what it waits for; tasks of a ``TestTaskFactory`` say when they finished. An executor cannot see when any other task finishes, so for those the
  /// list says when they last ran.
  ///
  /// ```swift
  /// for task in deadlock.tasks { print(task) }
  /// ```
  public let tasks: [String]
  /// The virtual time at which the run stopped, from the start of the run.
  ///
  /// ```swift
  /// #expect(deadlock.virtualTime == .seconds(30))   // stuck after the 30 s backoff
  /// ```
  public let virtualTime: Duration
  /// Every job executed before the deadlock.
  ///
  /// ```swift
  /// print(deadlock.trace)   // every job that ran before the run got stuck
  /// ```
  public let trace: SchedulerTrace
  /// Whether the stuck tasks were left suspended for good (quarantined): cancelling the body did
  /// not let it finish.
  ///
  /// ```swift
  /// if deadlock.quarantined { print("some tasks stay suspended for good") }
  /// ```
  public let quarantined: Bool

  /// A readable report, listing the suspended tasks one a line.
  ///
  /// ```swift
  /// catch let deadlock as DeterministicDeadlock { print(deadlock) }
  /// ```
  public var description: String {
    var text =
      "Deadlock in the deterministic run started at \(site): the body has not finished, no job is "
      + "ready and no task sleeps (virtual time \(virtualTime.lockstepText), \(trace.steps.count) jobs run)."
      + (trace.readsVirtualNow ? "" : " \(VirtualNow.realClocksNote)")
    if tasks.isEmpty {
      text += " No task of the run is known."
    } else {
      text += " Tasks of the run:"
      for task in tasks { text += "\n  - \(task)" }
    }
    if quarantined {
      text += "\nThe stuck tasks stay suspended (quarantined); they are never run on another thread."
    } else {
      text += "\nThe body was cancelled to unwind it."
    }
    return text
  }
}
