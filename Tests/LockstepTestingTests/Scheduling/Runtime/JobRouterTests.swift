import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// A run as the router sees it: its body is task 100; tasks 100, 101 and 102 reached it; task
/// 150 was created outside it while it was in progress.
private struct FakeRun: JobRouter.RunView {
  var phase = RunPhase.running
  var bodyTaskID: UInt64? = 100
  var known: [UInt64: Int] = [100: 1, 101: 2, 102: 3]
  var outside: Set<UInt64> = [150]
  func number(ofTask id: UInt64) -> Int? { known[id] }
  func createdOutside(task id: UInt64) -> Bool { outside.contains(id) }
}

/// One case of the routing table: what arrives, on which thread, and where it must go.
private struct RoutingCase: CustomTestStringConvertible, Sendable {
  let name: String
  let work: JobRouter.Work
  /// Whether the thread drains the run (else it drains none).
  var onDrainThread = true
  /// Whether the run owns the task for a thread that drains no run (the registry's answer).
  var ownerKnowsTask = false
  /// Whether the thread, draining no run, runs the run's outside work (a block its job queued).
  var inOutsideWork = false
  var phase = RunPhase.running
  /// The task whose work an actor job of the run runs, if any.
  var acting: UInt64?
  let expected: Expected

  enum Expected: Equatable, Sendable {
    case noRun, outsiderOfEveryRun
    case route(JobRouter.Route)
  }

  var testDescription: String { name }
}

private let routingTable: [RoutingCase] = [
  RoutingCase(name: "a job of a task of the run", work: .job(task: 101), expected: .route(.run(task: 2))),
  RoutingCase(
    name: "a job of no task (an actor's job)", work: .job(task: nil), expected: .route(.run(task: 0))),
  RoutingCase(
    name: "a new task the run's code created", work: .job(task: 103), expected: .route(.runRegistering)),
  RoutingCase(
    name: "the test's own task, resumed by the run", work: .job(task: 7), expected: .noRun),
  RoutingCase(
    name: "an outside task's continuation resumed in an actor the run holds", work: .job(task: 42),
    acting: 42, expected: .noRun),
  RoutingCase(
    name: "a task an outside task starts inside an actor job of the run", work: .job(task: 103),
    acting: 42, expected: .route(.platform)),
  RoutingCase(
    name: "a task created on another thread during the run reaches the drain thread",
    work: .job(task: 150), expected: .route(.platform)),
  RoutingCase(
    name: "a task that task creates, inside an actor job of the run", work: .job(task: 151),
    acting: 150, expected: .route(.platform)),
  RoutingCase(
    name: "a task a run's task creates inside an actor job", work: .job(task: 103), acting: 101,
    expected: .route(.runRegistering)),
  RoutingCase(
    name: "a job of a run's task from another thread (real I/O)", work: .job(task: 101),
    onDrainThread: false, ownerKnowsTask: true, expected: .route(.run(task: 2))),
  RoutingCase(
    name: "a job of an unknown task from another thread", work: .job(task: 103), onDrainThread: false,
    expected: .noRun),
  RoutingCase(
    name: "an actor job enqueued by another thread", work: .job(task: nil), onDrainThread: false,
    expected: .noRun),
  RoutingCase(
    name: "a job of a run's task after the run ended", work: .job(task: 101), onDrainThread: false,
    ownerKnowsTask: true, phase: .finished, expected: .route(.platform)),
  RoutingCase(
    name: "a job on the drain thread after the run ended", work: .job(task: 101), phase: .finished,
    expected: .route(.platform)),
  RoutingCase(
    name: "a quarantined task's job from another thread", work: .job(task: 101), onDrainThread: false,
    ownerKnowsTask: true, phase: .quarantined, expected: .route(.held)),
  RoutingCase(
    name: "an actor job while the quarantine frees actors", work: .job(task: nil), phase: .quarantined,
    expected: .route(.held)),
  RoutingCase(
    name: "another task's job on the drain thread of a quarantined run", work: .job(task: 150),
    phase: .quarantined, expected: .route(.platform)),
  RoutingCase(
    name: "a job of a task new to a quarantined run", work: .job(task: 103), phase: .quarantined,
    expected: .route(.platform)),
  RoutingCase(
    name: "a sleep of a quarantined task", work: .sleep(task: 102), phase: .quarantined,
    expected: .route(.held)),
  RoutingCase(
    name: "a sleep of another task on the drain thread of a quarantined run", work: .sleep(task: 150),
    phase: .quarantined, expected: .route(.platform)),
  RoutingCase(name: "a sleep of a run's task", work: .sleep(task: 102), expected: .route(.run(task: 3))),
  RoutingCase(name: "a sleep with no current task", work: .sleep(task: nil), expected: .route(.run(task: 0))),
  RoutingCase(
    name: "a sleep of the test's own task inside an actor job of the run", work: .sleep(task: 7),
    expected: .noRun),
  RoutingCase(
    name: "a sleep of a task created outside the run", work: .sleep(task: 150),
    expected: .route(.platform)),
  RoutingCase(
    name: "a sleep on a thread that drains no run", work: .sleep(task: 101), onDrainThread: false,
    ownerKnowsTask: true, expected: .noRun),
  RoutingCase(
    name: "a sleep after the run ended", work: .sleep(task: 101), phase: .finished,
    expected: .route(.platform)),
  RoutingCase(
    name: "a task created by a run's job", work: .taskCreation(task: 103), acting: nil,
    expected: .route(.runRegistering)),
  RoutingCase(
    name: "a task created by an outside task inside an actor job", work: .taskCreation(task: 103),
    acting: 42, expected: .route(.platform)),
  RoutingCase(
    name: "a task created on a thread that drains no run", work: .taskCreation(task: 103),
    onDrainThread: false, expected: .outsiderOfEveryRun),
  RoutingCase(
    name: "a task created by a block the run's job queued", work: .taskCreation(task: 103),
    onDrainThread: false, inOutsideWork: true, expected: .route(.runRegistering)),
  RoutingCase(
    name: "that task's first job, enqueued on the block's thread", work: .job(task: 103),
    onDrainThread: false, inOutsideWork: true, expected: .route(.runRegistering)),
  RoutingCase(
    name: "the test's own task, resumed by a block of the run", work: .job(task: 7),
    onDrainThread: false, inOutsideWork: true, expected: .route(.platform)),
  RoutingCase(
    name: "a task created on another thread, resumed by a block of the run", work: .job(task: 150),
    onDrainThread: false, inOutsideWork: true, expected: .route(.platform)),
  RoutingCase(
    name: "an actor job enqueued by a block of the run", work: .job(task: nil), onDrainThread: false,
    inOutsideWork: true, expected: .noRun),
  RoutingCase(
    name: "a task created while the quarantine frees actors", work: .taskCreation(task: 103),
    phase: .quarantined, expected: .route(.platform)),
  RoutingCase(
    name: "a main-queue block of a run's job", work: .mainQueueBlock, expected: .route(.run(task: 0))),
  RoutingCase(
    name: "a main-queue block on a thread that drains no run", work: .mainQueueBlock,
    onDrainThread: false, expected: .noRun),
  RoutingCase(
    name: "a main-queue block after the run ended", work: .mainQueueBlock, phase: .finished,
    expected: .route(.platform)),
  RoutingCase(
    name: "a main-queue block while the quarantine frees actors", work: .mainQueueBlock,
    phase: .quarantined, expected: .route(.platform)),
  RoutingCase(
    name: "a run's task switches while the quarantine frees actors", work: .taskSwitch(task: 101),
    phase: .quarantined, expected: .route(.held)),
  RoutingCase(
    name: "another task switches while the quarantine frees actors", work: .taskSwitch(task: 142),
    phase: .quarantined, expected: .route(.platform)),
  RoutingCase(
    name: "a run's task switches in a run in progress", work: .taskSwitch(task: 102),
    expected: .route(.run(task: 3))),
  RoutingCase(
    name: "an unknown task switches in a run in progress", work: .taskSwitch(task: 103),
    expected: .route(.platform)),
  RoutingCase(
    name: "a switch on a thread that drains no run", work: .taskSwitch(task: 101),
    onDrainThread: false, ownerKnowsTask: true, expected: .noRun),
]

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct JobRouterTests {
  @Test(arguments: routingTable)
  fileprivate func routes(_ entry: RoutingCase) {
    var run = FakeRun()
    run.phase = entry.phase
    let drained = entry.onDrainThread ? (run: run, bodyTaskID: UInt64(100)) : nil
    let candidate = JobRouter.runToAsk(
      entry.work, drained: drained, outsideWorkOf: { entry.inOutsideWork ? run : nil },
      owner: { task in entry.ownerKnowsTask && run.known[task] != nil ? run : nil })
    let outcome: RoutingCase.Expected
    switch candidate {
    case .none: outcome = .noRun
    case .outsiderOfEveryRun: outcome = .outsiderOfEveryRun
    case .run(let asked): outcome = .route(JobRouter.route(entry.work, in: asked) { entry.acting })
    }
    #expect(outcome == entry.expected)
  }

  @Test func beforeTheBodyReachesTheRunNoTaskIsAnOutsider() {
    var run = FakeRun()
    run.bodyTaskID = nil
    run.known = [:]
    #expect(JobRouter.route(.job(task: 7), in: run) == .runRegistering)
  }

  @Test func theActingTaskIsTheCurrentTaskOfAnActorJobOnly() {
    // An actor job runs task 42's work: 42 acts.
    #expect(JobRouter.actingTask(current: 42, runningJob: nil, drainer: 5, inJob: true) == 42)
    // A task's own job: its task is not "acting" for another.
    #expect(JobRouter.actingTask(current: 101, runningJob: 101, drainer: 5, inJob: true) == nil)
    // The drainer's own task after `Task.immediate` returned, or under a job that sets no task.
    #expect(JobRouter.actingTask(current: 5, runningJob: nil, drainer: 5, inJob: true) == nil)
    // Between two jobs (a timer fires): nobody acts.
    #expect(JobRouter.actingTask(current: 42, runningJob: nil, drainer: 5, inJob: false) == nil)
    #expect(JobRouter.actingTask(current: nil, runningJob: nil, drainer: 5, inJob: true) == nil)
  }
}
