#if canImport(Testing)
  public import Testing

  /// The trait behind ``Testing/Trait/deterministic(seed:gracePeriod:fileID:filePath:line:column:)``: it runs each test, and
  /// each case of a parameterized test, under the deterministic scheduler.
  public struct DeterministicSchedulingTrait: TestTrait, SuiteTrait, TestScoping {
    /// The seed of the run's order, or `nil` for FIFO.
    public let seed: UInt64?
    /// How long to wait in real time for a job from outside the run before reporting a deadlock.
    public let gracePeriod: Duration
    /// Where the trait was written, for reports.
    let site: CallSite

    /// Applies to every test of a suite it is attached to.
    public var isRecursive: Bool { true }

    /// Scopes each test case, not the suite as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
      testCase == nil ? nil : self
    }

    /// Runs the test case inside
    /// ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``.
    /// A deadlock fails the test with the scheduler's report. A failing test gets the picture of
    /// its run attached, `lockstep-timeline.svg` (see ``SchedulerTrace/svg``).
    public func provideScope(
      for test: Test, testCase: Test.Case?,
      performing function: @Sendable () async throws -> Void
    ) async throws {
      // Under `.exploring` as well, the exploration trait reports that the two cannot be
      // combined, and runs nothing.
      if test.traits.contains(where: { $0 is ExplorationTrait }) {
        try await function()
        return
      }
      try skipTestIfSchedulingIsUnavailable()
      // Sees the test's failures as they are recorded, to mark the step of the run they happen
      // in and to know to attach the picture.
      let failed = Locked(false)
      let trace = Locked<SchedulerTrace?>(nil)
      let watcher = IssueHandlingTrait.compactMapIssues { issue in
        #if compiler(>=6.3)
          let isFailure = issue.isFailure
        #else
          // Before Swift 6.3 no public API tells a known issue from a failure: every issue counts.
          let isFailure = true
        #endif
        if isFailure {
          CurrentRun.noteFailure()
          failed.withLock { $0 = true }
        }
        return issue
      }
      do {
        try await watcher.provideScope(for: test, testCase: testCase) {
          // The test function is non-escaping; like every entry point's body, it is lent to the
          // run (`LentBody`), which also handles a test that deadlocks beyond cancellation.
          let outcome = try await runDeterministically(
            seed: seed, timeout: .seconds(60), gracePeriod: gracePeriod, site: site, function)
          trace.withLock { $0 = outcome.trace }
        }
      } catch let deadlock as DeterministicDeadlock {
        attachPicture(of: deadlock.trace, failure: "\(deadlock)", test: test)
        throw deadlock
      } catch let sleep as RealClockSleep {
        attachPicture(of: sleep.trace, failure: "\(sleep)", test: test)
        throw sleep
      }
      if failed.withLock({ $0 }), let trace = trace.withLock({ $0 }) {
        attachPicture(of: trace, failure: nil, test: test)
      }
    }

    /// Attaches the picture of a failing run (Swift Testing says so itself) and, when
    /// `LOCKSTEP_REPORTS` is set, writes it there and gives the file's path in a warning.
    private func attachPicture(of trace: SchedulerTrace, failure: String?, test: Test) {
      let replay = "Replay it with: @Test(.deterministic(\(seed.map { "seed: \($0)" } ?? "")))"
      let picture = TimelinePicture(
        timeline: trace.timeline,
        title: "\(test.name) failed in the deterministic run started at \(site)", replay: replay,
        failures: failure.map { [$0] } ?? [])
      let label = test.name + (seed.map { "-seed-\($0)" } ?? "")
      let (line, toFolder) = TimelinePictureReport.deliverSayingWhetherWritten(
        picture.svg, label: label, subject: "run", at: site)
      if toFolder { reportWarning(line, at: site) }
    }
  }

  extension Trait where Self == DeterministicSchedulingTrait {
    /// Runs the test body, and every job it causes, on the deterministic scheduler: one thread, a
    /// seeded order, virtual time, and a report instead of a hang on deadlock. `@MainActor` tests
    /// work; deterministic tests never overlap one another, even when tests run in parallel.
    ///
    /// ```swift
    /// @Test(.deterministic(seed: 7), .timeLimit(.minutes(1)))
    /// @MainActor func debounces() async throws {
    ///   let search = DebouncedSearch(backend: backend, clock: ContinuousClock())
    ///   for text in ["s", "sw", "swift"] { search.textChanged(text) }
    ///   try await Task.sleep(for: .milliseconds(100))   // virtual: no real wait
    ///   #expect(backend.requests.values == ["swift"])
    /// }
    /// ```
    ///
    /// `seed` is `nil` for FIFO order, or a seed for a reproducible pseudo-random order;
    /// `gracePeriod` is how long to wait in real time for jobs from outside the run (real I/O,
    /// other threads) before reporting a deadlock.
    public static func deterministic(
      seed: UInt64? = nil, gracePeriod: Duration = .zero,
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) -> Self {
      DeterministicSchedulingTrait(
        seed: seed, gracePeriod: gracePeriod,
        site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }
  }
#endif
