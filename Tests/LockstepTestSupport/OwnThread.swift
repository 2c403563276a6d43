import Foundation

/// Runs `work`, long CPU-bound test code, on a thread of its own, in the calling task: the
/// cooperative pool has a thread per core (two on a two-core machine), and two such tests on it
/// would stall every other test's tasks meanwhile, until their failure bounds fire. The task's
/// task-locals stay, so `#expect` in `work` is the test's. One thread serves every such test, one
/// at a time: the machine's cores stay shared between them and the rest of the suite.
///
/// ```swift
/// @Test func agreesWithTryingEveryOrder() async {
///   await onAThreadOfItsOwn { for history in histories { #expect(judge(history) == bruteForce(history)) } }
/// }
/// ```
public func onAThreadOfItsOwn<Result: Sendable>(_ work: () throws -> Result) async rethrows -> Result {
  // Task executors are newer than the package's oldest Apple platforms: there, the pool's thread.
  guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return try work() }
  return try await withTaskExecutorPreference(OwnThreadExecutor.shared) { try work() }
}

/// A task executor that runs its jobs, one at a time, on one thread it starts.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
private final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
  static let shared = OwnThreadExecutor()

  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []

  private init() {
    let thread = Thread { [self] in serve() }
    thread.name = "test work of its own"
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func serve() {
    while true {
      condition.lock()
      while jobs.isEmpty { condition.wait() }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
