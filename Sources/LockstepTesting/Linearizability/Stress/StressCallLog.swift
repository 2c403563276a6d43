import LockstepInterposition

/// The calls of one stress run, as tasks on real threads make them: every start and return takes
/// the next number of one atomic counter, so a call that returned before another began has the
/// smaller number; each task appends to a list of its own, uncontended.
final class StressCallLog: @unchecked Sendable {
  // `clock` is touched only through atomic operations; each list only under its own lock.

  private struct Entry {
    let call: ScenarioCall
    let invocation: Int
    var response: (position: Int, outcome: CallOutcome)?
  }

  private let clock: UnsafeMutablePointer<Int64>
  /// The calls of each task: 0 before and after the tasks, then a list a task.
  private let lists: [Locked<[Entry]>]

  /// A log for a scenario of `tasks` tasks.
  init(tasks: Int) {
    clock = .allocate(capacity: 1)
    clock.initialize(to: 0)
    lists = (0...tasks).map { _ in Locked([]) }
  }

  deinit {
    clock.deinitialize(count: 1)
    clock.deallocate()
  }

  /// Records that `task` begins `call`; returns the call's index in that task's list.
  func invoke(_ call: ScenarioCall, task: Int) -> Int {
    let position = Int(lockstep_atomic_add(clock, 1) + 1)
    return lists[task].withLock { entries in
      entries.append(Entry(call: call, invocation: position, response: nil))
      return entries.count - 1
    }
  }

  /// Records that call `index` of `task` returned `outcome`.
  func respond(task: Int, index: Int, with outcome: CallOutcome) {
    let position = Int(lockstep_atomic_add(clock, 1) + 1)
    lists[task].withLock { $0[index].response = (position, outcome) }
  }

  /// Whether the run's calls overlapped in real time: two tasks had a call in flight at the same
  /// moment — a call of one began before a call of another returned, and that call began before
  /// the first returned (a call that never returned is in flight to the end). A scenario with
  /// fewer than two tasks that call has nothing to overlap: each of its runs counts as overlapped.
  var overlapped: Bool {
    let calls = lists.indices.dropFirst().flatMap { task in
      lists[task].withLock { entries in
        entries.map { (task: task, start: $0.invocation, end: $0.response?.position ?? .max) }
      }
    }
    guard Set(calls.map(\.task)).count >= 2 else { return true }
    return calls.contains { call in
      calls.contains { other in
        other.task != call.task && call.start < other.end && other.start < call.end
      }
    }
  }

  /// The calls recorded so far, in the order they began.
  var history: History<ScenarioCall, CallOutcome> {
    let calls = lists.enumerated().flatMap { task, list in
      list.withLock { entries in entries.map { (task: task, entry: $0) } }
    }.sorted { $0.entry.invocation < $1.entry.invocation }
    var history = History<ScenarioCall, CallOutcome>()
    for (task, entry) in calls {
      let id = history.invoke(entry.call, task: task, at: entry.invocation)
      if let response = entry.response {
        history.respond(to: id, with: response.outcome, at: response.position)
      }
    }
    return history
  }
}
