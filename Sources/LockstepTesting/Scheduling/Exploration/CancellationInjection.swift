/// Whether ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)`` also
/// explores cancelling a task, so that cancellation bugs are found like ordering bugs.
///
/// ```swift
/// await explore(.exhaustive(maxPreemptions: 1), cancellation: .atLockstepWaits) {
///   try await reloadThenCancel()
/// }
/// ```
public struct CancellationInjection: Sendable, Equatable {
  let enabled: Bool

  /// Never cancels anything on its own.
  public static let none = Self(enabled: false)

  /// Each schedule may cancel one task at one of its waits at a Lockstep primitive (a controlled
  /// call, a gate, a barrier, a test clock, a `TestTaskFactory` wait): the task is cancelled
  /// just as it suspends there, as if its owner had cancelled it at that moment. Exhaustive
  /// exploration tries every such wait; random and PCT pick one in half of their schedules.
  public static let atLockstepWaits = Self(enabled: true)
}
