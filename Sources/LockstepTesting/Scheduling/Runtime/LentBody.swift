/// The body of a deterministic run, lent by a caller that passed it as a non-escaping closure.
///
/// Every entry point — ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
/// ``runDeterministically(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``, the blocking
/// form, ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)`` and the
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
/// would stop the process ("closure has escaped") when the entry point returns.
/// ``DeterministicRun/perform(_:)`` therefore counts the references before each run and, when
/// the run quarantined its tasks, gives up the ones they hold (``relinquishReferences(downTo:)``):
/// those frames are never resumed nor destroyed, so the references are never used. The entry point
/// then throws the run's report and the process goes on.
struct LentBody<Value>: @unchecked Sendable {
  /// An escapable copy of the caller's closure, valid until the caller's `withoutActuallyEscaping`
  /// scope ends. It is the only stored property: ``referenceCount`` reads its context from here,
  /// and the run's body task calls it directly, so that every reference a quarantined task holds
  /// is a reference to this closure's context.
  let closure: () async throws -> Value

  /// Lends `closure`, an escapable copy of the caller's non-escaping closure.
  init(_ closure: @escaping () async throws -> Value) { self.closure = closure }

  /// How many strong references there are to the body now.
  var referenceCount: Int { RuntimeHooks.referenceCount(ofClosureIn: self) }

  /// Gives up the references that quarantined tasks hold on the body, down to `baseline` (its
  /// ``referenceCount`` before the run started).
  func relinquishReferences(downTo baseline: Int) {
    RuntimeHooks.relinquishReferences(toClosureIn: self, downTo: baseline)
  }
}
