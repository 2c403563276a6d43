import LockstepExamples
import LockstepTesting

// Fakes and scenario runs for scenario 7, "finding a race nobody wrote down". Unlike the fakes of
// the hand-ordered tests, these never fix an order: a fake answers by itself after a suspension
// (a choice point), or holds a call at a Lockstep primitive where exploration may cancel its
// caller. Every run builds its model and fakes afresh, because exploration runs it once per
// schedule. The runs return what the product shows; the tests state the invariant.

/// A broken invariant, thrown where an assertion cannot be used: under XCTest, exploration cannot
/// hold back a failed `XCTAssert` of a failing schedule, but a thrown error fails only that
/// schedule.
struct ExplorationViolation: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

// MARK: Scenario 1, a screen that loads on its own

/// A profile service that holds its one call until the run answers it, ignoring the caller's
/// cancellation as a network stack does once a request is sent. It runs in the caller's task, so
/// it sees whether the load was cancelled by the time the answer came.
final class ExploredProfileService: ProfileService {
  let calls = ControlledCalls<Void, String>("profile service")
  let answersToCancelledLoads = EventCounter("answers to a cancelled load")

  func fetchName() async throws -> String {
    let name = try await calls.call()
    if Task.isCancelled {
      Timeline.note("service answers \"\(name)\" to a cancelled load")
      answersToCancelledLoads.record()
    } else {
      Timeline.note("service answers \"\(name)\"")
    }
    return name
  }
}

/// What the profile screen ended with, and whether its load had been cancelled.
struct ProfileOutcome: Equatable, CustomStringConvertible {
  var name: String
  var greetingShown: Bool
  var loadWasCancelled: Bool

  var description: String {
    "name \"\(name)\", greeting shown: \(greetingShown), load cancelled: \(loadWasCancelled)"
  }
}

/// `load()`, the service answers, every task the model started finishes. Exploration may cancel
/// the load while the service holds the request.
@MainActor
func exploreProfileLoad(_ variant: Variant) async throws -> ProfileOutcome {
  let tasks = TestTaskFactory()
  let service = ExploredProfileService()
  let model = ProfileModel(service: service, tasks: tasks, variant: variant)
  model.load()
  try await service.calls.waitUntilPending(1)
  service.calls.succeed(1, with: "Blob")
  try await tasks.waitUntilIdle()
  return ProfileOutcome(
    name: model.name, greetingShown: model.greetingShown,
    loadWasCancelled: service.answersToCancelledLoads.count > 0)
}

// MARK: Scenario 2, two reloads finishing out of order

/// A book loader that answers every request by itself after a suspension, so that with two
/// requests in flight the scheduler decides which answer comes first. Requests in `failing` fail.
final class AnsweringBookLoader: BookLoader {
  struct Offline: Error {}

  let requests = EventRecorder<Int>("book requests")
  let failing: Set<Int>

  init(failing: Set<Int> = []) { self.failing = failing }

  func load(id: Int) async throws -> Book {
    requests.record(id)
    Timeline.note("loader receives request \(id)")
    await Task.yield()  // allowed: choice point for the scheduler
    if failing.contains(id) {
      Timeline.note("loader fails request \(id)")
      throw Offline()
    }
    Timeline.note("loader answers request \(id)")
    return Book(id: id, title: "Book \(id)")
  }
}

/// A book loader whose requests are held at a controlled call that ignores cancellation.
struct HeldBookLoader: BookLoader {
  let calls = ControlledCalls<Int, Book>("book loader")

  func load(id: Int) async throws -> Book { try await calls.call(id) }
}

/// What the book screen shows.
struct BookScreen: Equatable, CustomStringConvertible {
  var book: Book?
  var errorMessage: String?
  var isLoading: Bool

  @MainActor init(_ model: BookScreenModel) {
    book = model.book
    errorMessage = model.errorMessage
    isLoading = model.isLoading
  }

  init(book: Book?, errorMessage: String? = nil, isLoading: Bool = false) {
    self.book = book
    self.errorMessage = errorMessage
    self.isLoading = isLoading
  }

  /// The screen after the two-reload run: the newest reload's book, nothing else.
  static let newest = BookScreen(book: Book(id: 2, title: "Book 2"))
  /// A screen nothing was published to.
  static let untouched = BookScreen(book: nil)

  var description: String {
    "book: \(book?.title ?? "none"), error: \(errorMessage ?? "none"), loading: \(isLoading)"
  }
}

/// Reload 1 starts; once the loader has received request 1, reload 2 starts; both finish. The
/// loader answers by itself, so nothing here says which answer comes first.
@MainActor
func exploreTwoReloads(
  _ variant: BookScreenModel.Variant, firstRequestFails: Bool = false
) async throws -> BookScreen {
  let loader = AnsweringBookLoader(failing: firstRequestFails ? [1] : [])
  let model = BookScreenModel(loader: loader, variant: variant)
  func reload(_ id: Int) async {
    await model.reload(id: id)
    Timeline.note("reload \(id) returns; the screen shows \(model.book?.title ?? "no book")")
  }
  let first = Task(name: "reload 1") { await reload(1) }
  try await loader.requests.waitForCount(1)  // reload 1 is really in flight
  let second = Task(name: "reload 2") { await reload(2) }
  await first.value
  await second.value
  return BookScreen(model)
}

/// One reload; the loader holds its request and answers it anyway, whether or not exploration
/// cancelled the reload's caller meanwhile. Returns the screen and whether it was cancelled.
@MainActor
func exploreReloadAnsweredLate(
  _ variant: BookScreenModel.Variant
) async throws -> (screen: BookScreen, callerCancelled: Bool) {
  let loader = HeldBookLoader()
  let model = BookScreenModel(loader: loader, variant: variant)
  let caller = Task(name: "reload 1") { await model.reload(id: 1) }
  try await loader.calls.waitUntilPending(1)
  loader.calls.succeed(1, with: Book(id: 1, title: "Book 1"))
  await caller.value
  return (BookScreen(model), caller.isCancelled)
}

// MARK: Scenario 3, debounced search and newest query wins

/// A search backend that answers every query by itself after a suspension.
final class AnsweringSearchBackend: SearchBackend, SearchResultsModel.Backend {
  let requests = EventRecorder<String>("search requests")

  func search(_ query: String) async throws -> [String] {
    requests.record(query)
    Timeline.note("backend receives \"\(query)\"")
    await Task.yield()  // allowed: choice point for the scheduler
    Timeline.note("backend answers \"\(query)\"")
    return ["results for \(query)"]
  }
}

/// Types "a"; after the quiet period its request is sent; types "ab" while "a" may still be in
/// flight; after the quiet period again, everything finishes. Returns the results shown.
@MainActor
func exploreDebouncedSearch(_ variant: Variant) async throws -> [String] {
  let clock = TestClock()
  let tasks = TestTaskFactory()
  let backend = AnsweringSearchBackend()
  let search = DebouncedSearch(backend: backend, clock: clock, tasks: tasks, variant: variant)
  for (index, text) in ["a", "ab"].enumerated() {
    search.textChanged(text)
    try await clock.waitForSleepers(count: 1)
    await clock.advance(by: .milliseconds(80))
    try await backend.requests.waitForCount(index + 1)  // its request has been sent
  }
  try await tasks.waitUntilIdle()
  return search.results
}

/// Two queries searched at once; returns the results shown and whether a search is still shown
/// as running once both requests finished.
@MainActor
func exploreTwoQueries(_ variant: Variant) async throws -> (results: [String], isSearching: Bool) {
  let tasks = TestTaskFactory()
  let model = SearchResultsModel(backend: AnsweringSearchBackend(), tasks: tasks, variant: variant)
  model.search("sw")
  model.search("swift")
  try await tasks.waitUntilIdle()
  return (model.results, model.isSearching)
}

// MARK: Scenario 4, create if needed

/// A validator that suspends, as a server round trip would, and approves.
struct SuspendingValidator: DraftValidator {
  func validate(_ id: Int) async throws {
    Timeline.note("validator checks draft \(id)")
    await Task.yield()  // allowed: choice point for the scheduler
  }
}

/// Two callers create draft 7 at once; returns the drafts stored.
func exploreTwoCreators(_ variant: Variant) async throws -> [Int] {
  let store = DraftStore(validator: SuspendingValidator(), variant: variant)
  async let first: Void = store.createIfNeeded(id: 7)
  async let second: Void = store.createIfNeeded(id: 7)
  _ = try await (first, second)
  return await store.drafts
}

// MARK: Scenario 5, events counted

/// Two screens ask the directory for the name, the second from a task of its own, so the first
/// fetch may or may not have filled the cache by then. Returns the completion counters.
func exploreTwoFetches(_ variant: Variant) async throws -> (first: EventCounter, second: EventCounter) {
  let tasks = TestTaskFactory()
  let directory = UserDirectory(service: FakeProfileService(name: "Blob"), tasks: tasks, variant: variant)
  let first = EventCounter("first screen's completion")
  let second = EventCounter("second screen's completion")
  directory.fetchName { _ in
    Timeline.note("calls the first screen's completion")
    first.record()
  }
  tasks.task(name: "second screen") {
    directory.fetchName { _ in
      Timeline.note("calls the second screen's completion")
      second.record()
    }
  }
  try await tasks.waitUntilIdle()
  return (first, second)
}

/// Starts a feed of three prices; the screen appears again and starts it once more, from a task
/// of its own, so the feed's task may or may not have begun by then. Waits until every task has
/// finished; returns what the screen received.
func explorePriceFeed(_ flaw: PriceFeed.Flaw?) async throws -> EventRecorder<Int> {
  let tasks = TestTaskFactory()
  let prices = EventRecorder<Int>("prices")
  let feed = PriceFeed(prices: [10, 11, 12], tasks: tasks, flaw: flaw)
  let screen: @Sendable (Int) -> Void = { price in
    Timeline.note("the screen receives price \(price)")
    prices.record(price)
  }
  feed.start(onPrice: screen)
  tasks.task(name: "screen appears again") { feed.start(onPrice: screen) }
  try await tasks.waitUntilIdle()
  return prices
}

// MARK: Scenario 6, work that must stop when cancelled

/// A sensor: asked for a reading, it checks that its caller still wants one, measures, and
/// delivers the reading after a suspension — ignoring a cancellation that comes meanwhile, as
/// hardware does once a measurement runs. After `ready` readings it holds the next request at a
/// gate, which a cancellation ends.
final class ExploredReadingSource: ReadingSource {
  let ready: Int
  let gate = Gate("next reading")
  /// Counts measurements begun; a test waits on it to know the tracker has really started.
  let measured = EventCounter("readings measured")

  init(ready: Int) { self.ready = ready }

  func nextReading() async throws -> Int {
    try Task.checkCancellation()
    if measured.count >= ready {
      try await gate.wait()
    }
    measured.record()
    let reading = measured.count
    Timeline.note("sensor measures reading \(reading)")
    await Task.yield()  // allowed: the measurement takes a while; a choice point for the scheduler
    Timeline.note("sensor delivers reading \(reading)")
    return reading
  }
}

/// Starts the tracker; once the sensor has begun its first measurement, stops it (from outside the
/// main actor, so that the stop can land anywhere in the tracker's loop) and waits for it to wind
/// down. Returns the readings recorded when it was stopped, and at the end.
func exploreTrackerStop(
  _ flaw: ActivityTracker.Flaw?
) async throws -> (atStop: [Int], atEnd: [Int]) {
  let source = ExploredReadingSource(ready: 3)
  let tasks = TestTaskFactory()
  let tracker = await ActivityTracker(source: source, tasks: tasks, flaw: flaw)
  await tracker.start()
  try await source.measured.waitForCount(1)  // it has really started
  let atStop = await MainActor.run {
    let recorded = tracker.readings
    let onItsWay = source.measured.count > recorded.count
    Timeline.note("stops the tracker " + (onItsWay ? "while a reading is on its way" : "between readings"))
    tracker.stop()
    return recorded
  }
  try await tasks.waitUntilIdle()  // it has wound down
  return (atStop, await tracker.readings)
}
