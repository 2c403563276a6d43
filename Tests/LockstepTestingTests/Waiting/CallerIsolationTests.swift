import Dispatch
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// A serial executor that counts the jobs enqueued on it: a call that leaves its actor and comes
/// back enqueues one (the hop back); a call that stays on the caller's actor enqueues none.
private final class CountingExecutor: SerialExecutor, Sendable {
  private let queue = DispatchQueue(label: "lockstep.test.counting-executor")
  private let count = Locked(0)

  var enqueued: Int { count.value }

  func enqueue(_ job: consuming ExecutorJob) {
    count.withLock { $0 += 1 }
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }
}

/// An actor on a ``CountingExecutor``: `hops(during:)` runs a wait on the actor and says how many
/// times the wait made the actor's executor take the task back.
private actor Caller {
  private let executor = CountingExecutor()
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  func hops(during wait: Wait) async throws -> Int {
    let before = executor.enqueued
    switch wait {
    case .gate(let gate): try await gate.wait()
    case .gateArrivals(let gate): try await gate.waitForArrivals(1)
    case .barrier(let barrier): try await barrier.arriveAndWait()
    case .call(let calls): _ = try? await calls.call(1)
    case .pending(let calls): _ = try await calls.waitUntilPending(1)
    case .callCount(let calls): try await calls.waitUntilCallCount(1)
    case .key(let gates): try await gates.wait(for: "a")
    case .requests(let gates): try await gates.waitForRequests(1)
    case .request(let gates): try await gates.waitForRequest(of: "a")
    case .events(let recorder): try await recorder.waitForCount(1)
    case .idle(let tasks): try await tasks.waitUntilIdle()
    case .sleepers(let clock): try await clock.waitForSleepers(count: 0)
    case .advance(let clock): await clock.advance(by: .seconds(1))
    case .run(let clock): await clock.run()
    case .callback: _ = try await withCallback("done at once") { done in done(1) }
    }
    return executor.enqueued - before
  }

  enum Wait: Sendable {
    case gate(Gate)
    case gateArrivals(Gate)
    case barrier(Barrier)
    case call(ControlledCalls<Int, Int>)
    case pending(ControlledCalls<Int, Int>)
    case callCount(ControlledCalls<Int, Int>)
    case key(KeyedGates<String>)
    case requests(KeyedGates<String>)
    case request(KeyedGates<String>)
    case events(EventRecorder<Int>)
    case idle(TestTaskFactory)
    case sleepers(TestClock)
    case advance(TestClock)
    case run(TestClock)
    case callback
  }
}

/// The waits of Lockstep's primitives are `nonisolated(nonsending)`: they run on the caller's
/// actor and leave it only while they are suspended. A wait whose event has already happened
/// returns without leaving the caller's actor at all — no thread hop there and back.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CallerIsolationTests {
  /// Every wait, set up so that what it waits for has already happened.
  private static func satisfiedWaits() async throws -> [(String, Caller.Wait)] {
    let open = Gate("open")
    open.open()
    let arrived = Gate("arrived")
    arrived.open()
    try await arrived.wait()
    let failing = ControlledCalls<Int, Int>("down")
    failing.failAll(CancellationError())
    let called = ControlledCalls<Int, Int>("called")
    let call = Task { try? await called.call(1) }
    try await called.waitUntilPending(1)
    let keys = KeyedGates<String>("keys")
    keys.open("a")
    try await keys.wait(for: "a")
    let events = EventRecorder<Int>("events")
    events.record(1)
    let clock = TestClock()
    called.succeed(1, with: 1)
    _ = await call.value
    return [
      ("Gate.wait", .gate(open)), ("Gate.waitForArrivals", .gateArrivals(arrived)),
      ("Barrier.arriveAndWait", .barrier(Barrier(parties: 1, name: "one"))),
      ("ControlledCalls.call", .call(failing)), ("ControlledCalls.waitUntilPending", .pending(called)),
      ("ControlledCalls.waitUntilCallCount", .callCount(called)),
      ("KeyedGates.wait", .key(keys)), ("KeyedGates.waitForRequests", .requests(keys)),
      ("KeyedGates.waitForRequest", .request(keys)), ("EventRecorder.waitForCount", .events(events)),
      ("TestTaskFactory.waitUntilIdle", .idle(TestTaskFactory())),
      ("TestClock.waitForSleepers", .sleepers(clock)), ("TestClock.advance", .advance(clock)),
      ("TestClock.run", .run(clock)), ("withCallback", .callback),
    ]
  }

  @Test func aWaitThatNeedNotSuspendNeverLeavesTheCallersActor() async throws {
    let caller = Caller()
    for (name, wait) in try await Self.satisfiedWaits() {
      let hops = try await caller.hops(during: wait)
      #expect(hops == 0, "\(name) left the caller's actor and came back (\(hops) hop(s))")
    }
  }
}
