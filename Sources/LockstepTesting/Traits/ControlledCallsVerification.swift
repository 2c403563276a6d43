#if canImport(Testing)
  public import Testing
#endif

/// Runs `body`, then checks every ``ControlledCalls`` created inside it (and inside the tasks it
/// creates): each call the test never completed is reported by name, id and argument, and ended
/// with ``ControlledCallNotCompletedError`` so that no continuation leaks.
///
/// The same as ``withTeardownVerification(isolation:_:)``, under the name it had before Lockstep
/// had other teardown checks: it checks recorders too.
///
/// ```swift
/// func testReversedCompletion() async throws {
///   try await withControlledCallsVerification {
///     let loader = FakeLoader()            // holds a ControlledCalls<Int, Book>
///     let model = BookScreenModel(loader: loader)
///     // … if a call is left pending here, the test fails naming it
///   }
/// }
/// ```
///
/// - Returns: What `body` returns.
public func withControlledCallsVerification<Result>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> Result
) async rethrows -> Result {
  try await withTeardownVerification(body)
}

#if canImport(Testing)
  /// The trait behind ``Testing/Trait/verifyingControlledCalls``: another name of
  /// ``TeardownVerificationTrait``.
  public typealias ControlledCallsVerificationTrait = TeardownVerificationTrait

  extension Trait where Self == TeardownVerificationTrait {
    /// Checks at the end of each test that every call of every ``ControlledCalls`` created during
    /// the test was completed. Each call left pending is reported by name, id and argument — at
    /// the line that created its `ControlledCalls` — and ended so that no continuation leaks.
    ///
    /// Since Lockstep has recorders, it is the same trait as ``Testing/Trait/verifyingTeardown``:
    /// it also reports values a recorder recorded that the test never checked.
    public static var verifyingControlledCalls: Self { Self() }
  }
#endif
