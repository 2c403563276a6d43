/// Where a task was suspended when its job of a step returned: the resume functions of the task
/// and of its first async callers, innermost first, without the concurrency runtime's own, 0 past
/// the last one read. Read after every step of a task the run keeps alive
/// (``SuspendedTaskStacks/site(of:)``); turned into words only when a timeline is printed
/// (``SuspendedTaskStacks/texts(for:)``).
struct SuspensionSite: Sendable, Hashable {
  /// The resume functions, as the C reader writes them: room for Lockstep's own frames (a
  /// primitive's) and the caller's above them.
  typealias Addresses = (UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt)
  let addresses: Addresses

  /// How many addresses a site holds.
  static let capacity = 8

  /// No site: the task finished, or it was not suspended, or its memory cannot be read.
  static let none = SuspensionSite(addresses: (0, 0, 0, 0, 0, 0, 0, 0))

  /// The addresses read, innermost first.
  var resumeFunctions: [UInt] {
    let a = addresses
    return [a.0, a.1, a.2, a.3, a.4, a.5, a.6, a.7].filter { $0 != 0 }
  }

  var isNone: Bool { addresses.0 == 0 }

  static func == (lhs: SuspensionSite, rhs: SuspensionSite) -> Bool {
    lhs.resumeFunctions == rhs.resumeFunctions
  }

  func hash(into hasher: inout Hasher) { hasher.combine(resumeFunctions) }
}
