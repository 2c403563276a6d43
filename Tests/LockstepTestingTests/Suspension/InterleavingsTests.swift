import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct InterleavingsTests {
  @Test func allListsEveryOrderOnceInLexicographicOrder() {
    let orders = Interleavings.all(of: [1, 2, 3])
    #expect(
      orders.map(\.order) == [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]])
    #expect(orders.map(\.number) == Array(1...6))
    #expect(orders.allSatisfy { $0.total == 6 && $0.seed == nil })
    #expect(orders.dropFirst(3).first?.description == "[2, 3, 1]")
    #expect(Interleavings.all(of: Array(1...5)).count == 120)
    #expect(Set(Interleavings.all(of: Array(1...5)).map(\.order)).count == 120)
  }

  @Test func tinyInputsHaveOneOrder() {
    #expect(Interleavings.all(of: [Int]()).map(\.order) == [[]])
    #expect(Interleavings.all(of: ["only"]).map(\.order) == [["only"]])
  }

  @Test func anOrderIsACollectionOfItsItems() throws {
    let order = try #require(Interleavings.all(of: ["a", "b"]).last)
    #expect(Array(order) == ["b", "a"])
    #expect(order.count == 2)
    #expect(order.indices.first.map { order[$0] } == "b")
  }

  @Test func samplesAreDistinctAndRepeatableBySeed() throws {
    let items = Array(1...10)
    let sample = Interleavings.sample(of: items, count: 50, seed: 42)
    let again = Interleavings.sample(of: items, count: 50, seed: 42)
    let other = Interleavings.sample(of: items, count: 50, seed: 43)
    #expect(sample.count == 50)
    #expect(sample == again)
    #expect(sample != other)
    #expect(Set(sample.map(\.order)).count == 50)
    #expect(sample.allSatisfy { $0.order.sorted() == items })
    let seventeenth = try #require(sample.dropFirst(16).first)
    #expect(seventeenth.description == "\(seventeenth.order) (sample 17 of 50, seed 42)")
  }

  @Test func theSampleIsFixedAcrossPlatforms() {
    // The generator is ours, not the standard library's: these orders never change.
    let sample = Interleavings.sample(of: Array(1...6), count: 3, seed: 7).map(\.order)
    #expect(sample == Self.expectedSeed7Sample)
  }

  static let expectedSeed7Sample = [[2, 6, 1, 3, 5, 4], [1, 2, 5, 3, 6, 4], [4, 1, 5, 3, 6, 2]]

  @Test func theGeneratorIsStandardSplitMix64() {
    var generator = SplitMix64(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
  }

  @Test func aSampleAsLargeAsAllOrdersIsAllOrders() {
    #expect(Interleavings.sample(of: [1, 2, 3], count: 10, seed: 1).map(\.order).count == 6)
    #expect(Interleavings.sample(of: [1, 2, 3], count: 6, seed: 1).allSatisfy { $0.seed == nil })
  }

  @Test func ordersFallsBackToASampleAboveTheLimit() {
    #expect(Interleavings.orders(of: Array(1...4), limit: 24).count == 24)
    let sampled = Interleavings.orders(of: Array(1...4), limit: 10, seed: 5)
    #expect(sampled.count == 10)
    #expect(sampled.allSatisfy { $0.seed == 5 })
    let huge = Interleavings.orders(of: Array(1...30), limit: 3, seed: 9)
    #expect(huge.count == 3)
  }

  @Test func permutationCountsAndOverflow() {
    #expect(Interleavings.permutationCount(0) == 1)
    #expect(Interleavings.permutationCount(4) == 24)
    #expect(Interleavings.permutationCount(20) == 2_432_902_008_176_640_000)
    #expect(Interleavings.permutationCount(21) == nil)
  }

  @Test(arguments: Interleavings.all(of: [1, 2, 3]))
  func parameterizedOverEveryOrder(order: Interleaving<Int>) async throws {
    let gates = KeyedGates<Int>("ids")
    let tasks = TestTaskFactory()
    let finished = EventRecorder<Int>("finished")
    for id in 1...3 {
      tasks.task {
        do {
          try await gates.wait(for: id)
          finished.record(id)
        } catch {
          Issue.record(error)  // a timed-out wait must not pass for a release
        }
      }
    }
    try await gates.waitForRequests(3)
    for (released, id) in order.enumerated() {
      gates.open(id)
      try await finished.waitForCount(released + 1)
    }
    #expect(finished.values == order.order)
  }

  @Test func theDefaultSeedIsFixedAndLockstepSeedSetsAnother() {
    #expect(Interleavings.seed(fromEnvironmentValue: nil) == Interleavings.defaultSeed)
    #expect(Interleavings.defaultSeed == 1)
    #expect(Interleavings.seed(fromEnvironmentValue: "42") == 42)
    #expect(Interleavings.seed(fromEnvironmentValue: "not a number") == Interleavings.defaultSeed)
    #expect(
      Interleavings.sample(of: Array(1...8), count: 5).map(\.order)
        == Interleavings.sample(of: Array(1...8), count: 5, seed: Interleavings.sessionSeed).map(\.order))
  }

  @Test(arguments: Interleavings.sample(of: Array(1...8), count: 5))
  func parameterizedOverASample(order: Interleaving<Int>) {
    #expect(order.order.sorted() == Array(1...8))
    #expect(order.description.contains("seed \(Interleavings.sessionSeed)"))
  }
}

final class InterleavingsXCTests: XCTestCase {
  func testEveryOrderOfThree() {
    let orders = Interleavings.all(of: ["a", "b", "c"]).map(\.order)
    XCTAssertEqual(orders.count, 6)
    XCTAssertEqual(Set(orders).count, 6)
    XCTAssertEqual(orders.first, ["a", "b", "c"])
    XCTAssertEqual(orders.last, ["c", "b", "a"])
  }

  func testSamplesRepeatWithTheirSeed() {
    let first = Interleavings.sample(of: Array(1...9), count: 20, seed: 2024)
    let second = Interleavings.sample(of: Array(1...9), count: 20, seed: 2024)
    XCTAssertEqual(first, second)
    XCTAssertTrue(first.first?.description.hasSuffix("(sample 1 of 20, seed 2024)") == true)
  }
}
