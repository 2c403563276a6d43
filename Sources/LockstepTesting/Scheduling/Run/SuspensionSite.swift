/// Where a task was suspended when its job of a step returned: the resume functions of the task
/// and of its first async callers, innermost first, without the concurrency runtime's own, 0 past
/// the last one read; or that it had finished. Read after every step of a task the run keeps alive
/// (``SuspendedTaskStacks/site(of:)``); turned into words only when a timeline is printed
/// (``SuspendedTaskStacks/texts(for:)``).
struct SuspensionSite: Sendable, Hashable {
  /// The resume functions, as the C reader writes them: room for Lockstep's own frames (a
  /// primitive's) and the caller's above them.
  typealias Addresses = (UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt)
  let addresses: Addresses
  /// What reading the task found.
  var status = Status.notRead

  /// What reading a task found.
  enum Status: UInt8, Sendable {
    /// Nothing was read.
    case notRead
    /// It was suspended at ``SuspensionSite/addresses``.
    case suspended
    /// It had finished.
    case finished
    /// It was running on another thread (a job parked in a blocking wait goes on there).
    case running
    /// Its memory could not be read as a task's.
    case unreadable
  }

  /// How many addresses a site holds.
  static let capacity = 8

  /// No site: it was not read.
  static let none = SuspensionSite(addresses: (0, 0, 0, 0, 0, 0, 0, 0))

  init(addresses: Addresses, status: Status = .notRead) {
    self.addresses = addresses
    self.status = status
  }

  /// A site with no address, for what reading found (`status`).
  init(_ status: Status) {
    self.init(addresses: (0, 0, 0, 0, 0, 0, 0, 0), status: status)
  }

  /// The task had finished.
  var finished: Bool { status == .finished }

  /// The addresses read, innermost first.
  var resumeFunctions: [UInt] {
    let a = addresses
    return [a.0, a.1, a.2, a.3, a.4, a.5, a.6, a.7].filter { $0 != 0 }
  }

  /// Whether nothing was read.
  var isNone: Bool { status == .notRead }

  static func == (lhs: SuspensionSite, rhs: SuspensionSite) -> Bool {
    lhs.resumeFunctions == rhs.resumeFunctions && lhs.status == rhs.status
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(resumeFunctions)
    hasher.combine(status)
  }
}
