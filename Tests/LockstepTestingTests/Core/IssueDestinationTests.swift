import Lockstep
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Where a Lockstep issue goes: a collector, the running framework, or — with no test framework
/// running, as in a plain executable — standard error, never nowhere.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct IssueDestinationTests {
  @Test func withNoFrameworkRunningAnIssueGoesToStandardError() {
    #expect(
      IssueDestination.choose(
        collecting: false, inSwiftTestingTest: false, inXCTestProcess: false, runsSwiftTesting: false)
        == .standardError)
  }

  @Test func aCollectorComesFirstThenSwiftTestingThenXCTest() {
    #expect(
      IssueDestination.choose(
        collecting: true, inSwiftTestingTest: true, inXCTestProcess: true, runsSwiftTesting: false)
        == .collector)
    #expect(
      IssueDestination.choose(
        collecting: false, inSwiftTestingTest: true, inXCTestProcess: true, runsSwiftTesting: false)
        == .swiftTesting)
    #expect(
      IssueDestination.choose(
        collecting: false, inSwiftTestingTest: false, inXCTestProcess: true, runsSwiftTesting: false)
        == .xcTest)
  }

  /// `XCTFail` from a thread with no test (a Dispatch callback) outside an XCTest case is lost;
  /// `Issue.record` reaches the Swift Testing runner and fails the run.
  @Test func aReportWithNoTestOnItsThreadGoesToSwiftTestingInAProcessThatRunsIt() {
    #expect(
      IssueDestination.choose(
        collecting: false, inSwiftTestingTest: false, inXCTestProcess: true, runsSwiftTesting: true)
        == .swiftTesting)
    #expect(
      IssueDestination.choose(
        collecting: true, inSwiftTestingTest: false, inXCTestProcess: true, runsSwiftTesting: true)
        == .collector)
  }

  @Test func aProcessRunsSwiftTestingWhenSwiftTestStartsItForSwiftTesting() {
    #expect(
      IssueDestination.runsSwiftTesting(arguments: [
        "/src/App/.build/debug/AppPackageTests.xctest", "--testing-library", "swift-testing",
      ]))
    #expect(!IssueDestination.runsSwiftTesting(arguments: ["/src/App/.build/debug/AppPackageTests.xctest"]))
    #expect(!IssueDestination.runsSwiftTesting(arguments: ["x.xctest", "--testing-library", "xctest"]))
    #expect(!IssueDestination.runsSwiftTesting(arguments: ["swift-testing", "--testing-library"]))
  }

  /// Where a primitive is made inside a Swift Testing test, a later report from any thread is
  /// meant for Swift Testing.
  @Test func aContextTakenInASwiftTestingTestSaysSo() async {
    #expect(IssueContext.current().inSwiftTestingTest)
    #expect(IssueContext.current().collector == nil)
    let (_, issues) = await collectingIssues {
      #expect(IssueContext.current().collector != nil)
    }
    #expect(issues.isEmpty)
    let context = await Task.detached { IssueContext.current() }.value
    #expect(!context.inSwiftTestingTest)
  }

  @Test func anXCTestProcessIsATestBundleTheXCTestToolOrAnXcodeTestHost() {
    func isXCTest(_ executable: String, _ environment: [String: String] = [:]) -> Bool {
      IssueDestination.isXCTestProcess(executable: executable, environment: environment)
    }
    #expect(isXCTest("/src/App/.build/debug/AppPackageTests.xctest"))
    #expect(isXCTest("/Applications/Xcode.app/Contents/Developer/usr/bin/xctest"))
    #expect(isXCTest("/Apps/App.app/App", ["XCTestConfigurationFilePath": "/tmp/x.xctestconfiguration"]))
    #expect(!isXCTest("/src/App/.build/release/app-tool"))
    #expect(!isXCTest("lockstep-demo"))
    #expect(!isXCTest(""))
    // This test binary is one (`swift test` runs a test bundle).
    #expect(IssueDestination.inXCTestProcess)
  }

  @Test func theStandardErrorLineNamesTheLocationTheWayCompilersDo() {
    let site = CallSite(fileID: "App/Main.swift", filePath: "/src/App/Main.swift", line: 12, column: 5)
    #expect(
      IssueDestination.standardErrorLine("explore found a failure", at: site, isWarning: false)
        == "/src/App/Main.swift:12:5: error: explore found a failure\n")
    #expect(
      IssueDestination.standardErrorLine("nothing to explore", at: site, isWarning: true)
        == "/src/App/Main.swift:12:5: warning: nothing to explore\n")
  }
}
