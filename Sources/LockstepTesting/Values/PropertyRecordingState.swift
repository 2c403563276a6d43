/// The pure state machine behind ``PropertyRecorder``: a ``RecordingState`` of the property's
/// values, fed by the two things Observation lets a recorder see.
///
/// Observation's public tracking is *willSet* only: the recorder hears of a change just before
/// the new value is stored, and can read only the old value then. So it works in two steps:
/// - **willSet** (``willChange(current:)``, on the mutating thread, before the store): the value
///   read now is the value the *previous* change stored. If that change is still unrecorded, it
///   is recorded now. Then this change is marked pending. This is how every value of a
///   synchronous stretch of changes is seen, not only the last.
/// - **settle** (``settle(current:)``, on the object's isolation, after the stretch): the value
///   read is the one the pending change stored; it is recorded.
///
/// A value equal to the last recorded one is not a change and is not recorded. A settle that reads
/// the last recorded value (the store has not landed yet, or a computed property kept its value)
/// leaves the change pending: the next willSet or settle records what it finds.
struct PropertyRecordingState<Value: Equatable, Waiter> {
  var recording = RecordingState<Value, Waiter>()
  /// A willSet has been seen whose stored value is not recorded yet.
  private(set) var changePending = false
  /// A settle task has been scheduled and has not run yet.
  private(set) var settleScheduled = false

  /// Whether the recording has stopped: changes are ignored from then on.
  var isStopped: Bool { recording.ending != nil }

  /// Records the value when recording starts.
  mutating func start(with initial: Value) {
    _ = recording.receive(initial)
  }

  /// A change is about to be stored; `current` is the value before it. Returns the waiters to
  /// resume, and whether to schedule a settle (a test waits and none is scheduled).
  mutating func willChange(current: Value) -> (reached: [Waiter], scheduleSettle: Bool) {
    guard !isStopped else { return ([], false) }
    var reached: [Waiter] = []
    if changePending { reached = record(current) }
    changePending = true
    return (reached, claimSettle())
  }

  /// A settle is about to run: whether it must read the property (a change is pending). Clears
  /// the scheduled settle either way.
  mutating func needsSettle() -> Bool {
    settleScheduled = false
    return changePending && !isStopped
  }

  /// Reads after the pending change landed, on the object's isolation. Returns the waiters to
  /// resume.
  mutating func settle(current: Value) -> [Waiter] {
    settleScheduled = false
    guard changePending, !isStopped else { return [] }
    guard current != recording.values.last else { return [] }
    changePending = false
    return record(current)
  }

  /// A test waits for `target` (see ``RecordingState/watch(_:for:_:)``). Also returns whether to
  /// schedule a settle: a change is pending and nobody will read it otherwise.
  mutating func watch(
    _ id: WaiterID, for target: RecordingState<Value, Waiter>.Target, _ waiter: Waiter
  ) -> (stored: Bool, scheduleSettle: Bool) {
    let stored = recording.watch(id, for: target, waiter)
    return (stored, stored && changePending && claimSettle())
  }

  private mutating func claimSettle() -> Bool {
    guard !settleScheduled, recording.hasWatchers else { return false }
    settleScheduled = true
    return true
  }

  private mutating func record(_ value: Value) -> [Waiter] {
    guard value != recording.values.last else { return [] }
    return recording.receive(value).reached
  }
}
