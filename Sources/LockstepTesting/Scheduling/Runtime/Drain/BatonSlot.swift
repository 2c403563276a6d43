import LockstepInterposition

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a thread of a run waits for its turn, and what it is told when it gets it.
///
/// A turn is often handed back within microseconds (a job runs to its next lock point), so a
/// waiting thread first yields its core a few times, looking for a message, before it sleeps on
/// the condition: a sleeping thread takes tens of microseconds to wake.
final class BatonSlot: Sendable {
  enum Message: Sendable {
    /// Resume the parked job; hand the turn back to this slot after.
    case resume(BatonSlot)
    /// The job this thread resumed parked again, or returned on a helper: drain on.
    case drainOn
    /// The job this thread resumed returned on the thread that carries the run: this helper's
    /// turn is over.
    case retire
    /// The run is over: go on without it.
    case runOver
  }

  /// The messages not taken yet, oldest first. Guarded by `condition`; not a Dispatch semaphore,
  /// whose waits and signals would reach the stand-ins of `BlockingWaits.c`.
  nonisolated(unsafe) private var messages: [Message] = []
  private let condition = PrivateCondition()
  /// How many messages are not taken yet, read without the lock while the thread yields.
  nonisolated(unsafe) private let count = UnsafeMutablePointer<Int64>.allocate(capacity: 1)

  /// How many times a waiting thread yields its core, looking for a message, before it sleeps.
  private static let yieldsBeforeSleeping = 20

  init() { count.initialize(to: 0) }

  deinit { count.deallocate() }

  /// Gives this slot's thread the turn, with `message`.
  func hand(_ message: Message) {
    condition.lock()
    messages.append(message)
    lockstep_atomic_add(count, 1)
    condition.signal()
    condition.unlock()
  }

  /// Waits for the turn; what came with it.
  func wait() -> Message {
    Self.yieldBriefly { lockstep_atomic_load(count) > 0 }
    condition.lock()
    while messages.isEmpty { condition.wait() }
    let message = messages.removeFirst()
    lockstep_atomic_add(count, -1)
    condition.unlock()
    return message
  }

  /// Yields this thread's core until `ready` or a few times have passed, before a wait on a
  /// condition: a turn handed to a sleeping thread takes tens of microseconds to wake it.
  static func yieldBriefly(until ready: () -> Bool) {
    var yields = 0
    while !ready() && yields < yieldsBeforeSleeping {
      sched_yield()
      yields += 1
    }
  }
}
