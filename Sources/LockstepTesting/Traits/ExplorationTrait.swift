#if canImport(Testing)
  public import Testing

  /// The trait behind
  /// ``Testing/Trait/exploring(_:pinned:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:)``:
  /// it explores each test, and each case of a parameterized test, as `explore { }` does.
  public struct ExplorationTrait: TestTrait, SuiteTrait, TestScoping {
    /// Which schedules to run.
    public let strategy: ExplorationStrategy
    /// Replay tokens replayed first, in order.
    public let pinned: [String]
    /// Whether to also explore cancelling a task at a Lockstep wait.
    public let cancellation: CancellationInjection
    /// The most jobs one schedule may run.
    public let maxSteps: Int
    /// A real-time bound for each schedule.
    public let timeout: Duration
    /// How long each schedule waits in real time for a job from outside it.
    public let gracePeriod: Duration
    /// Where the trait was written, for reports.
    let site: CallSite

    /// Applies to every test of a suite it is attached to.
    public var isRecursive: Bool { true }

    /// Scopes each test case, not the suite as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
      testCase == nil ? nil : self
    }

    /// Runs the test case as the body of
    /// ``explore(_:pinned:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
    /// once per schedule; the failing schedule, if any, fails the test with explore's report.
    public func provideScope(
      for test: Test, testCase: Test.Case?,
      performing function: @Sendable () async throws -> Void
    ) async throws {
      if let conflict = conflict(in: test.traits) {
        reportIssue(conflict, at: site)
        return
      }
      try skipTestIfSchedulingIsUnavailable()
      await explore(
        strategy, pinned: pinned, cancellation: cancellation, maxSteps: maxSteps, timeout: timeout,
        gracePeriod: gracePeriod, fileID: site.fileID, filePath: site.filePath, line: site.line,
        column: site.column, function)
    }

    /// Why the test cannot be explored with these other traits, if it cannot: a `.deterministic`
    /// trait would run each schedule inside a deterministic run, and a second `.exploring` (one
    /// of a suite, one of the test) would explore inside each schedule.
    private func conflict(in traits: [any Trait]) -> String? {
      let deterministic = traits.compactMap { $0 as? DeterministicSchedulingTrait }
      let exploring = traits.compactMap { $0 as? ExplorationTrait }
      let reason: String
      if let other = deterministic.first {
        reason =
          "cannot be combined with .deterministic (at \(other.site)) on the same test: "
          + "exploration runs the test on the deterministic scheduler itself, once per schedule. "
          + "Remove .deterministic; for one seeded order, use .exploring(.random(schedules: 1, "
          + "seed: …))"
      } else if exploring.count > 1 {
        reason =
          "is applied \(exploring.count) times to this test (at "
          + exploring.map { "\($0.site)" }.joined(separator: ", ")
          + "), by the test and the suites it is in: keep one"
      } else {
        return nil
      }
      return ".exploring(\(strategy)) \(reason). Nothing ran."
    }
  }

  extension Trait where Self == ExplorationTrait {
    /// Explores the test body as
    /// ``explore(_:pinned:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)``
    /// does — each case of a parameterized test on its own — with the same report, picture,
    /// replay token, shards and environment variables. See <doc:FindingRaces#As-a-trait>.
    ///
    /// ```swift
    /// @Test(.exploring(.pct(schedules: 500)), .timeLimit(.minutes(1)))
    /// func theNewestReloadAlwaysWins() async {
    ///   await twoReloads()   // builds its model and checks it, once per schedule
    /// }
    /// ```
    public static func exploring(
      _ strategy: ExplorationStrategy, pinned: [String] = [],
      cancellation: CancellationInjection = .none, maxSteps: Int = 100_000,
      timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) -> Self {
      ExplorationTrait(
        strategy: strategy, pinned: pinned, cancellation: cancellation, maxSteps: maxSteps,
        timeout: timeout, gracePeriod: gracePeriod,
        site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }
  }
#endif
