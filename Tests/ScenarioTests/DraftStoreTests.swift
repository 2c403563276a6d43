import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// Scenario 4: create if needed, without duplicates.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DraftStoreTests {
  @Test(arguments: Variant.allCases)
  func twoCallersPastTheCheckCreateOneDraft(variant: Variant) async throws {
    // Both callers must reach the validator — past the existence check — before either writes.
    let store = DraftStore(validator: BarrierValidator(barrier: Barrier(parties: 2)), variant: variant)

    async let first: Void = store.createIfNeeded(id: 7)
    async let second: Void = store.createIfNeeded(id: 7)
    _ = try await (first, second)

    let drafts = await store.drafts
    // The broken store writes a duplicate.
    #expect(drafts == (variant == .correct ? [7] : [7, 7]))
  }

  @Test func aSingleCallerCreatesTheDraftOnce() async throws {
    let store = DraftStore(validator: BarrierValidator(barrier: Barrier(parties: 1)))
    try await store.createIfNeeded(id: 1)
    try await store.createIfNeeded(id: 1)
    #expect(await store.drafts == [1])
  }
}

final class DraftStoreXCTests: XCTestCase {
  func testTwoCallersCreateOneDraft() async throws {
    let store = DraftStore(validator: BarrierValidator(barrier: Barrier(parties: 2)))
    async let first: Void = store.createIfNeeded(id: 7)
    async let second: Void = store.createIfNeeded(id: 7)
    _ = try await (first, second)
    let drafts = await store.drafts
    XCTAssertEqual(drafts, [7])
  }
}
