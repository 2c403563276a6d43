/// Thrown by ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``
/// when the body can no longer make progress: it has not finished, no job is ready, no task sleeps
/// in virtual time, and nothing arrived from outside the run within the grace period. Its
/// ``description`` lists what the scheduler knew about the run's tasks; see
/// <doc:WhichWorkRunsNext#A-wait-that-can-never-end>.
public struct DeterministicDeadlock: Error, CustomStringConvertible, Sendable {
  /// Where the deterministic run was started.
  public let site: CallSite
  /// The run's tasks, one description each: its number, its name, and what it waits for or when
  /// it last ran; below it, indented on lines of their own, the `await` a suspended task waits at
  /// and the awaits of its async callers, where they can be read.
  public let tasks: [String]
  /// The virtual time at which the run stopped, from the start of the run.
  public let virtualTime: Duration
  /// Every job executed before the deadlock.
  public let trace: SchedulerTrace
  /// Whether the stuck tasks were left suspended for good (quarantined): cancelling the body did
  /// not let it finish.
  public let quarantined: Bool
  /// Why the report cannot show where each task waits, if it cannot.
  var waitsNotShown: String? = nil
  /// Whether a job of the run arrived from another thread while the run had no grace period: a
  /// sign that the run may wait for work from outside it.
  var sawWorkFromOutside = false
  /// How many jobs had run when the deadlock was found, if cancelling the body ran more: ``tasks``
  /// say where the tasks were stuck then.
  var stepsWhenFound: Int?

  /// A readable report, listing the suspended tasks one a line.
  public var description: String {
    var text =
      "Deadlock in the deterministic run started at \(site): the body has not finished, no job is "
      + "ready and no task sleeps (virtual time \(virtualTime.lockstepText), \(trace.steps.count) jobs run)."
      + (trace.readsVirtualNow ? "" : " \(VirtualNow.realClocksNote)")
    if tasks.isEmpty {
      text += " No task of the run is known."
    } else {
      if let found = stepsWhenFound, found < trace.steps.count {
        text += " Tasks of the run when the deadlock was found, after \(found) jobs:"
      } else {
        text += " Tasks of the run:"
      }
      for task in tasks { text += "\n  - \(task)" }
      if let waitsNotShown { text += "\n(Where each task waits is not shown: \(waitsNotShown).)" }
    }
    if sawWorkFromOutside {
      text +=
        "\nA job of this run arrived from another thread (a continuation resumed there, a Dispatch "
        + "source or timer, real I/O): if the run waits for more such work, give it time with "
        + "gracePeriod:."
    }
    if let found = stepsWhenFound, found < trace.steps.count {
      text +=
        "\nCancelling the body to unwind it ran jobs \(found + 1)–\(trace.steps.count) (in the timeline), "
        + "and the run stayed stuck: checks that failed meanwhile are consequences of the unwind."
    }
    if quarantined {
      text += "\nThe stuck tasks stay suspended (quarantined); they are never run on another thread."
    } else {
      text += "\nThe body was cancelled to unwind it."
    }
    return text
  }
}
