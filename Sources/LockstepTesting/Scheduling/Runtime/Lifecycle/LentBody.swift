/// The body of a deterministic run, lent by a caller that passed it as a non-escaping closure.
///
/// Every entry point — ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
/// ``runDeterministically(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``, the blocking
/// form, ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)`` and the
/// `.deterministic` trait — takes its body as an ordinary non-escaping closure, so that a test can
/// assign to its locals and capture non-`Sendable` values the way it can in any other closure.
/// The body must still run as a task of the run: ``RunLifecycle/lending(_:to:)`` makes it
/// escapable for as long as the entry point runs (`withoutActuallyEscaping`), and this type hands
/// it to the run's body task unchecked.
///
/// Why the unchecked hand-off is sound: the caller stays suspended (or blocked, in the blocking
/// form) for the whole run, from before the body's task starts until the run's drain has ended,
/// and the body only runs inside the run. So the body and the caller never run at the same time:
/// what the body captures is touched by one of them at a time, with the run lock's and the
/// drain's hand-offs ordering their accesses, and what it returns reaches the caller only after
/// the body is done. An `explore` body runs once per schedule, one schedule after another.
///
/// A run that cannot finish quarantines its tasks: they stay suspended for good and never run
/// again, but their frames still hold references to the body, and `withoutActuallyEscaping`
/// would stop the process ("closure has escaped") when the entry point returns. So each run
/// calls the body through a closure of its own (``forOneRun()``), and after a quarantine
/// ``DeterministicRun/perform(_:)`` gives up the references gained since the run started
/// (``relinquishReferences(downTo:)``). Those can only be that closure's and its frame's: the
/// closure `withoutActuallyEscaping` makes is Lockstep's own — no code of the test can name it,
/// store it or capture it — and within Lockstep only this type holds it, each run through its
/// own closure. At most two are given up (the run's closure captures one; its frame, suspended
/// in the call, may hold a copy), so a reference held by anything else is never released: the
/// process would stop with Swift's own message instead of using freed memory. Quarantined frames
/// are never resumed nor unwound, and a task that never finishes never releases its closure, so
/// the references given up are never released again.
struct LentBody<Value>: @unchecked Sendable {
  /// An escapable copy of the caller's closure, valid until the caller's `withoutActuallyEscaping`
  /// scope ends. It is the only stored property: ``referenceCount`` reads its context from here.
  let closure: () async throws -> Value

  /// Lends `closure`, an escapable copy of the caller's non-escaping closure.
  init(_ closure: @escaping () async throws -> Value) { self.closure = closure }

  /// A body for one run: a closure of its own that calls this one, so that the run's tasks hold
  /// references to that closure, and only it (and its frame) to this one.
  func forOneRun() -> LentBody<Value> {
    let closure = self.closure
    return LentBody { try await closure() }
  }

  /// How many strong references there are to the body now.
  var referenceCount: Int { RuntimeHooks.referenceCount(ofClosureIn: self) }

  /// Gives up the references that a quarantined run's closure holds on the body, down to
  /// `baseline` (its ``referenceCount`` before the run started) and never more than two.
  func relinquishReferences(downTo baseline: Int) {
    RuntimeHooks.relinquishReferences(toClosureIn: self, downTo: baseline, most: 2)
  }
}
