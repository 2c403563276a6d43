import Foundation
import LockstepReports

/// The workers of one `lockstep-explore`: each on a thread of its own, running the test
/// executable's runs one after another in its shard's environment, its lines after
/// `[worker k/N]`; each says how it ended as it ends.
struct Workers {
  let plan: WorkerPlan
  let runs: [TestPasses.Run]
  let executable: String

  /// Runs every worker, with summaries to `reports` and the rest of the environment `inheriting`;
  /// returns their outcomes, in shard order, once all ended.
  func run(reports: String, inheriting: [String: String]) -> [WorkerOutcome] {
    let outcomes = Outcomes()
    let done = DispatchGroup()
    for worker in 1...plan.workers {
      done.enter()
      let shard = plan.shard(worker)
      let environment = plan.environment(worker: worker, reports: reports, inheriting: inheriting)
      let (runs, executable) = (runs, executable)
      Thread.detachNewThread {
        let began = Date()
        var ended: [(run: TestPasses.Run, termination: WorkerOutcome.Termination)] = []
        for run in runs {
          let child = ChildProcess(executable: executable, arguments: run.arguments, environment: environment)
          do {
            ended.append((run, try child.run(prefix: "[worker \(shard)] ")))
          } catch is Interrupted {
            break
          } catch {
            Console.shared.say("worker \(shard): \(executable) could not be launched: \(error)")
            ended.append((run, .exited(127)))
            break
          }
        }
        let outcome = WorkerOutcome(shard: shard, ended: ended)
        outcomes.record(worker, outcome)
        Console.shared.say("\(outcome) after \(MatrixVerdict.time(Date().timeIntervalSince(began)))")
        done.leave()
      }
    }
    done.wait()
    return outcomes.all
  }
}

/// The workers' outcomes, recorded by their threads as they end.
private final class Outcomes: @unchecked Sendable {
  private let lock = NSLock()
  private var outcomes: [Int: WorkerOutcome] = [:]

  func record(_ worker: Int, _ outcome: WorkerOutcome) {
    lock.withLock { outcomes[worker] = outcome }
  }

  var all: [WorkerOutcome] { lock.withLock { outcomes.sorted { $0.key < $1.key }.map(\.value) } }
}
