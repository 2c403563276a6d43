/// What a task of a run waits for, put in words only when a timeline or a report asks: a run
/// records one for every sleep and every Lockstep wait, and most are never read.
enum Waiting: Sendable, Equatable {
  /// A Lockstep primitive, in the words of its wait ("Gate(\"save\") to open").
  case primitive(String)
  /// A sleep until this instant of the run's virtual time.
  case sleep(until: Duration)
  /// A `TestClock` sleep until the clock reaches this offset from its zero.
  case testClock(deadline: Duration)
  /// A blocking call of the job, its thread parked (``ParkedWaits``): `DispatchSemaphore.wait()`.
  case blockingCall(String)
  /// A lock another task holds (by its number; 0: a job of no task), its thread parked in
  /// `pthread_mutex_lock`.
  case lock(heldBy: Int)
  /// Its turn again: stopped at a lock it may take (or a semaphore, a queue's `sync`), while
  /// another job runs first.
  case turnAt(String)

  /// The words: "a sleep until 80 ms (virtual time)".
  var text: String {
    switch self {
    case .primitive(let what): what
    case .sleep(let wake): "a sleep until \(wake.lockstepText) (virtual time)"
    case .testClock(let deadline): "the TestClock to reach \(TestClock.Instant(offset: deadline))"
    case .blockingCall(let call): "\(call) to return (its thread blocks)"
    case .lock(let holder):
      "a lock \(holder == 0 ? "an actor's job" : "task \(holder)") holds (its thread blocks in pthread_mutex_lock)"
    case .turnAt(let call): "its turn at \(call) (another job runs first)"
    }
  }
}
