#if canImport(Testing)
  import Testing
#endif
#if canImport(XCTest)
  import XCTest
#endif

/// A problem that Lockstep reported: a misuse (opening a call twice, advancing a clock backwards)
/// or a failed expectation (an event counted the wrong number of times).
///
/// Lockstep reports issues to the test framework that is running: Swift Testing's `Issue.record`
/// when a Swift Testing test is running, `XCTFail` otherwise, both at the ``site`` of the call that
/// caused it. Inside ``collectingIssues(isolation:_:)`` they are collected instead.
public struct ReportedIssue: Sendable, CustomStringConvertible {
  /// What went wrong and what to do about it.
  public let message: String
  /// Where the call that caused it was made.
  public let site: CallSite
  /// Whether it is a warning, which does not fail the test: something the test should know, such
  /// as an exploration that had nothing to explore. Swift Testing records it as a warning (Swift
  /// 6.3 and later); under XCTest, which has none, and older Swift Testing, it is printed.
  public let isWarning: Bool

  init(message: String, site: CallSite, isWarning: Bool = false) {
    self.message = message
    self.site = site
    self.isWarning = isWarning
  }

  /// `message (at Module/File.swift:line:column)`.
  public var description: String { "\(message) (at \(site))" }
}

final class IssueCollector: Sendable {
  let issues = Locked<[ReportedIssue]>([])
}

enum IssueRouting {
  @TaskLocal static var collector: IssueCollector?
}

/// Runs `body`, collecting every issue Lockstep reports inside it (and inside the tasks it
/// creates) instead of failing the running test.
///
/// Use it to check your own helpers' misuse reporting, or to run Lockstep outside a test (the
/// `lockstep-demo` executable does).
///
/// ```swift
/// let (_, issues) = await collectingIssues {
///   let counter = EventCounter("completion")
///   counter.record(); counter.record()
///   counter.expectCount(1)
/// }
/// #expect(issues.count == 1)
/// ```
///
/// - Returns: The body's result and the issues reported, in order.
public func collectingIssues<Result>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> Result
) async rethrows -> (result: Result, issues: [ReportedIssue]) {
  let collector = IssueCollector()
  let result = try await IssueRouting.$collector.withValue(collector) {
    try await body()
  }
  return (result, collector.issues.value)
}

/// Where a report goes when the thread that makes it has no test of its own: taken where a
/// primitive is made, so that a misuse reported later from a Dispatch callback or a detached task
/// still reaches the test (or the collector) that made the primitive.
struct IssueContext: Sendable {
  let collector: IssueCollector?
  let inSwiftTestingTest: Bool

  /// The context of the calling task.
  static func current() -> IssueContext {
    #if canImport(Testing)
      IssueContext(collector: IssueRouting.collector, inSwiftTestingTest: Test.current != nil)
    #else
      IssueContext(collector: IssueRouting.collector, inSwiftTestingTest: false)
    #endif
  }
}

/// Reports a Lockstep issue to the running test framework (or the active collector); with no test
/// framework running, writes it to standard error with its location. `context` is where the
/// issue goes when the calling thread has none (see ``IssueContext``).
func reportIssue(_ message: String, at site: CallSite, context: IssueContext? = nil) {
  CurrentRun.noteFailure()
  let issue = ReportedIssue(message: message, site: site)
  let (destination, collector) = destination(context)
  switch destination {
  case .collector:
    collector?.issues.withLock { $0.append(issue) }
  case .swiftTesting:
    #if canImport(Testing)
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: "\(site.fileID)", filePath: "\(site.filePath)",
          line: Int(site.line), column: Int(site.column)))
    #endif
  case .xcTest:
    #if canImport(XCTest)
      XCTFail(message, file: site.filePath, line: site.line)
    #endif
  case .standardError:
    IssueDestination.writeToStandardError(
      IssueDestination.standardErrorLine(message, at: site, isWarning: false))
  }
}

/// Reports a warning, which does not fail the test: a Swift Testing warning (Swift 6.3 and later),
/// a line on standard output under XCTest and older Swift Testing (which have no warnings), an issue of the active collector marked
/// ``ReportedIssue/isWarning``, or with no test framework running, a line on standard error.
/// `aboutTheProcess` warnings (how the test process ran the test, not what its code did) skip the
/// collector and go to the test framework.
func reportWarning(_ message: String, at site: CallSite, aboutTheProcess: Bool = false) {
  let (destination, collector) = destination(nil, collecting: !aboutTheProcess)
  switch destination {
  case .collector:
    collector?.issues.withLock {
      $0.append(ReportedIssue(message: message, site: site, isWarning: true))
    }
  case .swiftTesting:
    #if canImport(Testing) && compiler(>=6.3)
      Issue.record(
        Comment(rawValue: message), severity: .warning,
        sourceLocation: SourceLocation(
          fileID: "\(site.fileID)", filePath: "\(site.filePath)",
          line: Int(site.line), column: Int(site.column)))
    #else
      // Swift Testing records warnings from Swift 6.3 on: before, printed as under XCTest, since
      // recording it as an issue would fail a test that did nothing wrong.
      fallthrough
    #endif
  case .xcTest:
    print("\(site.filePath):\(site.line):\(site.column): warning: \(message)")
  case .standardError:
    IssueDestination.writeToStandardError(
      IssueDestination.standardErrorLine(message, at: site, isWarning: true))
  }
}

/// Where an issue reported now goes, and the collector it goes to: the calling task's, else the
/// one of the context the reporting primitive was made in.
private func destination(_ context: IssueContext?, collecting: Bool = true) -> (
  IssueDestination, IssueCollector?
) {
  let current = IssueContext.current()
  let collector = collecting ? current.collector ?? context?.collector : nil
  #if canImport(XCTest)
    let inXCTestProcess = IssueDestination.inXCTestProcess
  #else
    let inXCTestProcess = false
  #endif
  let destination = IssueDestination.choose(
    collecting: collector != nil,
    inSwiftTestingTest: current.inSwiftTestingTest || (context?.inSwiftTestingTest ?? false),
    inXCTestProcess: inXCTestProcess,
    runsSwiftTesting: IssueDestination.runsSwiftTesting)
  return (destination, collector)
}
