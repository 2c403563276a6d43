import LockstepExamples
import LockstepTesting

let scenarios: [Scenario] = [
  Scenario(
    title: "1. A screen that loads on its own",
    proves:
      "load() starts a task; waitUntilIdle() waits for it and the task it starts; a load cancelled before the service answers leaves no trace"
  ) { variant in
    var expectations = Expectations()
    let gate = Gate("profile service")
    let tasks = TestTaskFactory()
    let model = ProfileModel(service: DemoProfileService(gate: gate), tasks: tasks, variant: variant)
    model.load()
    try await gate.waitForArrivals(1)
    model.cancel()
    gate.open()
    try await tasks.waitUntilIdle()
    expectations.expect(model.name == "", "a cancelled load published the name \"\(model.name)\"")

    let fresh = ProfileModel(service: DemoProfileService(), tasks: tasks, variant: variant)
    fresh.load()
    try await tasks.waitUntilIdle()
    expectations.expect(fresh.name == "Blob" && fresh.greetingShown, "a load did not finish its work")
    return expectations.violations
  },
  Scenario(
    title: "4. Create if needed, without duplicates",
    proves:
      "a barrier of two in the validator forces both callers past the existence check before either writes"
  ) { variant in
    var expectations = Expectations()
    let store = DraftStore(validator: DemoValidator(barrier: Barrier(parties: 2)), variant: variant)
    async let first: Void = store.createIfNeeded(id: 7)
    async let second: Void = store.createIfNeeded(id: 7)
    _ = try await (first, second)
    let drafts = await store.drafts
    expectations.expect(drafts == [7], "expected one draft, found \(drafts.count): \(drafts)")
    return expectations.violations
  },
  Scenario(
    title: "5. Events that must happen a given number of times",
    proves: "EventCounter/EventRecorder count callbacks and emitted values without sleeping"
  ) { variant in
    var expectations = Expectations()
    let tasks = TestTaskFactory()
    let directory = UserDirectory(service: DemoProfileService(), tasks: tasks, variant: variant)
    directory.fetchName { _ in }
    try await tasks.waitUntilIdle()
    let cached = EventCounter("cached completion")
    directory.fetchName { _ in cached.record() }
    try await tasks.waitUntilIdle()

    let prices = EventRecorder<Int>("price feed")
    PriceFeed(prices: [10, 11, 12], tasks: tasks, variant: variant).start { prices.record($0) }
    try await prices.waitForCount(3)
    try await tasks.waitUntilIdle()
    let (_, issues) = await collectingIssues {
      cached.expectCount(1)
      prices.expectCount(3)
    }
    expectations.record(issues)
    return expectations.violations
  },
  Scenario(
    title: "6. Work that must stop when cancelled",
    proves:
      "a gate shows the tracker has really started; after stop(), waitUntilIdle() shows it wound down early"
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
  },
]
