/// Thrown when a bounded Lockstep wait gives up: it names what was awaited, for how long, where
/// the wait was made, and what was still pending when it gave up.
///
/// A passing test never reaches a Lockstep timeout; the limit only bounds how long a failing test
/// takes to fail. Tests usually just let the error propagate:
///
/// ```swift
/// @Test(.timeLimit(.minutes(1))) func loads() async throws {
///   model.load()
///   try await tasks.waitUntilIdle()   // on failure: which task never finished, and where it began
/// }
/// ```
///
/// Printed, it reads like:
///
/// ```text
/// Timed out after 5 s at ProfileTests.swift:14:21 waiting for every task of the
/// TestTaskFactory to finish. Still pending:
///   - task #2 "load profile", created at ProfileModel.swift:31:11
/// ```
public struct WaitTimeoutError: Error, CustomStringConvertible, Sendable {
  /// What the wait was waiting for, e.g. `every task of the TestTaskFactory to finish`.
  public let awaited: String
  /// The limit that elapsed, as the wait was given it. When `LOCKSTEP_TIMEOUT_SCALE` lengthened a
  /// real-time bound, the description gives both: `Timed out after 50 s (10 s ×
  /// LOCKSTEP_TIMEOUT_SCALE=5)`.
  public let timeout: Duration
  /// Where the wait was started.
  public let site: CallSite
  /// What was still pending when the wait gave up: tasks, waiters, calls, sleepers.
  public let pending: [String]
  /// Whether the limit elapsed in a deterministic run's virtual time rather than in real time.
  public let isVirtualTime: Bool
  /// The `LOCKSTEP_TIMEOUT_SCALE` factor the bound was lengthened by, in real time (1: none).
  let scale: Double

  /// Creates an error for a wait that gave up.
  public init(awaited: String, timeout: Duration, site: CallSite, pending: [String]) {
    self.init(awaited: awaited, timeout: timeout, site: site, pending: pending, isVirtualTime: false)
  }

  init(
    awaited: String, timeout: Duration, site: CallSite, pending: [String], isVirtualTime: Bool,
    scale: Double = 1
  ) {
    self.scale = isVirtualTime ? 1 : scale
    self.awaited = awaited
    self.timeout = timeout
    self.site = site
    self.pending = pending
    self.isVirtualTime = isVirtualTime
  }

  /// A readable explanation, listing the pending items one a line.
  public var description: String {
    let limit =
      scale != 1
      ? FailureBoundScale.text(timeout, by: scale)
      : timeout.lockstepText + (isVirtualTime ? " of virtual time" : "")
    var text = "Timed out after \(limit) at \(site) waiting for \(awaited)."
    if pending.isEmpty {
      text += " Nothing else was pending."
    } else {
      text += " Still pending:"
      for item in pending { text += "\n  - \(item)" }
    }
    if isVirtualTime {
      text +=
        "\nThe wait ran inside a deterministic run, where its bound is virtual time: time moves "
        + "only when no job is ready, so the run reached the bound with nothing left to make this "
        + "happen but sleeps that end later. Make sure something opens, completes or advances what "
        + "this waits for; if the code under test legitimately sleeps longer, raise `timeout:`."
    }
    return text
  }
}
