/// What a long exploration (or `stress` call) says on standard error while it runs, decided as a
/// pure function of the real time it has spent: nothing for its first ``quiet`` seconds, then a
/// line at most every ``interval(at:)`` — in a CI log a new line each time, in a terminal one line
/// rewritten in place and cleared at the end. It only decides and words; ``ProgressReporter``
/// reads the clock and writes.
///
/// ```
/// lockstep: explore at ReaderTests/ReaderTests.swift:42: 12,345 of 20,000 schedules, no failure,
/// 2,469 schedules/s, 4 min 52 s of 5 min left
/// ```
package struct ExplorationProgress: Sendable {
  /// How progress is shown: not at all, a line at a time (a CI log), or one line rewritten in
  /// place (a terminal).
  package enum Mode: Sendable, Equatable {
    case off, lines, terminal
  }

  /// What a line says: the work done and asked for, the failures so far and, for an exhaustive
  /// search, how far it got.
  struct Counts: Sendable, Equatable {
    /// Schedules (or runs) done.
    var done: Int
    /// How many were asked for: `schedules:` of a random or PCT strategy, `times:` of `stress`.
    var of: Int?
    /// The limit of an exhaustive search, which usually ends before it.
    var limit: Int?
    /// What is counted, singular: `schedule`, `run`.
    var unit = "schedule"
    var failures = 0
    /// The time budget, if any.
    var timeBudget: Duration?
    /// How far an exhaustive search is.
    var search: SearchProgress?
    /// What is done now, when it is not the counted work: `shrinking the failing schedule`.
    var phase: String?
  }

  /// How long work runs before it says anything.
  static let quiet: Duration = .seconds(2)

  let mode: Mode
  /// Which work this is: `explore at ReaderTests/ReaderTests.swift:42`.
  let subject: String
  /// The widest line a terminal shows (longer ones are cut, so that `\r` rewrites one line).
  var columns = 100
  /// When the last line was written, and how many were.
  private(set) var lastLine: Duration?
  private(set) var linesWritten = 0

  init(mode: Mode, subject: String) {
    self.mode = mode
    self.subject = subject
  }

  /// The least time between two lines at `elapsed`: a quarter second in a terminal; in a CI log
  /// 3 s during the first minute, then 10 s.
  func interval(at elapsed: Duration) -> Duration {
    switch mode {
    case .off: .seconds(Int64.max / 2)
    case .terminal: .milliseconds(250)
    case .lines: elapsed < .seconds(60) ? .seconds(3) : .seconds(10)
    }
  }

  /// Whether a line is due at `elapsed`; if so, it counts as written.
  mutating func isDue(at elapsed: Duration) -> Bool {
    guard mode != .off, elapsed >= Self.quiet else { return false }
    if let lastLine, elapsed - lastLine < interval(at: elapsed) { return false }
    lastLine = elapsed
    linesWritten += 1
    return true
  }

  /// What to write for a line due at `elapsed`.
  func text(_ counts: Counts, at elapsed: Duration) -> String {
    let line = "lockstep: \(subject): " + Self.words(counts, at: elapsed)
    guard mode == .terminal else { return line + "\n" }
    let shown = line.count > columns ? line.prefix(max(columns - 1, 1)) + "…" : Substring(line)
    return "\r\u{1B}[K" + shown
  }

  /// What to write when the work ends: in a terminal, clear the line; in a CI log, one last line
  /// with the totals. Nothing when no line was written.
  func ending(_ counts: Counts, at elapsed: Duration) -> String? {
    guard linesWritten > 0 else { return nil }
    switch mode {
    case .off: return nil
    case .terminal: return "\r\u{1B}[K"
    case .lines:
      var ended = counts
      ended.phase = nil
      return "lockstep: \(subject): ended after \(Self.time(elapsed)): "
        + Self.words(ended, at: elapsed, ended: true) + "\n"
    }
  }

  /// `12,345 of 20,000 schedules, no failure, 2,469 schedules/s, 4 min 52 s of 5 min left`.
  static func words(_ counts: Counts, at elapsed: Duration, ended: Bool = false) -> String {
    let unit = counts.unit
    let units = counts.done == 1 ? unit : unit + "s"
    var parts: [String] = []
    if let of = counts.of {
      parts.append("\(counts.done.grouped) of \(of.grouped) \(unit)s")
    } else if let limit = counts.limit {
      parts.append("\(counts.done.grouped) \(units) (limit \(limit.grouped))")
    } else {
      parts.append("\(counts.done.grouped) \(units)")
    }
    parts.append(
      counts.failures == 0
        ? "no failure" : "\(counts.failures.grouped) failed")
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    if seconds > 0 {
      let rate = Double(counts.done) / seconds
      let tenths = rate >= 10 ? 0 : Int((rate * 10).rounded())
      let text =
        rate >= 10
        ? Int(rate.rounded()).grouped
        : tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
      parts.append("\(text) \(unit)s/s")
    }
    if let budget = counts.timeBudget, !ended {
      let left = budget - elapsed
      // Rounded up: a countdown says 1 s until nothing is left.
      let shown = time(left + .nanoseconds(999_999_999))
      parts.append(left > .zero ? "\(shown) of \(time(budget)) left" : "time budget used up")
    }
    if let search = counts.search {
      parts.append(searchWords(search, done: counts.done))
    }
    if let phase = counts.phase, !ended { parts.append(phase) }
    return parts.joined(separator: ", ")
  }

  /// How far an exhaustive search is, and how sure that is: `about 26 % of an estimated 48,000
  /// (a rough estimate; at least 1,234 left)`.
  static func searchWords(_ search: SearchProgress, done: Int) -> String {
    let left = search.subtreesLeft
    guard left > 0 else { return "the search tree is done" }
    let estimate = max(search.estimatedSchedules, done + left)
    let percent = min(99, Int((Double(done) / Double(estimate) * 100).rounded(.down)))
    return "about \(percent) % of an estimated \(SearchProgress.roughly(estimate)) "
      + "(a rough estimate; at least \(left.grouped) left)"
  }

  /// `52 s`, `4 min 52 s`, `1 h 4 min`: whole seconds, as a person reads a countdown.
  static func time(_ duration: Duration) -> String {
    let total = max(0, Int(duration.components.seconds))
    if total < 60 { return "\(total) s" }
    if total < 3_600 {
      return total % 60 == 0 ? "\(total / 60) min" : "\(total / 60) min \(total % 60) s"
    }
    let minutes = (total % 3_600) / 60
    return minutes == 0 ? "\(total / 3_600) h" : "\(total / 3_600) h \(minutes) min"
  }
}

extension ExplorationProgress.Counts {
  /// The counts of an exploration by `strategy` (as it runs) after `done` schedules.
  init(
    exploring strategy: ExplorationStrategy, done: Int, failures: Int = 0,
    search: SearchProgress? = nil, phase: String? = nil
  ) {
    self.init(
      done: done, failures: failures, timeBudget: strategy.timeBudget, search: search, phase: phase)
    switch strategy.kind {
    case .random(let schedules, _), .pct(let schedules, _, _): of = schedules
    case .exhaustive(_, let limit): self.limit = limit
    case .replay: of = 1
    }
  }
}
