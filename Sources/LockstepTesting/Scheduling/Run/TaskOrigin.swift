/// Where a task was created, as the runtime's task creation saw it (``TaskCreationHook``): the
/// return addresses of the creating frames, innermost first, 0 past the last one read. Turned
/// into words only when a report or a timeline is printed (``TaskOriginSymbols``).
struct TaskOrigin: Sendable, Hashable, CustomStringConvertible {
  // Four fields rather than an array: a run records one for every task it creates.
  let first: UInt
  let second: UInt
  let third: UInt
  let fourth: UInt

  /// The addresses read, innermost first.
  var callers: [UInt] { [first, second, third, fourth].filter { $0 != 0 } }

  /// `startWorkers() at Model.swift:12`, or the address where no symbols say more.
  var description: String { TaskOriginSymbols.text(for: self) }
}

/// What a run learned of a task as it was created: its name (`nil`: it has none) and where.
struct TaskCreation: Sendable {
  let name: String?
  let origin: TaskOrigin
}
