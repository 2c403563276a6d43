import Foundation
import LockstepTesting

/// The simplest way to wait for every task a factory created: keep the handles in an array under
/// a lock and await them one at a time until the array stays empty.
final class NaiveTaskFactory: TaskFactory, @unchecked Sendable {
  private let lock = NSLock()
  private var pending: [@Sendable () async -> Void] = []

  func makeTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    let task = Task(priority: priority, operation: operation)
    lock.withLock { pending.append { _ = await task.value } }
    return task
  }

  func makeThrowingTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    let task = Task(priority: priority, operation: operation)
    lock.withLock { pending.append { _ = await task.result } }
    return task
  }

  func waitUntilIdle() async {
    while let next = lock.withLock({ pending.popLast() }) { await next() }
  }
}

/// Creates `count` tasks through `factory`; every tenth starts a nested one.
private func spawnWorkload(count: Int, on factory: any TaskFactory) {
  for index in 0..<count {
    factory.task {
      if index % 10 == 0 { factory.task {} }
    }
  }
}

func taskDrainCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "TestTaskFactory.waitUntilIdle: 100,000 tasks, 10% nested") {
    let count = quick ? 10_000 : 100_000
    let created = count + (count + 9) / 10
    let repetitions = quick ? 3 : 7
    var oursSamples: [Double] = []
    var naiveSamples: [Double] = []
    // Interleave the two so that machine noise hits both alike.
    for _ in 0..<repetitions {
      naiveSamples.append(
        await seconds {
          let naive = NaiveTaskFactory()
          spawnWorkload(count: count, on: naive)
          await naive.waitUntilIdle()
        })
      let tasks = TestTaskFactory()
      oursSamples.append(
        try await seconds {
          spawnWorkload(count: count, on: tasks)
          try await tasks.waitUntilIdle(timeout: .seconds(120))
        })
      try require(
        tasks.createdCount == created && tasks.unfinishedCount == 0,
        "waitUntilIdle returned with \(tasks.unfinishedCount) of \(tasks.createdCount) tasks "
          + "unfinished (expected \(created) tasks, all finished)")
    }
    let ours = median(oursSamples)
    let naive = median(naiveSamples)
    return [
      .compared(
        "task-drain", "time per task (create + drain)", ours / Double(created) * 1e6, "µs",
        against: "an array of task handles under a lock, drained one by one",
        baseline: naive / Double(created) * 1e6, goal: "≤ 0.8 (issue 14: faster than space-code's)",
        met: ours <= 0.8 * naive)
    ]
  }
}
