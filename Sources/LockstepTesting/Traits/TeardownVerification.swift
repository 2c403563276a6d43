#if canImport(Testing)
  public import Testing
#endif

/// Something that checks, when a verification scope ends, that the test finished with it: a
/// ``ControlledCalls`` with no pending call, a recorder with no unchecked value.
protocol TeardownVerifiable: AnyObject, Sendable {
  /// Brings what the object knows up to date before the check, where that needs to await (a
  /// ``PropertyRecorder`` reads its property on the object's isolation). Does nothing by default.
  func prepareForTeardown() async

  /// Reports what the test left unfinished, at the place the object was created, and ends it so
  /// that nothing leaks. Returns whether everything was finished.
  @discardableResult
  func verifyAtTeardown() -> Bool
}

extension TeardownVerifiable {
  func prepareForTeardown() async {}
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

  /// Checks every registered object, in creation order, after letting each prepare. Objects
  /// created while checking are checked too.
  func verifyAll() async {
    var checked = 0
    while true {
      let next: (any TeardownVerifiable)? = entries.withLock { entries in
        guard checked < entries.count else { return nil }
        defer { checked += 1 }
        return entries[checked]
      }
      guard let next else { return }
      await next.prepareForTeardown()
      next.verifyAtTeardown()
    }
  }
}

/// Runs `body`, then runs the teardown check of every Lockstep object created inside it (and
/// inside the tasks it creates): each call of a ``ControlledCalls`` the test never completed, and
/// each value a ``SequenceRecorder`` or ``PropertyRecorder`` recorded that the test never
/// checked, is reported at the line that created the object.
///
/// The check runs whether `body` returns or throws. Pending controlled calls are ended with
/// ``ControlledCallNotCompletedError`` and recorders stop recording, so nothing leaks. Swift
/// Testing users get the same with the ``Testing/Trait/verifyingTeardown`` trait.
///
/// ```swift
/// func testThePriceFeed() async throws {
///   try await withTeardownVerification {
///     let prices = SequenceRecorder(feed.prices(), name: "price feed")
///     #expect(try await prices.next() == 10)
///   }   // "price feed": 1 value(s) arrived that the test never checked: [11]
/// }
/// ```
///
/// - Returns: What `body` returns.
public func withTeardownVerification<Result>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> Result
) async rethrows -> Result {
  let registry = TeardownRegistry()
  do {
    let result = try await TeardownRegistry.$current.withValue(registry) {
      try await body()
    }
    await registry.verifyAll()
    return result
  } catch {
    await registry.verifyAll()
    throw error
  }
}

#if canImport(Testing)
  /// The trait behind ``Testing/Trait/verifyingTeardown`` (and its older name,
  /// ``Testing/Trait/verifyingControlledCalls``): it runs each test, and each case of a
  /// parameterized test, inside ``withTeardownVerification(isolation:_:)``.
  public struct TeardownVerificationTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applied to a suite, the trait checks every test in it, each on its own.
    public var isRecursive: Bool { true }

    /// Runs the test, then runs the teardown check of every Lockstep object created during the
    /// test. Swift Testing calls this; you don't.
    public func provideScope(
      for test: Test, testCase: Test.Case?,
      performing function: @Sendable () async throws -> Void
    ) async throws {
      try await withTeardownVerification {
        try await function()
      }
    }
  }

  extension Trait where Self == TeardownVerificationTrait {
    /// Runs every Lockstep teardown check at the end of each test: each call of a
    /// ``ControlledCalls`` left pending (by name, id and argument), each value of a
    /// ``SequenceRecorder`` or ``PropertyRecorder`` the test never checked, and a recorded
    /// failure it never looked at — each reported at the line that created the object, which is
    /// then ended so that nothing leaks.
    ///
    /// ```swift
    /// @Test(.verifyingTeardown, .timeLimit(.minutes(1)))
    /// func pricesArriveInOrder() async throws {
    ///   let prices = SequenceRecorder(feed.prices(), name: "price feed")
    ///   #expect(try await prices.next() == 10)
    /// }   // "price feed": 1 value(s) arrived that the test never checked: [11]
    /// ```
    public static var verifyingTeardown: Self { Self() }
  }
#endif
