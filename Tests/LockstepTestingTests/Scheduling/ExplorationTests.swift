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
  await Task.yield()
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
