import LockstepExamples
import LockstepTesting

// Every wait below is a signal — a gate or controlled call reached, a sleeper registered, a
// request recorded, a task finished — never a sleep, a yield or a polled condition.

let scenarios: [Scenario] = [
  Scenario(
    title: "1. A screen that loads on its own",
    proves:
      "load() starts a task; waitUntilIdle() waits for it and the task it starts; a load cancelled before the service answers leaves no trace",
    checks: [
      Check(
        name: "a full load, then a load cancelled while the service is answering",
        bug: "no cancellation check after the fetch"
      ) { variant in
        var expectations = Expectations()
        let tasks = TestTaskFactory()
        let fresh = ProfileModel(service: DemoProfileService(), tasks: tasks, variant: variant)
        fresh.load()
        try await tasks.waitUntilIdle()  // the load and the greeting task it starts
        expectations.expect(
          fresh.name == "Blob" && fresh.greetingShown, "a load did not finish its work")

        let gate = Gate("profile service")
        let model = ProfileModel(
          service: DemoProfileService(gate: gate), tasks: tasks, variant: variant)
        model.load()
        try await gate.waitForArrivals(1)  // the request is in flight
        model.cancel()
        gate.open()  // the service answers anyway
        try await tasks.waitUntilIdle()
        expectations.expect(model.name == "", "a cancelled load published the name \"\(model.name)\"")
        return expectations.violations
      }
    ]),
  Scenario(
    title: "2. Two reloads, finishing out of order",
    proves:
      "ControlledCalls holds each request; the test completes request 2 before request 1, and cancels a caller whose answer comes late",
    checks: [
      Check(name: "request 2 is answered before request 1", bug: "no generation check") { variant in
        var expectations = Expectations()
        let loader = DemoBookLoader()
        let model = BookScreenModel(
          loader: loader, variant: variant == .correct ? .correct : .withoutGenerationCheck)
        let first = Task { await model.reload(id: 1) }
        try await loader.calls.waitUntilPending(1)
        let second = Task { await model.reload(id: 2) }
        try await loader.calls.waitUntilPending(2)
        loader.calls.succeed(2, with: Book(id: 2, title: "New"))
        await second.value
        loader.calls.succeed(1, with: Book(id: 1, title: "Old"))  // the late, older answer
        await first.value
        expectations.expect(
          model.book?.title == "New",
          "the older reload overwrote the newer: \"\(model.book?.title ?? "nil")\"")
        expectations.expect(!model.isLoading, "isLoading stayed true")
        return expectations.violations
      },
      Check(
        name: "a cancelled caller's answer comes late anyway", bug: "no cancellation check"
      ) { variant in
        var expectations = Expectations()
        let loader = DemoBookLoader()
        let screen = BookScreenModel(
          loader: loader, variant: variant == .correct ? .correct : .withoutCancellationCheck)
        let caller = Task { await screen.reload(id: 3) }
        try await loader.calls.waitUntilPending(1)
        caller.cancel()
        loader.calls.succeed(1, with: Book(id: 3, title: "Late"))  // the fake ignores cancellation
        await caller.value
        expectations.expect(screen.book == nil, "a cancelled reload published \"Late\"")
        expectations.expect(loader.calls.verifyAllCompleted(), "a request was never completed")
        return expectations.violations
      },
    ]),
  Scenario(
    title: "3. Debounced search",
    proves:
      "a TestClock moves only when told: nothing at 79 ms, one request at 80 ms; two requests in flight answer in reverse order and the newest query still wins",
    checks: [
      Check(
        name: "five keystrokes; then two requests in flight, the newer answered first",
        bug: "no generation check"
      ) { variant in
        var expectations = Expectations()
        let clock = TestClock()
        let tasks = AwaitableTaskFactory()
        let backend = DemoSearchBackend()
        let search = DebouncedSearch(backend: backend, clock: clock, tasks: tasks, variant: variant)

        for text in ["s", "sw", "swi", "swif", "swift"] { search.textChanged(text) }
        try await clock.waitForSleepers(count: 1)  // the last keystroke's search is sleeping
        await clock.advance(by: .milliseconds(79))
        expectations.expect(backend.gates.requestedKeys.isEmpty, "a request went out before 80 ms")
        await clock.advance(by: .milliseconds(1))
        try await backend.gates.waitForRequests(1)
        expectations.expect(
          backend.gates.requestedKeys == ["swift"],
          "requests at 80 ms: \(backend.gates.requestedKeys)")
        backend.gates.open("swift")
        try await tasks.base.waitUntilIdle()

        // Two requests in flight, the older one answering last.
        for query in ["a", "ab"] {
          search.textChanged(query)  // cancels the previous search; its request stays in flight
          try await clock.waitForSleepers(count: 1)
          await clock.advance(by: .milliseconds(80))
          try await backend.gates.waitForRequest(of: query)
        }
        backend.gates.open("ab")
        try await tasks.waitForTask(named: "search \"ab\"")  // its answer has been applied
        expectations.expect(
          search.results == ["results for ab"], "the newest answer was not shown: \(search.results)")
        backend.gates.open("a")
        try await tasks.waitForTask(named: "search \"a\"")  // applied, or dropped as stale
        try await tasks.base.waitUntilIdle()
        expectations.expect(
          search.results == ["results for ab"], "a stale answer won: \(search.results)")
        return expectations.violations
      }
    ]),
  Scenario(
    title: "4. Create if needed, without duplicates",
    proves:
      "a barrier of two in the validator forces both callers past the existence check before either writes",
    checks: [
      Check(
        name: "two callers held past the existence check", bug: "no re-check after the await"
      ) { variant in
        var expectations = Expectations()
        let store = DraftStore(
          validator: DemoValidator(barrier: Barrier(parties: 2)), variant: variant)
        async let first: Void = store.createIfNeeded(id: 7)
        async let second: Void = store.createIfNeeded(id: 7)
        _ = try await (first, second)
        let drafts = await store.drafts
        expectations.expect(drafts == [7], "expected one draft, found \(drafts.count): \(drafts)")
        return expectations.violations
      }
    ]),
  Scenario(
    title: "5. Events that must happen a given number of times",
    proves: "EventCounter/EventRecorder count callbacks and emitted values without sleeping",
    checks: [
      Check(
        name: "a fetch answered from the cache", bug: "the cached fetch calls its completion twice"
      ) { variant in
        var expectations = Expectations()
        let tasks = TestTaskFactory()
        let directory = UserDirectory(service: DemoProfileService(), tasks: tasks, variant: variant)
        let first = EventCounter("first completion")
        directory.fetchName { _ in first.record() }
        try await tasks.waitUntilIdle()
        let cached = EventCounter("cached completion")
        directory.fetchName { _ in cached.record() }
        try await tasks.waitUntilIdle()  // a second fetch, if any, has called back too
        let (_, issues) = await collectingIssues {
          first.expectCount(1)
          cached.expectCount(1)
        }
        expectations.record(issues)
        return expectations.violations
      },
      Check(name: "a feed of three prices", bug: "an off-by-one loop emits an extra price") {
        variant in
        var expectations = Expectations()
        let tasks = TestTaskFactory()
        let prices = EventRecorder<Int>("price feed")
        PriceFeed(prices: [10, 11, 12], tasks: tasks, variant: variant).start { prices.record($0) }
        try await prices.waitForCount(3)
        try await tasks.waitUntilIdle()  // the feed has finished: no price can come later
        let (_, issues) = await collectingIssues { prices.expectCount(3) }
        expectations.record(issues)
        return expectations.violations
      },
    ]),
  Scenario(
    title: "6. Work that must stop when cancelled",
    proves:
      "a gate shows the tracker has really started; after stop(), waitUntilIdle() shows it wound down early",
    checks: [
      Check(
        name: "stopped while it waits for its fourth reading", bug: "retries after cancellation"
      ) { variant in
        var expectations = Expectations()
        let source = DemoReadingSource()
        let tasks = TestTaskFactory()
        let tracker = ActivityTracker(source: source, tasks: tasks, variant: variant)
        tracker.start()
        try await source.gate.waitForArrivals(1)
        tracker.stop()
        try await tasks.waitUntilIdle()
        expectations.expect(
          tracker.attempts == 4,
          "the tracker went on for \(tracker.attempts) attempts after it was stopped")
        return expectations.violations
      }
    ]),
]
