/// Something that can be cancelled from any thread: a task handle of any result type (stored
/// without allocating: a `Task` is one reference), or the failure bound of a Lockstep wait.
protocol CancellableTask: Sendable {
  func cancel()
}

extension Task: CancellableTask {}
