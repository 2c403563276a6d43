/// Thrown by a call that means something only inside a deterministic run, made outside one.
public struct NotInDeterministicRun: Error, CustomStringConvertible, Sendable {
  /// The call that was made.
  public let call: String
  /// Where it was made.
  public let site: CallSite

  /// What was called where, and what to use instead.
  public var description: String {
    "\(call) at \(site) waits for the other tasks of a deterministic run, but it runs outside "
      + "one: call it inside withDeterministicScheduling { … }, runDeterministically, explore or "
      + "a test with the .deterministic trait. Outside a run, wait for the work itself: "
      + "TestTaskFactory.waitUntilIdle() for tasks made through a factory, or a Gate, "
      + "EventCounter or ControlledCalls the work reaches."
  }
}
