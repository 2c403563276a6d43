#if canImport(Observation)
  public import Observation

  /// Records every value a property of an `@Observable` object takes, in order, from its value at
  /// the start — `[false, true, false]` for the `isLoading` of a whole load — so a test can check
  /// the history, wait for a change, and cannot silently miss one.
  ///
  /// Create it on the actor that changes the property — on the main actor for a `@MainActor`
  /// model, as in a `@MainActor` test:
  ///
  /// ```swift
  /// @MainActor @Test(.verifyingTeardown, .timeLimit(.minutes(1)))
  /// func theSpinnerShowsDuringTheLoad() async throws {
  ///   let tasks = TestTaskFactory()
  ///   let model = ItemsModel(service: service, tasks: tasks)
  ///   let isLoading = PropertyRecorder(model, \.isLoading, name: "isLoading")   // [false]
  ///   model.load()
  ///   try await tasks.waitUntilIdle()
  ///   await isLoading.expectValues([false, true, false])
  /// }
  /// ```
  ///
  /// Every change is recorded, including several in one synchronous stretch, unlike the
  /// `Observations` sequence, which emits once per transaction. The property is read only on the
  /// object's isolation. See <doc:ValuesOverTime>.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
  public final class PropertyRecorder<Value: Sendable & Equatable>: Sendable, CustomStringConvertible {
    /// The name reports use; give one when you create the recorder, e.g. `"isLoading"`.
    public let name: String

    typealias State = PropertyRecordingState<Value, Waiter<Void>>
    private let tracking: PropertyTracking<Value>
    let creationSite: CallSite

    /// Starts recording `object[keyPath: keyPath]`, from its current value.
    ///
    /// Call it on the object's isolation (the main actor for a `@MainActor` model); the recorder
    /// reads the property there. A computed property is recorded like a stored one: it changes
    /// when a property it reads changes and its value differs.
    ///
    /// - Parameters:
    ///   - object: An `@Observable` object.
    ///   - keyPath: The property to record.
    ///   - name: A name for reports. Without one, reports name the type: `a Bool property of
    ///     ItemsModel` (the key paths of `@Observable` properties print without their names).
    public init<Object: Observable & AnyObject>(
      _ object: Object, _ keyPath: KeyPath<Object, Value>, name: String? = nil,
      isolation: isolated (any Actor)? = #isolation,
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) {
      self.name = name ?? defaultName(of: keyPath)
      self.creationSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
      let read = UncheckedRead { object[keyPath: keyPath] }
      tracking = PropertyTracking(read: read, isolation: isolation)
      tracking.start()
      registerForTeardown()
    }

    deinit {
      _ = verifyAtTeardown()
    }

    // MARK: Reading

    /// Every value so far, from the value at the start. Reading them counts as checking them:
    /// the teardown check reports only changes after this.
    nonisolated(nonsending) public var values: [Value] {
      get async {
        await tracking.catchUp()
        return tracking.state.withLock { $0.recording.checkAll() }
      }
    }

    /// `PropertyRecorder(isLoading): 3 value(s), 1 checked`.
    public var description: String {
      let (count, checked, stopped) = tracking.state.withLock {
        ($0.recording.values.count, $0.recording.checkedCount, $0.isStopped)
      }
      return "PropertyRecorder(\(name)): \(count) value(s), \(checked) checked"
        + (stopped ? ", stopped" : "")
    }

    /// Checks that the values so far are exactly `expected`, from the value at the start; a
    /// mismatch is reported at your line. Every value then counts as checked.
    ///
    /// - Returns: Whether they matched.
    @discardableResult
    nonisolated(nonsending) public func expectValues(
      _ expected: [Value],
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) async -> Bool {
      let recorded = await values
      guard recorded != expected else { return true }
      reportIssue(
        "\(name): expected \(describeValues(expected, limit: 50)), recorded "
          + describeValues(recorded, limit: 50),
        at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
      return false
    }

    // MARK: Waiting

    /// Waits for the next value the test has not checked — the first call returns the value at
    /// the start — and returns it; returns at once if it is already recorded.
    ///
    /// - Throws: ``WaitTimeoutError`` naming the property and the values recorded;
    ///   ``UnexpectedEventError`` when the recording was stopped (a misuse, also reported at your
    ///   line); `CancellationError`.
    nonisolated(nonsending) public func next(
      timeout: Duration = .seconds(10),
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) async throws -> Value {
      let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
      while true {
        await tracking.catchUp()
        switch tracking.state.withLock({ $0.recording.takeNext() }) {
        case .value(let value):
          return value
        case .ending(let ending):
          throw stopped(ending, waiting: "next()", at: site)
        case .none:
          try await wait(for: nil, awaited: "the next value of \(name)", timeout: timeout, site: site)
        }
      }
    }

    /// Waits until at least `count` values are recorded in total, the value at the start
    /// included; returns at once if they are. Waiting checks nothing.
    ///
    /// - Throws: ``WaitTimeoutError`` naming the property and the values recorded;
    ///   `CancellationError`.
    nonisolated(nonsending) public func waitForCount(
      _ count: Int, timeout: Duration = .seconds(10),
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) async throws {
      let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
      while true {
        await tracking.catchUp()
        if tracking.state.withLock({ $0.recording.values.count >= count || $0.isStopped }) {
          return
        }
        try await wait(
          for: .count(count), awaited: "\(count) value(s) of \(name)", timeout: timeout, site: site)
      }
    }

    /// Checks that the property has not changed since the test last checked it; a change is
    /// reported at your line and then counts as checked.
    ///
    /// Inside a deterministic run it first waits until no job of the run is ready, so it is
    /// exact. Outside one, it is exact for every change made before the call: it reads the
    /// property on the object's isolation after them.
    ///
    /// - Returns: Whether nothing had changed.
    @discardableResult
    nonisolated(nonsending) public func expectNoChanges(
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) async -> Bool {
      _ = await CurrentRun.awaitQuiescence()
      await tracking.catchUp()
      let found = tracking.state.withLock { state in
        let found = Array(state.recording.unchecked)
        _ = state.recording.checkAll()
        return found
      }
      guard !found.isEmpty else { return true }
      reportIssue(
        "\(name): expected no changes, got \(found.count) new value(s): \(describeValues(found))",
        at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
      return false
    }

    // MARK: Stopping and teardown

    /// Stops recording; later changes are ignored. Values recorded before and never checked are
    /// still reported at teardown.
    public func cancel(
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) {
      tracking.stop(at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// The teardown check: catches up, then reports every value the test never checked, at your
    /// line, and stops recording. It runs once; the ``Testing/Trait/verifyingTeardown`` trait,
    /// `addTeardownCheck(for:)` and the recorder's `deinit` (which cannot catch up, so it names
    /// only the values already recorded) run it for you.
    ///
    /// - Returns: Whether every value had been checked.
    @discardableResult
    nonisolated(nonsending) public func verifyAllChecked(
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) async -> Bool {
      await tracking.catchUp()
      return verify(at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    func verify(at site: CallSite) -> Bool {
      let (found, pending) = tracking.state.withLock { state in
        (state.recording.tearDown(), state.changePending)
      }
      guard let found else { return true }
      tracking.stop(at: site)
      guard !found.values.isEmpty || pending else { return true }
      var message = "\(name): "
      if !found.values.isEmpty {
        message +=
          "\(found.values.count) value(s) recorded that the test never checked: "
          + describeValues(found.values)
        if pending { message += ", and a later change" }
      } else {
        message += "a change the test never checked"
      }
      if pending { message += " (its value was not read: the recorder went away first)" }
      message += ". Check them with next() or expectValues(_:)."
      reportIssue(message, at: site)
      return false
    }

    // MARK: Helpers

    nonisolated(nonsending) private func wait(
      for target: RecordingState<Value, Waiter<Void>>.Target?, awaited: String, timeout: Duration,
      site: CallSite
    ) async throws {
      let tracking = self.tracking
      let name = self.name
      try await tracking.state.wait(
        for: awaited, timeout: timeout, site: site,
        arrive: { $0.watch($1, for: target ?? .event(after: $0.recording.checkedCount), $2) },
        afterUnlocking: { settle in if settle { tracking.scheduleSettle() } },
        depart: { $0.recording.depart($1) },
        pending: {
          ["\(name) recorded \($0.recording.values.count) value(s): \(describeValues($0.recording.values))"]
        })
    }

    private func stopped(_ ending: RecordingEnding, waiting: String, at site: CallSite)
      -> UnexpectedEventError
    {
      var found = "no more values: the recording was \(ending.description)"
      if case .cancelled(let cancelled) = ending {
        found = "no more values: the recording was cancelled at \(cancelled)"
        reportIssue(
          "\(name): \(waiting) waits on a recording that was cancelled at \(cancelled); it "
            + "records nothing more. Check its values before cancelling it.",
          at: site)
      }
      return UnexpectedEventError(
        name: name, expected: "a value", found: found, site: site,
        values: tracking.state.withLock { $0.recording.values.map { String(reflecting: $0) } })
    }
  }

  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
  extension PropertyRecorder: TeardownChecked {
    func prepareForTeardown() async { await tracking.catchUp() }
  }

  /// The key path as Swift prints it when that names the property (`\\Model.count`), else
  /// `a Int property of Model`: the properties of an `@Observable` class are computed, and their
  /// key paths print without a name on most platforms.
  private func defaultName<Object, Value>(of keyPath: KeyPath<Object, Value>) -> String {
    let printed = String(describing: keyPath)
    guard printed.contains("<computed") else { return printed }
    return "a \(Value.self) property of \(Object.self)"
  }

  /// A read of the recorded property. It is called only where the property may be read: on the
  /// object's isolation (the recorder's `catchUp`, a settle task), or in Observation's willSet
  /// callback, which runs where the property is being changed.
  struct UncheckedRead<Value>: @unchecked Sendable {
    let read: () -> Value
  }

  /// The shell around ``PropertyRecordingState``: installs Observation tracking, re-installs it in
  /// every willSet, and settles on the object's isolation.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
  final class PropertyTracking<Value: Sendable & Equatable>: Sendable {
    let state = Locked(PropertyRecordingState<Value, Waiter<Void>>())
    private let read: UncheckedRead<Value>
    /// Where the property changes and is read; nil for an object with no isolation.
    let isolation: (any Actor)?

    init(read: UncheckedRead<Value>, isolation: (any Actor)?) {
      self.read = read
      self.isolation = isolation
    }

    /// Records the current value and starts tracking. On the object's isolation.
    func start() {
      let initial = track()
      state.withLock { $0.start(with: initial) }
    }

    /// Installs a one-shot tracking of the property and returns its value.
    private func track() -> Value {
      withObservationTracking {
        read.read()
      } onChange: { [weak self] in
        self?.willChange()
      }
    }

    /// Observation's willSet callback, where the property changes: track the next change at once
    /// (reading the value the previous change stored), and note this one.
    private func willChange() {
      guard !state.withLock({ $0.isStopped }) else { return }
      let current = track()
      let (reached, settle) = state.withLock { $0.willChange(current: current) }
      for waiter in reached { waiter.resume() }
      if settle { scheduleSettle() }
    }

    /// Reads the property after the pending change, in a new task on the object's isolation:
    /// that task can run only once the current stretch of changes is over.
    func scheduleSettle() {
      if let isolation, isMainActor(isolation) {
        Task { @MainActor in settleHere() }
      } else {
        Task { await Self.settle(self, on: isolation) }
      }
    }

    /// Catches up on the object's isolation: records the value a pending change stored.
    nonisolated(nonsending) func catchUp() async {
      await Self.settle(self, on: isolation)
    }

    private static func settle(_ tracking: PropertyTracking, on isolation: isolated (any Actor)?) {
      tracking.settleHere()
    }

    /// Records the value a pending change stored. Only on the object's isolation.
    private func settleHere() {
      guard state.withLock({ $0.needsSettle() }) else { return }
      let current = read.read()
      for waiter in state.withLock({ $0.settle(current: current) }) { waiter.resume() }
    }

    /// Stops recording; waiters see the end.
    func stop(at site: CallSite) {
      for waiter in state.withLock({ $0.recording.end(.cancelled(site)) }) { waiter.resume() }
    }
  }
#endif
