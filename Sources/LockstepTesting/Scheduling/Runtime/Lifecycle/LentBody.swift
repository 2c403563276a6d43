/// The body of a deterministic run, lent by a caller that passed it as a non-escaping closure.
///
/// Every entry point — ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
/// ``runDeterministically(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``, the blocking
/// form, ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
/// `checkLinearizability` and the `.deterministic` trait — takes its body as an ordinary
/// non-escaping closure, so that a test can assign to its locals and capture non-`Sendable` values
/// the way it can in any other closure. The body must still run as a task of the run:
/// ``RunLifecycle/lending(_:to:)`` makes it escapable for as long as the entry point runs
/// (`withoutActuallyEscaping`), and this type hands it to the run's body task unchecked.
///
/// Why the unchecked hand-off is sound: the caller stays suspended (or blocked, in the blocking
/// form) for the whole run, from before the body's task starts until the run's drain has ended,
/// and the body only runs inside the run. So the body and the caller never run at the same time:
/// what the body captures is touched by one of them at a time, with the entry point's and the
/// drain's hand-offs ordering their accesses, and what it returns reaches the caller only after
/// the body is done. An `explore` body runs once per schedule, one schedule after another.
///
/// ## The run's tasks hold no reference to the body
///
/// A run that cannot finish quarantines its tasks: they stay suspended for good, never resumed nor
/// unwound. Had the body task retained the escapable closure — by capturing it, or in the frame
/// that calls it, which holds a copy across its suspension in debug builds — its references would
/// never be released, and `withoutActuallyEscaping` would stop the process ("closure argument was
/// escaped") when the entry point returns. So the body task never holds the closure as a closure:
/// it holds ``UnownedBody``, the closure's two words (function and context) as plain pointers, and
/// calls it as a *non-escaping* closure made of those words (``UnownedBody/callAsFunction()``).
/// A non-escaping closure is a trivial value: its context may live on the stack, so no build of
/// any function that holds or calls one retains or releases its context. No code of the run
/// retains the body's context, so none has to be released: Lockstep releases nothing by hand and
/// reads no reference count, and cannot over-release. References that others hold (the explorer,
/// which keeps the body for all its schedules; the lender) are theirs, and released by them.
///
/// What makes the unowned call safe: ``closure`` (the lender's reference) outlives every call.
/// ``DeterministicRun/perform(_:)`` takes the lent body as a parameter for the whole run, and the
/// body task calls it only during the run: when the drain ends, either the body has returned
/// (a finished run, or a deadlock its cancellation unwound: the drain ends only once the body
/// task marked itself finished, after its call returned) or its task is quarantined and never
/// runs again, so the stale pointers in its frames are never followed.
///
/// Checked by `QuarantinedBodyTests` in `NonEscapingBodyTests.swift`: bodies quarantined by a
/// deadlock and by the run's timeout, by `explore` in many schedules, by the blocking form, and
/// `aBodyHeldElsewhereKeepsItsReferencesThroughQuarantines`, which counts the references to one
/// lent body that another holder takes during two quarantined runs, in a child process.
struct LentBody<Value>: @unchecked Sendable {
  typealias Body = () async throws -> Value

  /// An escapable copy of the caller's closure, valid until the caller's `withoutActuallyEscaping`
  /// scope ends (or Lockstep's own closure, for its internal runs). The lender's reference: the
  /// run's tasks use ``unowned`` instead.
  let closure: Body

  /// Lends `closure`, an escapable copy of the caller's non-escaping closure.
  init(_ closure: @escaping Body) { self.closure = closure }

  /// The body as the run's task holds it: ``closure`` without a reference.
  var unowned: UnownedBody<Value> {
    withUnsafeBytes(of: closure) { $0.load(as: UnownedBody<Value>.self) }
  }
}

/// A lent body's closure as two words, retained by no one: the run's body task calls it through
/// this (see ``LentBody``), while the lent body's owner keeps the closure alive.
struct UnownedBody<Value>: @unchecked Sendable {
  /// The closure's function.
  let function: UnsafeRawPointer
  /// The closure's context (a heap object, unless the closure has none), not retained.
  let context: UnsafeRawPointer?

  /// Calls the closure as a non-escaping closure, which no code retains: the words are passed
  /// where ``callNonEscaping(_:)`` takes its closure, a non-escaping closure being passed as its
  /// two words, as this struct of two pointers is.
  func callAsFunction() async throws -> Value {
    let call = unsafeBitCast(
      callNonEscaping as (LentBody<Value>.Body) async throws -> Value,
      to: ((UnownedBody<Value>) async throws -> Value).self)
    return try await call(self)
  }
}

/// Calls `body`: being non-escaping, it is neither retained nor released.
private func callNonEscaping<Value>(_ body: LentBody<Value>.Body) async throws -> Value {
  try await body()
}
