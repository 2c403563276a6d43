/// The events of a ``TestClock``'s time — its sleepers and the work of every ``TestQueue`` on it —
/// and the one implementation of advancing through them that `TestClock.advance`/`run` and
/// `TestQueue.advance`/`run` share.
///
/// An advance resumes the sleepers due one at a time, each after the previous one's `sleep` has
/// returned in its own task. It does not hop back to its own task in between: the sleeper that
/// returns resumes the next one due (see ``TestClockState/returned(_:)``), so each sleeper costs
/// one task hop, not two. The advance waits until the chain hands back — when work is due (it
/// runs on the advance's task), when nothing more is due, or every few hundred sleepers (so that
/// `run()` can check its time limit) — bounded by `timeout` for each sleeper to return.
extension TestClock {
  /// What one advance did: sleepers woken and work items run (of every `TestQueue` on the clock).
  struct AdvanceCounts {
    var sleepers = 0
    var work = 0
  }

  /// How an advance moves time before it takes the events due.
  enum AdvanceStep: Equatable {
    /// Forward by a duration; a negative one is a misuse.
    case by(Duration)
    /// Forward to a target; one in the past is a misuse.
    case to(Duration)
    /// To each next deadline of a sleeper or of queued work in turn, until none is left.
    case run
  }

  /// The one implementation of `advance` and `run` of a `TestClock` and a `TestQueue`: moves time
  /// as `step` says, then takes the due events one at a time — woken sleepers and work of the
  /// clock's queues, in deadline order. Each sleeper's `sleep` has returned before the next event;
  /// each work item runs synchronously on the caller, outside the lock. Moving time backwards is
  /// reported as a misuse of `caller`.
  nonisolated(nonsending) func advanceEvents(
    _ step: AdvanceStep, caller: String, timeout: Duration, site: CallSite
  ) async -> AdvanceCounts {
    let advance: UInt64? = state.withLock { state in
      switch step {
      case .by(let duration): state.moveTime(by: duration) == nil ? state.beginAdvance(to: state.now) : nil
      case .to(let target): state.moveTime(to: target) == nil ? state.beginAdvance(to: target) : nil
      case .run: state.beginAdvance(to: nil)
      }
    }
    guard let advance else {
      reportBackwards(caller, site: site)
      return AdvanceCounts()
    }
    return await drive(advance, runs: step == .run, caller: caller, timeout: timeout, site: site)
  }

  /// The one misuse message of every advance of a `TestClock` or `TestQueue` that would move time
  /// backwards.
  private func reportBackwards(_ caller: String, site: CallSite) {
    reportIssue(
      "\(caller): time cannot go backwards; the clock is at \(now). Advance by a duration of zero "
        + "or more, or to \(now) or later. Time stays where it was.",
      at: site)
  }

  /// Takes and applies the events of `advance` one at a time, until none is due. Every due sleeper
  /// is resumed even if this task is cancelled or a sleeper is late; only the waiting is skipped
  /// then. `runs`: a `run()`, which gives up after `timeout` of real time.
  nonisolated(nonsending) private func drive(
    _ advance: UInt64, runs: Bool, caller: String, timeout: Duration, site: CallSite
  ) async -> AdvanceCounts {
    let state = self.state
    let limit = RealTime.now.advanced(by: FailureBoundScale.scaled(timeout))
    var waiting = !Task.isCancelled
    var work = 0
    while let event = state.withLock({ $0.takeNextEvent(for: advance, chained: waiting) }) {
      switch event {
      case .sleeper(_, let waiter):
        waiter.resume()
        guard waiting else { break }
        switch await waitForChain(of: advance, timeout: timeout) {
        case .handedBack:
          if Task.isCancelled { waiting = false }
        case .cancelled:
          waiting = false
        case .stalled(let sleeper):
          reportIssue(
            "\(caller): woken sleeper \(sleeper) did not return from sleep within "
              + "\(CurrentRun.isActive ? timeout.lockstepText : FailureBoundScale.text(timeout)); "
              + "is the executor that runs it blocked? \(self)",
            at: site)
          waiting = false
        }
      case .work(let item):
        item.body()
        work += 1
        if endlessWork(after: work, limit: limit, caller: caller, timeout: timeout, in: self, site: site) {
          let (sleepers, items) = state.withLock { $0.endAdvance(advance) }
          return AdvanceCounts(sleepers: sleepers, work: items)
        }
      }
      if runs, RealTime.now >= limit, state.withLock({ $0.nextEventDeadline() }) != nil {
        reportIssue(
          "\(caller) gave up after \(FailureBoundScale.text(timeout)) of real time with sleepers or work left (does the "
            + "code under test sleep or reschedule in an endless loop? advance(to:) a bounded time "
            + "instead). \(self)",
          at: site)
        break
      }
    }
    let (sleepers, items) = state.withLock { $0.endAdvance(advance) }
    return AdvanceCounts(sleepers: sleepers, work: items)
  }

  /// How a wait for the sleepers of an advance's chain ended.
  private enum ChainEnd {
    case handedBack
    case cancelled
    /// The `sleeper`-th sleeper the advance woke did not return within the bound.
    case stalled(sleeper: Int)
  }

  /// The error a stalled chain resumes its advance with.
  private struct ChainStalled: Error {
    let sleeper: Int
  }

  /// Suspends until the chain of `advance` hands back. The failure bound is `timeout` for each
  /// sleeper: when it expires with no sleeper of the chain returned since it started, the sleeper
  /// waited for is late; otherwise a new bound starts (so a late sleeper is found within one to
  /// two times `timeout`). It is one timer for the whole chain, not one for each sleeper. It runs
  /// on the caller's actor and leaves it only while suspended.
  private func waitForChain(
    of advance: UInt64, timeout: Duration, isolation: isolated (any Actor)? = #isolation
  ) async -> ChainEnd {
    let state = self.state
    let bound = StallBound()
    defer { bound.end() }
    do {
      try await withTaskCancellationHandler {
        _ = isolation  // keeps the wait on the caller's actor (see `lockstepWait`)
        try await withCheckedThrowingContinuation { (continuation: Waiter<Void>) in
          let waiter = ClockWaiter(continuation, isolation: isolation)
          guard state.withLock({ $0.waitForChain(advance, waiter) }) else {
            continuation.resume()
            return
          }
          // Inside a deterministic run, tell the timeline. Exploration may cancel the task right
          // here: the cancellation handler then ends the wait at once.
          if CurrentRun.noteWait(for: "the woken sleepers to return from TestClock.sleep") { return }
          bound.start(after: timeout, returns: state.withLock { $0.chainReturns(of: advance) }) {
            returns in
            switch state.withLock({ $0.checkStall(advance, returns: returns) }) {
            case .progressed(let returns): return returns
            case .stalled(let waiter):
              let sleeper = state.withLock { $0.sleepersWoken(by: advance) }
              waiter.resume(throwing: ChainStalled(sleeper: sleeper))
              return nil
            case .over: return nil
            }
          }
        }
      } onCancel: {
        state.withLock { $0.stopChain(advance) }?.resume(throwing: CancellationError())
      }
      return .handedBack
    } catch let stalled as ChainStalled {
      return .stalled(sleeper: stalled.sleeper)
    } catch {
      return .cancelled
    }
  }
}

/// Whether work that runs now has kept scheduling work due now for longer than `timeout` (checked
/// every 4096 items, against `limit`): then reported at `site` as an endless loop of `caller`,
/// with what is left in `subject`.
func endlessWork(
  after count: Int, limit: ContinuousClock.Instant, caller: String, timeout: Duration,
  in subject: some CustomStringConvertible, site: CallSite
) -> Bool {
  guard count % 4096 == 0, RealTime.now >= limit else { return false }
  reportIssue(
    "\(caller) gave up after \(FailureBoundScale.text(timeout)) of real time: work due now keeps scheduling more "
      + "work due now (an endless loop?). \(subject)",
    at: site)
  return true
}

/// The failure bound of one wait for a chain: a timer that, when it expires, asks whether the
/// chain made progress and starts again if it did. Ending it cancels the timer and any restart.
private final class StallBound: Sendable {
  private let timer = Locked<(ended: Bool, timer: (any CancellableTask)?)>((false, nil))

  /// Starts the timer; when it expires, `check` gets the progress counted at the start and
  /// returns the progress to count from for another round, or nil to stop.
  func start(
    after timeout: Duration, returns: Int, _ check: @escaping @Sendable (Int) -> Int?
  ) {
    let next = Timeouts.start(after: timeout) { [self] in
      guard let returns = check(returns) else { return }
      start(after: timeout, returns: returns, check)
    }
    let cancel = timer.withLock { state -> Bool in
      if state.ended { return true }
      state.timer = next
      return false
    }
    if cancel { next.cancel() }
  }

  func end() {
    timer.withLock { state in
      state.ended = true
      return state.timer.take()
    }?.cancel()
  }
}
