import LockstepTestSupport
import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct WatchersTests {
  @Test func watchersAreCountedAndHandedBackInArrivalOrder() {
    var watchers = Watchers<Int, String>()
    let count = 2
    #expect(watchers.watch(WaiterID(rawValue: 3), target: 4, "four") { count >= $0 })
    #expect(watchers.watch(WaiterID(rawValue: 1), target: 3, "three") { count >= $0 })
    #expect(!watchers.watch(WaiterID(rawValue: 2), target: 1, "one") { count >= $0 })  // reached
    #expect(watchers.watch(WaiterID(rawValue: 4), target: 9, "nine") { count >= $0 })
    #expect(watchers.count == 3)

    #expect(watchers.remove(WaiterID(rawValue: 4)) == "nine")
    #expect(watchers.remove(WaiterID(rawValue: 4)) == nil)  // removed once
    #expect(watchers.count == 2)

    #expect(watchers.takeReached { $0 <= 2 }.isEmpty)
    // In id order (an id is taken on arrival), not by target.
    #expect(watchers.takeReached { $0 <= 4 } == ["three", "four"])
    #expect(watchers.count == 0 && watchers.isEmpty)
    #expect(watchers.takeReached { _ in true }.isEmpty)
  }
}
