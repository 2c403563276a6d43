import Dispatch

/// A recorder's way of waiting until its recording task has caught up with what the sequence
/// already produced.
protocol RecordingCatchUp: Sendable {
  /// Waits until the recording task has no job queued or running: every element handed to it has
  /// been recorded, and it waits for the next one. Throws ``WaitTimeoutError`` after `timeout`.
  nonisolated(nonsending) func waitUntilCaughtUp(awaited: String, timeout: Duration, site: CallSite)
    async throws
}

/// The task executor a ``SequenceRecorder`` runs its recording task on outside a deterministic
/// run: a serial Dispatch queue that counts the jobs it holds, so the recorder can tell when the
/// recording task has caught up.
///
/// Why it is exact for elements already produced: a sequence like `AsyncStream` hands an element
/// to a waiting consumer by resuming its continuation, which enqueues the consumer's task — here,
/// on this executor — before `yield` returns. From then until the job has run (recorded the
/// element and suspended for the next one), this executor is not idle. It cannot see work the
/// sequence does elsewhere (a hop to another actor inside `next()`), nor elements nobody has
/// produced yet.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class RecordingExecutor: TaskExecutor, RecordingCatchUp, Sendable {
  private let queue = DispatchQueue(label: "Lockstep.SequenceRecorder")
  private let state = Locked(IdleState())

  private struct IdleState {
    var jobs = 0
    var watchers = Watchers<Void?, Waiter<Void>>()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    state.withLock { $0.jobs += 1 }
    queue.async { [self] in
      job.runSynchronously(on: asUnownedTaskExecutor())
      let idle = state.withLock { state in
        state.jobs -= 1
        let jobs = state.jobs
        return state.watchers.takeReached { _ in jobs == 0 }
      }
      for waiter in idle { waiter.resume() }
    }
  }

  nonisolated(nonsending) func waitUntilCaughtUp(awaited: String, timeout: Duration, site: CallSite)
    async throws
  {
    try await state.wait(
      for: awaited, timeout: timeout, site: site,
      arrive: { state, id, waiter in
        let jobs = state.jobs
        return (state.watchers.watch(id, target: nil, waiter) { _ in jobs == 0 }, [])
      },
      depart: { $0.watchers.remove($1) },
      pending: {
        ["the recording task still had \($0.jobs) job(s) to run (is the sequence's next() busy in a loop?)"]
      })
  }
}
