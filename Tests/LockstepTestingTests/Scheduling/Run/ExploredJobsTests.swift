import LockstepTestSupport
import Testing

@testable import LockstepTesting

private struct Job: SchedulableJob, Equatable {
  let taskID: UInt64?
  let isMainActor: Bool
}

private func entry(task: Int, main: Bool = false) -> RunEntry<Job> {
  RunEntry(job: Job(taskID: UInt64(task), isMainActor: main), task: task)
}

/// Exploration's ready jobs: which of them the picker may choose, and what it is told.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExploredJobsTests {
  @Test func aLoneJobRunsWithoutAskingThePicker() {
    var jobs = ExploredJobs<Job>(picker: ScriptedPicker())
    jobs.append(entry(task: 1))
    #expect(jobs.next(previous: 0, step: 0)?.task == 1)
    #expect((jobs.picker as? ScriptedPicker)?.offered.isEmpty == true)
    #expect(jobs.next(previous: 1, step: 0) == nil)
  }

  @Test func thePickerChoosesAmongTheReadyTasksOldestFirst() {
    var picker = ScriptedPicker()
    picker.choose = { tasks, _ in tasks.firstIndex(of: 3)! }
    var jobs = ExploredJobs<Job>(picker: picker)
    for task in [2, 3, 4] { jobs.append(entry(task: task)) }
    #expect(jobs.next(previous: 2, step: 0)?.task == 3)
    let offered = (jobs.picker as? ScriptedPicker)?.offered
    #expect(offered?.map(\.tasks) == [[2, 3, 4]])
    #expect(offered?.map(\.previous) == [2])
    #expect(jobs.removeAll().map(\.task) == [2, 4])
  }

  @Test func mainActorJobsKeepTheirOrderAmongThemselves() {
    // Main-actor jobs of tasks 5 and 6 and pool jobs of 7 and 8, interleaved in arrival order.
    var picker = ScriptedPicker()
    picker.choose = { tasks, _ in tasks.count - 1 }  // always the youngest eligible job
    var jobs = ExploredJobs<Job>(picker: picker)
    jobs.append(entry(task: 5, main: true))
    jobs.append(entry(task: 7))
    jobs.append(entry(task: 6, main: true))
    jobs.append(entry(task: 8))
    #expect(jobs.eligibleIndices() == [0, 1, 3])  // the younger main-actor job is not a candidate
    var order: [Int] = []
    while let next = jobs.next(previous: order.last ?? 0, step: 0) { order.append(next.task) }
    #expect(order == [8, 7, 5, 6])
    #expect((jobs.picker as? ScriptedPicker)?.offered.map(\.tasks) == [[5, 7, 8], [5, 7]])
  }

  @Test func aPickOutOfRangeIsClampedToAReadyJob() {
    var picker = ScriptedPicker()
    picker.choose = { _, _ in 99 }
    var jobs = ExploredJobs<Job>(picker: picker)
    jobs.append(entry(task: 1))
    jobs.append(entry(task: 2))
    #expect(jobs.next(previous: 0, step: 0)?.task == 2)
  }

  @Test func aRunOrderedByAPickerTellsItTheTaskThatRanLast() {
    var picker = ScriptedPicker()
    picker.choose = { tasks, previous in tasks.firstIndex(of: previous) ?? 0 }
    var state = RunState<Job>(order: .picked(picker))
    _ = state.enqueue(Job(taskID: 10, isMainActor: false))
    _ = state.next()  // task 1 runs alone, then it and a new task are ready
    _ = state.enqueue(Job(taskID: 11, isMainActor: false))
    _ = state.enqueue(Job(taskID: 10, isMainActor: false))
    _ = state.next()
    let offered = (state.picker as? ScriptedPicker)?.offered
    #expect(offered?.map(\.tasks) == [[2, 1]])
    #expect(offered?.map(\.previous) == [1])
    #expect(state.trace.taskOrder == [1, 1])
  }
}
