// The main code examples of the DocC articles in Sources/LockstepTesting/LockstepTesting.docc,
// compiled and run, so that the documentation cannot rot. Each article names the suite below that
// holds its example; keep the two in step when you change either.
//
// The app code of each article (a model and its protocol) is repeated here in a minimal form.

import Foundation
import LockstepTestSupport
import LockstepTesting
import Testing

// MARK: - When work finishes (WhenWorkFinishes.md, scenario 1)

private protocol ProfileService: Sendable {
  func fetchName() async throws -> String
}

@MainActor
private final class ProfileModel {
  private(set) var name = ""
  private(set) var greetingShown = false
  private let service: any ProfileService
  private let tasks: any TaskFactory
  private var loading: Task<Void, Never>?

  init(service: any ProfileService, tasks: any TaskFactory = .live) {
    self.service = service
    self.tasks = tasks
  }

  func load() {  // called from onAppear: synchronous
    loading = tasks.task(name: "load profile") {  // runs on the main actor, like Task { }
      guard let fetched = try? await self.service.fetchName(), !Task.isCancelled else { return }
      self.name = fetched
      self.tasks.task(name: "show greeting") { self.greetingShown = true }  // a task a task started
    }
  }

  func cancel() {
    loading?.cancel()
  }
}

private struct StubService: ProfileService {
  let name: String
  func fetchName() async throws -> String { name }
}

private struct SlowService: ProfileService {
  let gate: Gate
  func fetchName() async throws -> String {
    // Answers even when its caller is cancelled, as a real service does once the request is
    // sent: the wait runs in a task of its own, which the caller's cancellation does not reach.
    try await Task { try await gate.wait() }.value
    return "Blob"
  }
}

@MainActor @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct WhenWorkFinishesExamples {
  @Test func loadShowsTheName() async throws {
    let tasks = TestTaskFactory()
    let model = ProfileModel(service: StubService(name: "Blob"), tasks: tasks)

    model.load()
    try await tasks.waitUntilIdle()  // both tasks: "load profile" and the "show greeting" it started

    #expect(model.name == "Blob")
    #expect(model.greetingShown)
    #expect(tasks.createdCount == 2)
    #expect(tasks.unfinishedCount == 0)
  }

  @Test func aCancelledLoadLeavesNoTrace() async throws {
    let tasks = TestTaskFactory()
    let gate = Gate("profile service")
    let model = ProfileModel(service: SlowService(gate: gate), tasks: tasks)

    model.load()
    try await gate.waitForArrivals(1)  // the request is in flight
    model.cancel()
    gate.open()  // the service answers anyway
    try await tasks.waitUntilIdle()

    #expect(model.name == "")
    #expect(tasks.createdCount == 1)  // no greeting either
  }

  @Test func aTaskThatNeverFinishesFailsTheWaitAndIsNamed() async throws {
    let tasks = TestTaskFactory()
    let gate = Gate("profile service")  // nobody opens it
    let model = ProfileModel(service: SlowService(gate: gate), tasks: tasks)

    model.load()
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await tasks.waitUntilIdle(timeout: .milliseconds(50))
    }
    #expect(error?.awaited == "every task of the TestTaskFactory to finish")
    #expect(error?.pending.count == 1)
    #expect(error?.pending.first?.contains("task #1 \"load profile\", created at") == true)

    gate.open()  // clean up: the service answers, the load finishes
    try await tasks.waitUntilIdle()
  }
}

// MARK: - Where work pauses (WhereWorkPauses.md, scenarios 4, 5 and 6)

private protocol DraftValidator: Sendable {
  func validate(_ id: Int) async throws
}

private actor DraftStore {
  private(set) var drafts: [Int] = []
  private let validator: any DraftValidator

  init(validator: any DraftValidator) { self.validator = validator }

  func createIfNeeded(id: Int) async throws {
    guard !drafts.contains(id) else { return }
    try await validator.validate(id)  // the actor can run another call while this one waits
    guard !drafts.contains(id) else { return }  // so check again
    drafts.append(id)
  }
}

private struct BarrierValidator: DraftValidator {
  let barrier = Barrier(parties: 2, name: "past the existence check")
  func validate(_ id: Int) async throws { try await barrier.arriveAndWait() }
}

private final class UserDirectory: Sendable {
  private let tasks: any TaskFactory
  init(tasks: any TaskFactory) { self.tasks = tasks }

  func fetchName(completion: @escaping @Sendable (String) -> Void) {
    tasks.task(name: "fetch name") { completion("Blob") }
  }
}

private final class PriceFeed: Sendable {
  private let tasks: any TaskFactory
  init(tasks: any TaskFactory) { self.tasks = tasks }

  func start(onPrice: @escaping @Sendable (Int) -> Void) {
    tasks.task(name: "price feed") {
      for price in [10, 11, 12] { onPrice(price) }
    }
  }
}

private actor ReadingSource {
  /// Where the source holds the tracker once the ready readings are used up.
  nonisolated let gate = Gate("next reading")
  private var next = 1
  private let ready: Int

  init(ready: Int) { self.ready = ready }

  func nextReading() async throws -> Int {
    if next > ready { try await gate.wait() }
    defer { next += 1 }
    return next
  }
}

@MainActor
private final class ActivityTracker {
  private(set) var readings: [Int] = []
  private(set) var isRunning = false
  private let source: ReadingSource
  private let tasks: any TaskFactory
  private var running: Task<Void, Never>?

  init(source: ReadingSource, tasks: any TaskFactory) {
    self.source = source
    self.tasks = tasks
  }

  func start() {
    running = tasks.task(name: "activity tracking") {
      self.isRunning = true
      defer { self.isRunning = false }
      while let reading = try? await self.source.nextReading() {
        self.readings.append(reading)
      }
    }
  }

  func stop() { running?.cancel() }
}

/// An actor whose state changes with no signal: `deliver` starts a task nobody tracks.
private actor Inbox {
  private(set) var unread = 0

  nonisolated func deliver(_ message: String) {
    Task { await self.receive(message) }
  }

  private func receive(_ message: String) { unread += 1 }
}

/// A legacy loader that reports its result through a completion handler, from another queue.
private final class AvatarLoader: Sendable {
  func load(_ url: URL, completion: @escaping @Sendable (String) -> Void) {
    DispatchQueue.global().async { completion("avatar \(url.lastPathComponent)") }
  }
}

@MainActor @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct WhereWorkPausesExamples {
  @Test func twoCallersCreateOneDraft() async throws {
    let store = DraftStore(validator: BarrierValidator())

    async let first: Void = store.createIfNeeded(id: 7)
    async let second: Void = store.createIfNeeded(id: 7)
    _ = try await (first, second)

    #expect(await store.drafts == [7])  // without the second check: [7, 7]
  }

  @Test func theCompletionIsCalledExactlyOnce() async throws {
    let tasks = TestTaskFactory()
    let directory = UserDirectory(tasks: tasks)
    let completion = EventCounter("completion")

    directory.fetchName { _ in completion.record() }
    try await completion.waitForCount(1)  // returns the moment it is called
    try await tasks.waitUntilIdle()  // let a second call happen, if there is one

    completion.expectCount(1)
  }

  @Test func thePriceFeedEmitsThreeValues() async throws {
    let tasks = TestTaskFactory()
    let feed = PriceFeed(tasks: tasks)
    let prices = EventRecorder<Int>("price feed")

    feed.start { prices.record($0) }
    try await prices.waitForCount(3)
    try await tasks.waitUntilIdle()

    prices.expectCount(3)
    #expect(prices.values == [10, 11, 12])
  }

  @Test func aWrongCountNamesTheExpectedAndActualCount() async {
    let (_, issues) = await collectingIssues {
      let completion = EventCounter("completion")
      completion.record()
      completion.record()
      completion.expectCount(1)
    }
    #expect(issues.map(\.message) == ["\"completion\": expected exactly 1 event(s), got 2"])
  }

  @Test func stopEndsTheTrackerEarly() async throws {
    let tasks = TestTaskFactory()
    let source = ReadingSource(ready: 3)
    let tracker = ActivityTracker(source: source, tasks: tasks)

    tracker.start()
    try await source.gate.waitForArrivals(1)  // three readings in, waiting for the fourth
    #expect(tracker.isRunning)
    tracker.stop()
    try await tasks.waitUntilIdle()  // it has wound down

    #expect(tracker.readings == [1, 2, 3])
    #expect(!tracker.isRunning)
  }

  @Test func waitUntilWaitsForStateWithoutASignal() async throws {
    let tasks = TestTaskFactory()
    let source = ReadingSource(ready: 0)
    let tracker = ActivityTracker(source: source, tasks: tasks)

    tracker.start()
    try await waitUntil("the tracker is running") { tracker.isRunning }
    #expect(tracker.isRunning)  // what the wait waited for
    tracker.stop()
    try await tasks.waitUntilIdle()
    #expect(!tracker.isRunning)
  }

  @Test func withCallbackAwaitsTheOneCallback() async throws {
    let loader = AvatarLoader()
    let avatarURL = URL(fileURLWithPath: "/avatars/blob.png")
    let image = try await withCallback("avatar loaded") { done in
      loader.load(avatarURL) { image in done(image) }
    }
    #expect(image == "avatar blob.png")
  }

  @Test func waitUntilAwaitsAnActorsState() async throws {
    let inbox = Inbox()  // an actor
    inbox.deliver("hello")  // starts a task that reaches the actor later
    try await waitUntil("the message arrived") { await inbox.unread == 1 }
    #expect(await inbox.unread == 1)
  }
}

// MARK: - Controlled dependencies (ControlledDependencies.md, scenarios 2 and 3)

private struct Book: Equatable, Sendable {
  let id: Int
  let title: String
}

private protocol BookLoader: Sendable {
  func load(id: Int) async throws -> Book
}

@MainActor
private final class BookScreenModel {
  private(set) var book: Book?
  private(set) var isLoading = false
  private let loader: any BookLoader
  private var generation = 0

  init(loader: any BookLoader) { self.loader = loader }

  func reload(id: Int) async {
    generation += 1
    let mine = generation
    isLoading = true
    defer { if mine == generation { isLoading = false } }
    guard let loaded = try? await loader.load(id: id) else { return }
    guard !Task.isCancelled, mine == generation else { return }  // only the newest reload publishes
    book = loaded
  }
}

private struct FakeLoader: BookLoader {
  let calls = ControlledCalls<Int, Book>("loader")
  func load(id: Int) async throws -> Book { try await calls.call(id) }
}

private protocol SearchBackend: Sendable {
  func search(_ query: String) async throws -> [String]
}

@MainActor
private final class SearchResultsModel {
  private(set) var results: [String] = []
  private let backend: any SearchBackend
  private let tasks: any TaskFactory
  private var generation = 0

  init(backend: any SearchBackend, tasks: any TaskFactory = .live) {
    self.backend = backend
    self.tasks = tasks
  }

  @discardableResult
  func search(_ query: String) -> Task<Void, Never> {
    generation += 1
    let mine = generation
    return tasks.task(name: "search \"\(query)\"") {
      guard let found = try? await self.backend.search(query), mine == self.generation else { return }
      self.results = found
    }
  }
}

private struct GatedBackend: SearchBackend {
  let gates = KeyedGates<String>("search")
  func search(_ query: String) async throws -> [String] {
    try await gates.wait(for: query)
    return ["\(query) result"]
  }
}

@MainActor @Suite(.verifyingControlledCalls, .timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ControlledDependenciesExamples {
  @Test func anOlderReloadCannotOverwriteANewerOne() async throws {
    let loader = FakeLoader()
    let model = BookScreenModel(loader: loader)

    let first = Task { await model.reload(id: 1) }
    try await loader.calls.waitUntilPending(1)  // request 1 has really reached the loader
    let second = Task { await model.reload(id: 2) }
    try await loader.calls.waitUntilPending(2)

    loader.calls.succeed(2, with: Book(id: 2, title: "New"))
    await second.value
    loader.calls.succeed(1, with: Book(id: 1, title: "Old"))  // the late, older answer
    await first.value

    #expect(model.book?.title == "New")
    #expect(!model.isLoading)
    #expect(loader.calls.arguments == [1, 2])
  }

  @Test func aCallTheTestNeverCompletesIsReported() async throws {
    let (reload, issues) = try await collectingIssues {
      try await withControlledCallsVerification {
        let loader = FakeLoader()
        let model = BookScreenModel(loader: loader)
        let reload = Task { await model.reload(id: 7) }
        try await loader.calls.waitUntilPending(1)
        return reload  // the test "forgets" to complete call 1
      }
    }
    await reload.value  // the check ended the call with ControlledCallNotCompletedError

    #expect(issues.count == 1)
    #expect(issues.first?.message.hasPrefix("loader call #1 (argument: 7) was never completed") == true)
  }

  @Test(arguments: Interleavings.all(of: ["sw", "swift"]))
  func theNewestQueryWins(order: Interleaving<String>) async throws {
    let backend = GatedBackend()
    let model = SearchResultsModel(backend: backend)

    let requests = ["sw": model.search("sw"), "swift": model.search("swift")]
    try await backend.gates.waitForRequests(2)  // both requests are in flight
    for query in order {
      backend.gates.open(query)
      await requests[query]!.value
    }

    #expect(model.results == ["swift result"])
  }
}

// MARK: - What time it is (WhatTimeItIs.md, scenario 3)

private struct RecordingBackend: SearchBackend {
  let requests = EventRecorder<String>("search requests")
  func search(_ query: String) async throws -> [String] {
    requests.record(query)
    return ["\(query) result"]
  }
}

@MainActor
private final class DebouncedSearch {
  private(set) var results: [String] = []
  private let backend: any SearchBackend
  private let clock: any Clock<Duration>
  private let tasks: any TaskFactory
  private var pending: Task<Void, Never>?

  init(backend: any SearchBackend, clock: any Clock<Duration>, tasks: any TaskFactory = .live) {
    self.backend = backend
    self.clock = clock
    self.tasks = tasks
  }

  func textChanged(_ text: String) {
    pending?.cancel()  // a keystroke restarts the quiet period
    pending = tasks.task(name: "search \"\(text)\"") {
      do {
        try await self.clock.sleep(for: .milliseconds(80))
      } catch {
        return  // cancelled by a newer keystroke
      }
      self.results = (try? await self.backend.search(text)) ?? []
    }
  }
}

/// Retries `operation` up to `attempts` times, sleeping 100 ms, then 200 ms, … in between.
nonisolated(nonsending) private func retrying<Value>(
  attempts: Int, clock: any Clock<Duration>, _ operation: () async throws -> Value
) async throws -> Value {
  var delay = Duration.milliseconds(100)
  for _ in 1..<attempts {
    do {
      return try await operation()
    } catch {
      try await clock.sleep(for: delay)
      delay *= 2
    }
  }
  return try await operation()
}

private struct Offline: Error {}

/// Saves a draft at most once per interval, scheduling delayed work on a `WorkScheduler` as
/// legacy Dispatch code does.
private final class ThrottledSaver: @unchecked Sendable {
  private let queue: any WorkScheduler
  private let interval: Duration
  private let save: @Sendable (String) -> Void
  private let lock = NSLock()
  private var draft = ""
  private var pending: ScheduledWork?

  init(queue: any WorkScheduler, interval: Duration, save: @escaping @Sendable (String) -> Void) {
    self.queue = queue
    self.interval = interval
    self.save = save
  }

  func edit(_ text: String) {
    lock.withLock {
      draft = text
      guard pending == nil else { return }
      pending = queue.schedule(after: interval) { [self] in
        let latest = lock.withLock {
          pending = nil
          return draft
        }
        save(latest)
      }
    }
  }
}

@MainActor @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct WhatTimeItIsExamples {
  @Test func fiveKeystrokesSendOneRequestAt80ms() async throws {
    let clock = TestClock()
    let tasks = TestTaskFactory()
    let backend = RecordingBackend()
    let search = DebouncedSearch(backend: backend, clock: clock, tasks: tasks)

    for text in ["s", "sw", "swi", "swif", "swift"] { search.textChanged(text) }
    try await clock.waitForSleepers(count: 1)  // the model is really sleeping now

    await clock.advance(by: .milliseconds(79))
    #expect(backend.requests.values.isEmpty)
    await clock.advance(by: .milliseconds(1))  // wakes the sleeper
    try await tasks.waitUntilIdle()

    #expect(backend.requests.values == ["swift"])  // exactly one request, for the last query
    #expect(search.results == ["swift result"])
    #expect(clock.now == .zero.advanced(by: .milliseconds(80)))
  }

  @Test func retriesWithoutWaiting() async throws {
    let clock = ImmediateClock()
    let attempts = EventCounter("attempts")

    let value = try await retrying(attempts: 3, clock: clock) {
      attempts.record()
      if attempts.count < 3 { throw Offline() }
      return 42
    }

    #expect(value == 42)
    #expect(attempts.count == 3)
    #expect(clock.now.offset == .milliseconds(300))  // slept 100 ms + 200 ms, instantly
  }

  @Test func aTestQueueRunsNothingUntilTheTestAdvancesIt() async throws {
    // Production: DispatchQueue conforms to WorkScheduler.
    _ = ThrottledSaver(queue: DispatchQueue.main, interval: .seconds(1)) { _ in }

    // Test:
    let queue = TestQueue("main")
    let saved = EventRecorder<String>("saved drafts")
    let saver = ThrottledSaver(queue: queue, interval: .seconds(1)) { saved.record($0) }

    saver.edit("D")
    await queue.advance(by: .milliseconds(999))
    #expect(saved.values.isEmpty)
    await queue.advance(by: .milliseconds(1))  // due work runs, in deadline order
    #expect(saved.values == ["D"])
  }
}

// MARK: - Which work runs next (WhichWorkRunsNext.md)

/// Five tasks that each record their number and yield, four times: the order of the log depends
/// on which ready task runs next.
private func fiveWorkers() async -> [Int] {
  let log = EventRecorder<Int>("log")
  await withTaskGroup(of: Void.self) { group in
    for worker in 1...5 {
      group.addTask {
        for _ in 0..<4 {
          log.record(worker)
          await Task.yield()  // allowed: a choice point for the scheduler, not a guess
        }
      }
    }
  }
  return log.values
}

/// A main-actor model that loads three titles in child tasks.
@MainActor
private final class ShelfModel {
  private(set) var titles: [String] = []
  private(set) var refreshes = 0

  func refresh() async {
    refreshes += 1
    var loaded: [String] = []
    await withTaskGroup(of: String.self) { group in
      for title in ["Dune", "Emma", "Ulysses"] { group.addTask { title } }
      for await title in group { loaded.append(title) }
    }
    titles = loaded.sorted()
  }
}

/// A loader with a callback API: it calls back from a task of its own.
private final class ProfileLoader: Sendable {
  func load(completion: @escaping @Sendable (String) -> Void) {
    Task {
      try? await Task.sleep(for: .milliseconds(30))  // the loader's latency, in virtual time
      completion("Ada")
    }
  }
}

/// Legacy synchronous code over the loader, bridged with a semaphore.
private func loadNameSync(_ loader: ProfileLoader) -> String {
  let done = DispatchSemaphore(value: 0)
  nonisolated(unsafe) var name = ""  // written before `signal()`, read after `wait()`
  loader.load { loaded in  // called back from a task of the run
    name = loaded
    done.signal()
  }
  done.wait()  // parked: the loader's task runs meanwhile
  return name
}

/// A summary that is not Sendable.
private final class Summary {
  var lines: [String] = []
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct WhichWorkRunsNextExamples {
  @Test func theSameSeedReplaysTheSameOrder() async throws {
    let first = try await runDeterministically(seed: 42) { await fiveWorkers() }
    let again = try await runDeterministically(seed: 42) { await fiveWorkers() }

    #expect(first.value == again.value)
    #expect(first.trace == again.trace)
    let other = try await runDeterministically(seed: 7) { await fiveWorkers() }
    #expect(other.value != first.value)  // another seed, another order
  }

  @Test func withoutASeedTheOrderIsFirstInFirstOut() async throws {
    let order = try await withDeterministicScheduling { await fiveWorkers() }
    #expect(order == Array(repeating: [1, 2, 3, 4, 5], count: 4).flatMap { $0 })
  }

  @MainActor @Test func theBodyUsesTheTestsLocalsAndModel() async throws {
    let model = ShelfModel()  // a @MainActor model
    var seen: [[String]] = []
    try await withDeterministicScheduling(seed: 3) {
      await model.refresh()
      seen.append(model.titles)  // assigns the test's local
      await model.refresh()
      seen.append(model.titles)
    }
    #expect(seen == [["Dune", "Emma", "Ulysses"], ["Dune", "Emma", "Ulysses"]])
    #expect(model.refreshes == 2)

    let summary = try await withDeterministicScheduling(seed: 3) { () async -> Summary in
      let summary = Summary()  // not Sendable
      await model.refresh()
      summary.lines = model.titles
      return summary
    }
    #expect(summary.lines.count == 3)
  }

  #if os(Linux)  // where a blocking wait is parked (Platforms.md)
    @Test func theSynchronousBridgeReturnsTheName() async throws {
      let name = try await withDeterministicScheduling { loadNameSync(ProfileLoader()) }
      #expect(name == "Ada")
    }
  #endif

  @Test func sleepsTakeNoRealTime() async throws {
    let outcome = try await runDeterministically { () async throws -> String in
      try await Task.sleep(for: .seconds(600))  // allowed: ten minutes of virtual time
      return "woke"
    }
    #expect(outcome.value == "woke")
    #expect(outcome.trace.steps.last?.time ?? .zero >= .seconds(600))
  }

  @Test func aWaitThatCanNeverEndIsReportedAtOnce() async throws {
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        let calls = ControlledCalls<Int, Int>("never completed", cancellation: .throwsCancellationError)
        _ = try await calls.call(1)  // nobody completes it, nothing else can run
      }
    }
    #expect(deadlock?.tasks.first?.contains("waiting for call 1 of \"never completed\"") == true)
  }

  @Test(.deterministic(seed: 7)) @MainActor func debounces() async throws {
    let backend = RecordingBackend()
    let search = DebouncedSearch(backend: backend, clock: ContinuousClock())
    for text in ["s", "sw", "swift"] { search.textChanged(text) }
    try await Task.sleep(for: .milliseconds(100))  // allowed: virtual time, no real wait
    #expect(backend.requests.values == ["swift"])
    #expect(search.results == ["swift result"])
  }

  // The README's and the article's examples of code that reads the time itself (virtual now,
  // Linux). Sleeps are the subject: virtual time.
  @Test(.deterministic(), .enabled(if: VirtualNow.isAvailable))
  func entriesExpireAfterTenMinutes() async throws {
    let cache = TokenCache(lifetime: .seconds(600))  // reads Date() itself: nothing injected
    cache.store("abc")
    try await Task.sleep(for: .seconds(599))  // virtual time
    #expect(cache.token == "abc")
    try await Task.sleep(for: .seconds(1))  // virtual time
    #expect(cache.token == nil)  // 600 s later, to the nanosecond
  }

  @Test(.enabled(if: VirtualNow.isAvailable))
  func aDebounceThatComputesItsDeadlineFromTheRealClock() async throws {
    try await withDeterministicScheduling {
      let start = ContinuousClock.now
      let deadline = start + .milliseconds(80)
      while ContinuousClock.now < deadline {
        try await Task.sleep(until: deadline, clock: .continuous)  // virtual time
      }
      #expect(start.duration(to: .now) == .milliseconds(80))  // exactly
    }
  }
}

/// A token that expires `lifetime` after it was stored, by the wall clock.
private final class TokenCache: @unchecked Sendable {
  private let lifetime: TimeInterval
  private var stored: (token: String, at: Date)?

  init(lifetime: Duration) { self.lifetime = Double(lifetime.components.seconds) }

  func store(_ token: String) { stored = (token, Date()) }

  var token: String? {
    guard let stored, Date().timeIntervalSince(stored.at) < lifetime else { return nil }
    return stored.token
  }
}

// MARK: - Migrating from sleeps, yields and expectations (MigratingFromSleepsAndExpectations.md)

@MainActor @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct MigrationExamples {
  @Test func afterASleepBecomesAWaitForTheWork() async throws {
    // Before (the naive guess): model.load(); try await Task.sleep(for: .milliseconds(100)); #expect(…)
    let tasks = TestTaskFactory()
    let model = ProfileModel(service: StubService(name: "Blob"), tasks: tasks)
    model.load()
    try await tasks.waitUntilIdle()
    #expect(model.name == "Blob")
  }

  @Test func afterAnExpectationBecomesAnEventCounter() async throws {
    // Before: let done = expectation(description: "completion"); …; await fulfillment(of: [done])
    let tasks = TestTaskFactory()
    let directory = UserDirectory(tasks: tasks)
    let completion = EventCounter("completion")
    directory.fetchName { _ in completion.record() }
    try await completion.waitForCount(1)
    try await tasks.waitUntilIdle()
    completion.expectCount(1)
  }

  @Test func afterYieldsBecomeAGateArrival() async throws {
    // Before (the naive guess): model.load(); for _ in 0..<10 { await Task.yield() }; model.cancel()
    let tasks = TestTaskFactory()
    let gate = Gate("profile service")
    let model = ProfileModel(service: SlowService(gate: gate), tasks: tasks)
    model.load()
    try await gate.waitForArrivals(1)
    model.cancel()
    gate.open()
    try await tasks.waitUntilIdle()
    #expect(model.name == "")
  }
}
