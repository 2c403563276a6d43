/// Where exploration cancels a task on its own: counts the Lockstep waits of the run's tasks
/// other than the body, in the order they happen, and says when the wait to cancel at is reached.
///
/// The body is the test itself: cancelling it would only fail the test, so its waits are neither
/// counted nor cancelled.
struct InjectedCancellation {
  /// The wait (0-based) at which to cancel the waiting task, or `nil` for none.
  let wait: Int?
  /// The waits of tasks other than the body so far.
  private(set) var waits = 0

  init(atWait wait: Int?) { self.wait = wait }

  /// Task `task` waits at a Lockstep primitive: whether to cancel it there.
  mutating func shouldCancel(task: Int) -> Bool {
    guard task != 1 else { return false }
    defer { waits += 1 }
    return waits == wait
  }
}
