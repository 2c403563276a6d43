import Foundation
import LockstepReports

#if canImport(Testing)
  import Testing
#endif

/// The JSON summary an exploration leaves in the `LOCKSTEP_REPORTS` folder, beside the picture of
/// its failure, for `lockstep-report` to merge over a CI matrix: written for every exploration at
/// CI scale — the environment set a time budget, a scale or a shard, or it ran longer than a few
/// seconds — and for every failing one (a failing schedule, or a ``ExplorationResult/problem``).
enum ExplorationSummaryReport {
  /// Whether an exploration that ran for `elapsed` writes a summary.
  static func writes(_ result: ExplorationResult, setup: ExplorationSetup, elapsed: Duration) -> Bool {
    !result.passed || !setup.settings.isEmpty || setup.shard != nil
      || elapsed >= ExplorationProgress.quiet
  }

  /// The summary of `result`, explored by `setup` at `site` in `elapsed`, in the test `test`.
  static func summary(
    _ result: ExplorationResult, setup: ExplorationSetup, elapsed: Duration, test: String,
    site: CallSite, failureToken: String? = nil, failureScenario: Int? = nil
  ) -> ExplorationSummary {
    let strategy = setup.effective
    var parameters = ExplorationSummary.Parameters(
      timeBudgetSeconds: strategy.timeBudget.map(seconds))
    let kind: String
    switch strategy.kind {
    case .random(let schedules, let seed):
      (kind, parameters.schedules, parameters.seed) = ("random", schedules, seed)
    case .pct(let schedules, let depth, let seed):
      (kind, parameters.schedules, parameters.depth, parameters.seed) = ("pct", schedules, depth, seed)
    case .exhaustive(let maxPreemptions, let limit):
      (kind, parameters.maxPreemptions, parameters.limit) = ("exhaustive", maxPreemptions, limit)
    case .replay: kind = "replay"
    }
    let shard = result.shard.map { ExplorationSummary.Shard(index: $0.index, count: $0.count) }
    let failure = result.failure.map { failure in
      ExplorationSummary.Failure(
        token: failureToken ?? failure.pinnedToken ?? "\(failure.token)", schedule: failure.schedule,
        shard: failure.shard.map { ExplorationSummary.Shard(index: $0.index, count: $0.count) },
        message: String(
          failure.failures.first?.split(separator: "\n", omittingEmptySubsequences: false).first
            ?? ""),
        overallSchedule: failure.overallSchedule, subtree: failure.subtree?.number,
        subtreeSchedule: failure.subtree?.schedule, scenario: failureScenario)
    }
    return ExplorationSummary(
      test: test, callSite: "\(site.fileID):\(site.line)", strategy: setup.strategy.description,
      strategyAsRun: strategy.description, kind: kind, parameters: parameters,
      settings: setup.settings, cancellation: result.injectsCancellation, shard: shard,
      schedulesRun: result.schedulesRun, shapeSchedules: result.shapeSchedules,
      distinctSchedules: result.distinctSchedules, elapsedSeconds: seconds(elapsed),
      complete: result.isComplete, ranOutOfTime: result.ranOutOfTime,
      search: result.progress.map {
        ExplorationSummary.Search(estimatedSchedules: $0.estimatedSchedules, atLeastLeft: $0.subtreesLeft)
      },
      subtreeSchedules: result.subtreeSchedules, failure: failure, problem: result.problem,
      hashingDeterministic: result.hashingIsDeterministic,
      virtualTime: VirtualNowSupport.unavailableReason == nil)
  }

  /// Writes the summary of `result` to the `LOCKSTEP_REPORTS` folder if it is set and the
  /// exploration is at CI scale or failed; returns the file's path, or a problem to report.
  /// `subject` names the work in a problem; `failureToken` replaces the failure's schedule token
  /// (a `checkLinearizability` token also names its scenario) and `failureScenario` is the
  /// `checkLinearizability` scenario that failed first.
  static func deliver(
    _ result: ExplorationResult, setup: ExplorationSetup, elapsed: Duration, at site: CallSite,
    subject: String = "explore", failureToken: String? = nil, failureScenario: Int? = nil
  ) -> (path: String?, problem: String?) {
    guard let folder = TimelinePictureReport.folder,
      writes(result, setup: setup, elapsed: elapsed)
    else { return (nil, nil) }
    let test = testName ?? "\(site.fileID):\(site.line)"
    let summary = summary(
      result, setup: setup, elapsed: elapsed, test: test, site: site, failureToken: failureToken,
      failureScenario: failureScenario)
    do {
      return (try write(summary, in: folder, label: test, site: site), nil)
    } catch {
      return (
        nil,
        "\(subject) \(result.title): its summary could not be written to "
          + "\(TimelinePictureReport.variable)=\(folder): \(error)"
      )
    }
  }

  /// The running Swift Testing test's name, if any.
  private static var testName: String? {
    #if canImport(Testing)
      return Test.current?.name
    #else
      return nil
    #endif
  }

  /// Writes `summary` to a new file in `folder`:
  /// `lockstep-summary-<test>-<file>-<line>[-shard-<k>-of-<n>]-<n>.json`, the first `n` whose file
  /// does not exist yet.
  private static func write(
    _ summary: ExplorationSummary, in folder: String, label: String, site: CallSite
  ) throws -> String {
    let files = FileManager.default
    try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var base =
      ExplorationSummary.fileNamePrefix + TimelinePictureReport.fileNamePart(label) + "-"
      + TimelinePictureReport.fileNamePart("\(site.fileID)-\(site.line)")
    if let shard = summary.shard { base += "-shard-\(shard.index)-of-\(shard.count)" }
    let data = try SummaryFiles.encode(summary)
    for number in 1... {
      let path = (folder as NSString).appendingPathComponent("\(base)-\(number).json")
      if files.fileExists(atPath: path) { continue }
      do {
        try data.write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
        return path
      } catch  where files.fileExists(atPath: path) {
        continue  // another process took the name
      }
    }
    preconditionFailure("unreachable")
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
