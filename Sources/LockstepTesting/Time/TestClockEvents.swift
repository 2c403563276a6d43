/// The events of a ``TestClock``'s time — its sleepers and the work of every ``TestQueue`` on it —
/// and the one implementation of advancing through them that `TestClock.advance`/`run` and
/// `TestQueue.advance`/`run` share.
extension TestClock {
  /// What one advance did: sleepers woken and work items run (of every `TestQueue` on the clock).
  struct AdvanceCounts {
    var sleepers = 0
    var work = 0
  }

  /// Moves time forward by `duration`, then runs the events due, like
  /// ``advanceEvents(to:caller:timeout:site:)``. A negative duration is reported as a misuse of
  /// `caller`.
  nonisolated(nonsending) func advanceEvents(
    by duration: Duration, caller: String, timeout: Duration, site: CallSite
  ) async -> AdvanceCounts {
    let moved = state.withLock { state in state.moveTime(by: duration) == nil ? state.now : nil }
    guard let target = moved else {
      reportBackwards(caller, site: site)
      return AdvanceCounts()
    }
    let limit = ContinuousClock.now.advanced(by: timeout)
    return await runDueEvents(upTo: target, limit: limit, caller: caller, timeout: timeout, site: site)
  }

  /// Moves time to `target`, then takes the due events one at a time: woken sleepers and work of
  /// the clock's queues, in deadline order. Each sleeper's `sleep` has returned before the next
  /// event; each work item runs synchronously on the caller, outside the lock. A target in the
  /// past is reported as a misuse of `caller`.
  nonisolated(nonsending) func advanceEvents(
    to target: Duration, caller: String, timeout: Duration, site: CallSite
  ) async -> AdvanceCounts {
    guard state.withLock({ $0.moveTime(to: target) }) == nil else {
      reportBackwards(caller, site: site)
      return AdvanceCounts()
    }
    let limit = ContinuousClock.now.advanced(by: timeout)
    return await runDueEvents(upTo: target, limit: limit, caller: caller, timeout: timeout, site: site)
  }

  /// The one misuse message of every advance of a `TestClock` or `TestQueue` that would move time
  /// backwards.
  private func reportBackwards(_ caller: String, site: CallSite) {
    reportIssue(
      "\(caller): time cannot go backwards; the clock is at \(now). Advance by a duration of zero "
        + "or more, or to \(now) or later. Time stays where it was.",
      at: site)
  }

  /// Advances to each next deadline of a sleeper or of queued work in turn, until none is left.
  nonisolated(nonsending) func runEvents(caller: String, timeout: Duration, site: CallSite) async
    -> AdvanceCounts
  {
    let limit = ContinuousClock.now.advanced(by: timeout)
    var counts = AdvanceCounts()
    while let next = state.withLock({ $0.nextEventDeadline() }) {
      let target = state.withLock { state in
        _ = state.moveTime(to: next)
        return state.now
      }
      let step = await runDueEvents(
        upTo: target, limit: limit, caller: caller, timeout: timeout, site: site)
      counts.sleepers += step.sleepers
      counts.work += step.work
      if ContinuousClock.now >= limit, state.withLock({ $0.nextEventDeadline() }) != nil {
        reportIssue(
          "\(caller) gave up after \(timeout.lockstepText) of real time with sleepers or work left (does the "
            + "code under test sleep or reschedule in an endless loop? advance(to:) a bounded time "
            + "instead). \(self)",
          at: site)
        break
      }
    }
    return counts
  }

  /// Takes and applies the events due by `target`, one at a time. Every due sleeper is resumed
  /// even if this task is cancelled or a sleeper is late; only the waiting is skipped then.
  nonisolated(nonsending) private func runDueEvents(
    upTo target: Duration, limit: ContinuousClock.Instant, caller: String, timeout: Duration,
    site: CallSite
  ) async -> AdvanceCounts {
    var counts = AdvanceCounts()
    var waiting = true
    while let event = state.withLock({ $0.takeNextEvent(upTo: target) }) {
      switch event {
      case .sleeper(let id, let waiter):
        counts.sleepers += 1
        waiter.resume()
        guard waiting else { continue }
        do {
          try await waitForReturn(of: id, timeout: timeout, site: site)
        } catch is CancellationError {
          waiting = false
        } catch {
          reportIssue(
            "\(caller): woken sleeper \(counts.sleepers) did not return from sleep within "
              + "\(timeout.lockstepText); is the executor that runs it blocked? \(error)",
            at: site)
          waiting = false
        }
      case .work(let item):
        counts.work += 1
        item.body()
        if counts.work % 4096 == 0, ContinuousClock.now >= limit {
          reportIssue(
            "\(caller) gave up after \(timeout.lockstepText) of real time: work due now keeps scheduling more "
              + "work due now (an endless loop?). \(self)",
            at: site)
          return counts
        }
      }
    }
    return counts
  }
}
