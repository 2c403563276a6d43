#if canImport(Testing)
  import Testing
#endif
#if canImport(XCTest)
  import XCTest
#endif

/// Collects what fails while exploration runs schedules, so that each schedule can be judged and
/// only the reported one fails the test: Swift Testing issues (held back as known issues), Lockstep
/// issues (collected), and XCTest failures (observed; XCTest cannot hold them back).
final class FailureCapture: Sendable {
  /// One failure: its text (ending with where it happened, when known), and that place alone.
  struct Captured: Sendable {
    let message: String
    let site: String?
  }

  private let messages = Locked<[Captured]>([])
  let lockstepIssues = IssueCollector()

  func record(_ message: String, at site: String?) {
    CurrentRun.noteFailure()
    messages.withLock { $0.append(Captured(message: message, site: site)) }
  }

  /// Everything recorded since `mark` (a previous ``mark``), framework failures first.
  func failures(since mark: (messages: Int, issues: Int)) -> [Captured] {
    let framework = messages.withLock { Array($0.dropFirst(mark.messages)) }
    let lockstep = lockstepIssues.issues.withLock { Array($0.dropFirst(mark.issues)) }
    return framework
      + lockstep.filter { !$0.isWarning }.map { Captured(message: $0.description, site: "\($0.site)") }
  }

  var mark: (messages: Int, issues: Int) {
    (messages.withLock { $0.count }, lockstepIssues.issues.withLock { $0.count })
  }

  /// Runs `body`, in the caller's isolation, with failures of the running test framework routed to
  /// a new capture.
  nonisolated(nonsending) static func capturing<T: Sendable>(_ body: (FailureCapture) async -> T)
    async -> T
  {
    let capture = FailureCapture()
    return await IssueRouting.$collector.withValue(capture.lockstepIssues) {
      #if canImport(Testing)
        if Test.current != nil {
          var value: T?
          await withKnownIssue(isIntermittent: true) {
            value = await body(capture)
          } matching: { issue in
            capture.record(describe(issue), at: issue.sourceLocation.map { "\($0)" })
            return true
          }
          return value!
        }
      #endif
      #if canImport(XCTest)
        await XCTestFailureObserver.install()
        XCTestFailureObserver.active.withLock { $0 = capture }
        defer { XCTestFailureObserver.active.withLock { $0 = nil } }
      #endif
      return await body(capture)
    }
  }

  #if canImport(Testing)
    /// `Expectation failed: (e → .stopped) == .running: the first event`, without the severity
    /// Swift Testing's description puts between the kind and the comments.
    private static func describe(_ issue: Issue) -> String {
      let location = issue.sourceLocation.map { " (at \($0))" } ?? ""
      var text = "\(issue.kind)"
      let comments = issue.comments.map(\.rawValue)
      if !comments.isEmpty { text += ": " + comments.joined(separator: "; ") }
      return text + location
    }
  #endif
}

#if canImport(XCTest)
  /// Sees XCTest failures while an exploration runs.
  final class XCTestFailureObserver: NSObject, XCTestObservation, Sendable {
    static let active = Locked<FailureCapture?>(nil)
    private static let installed = Locked(false)

    static func install() async {
      let first = installed.withLock { installed in
        defer { installed = true }
        return !installed
      }
      guard first else { return }
      #if canImport(Darwin)
        // Darwin's XCTest wants its observation center used on the main thread.
        await MainActor.run { XCTestObservationCenter.shared.addTestObserver(XCTestFailureObserver()) }
      #else
        XCTestObservationCenter.shared.addTestObserver(XCTestFailureObserver())
      #endif
    }

    #if canImport(Darwin)
      func testCase(_ testCase: XCTestCase, didRecord issue: XCTIssue) {
        let site = issue.sourceCodeContext.location.map { "\($0.fileURL.path):\($0.lineNumber)" }
        Self.active.withLock { $0 }?.record(
          issue.compactDescription + (site.map { " (at \($0))" } ?? ""), at: site)
      }
    #else
      func testCase(
        _ testCase: XCTestCase, didFailWithDescription description: String,
        inFile filePath: String?, atLine lineNumber: Int
      ) {
        let site = filePath.map { "\($0):\(lineNumber)" }
        Self.active.withLock { $0 }?.record(description + (site.map { " (at \($0))" } ?? ""), at: site)
      }
    #endif
  }
#endif
