import LockstepTestSupport
import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CallSetTests {
  @Test func insertsAndRemovesIndexesOnEitherSideOf64() {
    var set = CallSet(capacity: 200)
    for index in [0, 5, 63, 64, 130, 199] { set.insert(index) }
    #expect((0..<200).filter(set.contains) == [0, 5, 63, 64, 130, 199])
    set.remove(63)
    set.remove(130)
    #expect((0..<200).filter(set.contains) == [0, 5, 64, 199])
    var same = CallSet(capacity: 200)
    for index in [199, 64, 5, 0] { same.insert(index) }
    #expect(same == set && same.hashValue == set.hashValue)
  }
}
