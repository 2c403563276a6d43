import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Where exploration cancels a task on its own.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct InjectedCancellationTests {
  @Test func cancelsExactlyAtTheChosenWaitOfATaskOtherThanTheBody() {
    var cancellation = InjectedCancellation(atWait: 2)
    let decisions = [1, 2, 1, 3, 2, 3].map { cancellation.shouldCancel(task: $0) }
    // The body's (task 1) waits are neither counted nor cancelled: the third wait of the other
    // tasks is task 2's second.
    #expect(decisions == [false, false, false, false, true, false])
    #expect(cancellation.waits == 4)
  }

  @Test func withoutAChosenWaitNothingIsCancelled() {
    var cancellation = InjectedCancellation(atWait: nil)
    #expect((0..<5).allSatisfy { _ in !cancellation.shouldCancel(task: 2) })
    #expect(cancellation.waits == 5)
  }

  @Test func aRunRecordsTheInjectedCancellationInItsTrace() {
    struct Job: SchedulableJob {
      let taskID: UInt64?
      let isMainActor = false
    }
    var state = RunState<Job>(order: .fifo, cancelAtWait: 1)
    _ = state.enqueue(Job(taskID: 1))
    _ = state.enqueue(Job(taskID: 2))
    _ = state.next()
    let atTheBodysWait = state.noteWait(for: .primitive("the body's gate"), byTask: 1)
    _ = state.next()
    let atTheFirstWait = state.noteWait(for: .primitive("Gate(\"a\") to open"), byTask: 2)
    let atTheSecondWait = state.noteWait(for: .primitive("Gate(\"b\") to open"), byTask: 2)
    #expect([atTheBodysWait, atTheFirstWait, atTheSecondWait] == [.wait, .wait, .cancelTask])
    #expect(state.waitCount == 2)
    let timeline = state.trace.timeline.entries.last?.actions ?? []
    #expect(timeline.contains("is cancelled here (injected by explore)"))
    #expect(timeline.contains("waits for Gate(\"b\") to open"))
  }
}
