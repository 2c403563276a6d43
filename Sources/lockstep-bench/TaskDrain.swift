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
    let total = Double(count + count / 10)
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
      oursSamples.append(
        try await seconds {
          let tasks = TestTaskFactory()
          spawnWorkload(count: count, on: tasks)
          try await tasks.waitUntilIdle(timeout: .seconds(120))
        })
    }
    let ours = median(oursSamples)
    let naive = median(naiveSamples)
    let perTask = ours / total * 1e6
    return [
      Measurement(
        benchmarkCase: "task-drain", metric: "time per task (create + drain)", value: perTask,
        unit: "µs", baseline: naive / total * 1e6, ratio: ours / naive,
        goal: "ratio < 1 (faster than the array-under-a-lock baseline)", met: ours < naive),
      Measurement(
        benchmarkCase: "task-drain", metric: "absolute cost per task", value: perTask, unit: "µs",
        baseline: nil, ratio: nil, goal: "≤ about 1 µs per task in release", met: perTask <= 1.0),
    ]
  }
}

func median(_ samples: [Double]) -> Double {
  let sorted = samples.sorted()
  return sorted[sorted.count / 2]
}
