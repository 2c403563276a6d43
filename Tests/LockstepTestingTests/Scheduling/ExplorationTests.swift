import LockstepTesting
import Testing

/// A counter whose increment reads, suspends, then writes: two concurrent increments can lose one.
private actor Store {
  var value = 0
  func read() -> Int { value }
  func write(_ newValue: Int) { value = newValue }
}

private func racyIncrement(_ store: Store) async {
  let read = await store.read()
  Timeline.note("read \(read)")
  await Task.yield()  // allowed: a choice point for the explored schedules, not a guess
  await store.write(read + 1)
  Timeline.note("wrote \(read + 1)")
}

@Suite(.timeLimit(.minutes(1)))
struct ExplorationTests {
  @Test func randomFindsALostUpdateAndTheTokenReplaysIt() async throws {
    let result = await collectingIssues {
      await explore(.random(schedules: 200, seed: 1)) {
        let store = Store()
        async let first: Void = racyIncrement(store)
        async let second: Void = racyIncrement(store)
        _ = await (first, second)
        let value = await store.value
        #expect(value == 2)
      }
    }
    let failure = try #require(result.result.failure)
    #expect(result.issues.count == 1)
    #expect(result.issues.first?.message.contains("value → 1") == true)
    #expect(failure.timeline.description.contains("read 0"))
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
  #expect(!load.isCancelled || published == nil)
}

extension ExplorationTests {
  @Test func cancellationInjectionFindsAPublishAfterCancel() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1), cancellation: .atLockstepWaits) {
        try await cancelledLoadPublishesNothing(checksCancellation: false)
      }
    }
    let failure = try #require(result.failure)
    #expect(issues.count == 1)
    #expect(failure.token.description.isEmpty == false)
    let correct = await explore(.exhaustive(maxPreemptions: 1), cancellation: .atLockstepWaits) {
      try await cancelledLoadPublishesNothing(checksCancellation: true)
    }
    #expect(correct.failure == nil && correct.isComplete)
  }
}
