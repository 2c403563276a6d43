/// A task suspended on a ``TestClock`` — a sleeper, an advance waiting for its woken sleepers, a
/// wait for sleepers — with the actor it resumes on, so that a sleeper hands on to the next one
/// only once its own next statements have run there.
struct ClockWaiter: Sendable {
  let continuation: Waiter<Void>
  /// The actor the waiting code runs on, `nil` for none (the global concurrent executor).
  let isolation: (any Actor)?

  init(_ continuation: Waiter<Void>, isolation: (any Actor)? = nil) {
    self.continuation = continuation
    self.isolation = isolation
  }

  func resume() { continuation.resume() }

  func resume(throwing error: any Error) { continuation.resume(throwing: error) }

  /// Resumes this waiter on behalf of a sleeper that returned from `sleep` on `sleeper`, its
  /// actor: at once when the sleeper has no actor (nothing orders its code after this anyway) or
  /// shares this waiter's (the actor runs this waiter only once the sleeper's job is over);
  /// otherwise from a new job on the sleeper's actor, which runs once the sleeper's code there
  /// has reached its next suspension.
  nonisolated(nonsending) func resume(afterSleeperOn sleeper: (any Actor)?) async {
    guard let sleeper, sleeper !== isolation else {
      resume()
      return
    }
    await Self.resume(self, afterTheJobOf: sleeper)
  }

  /// Starts a task on `actor` that resumes `waiter`: it runs after the job running there now.
  private static func resume(_ waiter: ClockWaiter, afterTheJobOf actor: isolated any Actor) {
    Task {
      _ = actor  // isolates the task to the sleeper's actor
      waiter.resume()
    }
  }
}
