/// The work a run's jobs handed to other threads that has not returned yet: blocks queued on
/// Dispatch queues other than the main queue, threads, and what those started in turn. While any
/// is in flight the run declares no deadlock, and while a block is in flight it keeps virtual time
/// still (``RunState/next(previousStepSuspendedAt:)``), as Go's `synctest`
/// keeps a bubble's clock still while a goroutine is not durably blocked.
struct OutsideWork {
  /// What one piece of outside work is.
  enum Kind: Int32, Sendable {
    case async = 0
    case after = 1
    case groupAsync = 2
    case groupNotify = 3
    /// A thread (`Thread`, `pthread_create`; XCTest waits for expectations on one).
    case thread = 4
    /// A Dispatch source's registration handler, from when it is set until it has run.
    case sourceRegistration = 5
    /// Not work: a Dispatch source's event handler set by the run (never in flight itself).
    case sourceOwner = 6
    /// One run of a Dispatch source's event handler.
    case sourceEvent = 7
    /// A signal the run sent its own process, until a Dispatch source's event handler runs.
    case signal = 8

    /// Whether virtual time stands still while work of this kind is in flight: a block queued to
    /// run now does its work and returns, and a signal is on its way. A block that waits first (a
    /// real delay, a group, a source's registration) holds time once it runs, as a block of its
    /// own; a thread may wait for a sleep of the run (XCTest's waiter) or live on long after its
    /// work. Those hold back only deadlock reports.
    var holdsTime: Bool {
      switch self {
      case .async, .groupAsync, .sourceEvent, .signal: true
      case .after, .groupNotify, .thread, .sourceRegistration, .sourceOwner: false
      }
    }
  }

  /// One piece of outside work in flight.
  struct Record: Equatable {
    let kind: Kind
    /// The label of the queue the block was queued on, if it has one.
    let label: String?
    /// The task whose job started it, when a job of the run did (0 for a job of no task).
    let startedBy: Int?
    /// The step during which it started, when a job of the run started it.
    let step: Int?

    /// `a block queued with DispatchQueue.async on "com.example.io" by task 3 at step 12`.
    var description: String {
      var text: String
      switch kind {
      case .async: text = "a block queued with DispatchQueue.async"
      case .after: text = "a block queued with DispatchQueue.asyncAfter (a real delay)"
      case .groupAsync: text = "a block queued with DispatchQueue.async(group:)"
      case .groupNotify: text = "a DispatchGroup.notify block (waits for the group's blocks)"
      case .thread: text = "a thread (a Thread, or XCTest's wait for expectations)"
      case .sourceRegistration: text = "a Dispatch source's registration handler (not run yet)"
      case .sourceOwner: text = "a Dispatch source's event handler"
      case .sourceEvent: text = "a Dispatch source's event handler"
      case .signal: text = "a signal the run sent its own process (no Dispatch source has handled it)"
      }
      if let label, !label.isEmpty { text += " on \"\(label)\"" }
      if let startedBy, let step {
        text += startedBy == 0 ? ", at step \(step + 1)" : " by task \(startedBy) at step \(step + 1)"
      } else {
        text += ", by other outside work"
      }
      return text
    }
  }

  private var records: [UInt64: Record] = [:]
  private var nextID: UInt64 = 1
  /// How many pieces of outside work the run has seen start.
  private(set) var started = 0

  var isEmpty: Bool { records.isEmpty }

  /// Whether virtual time stands still: work that holds it is in flight.
  var holdsTime: Bool { records.values.contains { $0.kind.holdsTime } }

  /// The work in flight, oldest first, as a report lists it.
  var inFlight: [Record] { records.sorted { $0.key < $1.key }.map(\.value) }

  /// Records work that starts now; returns its id.
  mutating func begin(_ record: Record) -> UInt64 {
    defer { nextID += 1 }
    records[nextID] = record
    started += 1
    return nextID
  }

  /// Records that the work of `id` returned; `true` when it was in flight.
  mutating func end(_ id: UInt64) -> Bool {
    records.removeValue(forKey: id) != nil
  }

  /// Records that every piece of work of `kind` returned: the signals, once a source handled one.
  mutating func endAll(_ kind: Kind) {
    records = records.filter { $0.value.kind != kind }
  }
}
