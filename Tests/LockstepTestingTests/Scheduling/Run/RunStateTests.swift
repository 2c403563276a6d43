import LockstepTestSupport
import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunStateTests {
  @Test func fifoQueueKeepsArrivalOrder() {
    var queue = ReadyQueue<Int>(seed: nil)
    for value in 0..<3000 { queue.append(value) }
    var out: [Int] = []
    for _ in 0..<1500 { out.append(queue.next()!) }
    for value in 3000..<3010 { queue.append(value) }
    while let value = queue.next() { out.append(value) }
    #expect(out == Array(0..<3010))
  }

  @Test func seededQueueIsReproducibleAndDependsOnTheSeed() {
    func order(_ seed: UInt64) -> [Int] {
      var queue = ReadyQueue<Int>(seed: seed)
      for value in 0..<50 { queue.append(value) }
      return (0..<50).map { _ in queue.next()! }
    }
    #expect(order(1) == order(1))
    #expect(order(1) != order(2))
    #expect(order(1).sorted() == Array(0..<50))
  }

  @Test func seededQueueWithinTheWindowPicksUniformlyAmongAllReadyJobs() {
    // The plain algorithm: a uniform index among every ready job, swap with the last, remove.
    func reference(_ seed: UInt64, _ count: Int) -> [Int] {
      var generator = SplitMix64(seed: seed)
      var storage = Array(0..<count)
      return (0..<count).map { _ in
        storage.swapAt(generator.index(below: storage.count), storage.count - 1)
        return storage.removeLast()
      }
    }
    let count = ReadyQueue<Int>.windowSize
    var queue = ReadyQueue<Int>(seed: 3)
    for value in 0..<count { queue.append(value) }
    #expect((0..<count).map { _ in queue.next()! } == reference(3, count))
  }

  @Test func seededQueueBeyondTheWindowPicksAmongTheOldest() {
    let window = ReadyQueue<Int>.windowSize
    func order(_ seed: UInt64) -> [Int] {
      var queue = ReadyQueue<Int>(seed: seed)
      for value in 0..<(window * 10) { queue.append(value) }
      var out: [Int] = []
      while let value = queue.next() { out.append(value) }
      return out
    }
    let picks = order(5)
    #expect(picks == order(5))
    #expect(picks.sorted() == Array(0..<(window * 10)))
    // The k-th pick is one of the `window` oldest jobs still waiting at that point.
    for (step, value) in picks.enumerated() { #expect(value < window + step) }
  }

  @Test func virtualTimeWakesEarliestFirstAndTiesInOrder() {
    var time = VirtualTime<String>()
    time.schedule("late", after: .seconds(600))
    time.schedule("first", after: .seconds(1))
    time.schedule("second", after: .seconds(1))
    time.schedule("negative", after: .seconds(-5))
    #expect(time.advanceToNext() == "negative")
    #expect(time.advanceToNext() == "first")
    #expect(time.now == .seconds(1))
    #expect(time.advanceToNext() == "second")
    #expect(time.advanceToNext() == "late")
    #expect(time.now == .seconds(600))
    #expect(time.advanceToNext() == nil)
  }

  @Test func stateRunsReadyJobsThenSleepersThenReportsStuck() {
    var state = RunState<FakeJob>(order: .fifo)
    #expect(state.enqueue(FakeJob(10)) == .stored)
    #expect(
      state.schedule(FakeJob(11), sleep: SleepRequest(delay: .seconds(5)), sleeper: nil)
        == .stored)
    #expect(state.enqueue(FakeJob(nil, main: true)) == .stored)
    guard case .run(let first) = state.next() else {
      Issue.record("expected a job")
      return
    }
    #expect(first == FakeJob(10))
    guard case .run(let second) = state.next() else {
      Issue.record("expected a job")
      return
    }
    #expect(second == FakeJob(nil, main: true))
    guard case .run(let woke) = state.next() else {
      Issue.record("expected a sleeper")
      return
    }
    #expect(woke == FakeJob(11))
    #expect(state.now == .seconds(5))
    guard case .stuck = state.next() else {
      Issue.record("expected stuck")
      return
    }
    // A job arriving while the drain thread waits asks to wake it.
    #expect(state.enqueue(FakeJob(10)) == .wakeDrain)
    _ = state.next()
    state.markBodyFinished()
    guard case .finished = state.next() else {
      Issue.record("expected finished")
      return
    }
    #expect(state.trace.taskOrder == [1, 0, 2, 1])
    #expect(state.trace.steps.dropFirst(2).first?.wokeFromSleep == true)
    #expect(state.bodyTaskID == 10)
  }

  @Test func afterTheBodyFinishesTimeNoLongerAdvances() {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.schedule(FakeJob(1), sleep: SleepRequest(delay: .seconds(1)), sleeper: nil)
    state.markBodyFinished()
    guard case .finished = state.next() else {
      Issue.record("expected finished")
      return
    }
    let leftovers = state.finish().forward
    #expect(leftovers.count == 1)
    #expect(leftovers.first?.remaining == .seconds(1))
    #expect(state.enqueue(FakeJob(1)) == .forward)
  }

  @Test func aQuarantinedRunKeepsLateJobsOfItsOwnTasksOnly() {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(1))
    state.quarantineAll()
    #expect(state.enqueue(FakeJob(1)) == .held)
    // A task the run never knew (another test's, resumed on the run's thread) goes on outside it.
    #expect(state.enqueue(FakeJob(2)) == .forward)
    #expect(state.quarantine == [FakeJob(1), FakeJob(1)])
  }

  @Test func deadlockDescriptionsNameTheBodyAndTheTasks() {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(7))
    _ = state.enqueue(FakeJob(8))
    _ = state.next()
    _ = state.next()
    state.recordName("worker", forTask: 8)
    let lines = state.taskDescriptions()
    #expect(lines.count == 2)
    #expect(lines.first?.contains("(the body)") == true, "\(lines)")
    #expect(lines.last?.contains("\"worker\"") == true, "\(lines)")
  }

  @Test func aTaskNameIsLookedUpOnceAndNeverDuringAnAliasJob() {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(7))
    _ = state.next()
    #expect(state.runningTaskNeedsName)  // the task's first job; it sleeps without a look-up
    // A sleep's wake-up job counts for the task that sleeps, but runs as another task: a name
    // read then would not be the sleeper's.
    _ = state.schedule(FakeJob(9), sleep: SleepRequest(delay: .seconds(1)), sleeper: 7)
    _ = state.next()
    #expect(state.now == .seconds(1))
    #expect(!state.runningTaskNeedsName && !state.needsName(forTask: 9))
    #expect(state.needsName(forTask: 7))
    _ = state.enqueue(FakeJob(7))
    _ = state.next()
    #expect(state.runningTaskNeedsName)
    state.recordName(nil, forTask: 7)  // it has none
    _ = state.enqueue(FakeJob(7))
    _ = state.next()
    #expect(!state.runningTaskNeedsName)  // a task's name never changes: looked up once

    // A name a task factory tells counts as looked up.
    _ = state.enqueue(FakeJob(8))
    state.noteCreated(taskID: 8, name: "worker", at: CallSite())
    _ = state.next()
    #expect(!state.runningTaskNeedsName)
    #expect(state.trace.taskNames == [2: "worker"])
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunStateTaskCreationTests {
  private let origin = TaskOrigin(first: 0x1000, second: 0, third: 0, fourth: 0)

  @Test func aTaskCreatedBeforeItsFirstJobArrivesIsNamedWhenItArrives() {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(7))
    state.noteCreated(taskID: 8, TaskCreation(name: "worker", origin: origin))
    #expect(state.unseenCreationCount == 1)
    _ = state.enqueue(FakeJob(8))
    #expect(state.unseenCreationCount == 0)
    #expect(state.trace.taskNames == [2: "worker"])
    // A timeline names a named task by its name; a report also says where it was created.
    #expect(state.trace.taskOrigins.isEmpty)
    #expect(state.taskDescriptions().contains { $0.hasPrefix("task 2 \"worker\" (created in 0x1000)") })
    state.noteCreated(taskID: 9, TaskCreation(name: nil, origin: origin))
    _ = state.enqueue(FakeJob(9))
    #expect(state.trace.taskOrigins == [3: origin])
  }

  @Test func tasksCreatedInARunThatNeverReachItAreRememberedBoundedly() {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(1))
    for id in UInt64(2)..<10_000 {
      state.noteCreated(taskID: id, TaskCreation(name: "elsewhere", origin: origin))
    }
    #expect(state.unseenCreationCount == RunState<FakeJob>.unseenCreationLimit)
    // The run's end lets them go.
    _ = state.finish()
    #expect(state.unseenCreationCount == 0)
    state.noteCreated(taskID: 20_000, TaskCreation(name: "late", origin: origin))
    #expect(state.unseenCreationCount == 0)
  }
}
