import Foundation
import LockstepReports
import Testing

// What lockstep-explore decides without launching anything: its command line, each worker's
// environment and runs of the test executable, how a worker ended, its exit status, and the
// prefixed lines of the workers' output.

private let swiftTesting = TestPasses.Run(
  library: "Swift Testing", arguments: ["--testing-library", "swift-testing"])
private let xctest = TestPasses.Run(library: "XCTest", arguments: [])

/// The outcome of worker `index` of `count` whose runs ended so.
private func outcome(
  _ index: Int, of count: Int, _ ended: [(TestPasses.Run, WorkerOutcome.Termination)]
) -> WorkerOutcome {
  WorkerOutcome(shard: .init(index: index, count: count), ended: ended.map { (run: $0.0, termination: $0.1) })
}

/// A merge of one summary that passed, or that failed.
private func merge(passing: Bool) throws -> SummaryMerge {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "lockstep-explore-tests-\(UUID().uuidString)")
  defer { try? FileManager.default.removeItem(at: folder) }
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let summary = ExplorationSummary(
    test: "t()", callSite: "T/T.swift:1", strategy: "random(schedules: 5, seed: 1)",
    strategyAsRun: "random(schedules: 5, seed: 1)", kind: "random", parameters: .init(schedules: 5, seed: 1),
    shard: .init(index: 1, count: 1), schedulesRun: 5, distinctSchedules: 5, elapsedSeconds: 0.1,
    complete: passing,
    failure: passing ? nil : .init(token: "L2.A", schedule: 5, shard: .init(index: 1, count: 1), message: "m")
  )
  try SummaryFiles.encode(summary).write(to: folder.appendingPathComponent("lockstep-summary-t-1.json"))
  return SummaryMerge(folders: [folder.path])
}

@Suite(.timeLimit(.minutes(1)))
struct WorkerPlanTests {
  @Test func theOptionsComeBeforeTheDashesAndTheTestArgumentsAfter() throws {
    let plan = try WorkerPlan(
      arguments: [
        "--workers", "3", "--test-binary=/b/T.xctest", "--reports", "out", "--", "--filter", "Race", "--",
      ],
      processors: 8)
    #expect(plan.workers == 3 && plan.testBinary == "/b/T.xctest" && plan.reports == "out")
    #expect(plan.testArguments == ["--filter", "Race", "--"])
    #expect(!plan.showsHelp)
    let defaults = try WorkerPlan(arguments: [], processors: 6)
    #expect(defaults.workers == 6 && defaults.testArguments.isEmpty && defaults.testBinary == nil)
    #expect(try WorkerPlan(arguments: ["-h"], processors: 1).showsHelp)
  }

  @Test(arguments: [
    (["--workers", "0"], "--workers must be a whole number of at least 1, not \"0\""),
    (["--workers=two"], "--workers must be a whole number of at least 1, not \"two\""),
    (["--workers"], "--workers needs a value"),
    (["--filter", "Race"], "unknown option --filter; the test executable's arguments go after --"),
    (["Race"], "unexpected argument \"Race\"; the test executable's arguments go after --"),
  ])
  func aCommandLineThatCannotBeFollowedSaysWhy(_ arguments: [String], _ reason: String) {
    #expect(throws: WorkerPlan.ArgumentError(description: reason)) {
      try WorkerPlan(arguments: arguments, processors: 2)
    }
  }

  @Test func eachWorkerGetsItsShardAndTheReportsFolderOnTopOfTheUsersEnvironment() throws {
    let plan = try WorkerPlan(arguments: ["--workers", "4"], processors: 2)
    let user = ["LOCKSTEP_EXPLORE_SCALE": "100", "LOCKSTEP_SHARD": "1/9", "PATH": "/bin"]
    let environment = plan.environment(worker: 3, reports: "/tmp/r", inheriting: user)
    #expect(
      environment == [
        "LOCKSTEP_EXPLORE_SCALE": "100", "LOCKSTEP_SHARD": "3/4", "LOCKSTEP_REPORTS": "/tmp/r",
        "PATH": "/bin",
      ])
    #expect((1...4).map { plan.shard($0).description } == ["1/4", "2/4", "3/4", "4/4"])
  }

  @Test func theReportsFolderIsTheOptionsThenTheUsersVariableThenANewOne() throws {
    let plain = try WorkerPlan(arguments: [], processors: 1)
    #expect(plain.reportsFolder(inheriting: [:]) == nil)
    #expect(plain.reportsFolder(inheriting: ["LOCKSTEP_REPORTS": ""]) == nil)
    #expect(plain.reportsFolder(inheriting: ["LOCKSTEP_REPORTS": "mine"]) == "mine")
    let given = try WorkerPlan(arguments: ["--reports", "given"], processors: 1)
    #expect(given.reportsFolder(inheriting: ["LOCKSTEP_REPORTS": "mine"]) == "given")
  }

  @Test func theTestBundleIsTheOnePackageTestsBundle() {
    #expect(
      WorkerPlan.testBundle(among: ["lockstep-explore", "AppPackageTests.xctest", "App.build"])
        == "AppPackageTests.xctest")
    #expect(WorkerPlan.testBundle(among: ["lockstep-explore"]) == nil)
    #expect(WorkerPlan.testBundle(among: ["APackageTests.xctest", "BPackageTests.xctest"]) == nil)
  }

  // MARK: The runs of the test executable

  @Test func argumentsThatNameALibraryAreOneRunAsTheyAre() throws {
    let arguments = ["--testing-library", "swift-testing", "--filter", "Race"]
    let passes = try TestPasses(arguments: arguments, xctestListing: nil)
    #expect(passes.runs == [TestPasses.Run(library: nil, arguments: arguments)])
  }

  @Test func otherwiseSwiftTestingRunsThenTheXCTestTestsTheFilterChooses() throws {
    let listing = """
      Listing 3 tests in debug.xctest:

      App.RaceXCTests/testOne
      App.RaceXCTests/testSlow
      App.OtherXCTests/testTwo
      """
    #expect(TestPasses.xctestNames(in: listing).count == 3)
    let filtered = try TestPasses(arguments: ["--filter", "Race", "--skip=Slow"], xctestListing: listing)
    #expect(
      filtered.runs == [
        .init(
          library: "Swift Testing",
          arguments: ["--testing-library", "swift-testing", "--filter", "Race", "--skip=Slow"]),
        .init(library: "XCTest", arguments: ["App.RaceXCTests/testOne"]),
      ])
    // No filter: every XCTest test, named by none; a filter no XCTest test matches: no XCTest run.
    #expect(try TestPasses(arguments: [], xctestListing: listing).runs.last == xctest)
    #expect(try TestPasses(arguments: ["--filter", "Nothing"], xctestListing: listing).runs.count == 1)
    #expect(throws: WorkerPlan.ArgumentError.self) {
      try TestPasses(arguments: ["--filter", "("], xctestListing: listing)
    }
  }

  // MARK: How workers end, and the exit status

  @Test func aWorkerFailsWhenARunFailsOrCrashesButNotWhenSwiftTestingFoundNoTest() {
    let passed = outcome(1, of: 2, [(swiftTesting, .exited(69)), (xctest, .exited(0))])
    #expect(!passed.failed && passed.description == "worker 1/2: passed")
    let failed = outcome(2, of: 2, [(swiftTesting, .exited(0)), (xctest, .exited(1))])
    #expect(failed.failed && !failed.crashed)
    #expect(
      failed.description
        == "worker 2/2: its XCTest run exited with status 1 (a test failed: see its output above)")
    let crashed = outcome(2, of: 2, [(swiftTesting, .signaled(11)), (xctest, .exited(0))])
    #expect(crashed.failed && crashed.crashed)
    #expect(
      crashed.description
        == "worker 2/2: its Swift Testing run was killed by signal 11 (SIGSEGV) (it crashed or was stopped: see its output above)"
    )
    #expect(!outcome(1, of: 1, [(xctest, .exited(69))]).description.hasSuffix("passed"))
  }

  @Test func theExitStatusIsZeroOnlyWhenEveryWorkerAndTheVerdictPassed() throws {
    let passed = outcome(1, of: 1, [(swiftTesting, .exited(0))])
    let crashed = outcome(1, of: 1, [(swiftTesting, .signaled(9))])
    #expect(WorkerOutcome.exitStatus([passed], merge: try merge(passing: true)) == 0)
    #expect(WorkerOutcome.exitStatus([passed], merge: try merge(passing: false)) == 1)
    #expect(WorkerOutcome.exitStatus([crashed], merge: try merge(passing: true)) == 1)
    let none = SummaryMerge(files: [])
    #expect(none.verdict == nil)
    #expect(WorkerOutcome.exitStatus([passed], merge: none) == 2)
    #expect(WorkerOutcome.exitStatus([crashed], merge: none) == 1)
  }

  @Test func theWorkersOutputIsCutIntoWholePrefixedLines() {
    var lines = PrefixedLines(prefix: "[worker 1/2] ")
    #expect(lines.add(Array("one\ntw".utf8)) == "[worker 1/2] one\n")
    #expect(lines.add(Array("o".utf8)) == "")
    #expect(lines.add(Array("\n\nthree".utf8)) == "[worker 1/2] two\n[worker 1/2] \n")
    #expect(lines.finish() == "[worker 1/2] three\n")
    #expect(lines.finish() == "")
    var first = PrefixedLines(prefix: "> ")
    #expect(first.add(Array("a\nb\n".utf8)) == "> a\n> b\n")
  }
}
