/// Where a thread of a run waits for its turn, and what it is told when it gets it.
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

  /// Gives this slot's thread the turn, with `message`.
  func hand(_ message: Message) {
    condition.lock()
    messages.append(message)
    condition.signal()
    condition.unlock()
  }

  /// Waits for the turn; what came with it.
  func wait() -> Message {
    condition.lock()
    while messages.isEmpty { condition.wait() }
    let message = messages.removeFirst()
    condition.unlock()
    return message
  }
}
