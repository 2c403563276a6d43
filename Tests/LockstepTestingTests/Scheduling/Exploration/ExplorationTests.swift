import Foundation
import LockstepTestSupport
import LockstepTesting
import Testing

private func racyIncrement(_ counter: SharedCounter) async {
  let read = counter.value
  Timeline.note("read \(read)")
  await MainActor.run {}  // shows the progress on screen: a hop, where another task may run
  counter.value = read + 1
  Timeline.note("wrote \(read + 1)")
}

/// Two increments at once; returns the final value (2 unless an update was lost). Left alone, the
/// first task runs to its end before the second starts: losing an update takes a preemption.
@Sendable private func twoIncrements() async -> Int {
  let counter = SharedCounter()
  let first = Task(name: "increment 1") { await racyIncrement(counter) }
  let second = Task(name: "increment 2") { await racyIncrement(counter) }
  await first.value
  await second.value
  return counter.value
}

/// The invariant: two increments make 2. It throws rather than `#expect`s, so that the failing
/// schedules explore holds back add no known issue to a passing run (how a failed `#expect`
/// reaches explore is FindingRacesExamples' subject).
@Sendable private func bothIncrementsCount() async throws {
  let value = await twoIncrements()
  guard value == 2 else { throw LostUpdate(value: value) }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationTests {
  @Test func theLostUpdateNeedsAParticularInterleaving() async {
    // Every schedule within the bound, counted rather than failed: some lose the update, some not.
    let kept = EventCounter("schedules that kept both updates")
    let lost = EventCounter("schedules that lost an update")
    let result = await explore(.exhaustive(maxPreemptions: 2)) {
      await twoIncrements() == 2 ? kept.record() : lost.record()
    }
    #expect(result.isComplete && result.failure == nil)
    #expect(kept.count > 0)
    #expect(lost.count > 0)
    #expect(kept.count + lost.count == result.schedulesRun)
  }

  @Test func randomFindsALostUpdateAndTheTokenReplaysIt() async throws {
    let (found, issues) = await collectingIssues {
      await explore(.random(schedules: 200, seed: 1), bothIncrementsCount)
    }
    let failure = try #require(found.failure)
    expectOneIssue(issues, containing: "two increments made 1")
    // What sets the failing schedule apart: both increments read 0 before either wrote.
    let notes = failure.timeline.entries.flatMap(\.actions).filter {
      $0.hasPrefix("read") || $0.hasPrefix("wrote")
    }
    #expect(notes == ["read 0", "read 0", "wrote 1", "wrote 1"])

    let (replayed, replayIssues) = await collectingIssues {
      await explore(.replay(failure.token), bothIncrementsCount)
    }
    #expect(replayIssues.count == 1)
    #expect(replayed.schedulesRun == 1)
    #expect(replayed.failure?.failures == failure.failures)
    #expect(replayed.failure?.timeline == failure.timeline)
    #expect(replayed.failure?.token == failure.token)

    // Left to its default choices, the scheduler runs a schedule that keeps both updates: the
    // replay failed because it followed the token.
    let unguided = await explore(.exhaustive(maxPreemptions: 0, limit: 1), bothIncrementsCount)
    #expect(unguided.schedulesRun == 1 && unguided.failure == nil)
  }
}

/// Publishes what a load returns; `checksCancellation: false` publishes even when cancelled.
@MainActor private final class Publisher {
  var published: Int?
  func load(_ calls: ControlledCalls<Int, Int>, checksCancellation: Bool) async {
    let value = try? await calls.call(1)
    if checksCancellation && Task.isCancelled { return }
    published = value
  }
}

private func cancelledLoadPublishesNothing(checksCancellation: Bool) async throws {
  let calls = ControlledCalls<Int, Int>("loader", cancellation: .ignored)
  let publisher = Publisher()
  let load = Task { await publisher.load(calls, checksCancellation: checksCancellation) }
  try await calls.waitUntilPending(1)
  calls.succeed(1, with: 42)
  await load.value
  let published = await publisher.published
  if load.isCancelled, let published { throw PublishedAfterCancel(value: published) }
}

private struct PublishedAfterCancel: Error, CustomStringConvertible {
  let value: Int
  var description: String { "a cancelled load published \(value)" }
}

extension ExplorationTests {
  @Test func cancellationInjectionFindsAPublishAfterCancel() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1), cancellation: .atLockstepWaits) {
        try await cancelledLoadPublishesNothing(checksCancellation: false)
      }
    }
    let failure = try #require(result.failure)
    expectOneIssue(issues, containing: "a cancelled load published 42")
    // The schedules without a cancellation ran first, and passed; the failing one cancels the load.
    #expect(failure.schedule > 1)
    let actions = failure.timeline.entries.flatMap(\.actions)
    #expect(actions.contains("is cancelled here (injected by explore)"))

    let (replayed, _) = await collectingIssues {
      await explore(.replay(failure.token)) {
        try await cancelledLoadPublishesNothing(checksCancellation: false)
      }
    }
    #expect(replayed.failure?.failures == failure.failures)
    #expect(replayed.failure?.timeline == failure.timeline)

    let correct = await explore(.exhaustive(maxPreemptions: 1), cancellation: .atLockstepWaits) {
      try await cancelledLoadPublishesNothing(checksCancellation: true)
    }
    #expect(correct.failure == nil && correct.isComplete)
    #expect(correct.schedulesRun > 1)
  }
}
