import Lockstep
import LockstepTestSupport
import LockstepTesting
import Testing

/// What a ``DeterministicDeadlock`` says about the run that got stuck.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DeadlockReportTests {
  @Test func theReportSaysWhenTheRunGotStuckAndWhatRanBefore() async {
    let gate = Gate("never opened")
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        // A TestClock moved by the run is exact by construction; a Task.sleep's virtual duration
        // is recovered from real-clock readings (see SleepRequest), which this test is not about.
        let clock = TestClock(advancesAutomatically: true)
        try await clock.sleep(for: .seconds(30))
        try await gate.wait(timeout: .seconds(3600))
      }
    }
    // Stuck after the 30 s sleep, in virtual time.
    #expect(deadlock?.virtualTime == .seconds(30))
    let steps = deadlock?.trace.steps ?? []
    #expect(steps.first?.time == .zero)
    #expect(steps.last?.time == .seconds(30))
    // What the body did last: it waits at the gate.
    let lastEntry = deadlock?.trace.timeline.entries.last
    #expect(lastEntry?.task == 1)
    #expect(lastEntry?.actions.contains { $0.contains("Gate(\"never opened\")") } == true)
    // The description gives the same facts.
    let description = deadlock?.description ?? ""
    #expect(description.contains("virtual time \(Duration.seconds(30).lockstepText)"))
    #expect(description.contains("\(steps.count) jobs run"))
  }

  @Test func aRunStuckAtOnceReportsTimeZeroAndOnlyTheJobsThatRan() async {
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        let calls = ControlledCalls<Int, Int>("backend", cancellation: .throwsCancellationError)
        _ = try await calls.call(1)
      }
    }
    #expect(deadlock?.virtualTime == .zero)
    #expect(deadlock?.trace.steps.count == 1)  // the body's first job, which waits at the call
    #expect(deadlock?.trace.steps.first?.task == 1)
  }
}
