/// Runs work on a new task on the normal executors and waits for it for at most a real-time bound:
/// how stress runs, and the sequential calls that learn what their object does alone, keep a call
/// that never returns from hanging the check. Work that outlasts the bound is left running.
enum BoundedTask {
  /// How the wait ended.
  enum Outcome<Value: Sendable>: Sendable {
    /// The work finished with this value.
    case finished(Value)
    /// The bound passed first; the work goes on.
    case timedOut
    /// The waiting task was cancelled first; the work goes on.
    case cancelled
  }

  /// The wait: who resumes it first, the work, its bound or a cancellation.
  private struct Waiting<Value: Sendable> {
    var continuation: CheckedContinuation<Outcome<Value>, Never>?
    var ended: Outcome<Value>?
  }

  /// Runs `work` on a new task and returns what it gave, unless `timeout` passes first.
  static func run<Value: Sendable>(
    within timeout: Duration, _ work: @escaping @Sendable () async -> Value
  ) async -> Outcome<Value> {
    let waiting = Locked(Waiting<Value>())
    @Sendable func end(_ outcome: Outcome<Value>) {
      let continuation = waiting.withLock { state -> CheckedContinuation<Outcome<Value>, Never>? in
        guard state.ended == nil else { return nil }
        state.ended = outcome
        defer { state.continuation = nil }
        return state.continuation
      }
      continuation?.resume(returning: outcome)
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let ended = waiting.withLock { state in
          state.continuation = state.ended == nil ? continuation : nil
          return state.ended
        }
        if let ended {
          continuation.resume(returning: ended)
          return
        }
        let bound = Task {
          do {
            try await Task.sleep(for: timeout)
            end(.timedOut)
          } catch {}
        }
        Task {
          let value = await work()
          end(.finished(value))
          bound.cancel()
        }
      }
    } onCancel: {
      end(.cancelled)
    }
  }
}
