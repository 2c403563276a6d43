#if canImport(Testing)
  public import Testing
#endif

/// Something that checks, when a verification scope ends, that the test finished with it.
protocol TeardownVerifiable: AnyObject, Sendable {
  /// Reports what the test left unfinished, at the place the object was created, and ends it so
  /// that nothing leaks. Returns whether everything was finished.
  @discardableResult
  func verifyAtTeardown() -> Bool
}

/// The objects created inside a verification scope, checked when the scope ends.
final class TeardownRegistry: Sendable {
  /// The innermost active scope, if any.
  @TaskLocal static var current: TeardownRegistry?

  private let entries = Locked<[any TeardownVerifiable]>([])

  /// Registers `item` with the active scope, if there is one.
  static func registerWithCurrentScope(_ item: any TeardownVerifiable) {
    current?.entries.withLock { $0.append(item) }
  }

  /// Checks every registered object, in creation order. Objects created while checking are
  /// checked too.
  func verifyAll() {
    var checked = 0
    while true {
      let next: (any TeardownVerifiable)? = entries.withLock { entries in
        guard checked < entries.count else { return nil }
        defer { checked += 1 }
        return entries[checked]
      }
      guard let next else { return }
      next.verifyAtTeardown()
    }
  }
}

/// Runs `body`, then checks every ``ControlledCalls`` created inside it (and inside the tasks it
/// creates): each call the test never completed is reported by name, id and argument, and ended
/// with ``ControlledCallNotCompletedError`` so that no continuation leaks.
///
/// The check runs whether `body` returns or throws. Swift Testing users get the same with the
/// ``Testing/Trait/verifyingControlledCalls`` trait; in XCTest, wrap the test body or use
/// `addTeardownCheck(for:)`.
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
  let registry = TeardownRegistry()
  do {
    let result = try await TeardownRegistry.$current.withValue(registry) {
      try await body()
    }
    registry.verifyAll()
    return result
  } catch {
    registry.verifyAll()
    throw error
  }
}

#if canImport(Testing)
  /// The trait behind ``Testing/Trait/verifyingControlledCalls``: it runs each test, and each
  /// case of a parameterized test, inside ``withControlledCallsVerification(isolation:_:)``.
  ///
  /// ```swift
  /// @Suite(.verifyingControlledCalls, .timeLimit(.minutes(1)))
  /// struct BookScreenTests { … }
  /// ```
  public struct ControlledCallsVerificationTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applied to a suite, the trait checks every test in it, each on its own.
    ///
    /// ```swift
    /// #expect(ControlledCallsVerificationTrait.verifyingControlledCalls.isRecursive)
    /// ```
    public var isRecursive: Bool { true }

    /// Runs the test, then reports and ends every call of a ``ControlledCalls`` created during the
    /// test that the test never completed. Swift Testing calls this; you don't.
    ///
    /// ```swift
    /// try await trait.provideScope(for: test, testCase: testCase) { try await body() }
    /// ```
    public func provideScope(
      for test: Test, testCase: Test.Case?,
      performing function: @Sendable () async throws -> Void
    ) async throws {
      try await withControlledCallsVerification {
        try await function()
      }
    }
  }

  extension Trait where Self == ControlledCallsVerificationTrait {
    /// Checks at the end of each test that every call of every ``ControlledCalls`` created during
    /// the test was completed. Each call left pending is reported by name, id and argument — at
    /// the line that created its `ControlledCalls` — and ended so that no continuation leaks.
    ///
    /// ```swift
    /// @Test(.verifyingControlledCalls, .timeLimit(.minutes(1)))
    /// func reversedCompletion() async throws {
    ///   let loader = FakeLoader()     // its ControlledCalls registers with the test
    ///   …
    /// }   // "loader call #2 (argument: 7) was never completed"
    /// ```
    public static var verifyingControlledCalls: Self { Self() }
  }
#endif
