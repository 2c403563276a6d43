import Foundation
import LockstepInterposition
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// How many times `text` holds `part`.
private func occurrences(of part: String, in text: String) -> Int {
  text.components(separatedBy: part).count - 1
}

/// Explores the ascending stand-in until a schedule fails, then replays its token against the
/// descending one: the report of the failure and the report of a diverging replay.
private func reports() async throws -> (failure: String, divergence: String) {
  let (found, issues) = await collectingIssues {
    await explore(.random(schedules: 100, seed: 1)) {
      try await subscribersReceiveInOrder(reversed: false)
    }
  }
  let failure = try #require(found.failure)
  let (_, replayed) = await collectingIssues {
    await explore(.replay(failure.token)) { try await subscribersReceiveInOrder(reversed: true) }
  }
  return (issues.first?.message ?? "", replayed.first?.message ?? "")
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct HashingDeterminismTests {
  @Test(
    arguments: [
      (nil, false), ("", false), ("1", true), ("yes", true), ("Y", true), ("true", true), ("T", true),
      ("0", false), ("no", false), ("false", false), ("on", false),
    ] as [(String?, Bool)])
  func theVariableIsReadAsTheRuntimeReadsIt(_ value: String?, _ on: Bool) {
    #expect(HashingDeterminism.turnsOn(value) == on)
  }

  @Test(.enabled(if: ProcessInfo.processInfo.environment[HashingDeterminism.optOut] != "1"))
  func hashingIsDeterministicWithoutAnyVariable() throws {
    #if os(Linux)
      #expect(HashingDeterminism.inProcess)
    #endif
    try #require(HashingDeterminism.inProcess)
    // Each new table of the same elements iterates in one order: no per-process seed, and no
    // per-storage seed either (a table's seed is otherwise taken from its address).
    let orders = Set(
      (0..<50).map { _ in
        var set = Set<Int>(minimumCapacity: 64)
        for value in 0..<40 { set.insert(value) }
        return Array(set)
      })
    #expect(orders.count == 1)
  }

  #if os(Linux)
    @Test(.enabled(if: ProcessInfo.processInfo.environment[HashingDeterminism.optOut] == "1"))
    func theOptOutKeepsRandomHashingAndReportsSaySo() {
      #expect(!HashingDeterminism.inProcess)
      #expect(HashingDeterminism.note.contains("LOCKSTEP_RANDOM_HASHING=1 is set"))
    }
  #endif

  @Test func onlyATestProcessGetsDeterministicHashing() {
    #expect(lockstep_is_test_executable("/src/App/.build/debug/AppPackageTests.xctest"))
    #expect(lockstep_is_test_executable("AppPackageTests.xctest"))
    #expect(!lockstep_is_test_executable("/src/App/.build/release/app-server"))
    #expect(!lockstep_is_test_executable("/src/App/.build/debug/lockstep-demo"))
    #expect(!lockstep_is_test_executable(".xctest/server"))
    #expect(!lockstep_is_test_executable(""))
    #expect(!lockstep_is_test_executable(nil))
    #if os(Linux)
      // `swift test` runs this process as a test bundle.
      #expect(lockstep_in_test_process())
      #expect(lockstep_hashing_setup() != lockstep_hashing_not_a_test_process)
    #endif
  }

  @Test func eachReasonSaysWhatToDo() {
    #expect(HashingDeterminism.why(for: lockstep_hashing_opted_out).contains("Unset it"))
    let notATest = HashingDeterminism.why(for: lockstep_hashing_not_a_test_process)
    #expect(notATest.contains("not a test bundle") && notATest.contains("SWIFT_DETERMINISTIC_HASHING=1"))
    for setup in [
      lockstep_hashing_untouched, lockstep_hashing_not_main_executable, lockstep_hashing_static_runtime,
    ] {
      #expect(HashingDeterminism.why(for: setup).contains("SWIFT_DETERMINISTIC_HASHING=1 swift test"))
    }
    #expect(HashingDeterminism.why(for: lockstep_hashing_not_main_executable).contains("dynamic library"))
  }

  @Test func withoutDeterministicHashingEachReportSaysSoOnceWithTheFix() async throws {
    let (failure, divergence) = try await HashingDeterminism.$assumed.withValue(false) {
      try await reports()
    }
    for report in [failure, divergence] {
      #expect(occurrences(of: HashingDeterminism.why, in: report) == 1, "\(report)")
    }
    #expect(divergence.contains("Likely cause: hashing is not deterministic"))
  }

  @Test func withDeterministicHashingNoReportMentionsIt() async throws {
    let (failure, divergence) = try await HashingDeterminism.$assumed.withValue(true) {
      try await reports()
    }
    #expect(!failure.contains("SWIFT_DETERMINISTIC_HASHING"), "\(failure)")
    #expect(!divergence.contains("SWIFT_DETERMINISTIC_HASHING"), "\(divergence)")
    #expect(divergence.contains("Likely cause: the code under test changed"), "\(divergence)")
  }
}

final class HashingDeterminismXCTests: XCTestCase {
  func testWithoutDeterministicHashingAReplayThatDivergesSaysSoOnce() async throws {
    let (_, divergence) = try await HashingDeterminism.$assumed.withValue(false) {
      try await reports()
    }
    XCTAssertEqual(occurrences(of: HashingDeterminism.why, in: divergence), 1)
  }
}
