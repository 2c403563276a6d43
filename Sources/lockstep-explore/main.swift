import Foundation
import LockstepReports

// lockstep-explore [--workers N] [--test-binary PATH] [--reports FOLDER] [-- TEST ARGUMENTS…]:
// the package's test executable, once a worker, each worker one shard (LOCKSTEP_SHARD=k/N), then
// one verdict over the summaries they wrote, as lockstep-report prints it. Exit status: 0 when
// every worker passed and so did the verdict; 1 when a worker failed or crashed, or the verdict
// failed; 2 when no summary was written or the arguments are wrong.

let usage = """
  usage: lockstep-explore [--workers N] [--test-binary PATH] [--reports FOLDER] [-- TEST ARGUMENTS…]

  Runs the package's test executable (<Name>PackageTests.xctest, from `swift build --build-tests`)
  N times at once, worker k with LOCKSTEP_SHARD=k/N, so that every explore and checkLinearizability
  call the tests make explores its shard k of N; then merges the summaries they wrote into one
  verdict, as lockstep-report does: an exploration's failures in the order the unsharded
  exploration meets them, numbered as it numbers them, so that for random and exhaustive
  strategies the first, and its replay token, are the unsharded run's. The rest of the environment
  is passed on (LOCKSTEP_EXPLORE_SCALE, LOCKSTEP_EXPLORE_TIME, …).

    --workers N         how many workers; the number of active processors by default
    --test-binary PATH  the test executable; found with `swift build --show-bin-path` by default
    --reports FOLDER    where the summaries and the pictures of failures go; LOCKSTEP_REPORTS,
                        or a new temporary folder, by default
    -- ARGUMENTS…       for the test executable. Unless they name a testing library
                        (--testing-library swift-testing), each worker runs the Swift Testing tests
                        with them, then the XCTest tests their --filter and --skip patterns choose,
                        as swift test does.

  Exits 0 when every worker passed and so did the verdict, 1 when a worker failed or crashed or
  the verdict failed, 2 when no summary was written or the arguments are wrong.

  example: swift build --build-tests && swift run lockstep-explore --workers 4 -- --filter Race
  """

let console = Console.shared
let plan: WorkerPlan
do {
  plan = try WorkerPlan(
    arguments: Array(CommandLine.arguments.dropFirst()),
    processors: ProcessInfo.processInfo.activeProcessorCount)
} catch {
  console.say("\(error)")
  console.write(usage + "\n", toError: true)
  exit(2)
}
if plan.showsHelp {
  console.write(usage + "\n")
  exit(0)
}

let executable: String
do {
  executable = try TestExecutable.find(given: plan.testBinary)
} catch {
  console.say("\(error)")
  exit(2)
}

let inherited = ProcessInfo.processInfo.environment
if let shard = inherited[WorkerPlan.shardVariable], !shard.isEmpty {
  console.say("\(WorkerPlan.shardVariable)=\(shard) is replaced by each worker's own shard")
}
var listing: String?
if !TestPasses.namesLibrary(plan.testArguments) {
  switch TestExecutable.xctestListing(executable) {
  case .success(let text): listing = text
  case .failure(let reason): console.say("\(reason): its XCTest tests are not run")
  }
}
let passes: TestPasses
do {
  passes = try TestPasses(arguments: plan.testArguments, xctestListing: listing)
} catch {
  console.say("\(error)")
  exit(2)
}

let givenFolder = plan.reportsFolder(inheriting: inherited)
let folder =
  givenFolder
  ?? FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-explore-\(UUID().uuidString)")
  .path
do {
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
} catch {
  console.say("cannot make the reports folder \(folder): \(error)")
  exit(2)
}
// Summaries already in the folder are an earlier run's: only the new ones are merged.
let earlier = Set(SummaryFiles.find(in: [folder]).files)

// Interrupted: stop the workers (they end with a signal, and are reported so).
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let interruptions = [SIGINT, SIGTERM].map { number in
  let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
  source.setEventHandler {
    console.say("interrupted: stopping the workers")
    Running.shared.stopAll()
  }
  source.resume()
  return source
}

let runs = passes.runs.map { run in
  "\(run.library.map { "\($0): " } ?? "")"
    + (run.library == "XCTest" && run.arguments.count > 1
      ? "\(run.arguments.count) tests"
      : (run.arguments.isEmpty ? "every test" : run.arguments.joined(separator: " ")))
}
console.say(
  "\(plan.workers) worker(s), shards 1/\(plan.workers)…\(plan.workers)/\(plan.workers), of \(executable); "
    + "each runs \(runs.joined(separator: ", then ")); summaries in \(folder)")

let started = Date()
let ended = Workers(plan: plan, runs: passes.runs, executable: executable).run(
  reports: folder, inheriting: inherited)
let elapsed = Date().timeIntervalSince(started)
for source in interruptions { source.cancel() }

let files = SummaryFiles.find(in: [folder]).files.filter { !earlier.contains($0) }
let merge = SummaryMerge(files: files)
for line in merge.warnings(tool: "lockstep-explore") {
  console.write(line + "\n", toError: true)
}
if let verdict = merge.verdict {
  console.write("\n" + verdict.table)
  console.say("\(verdict.throughput(seconds: elapsed)) with \(plan.workers) worker(s)")
} else if ended.contains(where: \.failed) {
  console.say("no exploration wrote a summary to \(folder): see how the workers ended")
} else {
  let noTest = ended.flatMap(\.ended).filter { $0.run.foundNoTest($0.termination) }
  console.say(
    "no exploration wrote a summary to \(folder). With LOCKSTEP_SHARD set, every explore and "
      + "checkLinearizability call writes one: do the tests the arguments choose ("
      + (plan.testArguments.isEmpty ? "all of them" : plan.testArguments.joined(separator: " "))
      + ") call them?"
      + (noTest.isEmpty ? "" : " \(noTest[0].run.library ?? "The test executable") found no test to run."))
}
for outcome in ended where outcome.failed {
  console.say("\(outcome)")
}
let status = WorkerOutcome.exitStatus(ended, merge: merge)
if givenFolder == nil && status == 0 {
  try? FileManager.default.removeItem(atPath: folder)
} else if status != 0 {
  console.say("the summaries and the pictures of failures are in \(folder)")
}
exit(status)
