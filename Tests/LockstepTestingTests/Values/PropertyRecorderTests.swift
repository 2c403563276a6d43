#if canImport(Observation)
  import LockstepTestSupport
  import Observation
  import Testing

  @testable import LockstepTesting

  @Observable
  private final class Counter {
    var count = 0
    var label = ""
    var doubled: Int { count * 2 }
  }

  @MainActor @Observable
  private final class Screen {
    var isLoading = false
    var items: [String] = []

    /// One synchronous stretch: both changes happen before anything else can run.
    func flash() {
      isLoading = true
      isLoading = false
    }
  }

  @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  struct PropertyRecorderTests {
    @Test func recordsTheValueAtTheStartThenEveryChange() async {
      let counter = Counter()
      let count = PropertyRecorder(counter, \.count)
      counter.count = 1
      counter.count = 2
      #expect(await count.expectValues([0, 1, 2]))
      #expect(count.name == "a Int property of Counter")
      let label = PropertyRecorder(counter, \.label, name: "label")
      #expect(label.name == "label")
      #expect(await label.values == [""])
    }

    @Test func seesEveryChangeOfOneSynchronousStretch() async {
      let counter = Counter()
      let count = PropertyRecorder(counter, \.count)
      for value in 1...50 { counter.count = value }  // no suspension in between
      #expect(await count.values == Array(0...50))
    }

    @Test func anAssignmentOfTheSameValueIsNotAChange() async {
      let counter = Counter()
      let count = PropertyRecorder(counter, \.count)
      counter.count = 0
      counter.count = 1
      counter.count = 1
      counter.label = "other property"
      #expect(await count.values == [0, 1])
    }

    @Test func recordsAComputedProperty() async {
      let counter = Counter()
      let doubled = PropertyRecorder(counter, \.doubled)
      counter.count = 1
      counter.label = "not read by doubled"
      counter.count = 3
      #expect(await doubled.values == [0, 2, 6])
    }

    @MainActor @Test func aMainActorModelChangedTwiceInOneStretch() async {
      let screen = Screen()
      let isLoading = PropertyRecorder(screen, \.isLoading)
      screen.flash()
      await isLoading.expectValues([false, true, false])
    }

    @MainActor @Test func nextWaitsForAChangeAnotherTaskMakes() async throws {
      let screen = Screen()
      let items = PropertyRecorder(screen, \.items)
      #expect(try await items.next() == [])
      let gate = Gate("response")
      let tasks = TestTaskFactory()
      tasks.task {
        try? await gate.wait()
        screen.items = ["a"]
        screen.items.append("b")
      }
      try await gate.waitForArrivals(1)
      gate.open()
      #expect(try await items.next() == ["a"])
      #expect(try await items.next() == ["a", "b"])
      try await tasks.waitUntilIdle()
      #expect(await items.expectNoChanges())
    }

    @MainActor @Test func waitForCountReturnsOnceTheValuesAreRecorded() async throws {
      let screen = Screen()
      let isLoading = PropertyRecorder(screen, \.isLoading)
      Task { screen.flash() }
      try await isLoading.waitForCount(3)
      #expect(await isLoading.values == [false, true, false])
    }

    @MainActor @Test func aChangeThatNeverComesFailsWithinItsBound() async throws {
      let screen = Screen()
      let isLoading = PropertyRecorder(screen, \.isLoading, name: "spinner")
      #expect(try await isLoading.next() == false)
      let error = await #expect(throws: WaitTimeoutError.self) {
        try await isLoading.next(timeout: .milliseconds(20))
      }
      #expect(error?.awaited == "the next value of spinner")
      #expect(error?.pending == ["spinner recorded 1 value(s): [false]"])
    }

    @Test func aWrongHistoryIsReportedWithBothLists() async {
      let counter = Counter()
      let count = PropertyRecorder(counter, \.count, name: "count")
      counter.count = 1
      let line: UInt = #line + 1
      let (matched, issues) = await collectingIssues { await count.expectValues([0, 1, 2]) }
      #expect(!matched)
      #expect(issues.map(\.message) == ["count: expected [0, 1, 2], recorded [0, 1]"])
      #expect(issues.first?.site.line == line)
    }

    @Test func expectNoChangesReportsAChange() async {
      let counter = Counter()
      let count = PropertyRecorder(counter, \.count, name: "count")
      _ = await count.values
      counter.count = 5
      let (clean, issues) = await collectingIssues { await count.expectNoChanges() }
      #expect(!clean)
      #expect(issues.map(\.message) == ["count: expected no changes, got 1 new value(s): [5]"])
      #expect(await count.expectNoChanges())
    }

    @Test func uncheckedChangesAreReportedAtTeardown() async {
      let line: UInt = #line + 4
      let (_, issues) = await collectingIssues {
        await withTeardownVerification {
          let counter = Counter()
          let count = PropertyRecorder(counter, \.count, name: "count")
          #expect(await count.values == [0])
          counter.count = 1
          counter.count = 2
        }
      }
      #expect(
        issues.map(\.message) == [
          "count: 2 value(s) recorded that the test never checked: [1, 2]. Check them with next() "
            + "or expectValues(_:)."
        ])
      #expect(issues.first?.site.line == line)
    }

    @Test func aRecorderThatGoesAwayNamesWhatItCouldNotRead() async {
      let (_, issues) = await collectingIssues { changeAndDrop() }
      #expect(
        issues.map(\.message) == [
          "count: 1 value(s) recorded that the test never checked: [0], and a later change (its "
            + "value was not read: the recorder went away first). Check them with next() or "
            + "expectValues(_:)."
        ])
    }

    private func changeAndDrop() {
      let counter = Counter()
      let count = PropertyRecorder(counter, \.count, name: "count")
      counter.count = 1
      _ = count
    }

    @Test func nextAfterCancelIsAMisuseReportedAtTheCallersLine() async {
      let counter = Counter()
      let count = PropertyRecorder(counter, \.count, name: "count")
      _ = await count.values
      count.cancel()
      counter.count = 1  // ignored
      let line: UInt = #line + 2
      let (error, issues) = await collectingIssues {
        await #expect(throws: UnexpectedEventError.self) { try await count.next() }
      }
      #expect(issues.count == 1)
      #expect(issues.first?.site.line == line)
      #expect(
        issues.first?.message.hasPrefix("count: next() waits on a recording that was cancelled") == true)
      #expect(error?.values == ["0"])
    }

    @MainActor @Test(arguments: [nil, 1, 2, 3] as [UInt64?])
    func aMainActorLoadInADeterministicRun(seed: UInt64?) async throws {
      let history = try await withDeterministicScheduling(seed: seed) { @MainActor in
        let screen = Screen()
        let isLoading = PropertyRecorder(screen, \.isLoading)
        let tasks = TestTaskFactory()
        screen.isLoading = true
        tasks.task {
          await Task.yield()  // allowed: a choice point of the seeded run
          screen.items = ["a"]
          screen.isLoading = false
        }
        #expect(try await isLoading.next() == false)
        #expect(try await isLoading.next() == true)
        #expect(try await isLoading.next() == false)
        try await tasks.waitUntilIdle()
        #expect(await isLoading.expectNoChanges())
        return await isLoading.values
      }
      #expect(history == [false, true, false])
    }

    /// A single change while a test waits: no later willSet reveals its value, so the recorder
    /// must read it after the change, on the main actor.
    @MainActor @Test(arguments: [nil, 7] as [UInt64?])
    func aSingleChangeWakesAWaitingTest(seed: UInt64?) async throws {
      try await withDeterministicScheduling(seed: seed) { @MainActor in
        let screen = Screen()
        let isLoading = PropertyRecorder(screen, \.isLoading, name: "isLoading")
        let initial = try await isLoading.next()
        let waiter = Task { @MainActor in try await isLoading.next() }
        _ = await CurrentRun.awaitQuiescence()  // the waiter is suspended in next()
        screen.isLoading = true
        let changed = try await waiter.value
        #expect(!initial && changed)
      }
    }

    // MARK: What the Observation module's own sequence coalesces

    // These two check what the ValuesOverTime article and PropertyRecorder's documentation say of
    // `Observations`, the reason PropertyRecorder exists: a promise of our docs, about Apple's
    // sequence, that must hold on every toolchain we support. Where `Observations` does not
    // exist, `@available` makes Swift Testing skip them (a skipped test, not a silent pass).

    /// `Observations` emits once per transaction: two changes of one synchronous stretch merge
    /// into one emission of the later value. `PropertyRecorder` sees both.
    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    @MainActor @Test func observationsMergesTheChangesOfOneStretchThatPropertyRecorderSees() async throws {
      let screen = Screen()
      let emitted = SequenceRecorder(Observations { screen.isLoading }, name: "Observations")
      let isLoading = PropertyRecorder(screen, \.isLoading, name: "isLoading")
      #expect(try await emitted.next() == false)  // the value at the start
      screen.flash()
      #expect(try await emitted.next() == false)  // true and false merged: true is never seen
      #expect(await isLoading.expectValues([false, true, false]))
      emitted.cancel()
    }

    /// Changes separated by the consumer's read are not merged.
    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    @MainActor @Test func observationsKeepsChangesTheConsumerReadInBetween() async throws {
      let screen = Screen()
      let emitted = SequenceRecorder(Observations { screen.isLoading }, name: "Observations")
      #expect(try await emitted.next() == false)
      screen.isLoading = true
      #expect(try await emitted.next() == true)
      screen.isLoading = false
      #expect(try await emitted.next() == false)
      emitted.cancel()
    }

    // MARK: The state machine

    @Test func stateMachineRecordsThePreviousValueAtEachWillSet() {
      var state = PropertyRecordingState<Int, String>()
      state.start(with: 0)
      _ = state.willChange(current: 0)  // 0 → 1 is about to be stored
      _ = state.willChange(current: 1)  // 1 → 2: the previous change stored 1
      #expect(state.recording.values == [0, 1])
      #expect(state.changePending)
      let watch = state.watch(WaiterID(rawValue: 1), for: .count(3), "three")
      #expect(watch.stored && watch.scheduleSettle)
      let needs = state.needsSettle()
      let early = state.settle(current: 1)  // not landed yet: stays pending
      #expect(needs && early.isEmpty && state.changePending)
      let landed = state.settle(current: 2)
      #expect(landed == ["three"])
      #expect(state.recording.values == [0, 1, 2])
      #expect(!state.changePending)
    }
  }
#endif
