import LockstepTestSupport
import LockstepTesting
import XCTest

#if canImport(Observation)
  import Observation

  @Observable
  private final class Thermostat {
    var target = 20
  }
#endif

private struct Disconnected: Error {}

/// The recorders from XCTest: failures are reported to XCTest at the test's line.
final class RecorderXCTests: XCTestCase {
  func testValuesThenTheFailure() async throws {
    let (stream, feed) = AsyncThrowingStream.makeStream(of: Int.self)
    let quotes = SequenceRecorder(stream, name: "quotes")
    addTeardownCheck(for: quotes)
    feed.yield(1)
    feed.finish(throwing: Disconnected())
    let first = try await quotes.next()
    XCTAssertEqual(first, 1)
    let error = try await quotes.expectFailure()
    XCTAssertTrue(error is Disconnected)
  }

  func testNothingYetAndAnUncheckedValue() async throws {
    let (stream, feed) = AsyncStream.makeStream(of: Int.self)
    let prices = SequenceRecorder(stream, name: "prices")
    let nothing = await prices.expectNoEvents()
    XCTAssertTrue(nothing)
    feed.yield(5)
    try await prices.waitForCount(1)
    let (checked, issues) = await collectingIssues { prices.verifyAllChecked() }
    XCTAssertFalse(checked)
    expectOneIssue(issues, containing: "\"prices\": 1 value(s) arrived that the test never checked: [5]")
    feed.finish()
  }

  func testWaitingAfterCancelIsReportedNotHung() async throws {
    let (stream, _) = AsyncStream.makeStream(of: Int.self)
    let ticks = SequenceRecorder(stream, name: "ticks")
    ticks.cancel()
    let (_, issues) = await collectingIssues {
      do {
        _ = try await ticks.next()
        XCTFail("next() after cancel() cannot return a value")
      } catch let error as UnexpectedEventError {
        XCTAssertTrue(error.found.hasPrefix("no more events: the recording was cancelled"))
      } catch {
        XCTFail("unexpected error \(error)")
      }
    }
    XCTAssertEqual(issues.count, 1)
  }

  #if canImport(Observation)
    func testAPropertyFromXCTest() async throws {
      let thermostat = Thermostat()
      let target = PropertyRecorder(thermostat, \.target, name: "target")
      addTeardownCheck(for: target)
      thermostat.target = 21
      thermostat.target = 22
      let matched = await target.expectValues([20, 21, 22])
      XCTAssertTrue(matched)
    }
  #endif
}
