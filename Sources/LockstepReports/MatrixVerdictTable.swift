/// The text `lockstep-report` prints for a ``MatrixVerdict``: one table, a row an exploration,
/// then the failures with their tokens and shards, the missing shards, and the verdict.
extension MatrixVerdict {
  /// The table, the failures, the missing shards and a last line that says PASSED or FAILED.
  public var table: String {
    var rows = [["test", "call site", "strategy", "shards", "schedules", "time", "covered"]]
    for exploration in explorations {
      let shards = exploration.shardCount.map { count in
        "\(count - exploration.missingShards.count)/\(count)"
      }
      var coverage = exploration.shortfall.map { "no: \($0)" } ?? "yes"
      if let search = exploration.search, exploration.missingShards.isEmpty {
        coverage += " (\(Self.searchWords(search, done: exploration.schedules)))"
      }
      rows.append([
        exploration.test, exploration.callSite, exploration.strategyAsRun, shards ?? "-",
        Self.grouped(exploration.schedules), Self.time(exploration.longestSeconds), coverage,
      ])
    }
    var lines = Self.aligned(rows)
    let failures = explorations.flatMap { exploration in exploration.failures.map { (exploration, $0) } }
    if !failures.isEmpty {
      lines.append("")
      let several = explorations.contains { $0.failures.count > 1 }
      lines.append(
        several
          ? "Failures (of one exploration, the first is the one its unsharded run meets first):"
          : "Failures:")
      // Explorations at one call site (a parameterized test) are told apart by their strategies.
      let sites = explorations.map { "\($0.test) at \($0.callSite)" }
      for (exploration, failure) in failures {
        let site = "\(exploration.test) at \(exploration.callSite)"
        let strategy = sites.count { $0 == site } > 1 ? " with \(exploration.strategyAsRun)" : ""
        lines.append("  \(site)\(strategy)\(Self.place(of: failure)): " + failure.message)
        lines.append("    replay it with: .replay(\"\(failure.token)\")")
      }
    }
    let problems = explorations.flatMap { exploration in
      exploration.summaries.compactMap { summary in summary.problem.map { (exploration, summary, $0) } }
    }
    if !problems.isEmpty {
      lines.append("")
      lines.append("Problems (issues that are not a failing schedule):")
      for (exploration, summary, problem) in problems {
        let shard = summary.shard.map { ", shard \($0)" } ?? ""
        let first = problem.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        lines.append("  \(exploration.test) at \(exploration.callSite)\(shard): \(first)")
      }
    }
    let missing = explorations.filter { !$0.missingShards.isEmpty }
    if !missing.isEmpty {
      lines.append("")
      lines.append("Missing shards (no summary found: the job did not run, failed before it, or its")
      lines.append("artifact was not downloaded):")
      for exploration in missing {
        let count = exploration.shardCount ?? 0
        let shards = exploration.missingShards.map { "\($0)/\(count)" }.joined(separator: ", ")
        lines.append("  \(exploration.test) at \(exploration.callSite): \(shards)")
      }
    }
    let repeated = explorations.filter { !$0.repeatedShards.isEmpty }
    if !repeated.isEmpty {
      lines.append("")
      lines.append(
        "Shards with more than one summary (a parameterized test, or several runs in one folder; "
          + "all are counted):")
      for exploration in repeated {
        let count = exploration.shardCount ?? 0
        let shards = exploration.repeatedShards.map { "\($0)/\(count)" }.joined(separator: ", ")
        lines.append("  \(exploration.test) at \(exploration.callSite): \(shards)")
      }
    }
    lines.append("")
    let failed = failures.count
    let missed = missing.reduce(0) { $0 + $1.missingShards.count }
    var verdict =
      "\(explorations.count) exploration(s), \(Self.grouped(schedules)) schedule(s) over all shards"
    if passed {
      let uncovered = explorations.count { !$0.covered }
      verdict += uncovered == 0 ? "; all covered" : "; \(uncovered) not covered (see the table)"
      lines.append("PASSED: " + verdict + ".")
    } else {
      var reasons: [String] = []
      if failed > 0 { reasons.append("\(failed) failure(s)") }
      if !problems.isEmpty { reasons.append("\(problems.count) problem(s)") }
      if missed > 0 { reasons.append("\(missed) missing shard(s)") }
      lines.append("FAILED: " + reasons.joined(separator: ", ") + "; " + verdict + ".")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The schedules over all shards, the real time they took and their rate:
  /// `12,345 schedule(s) in 6.1 s, 2,024 schedules/s`.
  public func throughput(seconds: Double) -> String {
    let rate = seconds > 0 ? Int((Double(schedules) / seconds).rounded()) : 0
    return
      "\(Self.grouped(schedules)) schedule(s) in \(Self.time(seconds)), \(Self.grouped(rate)) schedules/s"
  }

  /// Where a failure lies: `, schedule 1,461 (schedule 731 of shard 2/2)` when its number over all
  /// shards is known, `, shard 2/2, schedule 731` otherwise (with `(subtree 5)` for a sharded
  /// search, when a shard stopped before the end of a subtree before it).
  static func place(of failure: ExplorationSummary.Failure) -> String {
    let scenario = failure.scenario.map { ", scenario \($0)" } ?? ""
    guard let shard = failure.shard, shard.count > 1, failure.schedule > 0 else {
      let shard = failure.shard.map { ", shard \($0)" } ?? ""
      return "\(scenario)\(shard), schedule \(failure.schedule)"
    }
    if let overall = failure.overallSchedule {
      return "\(scenario), schedule \(grouped(overall)) (schedule \(failure.schedule) of shard \(shard))"
    }
    let subtree = failure.subtree.map { " (subtree \($0))" } ?? ""
    return "\(scenario), shard \(shard), schedule \(failure.schedule)\(subtree)"
  }

  /// The rows as columns separated by two spaces, each as wide as its widest cell.
  static func aligned(_ rows: [[String]]) -> [String] {
    let columns = rows.map(\.count).max() ?? 0
    let widths = (0..<columns).map { column in
      rows.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
    }
    return rows.map { row in
      var line = ""
      for (column, cell) in row.enumerated() {
        let isLast = column == row.count - 1
        line += isLast ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
      }
      return line
    }
  }

  /// `about 26 % of an estimated 48,000 (at least 1,234 left)`.
  static func searchWords(_ search: ExplorationSummary.Search, done: Int) -> String {
    guard search.atLeastLeft > 0 else { return "the search tree is done" }
    let estimate = max(search.estimatedSchedules, done + search.atLeastLeft)
    let percent = min(99, done * 100 / max(estimate, 1))
    return "about \(percent) % of an estimated \(grouped(estimate)), a rough estimate; at least "
      + "\(grouped(search.atLeastLeft)) left"
  }

  /// `1,234,567`.
  static func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var text = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
      text.append(digit)
    }
    return (value < 0 ? "-" : "") + text
  }

  /// `0.4 s`, `52 s`, `4 min 52 s`, `1 h 4 min`.
  public static func time(_ seconds: Double) -> String {
    if seconds < 10 { return "\((seconds * 10).rounded() / 10) s" }
    let total = Int(seconds.rounded())
    if total < 60 { return "\(total) s" }
    if total < 3_600 { return total % 60 == 0 ? "\(total / 60) min" : "\(total / 60) min \(total % 60) s" }
    let minutes = (total % 3_600) / 60
    return minutes == 0 ? "\(total / 3_600) h" : "\(total / 3_600) h \(minutes) min"
  }
}
