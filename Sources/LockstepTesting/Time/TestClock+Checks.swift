extension TestClock {
  /// A task suspended in ``TestClock/sleep(until:tolerance:)``: when it wakes, and which task it
  /// is.
  public struct Sleeper: Sendable, Equatable, CustomStringConvertible {
    /// When it wakes.
    public let deadline: Instant
    /// The name of the task that went to sleep (`Task(name:)`, or a ``TestTaskFactory`` task's
    /// name), read when it fell asleep; nil for an unnamed task, and on platforms before the 26
    /// releases, which have no task names.
    public let taskName: String?

    /// Creates a description of a sleeper; the clock makes them, you rarely need to.
    public init(deadline: Instant, taskName: String?) {
      self.deadline = deadline
      self.taskName = taskName
    }

    /// `until 80 ms, in task "search \"swift\""`.
    public var description: String {
      "until \(deadline), in " + (taskName.map { "task \"\($0)\"" } ?? "an unnamed task")
    }
  }

  /// The tasks suspended in ``sleep(until:tolerance:)`` right now, in the order they will wake
  /// (deadline, then the order they fell asleep).
  public var sleepers: [Sleeper] {
    state.withLock { $0.pendingSleepers }.map {
      Sleeper(deadline: Instant(offset: $0.deadline), taskName: $0.task)
    }
  }

  /// Checks that no task is left sleeping on the clock — every sleep the code under test started
  /// has woken or been cancelled — and reports each remaining sleeper at your line, with its
  /// deadline and its task: work the test never saw finish, such as a retry or a poll.
  ///
  /// ```swift
  /// await clock.run()
  /// try await tasks.waitUntilIdle()
  /// clock.expectNoSleepers()   // TestClock: 1 sleeper left at 80 ms: - until 160 ms …, in task "retry"
  /// ```
  ///
  /// - Returns: Whether no sleeper was left.
  @discardableResult
  public func expectNoSleepers(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Bool {
    let (now, left) = state.withLock { ($0.now, $0.pendingSleepers) }
    guard !left.isEmpty else { return true }
    var message = "TestClock: \(left.count) sleeper\(left.count == 1 ? "" : "s") left at \(now.lockstepText):"
    for sleeper in left {
      let name = sleeper.task.map { "task \"\($0)\"" } ?? "an unnamed task"
      message +=
        "\n  - until \(sleeper.deadline.lockstepText) (in \((sleeper.deadline - now).lockstepText)), in \(name)"
    }
    reportIssue(message, at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    return false
  }

  /// Runs only what is due now, without moving time: the work of a ``TestQueue`` on this clock
  /// that is scheduled for now or earlier, in deadline order. (A sleeper is never due now: a
  /// sleep until now or earlier returns at once.)
  ///
  /// The same as `advance(by: .zero)`.
  ///
  /// - Returns: How many sleepers were woken and work items run.
  @discardableResult
  nonisolated(nonsending) public func advance(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    let counts = await advanceEvents(
      .to(state.withLock { $0.now }), caller: "TestClock.advance()", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    return counts.sleepers + counts.work
  }
}

/// The name of the current task, for ``TestClock/Sleeper/taskName``: one read of the task's
/// record, on the platforms that have task names.
func sleepingTaskName() -> String? {
  if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
    return Task.name
  }
  return nil
}
