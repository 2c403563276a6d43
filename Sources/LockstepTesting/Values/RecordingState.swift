/// How a recording ended.
enum RecordingEnding {
  /// The sequence finished normally.
  case finished
  /// The sequence threw this error.
  case failed(any Error)
  /// The test stopped the recording at this site (`cancel()`, the teardown check).
  case cancelled(CallSite)

  /// `finished`, `failed with …`, `cancelled at …`.
  var description: String {
    switch self {
    case .finished: "finished"
    case .failed(let error): "failed with \(String(reflecting: error))"
    case .cancelled(let site): "cancelled at \(site)"
    }
  }
}

/// What a test waiting at a recorder waits for. Not nested in ``RecordingState``: a type nested in
/// a generic type is generic too, and code generic over a recorder's value type (unspecialized
/// when called from a test's module) would look it up at run time on every value.
enum RecordingTarget {
  /// An event after the first `checked` values: one more value, or the end.
  case event(after: Int)
  /// At least this many values in total, or the end.
  case count(Int)
}

/// The pure state machine behind ``SequenceRecorder`` and ``PropertyRecorder``: the values
/// recorded so far, how many of them the test has checked, how the recording ended, and the tests
/// waiting for an event. It decides; the shells resume the waiters it returns after unlocking.
///
/// "Checked" is a cursor: `next()` checks one value at a time, reading every value checks them all.
/// What lies beyond the cursor at teardown was never checked, and is reported.
struct RecordingState<Value, Waiter> {
  /// What a waiter waits for.
  typealias Target = RecordingTarget

  /// The next event for the test, in the order the events arrived.
  enum NextEvent {
    case value(Value)
    case ending(RecordingEnding)
    /// Nothing has arrived beyond what the test checked.
    case none
  }

  /// Every value so far, in arrival order.
  private(set) var values: [Value] = []
  /// How many values, from the first, the test has checked.
  private(set) var checkedCount = 0
  /// How the recording ended; nil while it goes on.
  private(set) var ending: RecordingEnding?
  /// Whether the test has seen the ending (through `next()`, `expectFinished`, `expectFailure`).
  private(set) var endingChecked = false
  /// Whether the teardown check has run: it runs once.
  private(set) var verified = false
  private var watchers = Watchers<Target, Waiter>()

  /// The values the test has not checked yet.
  var unchecked: ArraySlice<Value> { values[checkedCount...] }

  /// Whether a test is waiting for an event.
  var hasWatchers: Bool { !watchers.isEmpty }

  // MARK: The recording side

  /// A value arrived. Returns whether it was recorded (not after the end) and the waiters to
  /// resume.
  mutating func receive(_ value: Value) -> (recorded: Bool, reached: [Waiter]) {
    guard ending == nil else { return (false, []) }
    values.append(value)
    return (true, takeReached())
  }

  /// The recording ended; only the first ending counts. Returns the waiters to resume.
  mutating func end(_ how: RecordingEnding) -> [Waiter] {
    guard ending == nil else { return [] }
    ending = how
    return takeReached()
  }

  // MARK: The test's side

  /// Takes the next event the test has not checked, and counts it as checked.
  mutating func takeNext() -> NextEvent {
    if checkedCount < values.count {
      checkedCount += 1
      return .value(values[checkedCount - 1])
    }
    guard let ending else { return .none }
    endingChecked = true
    return .ending(ending)
  }

  /// Every value so far, which now counts as checked.
  mutating func checkAll() -> [Value] {
    checkedCount = values.count
    return values
  }

  /// Counts the ending, if any, as checked (reading a property that shows it).
  mutating func checkEnding() {
    if ending != nil { endingChecked = true }
  }

  /// A test waits for `target`: false when it is already reached.
  mutating func watch(_ id: WaiterID, for target: Target, _ waiter: Waiter) -> Bool {
    let (count, ended) = (values.count, ending != nil)
    return watchers.watch(id, target: target, waiter) { Self.isReached($0, count: count, ended: ended) }
  }

  /// Removes a waiter that timed out or was cancelled, if it still waits.
  mutating func depart(_ id: WaiterID) -> Waiter? {
    watchers.remove(id)
  }

  /// The teardown check, once: what the test never checked — the values beyond the cursor, and a
  /// failure it never saw. Nil when the check already ran.
  mutating func tearDown() -> (values: [Value], failure: (any Error)?)? {
    guard !verified else { return nil }
    verified = true
    var failure: (any Error)?
    if case .failed(let error) = ending, !endingChecked { failure = error }
    let found = Array(unchecked)
    checkedCount = values.count
    endingChecked = true
    return (found, failure)
  }

  private mutating func takeReached() -> [Waiter] {
    let (count, ended) = (values.count, ending != nil)
    return watchers.takeReached { Self.isReached($0, count: count, ended: ended) }
  }

  private static func isReached(_ target: Target, count: Int, ended: Bool) -> Bool {
    switch target {
    case .event(let checked): count > checked || ended
    case .count(let wanted): count >= wanted || ended
    }
  }
}

/// How recorders print values in reports: `String(reflecting:)`, at most `limit` of them.
func describeValues<Value>(_ values: some Collection<Value>, limit: Int = 20) -> String {
  let shown = values.prefix(limit).map { String(reflecting: $0) }
  let more = values.count > limit ? ", … (\(values.count - limit) more)" : ""
  return "[" + shown.joined(separator: ", ") + more + "]"
}
