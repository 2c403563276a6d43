// The text of a timeline: one line per stretch of steps of one task, aligned and wrapped.

extension Timeline {
  /// The width ``description`` wraps its lines at.
  public static let defaultLineWidth = 120

  /// One line per stretch of steps of one task, the time and task columns aligned, wrapped at
  /// ``defaultLineWidth`` characters; see ``text(lineWidth:)``.
  public var description: String { text(lineWidth: Self.defaultLineWidth) }

  /// One line per stretch of steps of one task, the time and task columns aligned; times are
  /// shown once virtual time has moved. Each line names its task briefly (`task 3`, `"reload"`);
  /// a legend below gives in full where each task was created. A line longer than `lineWidth`
  /// characters goes on, indented, on the next (`nil`: never wrapped).
  ///
  /// Consecutive steps of the same task at the same virtual time share a line (`4–6.`), without
  /// the bare `resumed` of each hop between actors; a run of lines that repeats a few lines above
  /// it is told once, with how many times it repeats. The step where a check failed ends with
  /// `✗ a check failed here`.
  ///
  /// ```swift
  /// print(failure.timeline.text(lineWidth: nil))   // each step on one line, however long
  /// ```
  public func text(lineWidth: Int?) -> String {
    let stretches = self.stretches
    let nameWidth = entries.map(\.shortName.count).max() ?? 0
    let showsTime = entries.contains { $0.time > .zero }
    let timeWidth = showsTime ? entries.map { Timeline.format($0.time).count }.max() ?? 0 : 0
    let bodies = stretches.map { stretch in
      let entry = stretch.entry
      var text = ""
      if showsTime {
        let time = Timeline.format(entry.time)
        text += "[" + time + "]" + String(repeating: " ", count: timeWidth - time.count) + " "
      }
      let padding = String(repeating: " ", count: max(0, nameWidth - entry.shortName.count))
      return text + entry.shortName + padding + "  " + entry.whatWithFailure
    }
    // Where the text of a line starts, after its steps, time and task: wrapped lines go on there.
    let textColumn = (showsTime ? timeWidth + 3 : 0) + nameWidth + 2
    var lines: [(steps: String, body: String)] = []
    var index = 0
    while index < stretches.count {
      guard let (period, count) = Self.repetition(at: index, in: bodies, stretches: stretches) else {
        lines.append((stretches[index].steps, bodies[index]))
        index += 1
        continue
      }
      for offset in 0..<period {
        lines.append((stretches[index + offset].steps, bodies[index + offset]))
      }
      let first = stretches[index + period].entries[0].step
      let last = stretches[index + period * count - 1].entries.last?.step ?? first
      let block = period == 1 ? "the line above" : "the \(period) lines above"
      lines.append(("\(first)–\(last).", "… \(block), \(count - 1) more times"))
      index += period * count
    }
    let stepWidth = lines.map(\.steps.count).max() ?? 0
    var text = lines.flatMap { line in
      let prefix = String(repeating: " ", count: stepWidth - line.steps.count) + line.steps + " "
      return Self.wrapped(prefix + line.body, width: lineWidth, indent: prefix.count + textColumn)
    }
    var legend: [Int: String] = [:]
    for entry in entries where entry.shortName != entry.taskName && legend[entry.task] == nil {
      legend[entry.task] = entry.taskName
    }
    if !legend.isEmpty {
      text.append("Where the tasks were created:")
      text += legend.keys.sorted().compactMap { legend[$0] }.flatMap { name in
        Self.wrapped("  " + name, width: lineWidth, indent: 4)
      }
    }
    if !waitsForOtherRuns.isEmpty {
      text.append("Other runs in progress:")
      text += waitsForOtherRuns.flatMap { Self.wrapped("  " + $0, width: lineWidth, indent: 4) }
    }
    if let reason = SuspendedTaskStacks.unavailability, entries.contains(where: { $0.task != 0 }) {
      text += Self.wrapped("Where each task was left is not shown: \(reason).", width: lineWidth, indent: 2)
    }
    return text.joined(separator: "\n")
  }

  /// `line` cut into lines of at most `width` characters at spaces, each after the first indented
  /// by `indent` (at most half the width); a word longer than a line is cut.
  static func wrapped(_ line: String, width: Int?, indent: Int) -> [String] {
    guard let width, line.count > width else { return [line] }
    let pad = String(repeating: " ", count: min(indent, width / 2))
    // The first line keeps its alignment; the words after it are packed, runs of spaces kept.
    let leading = line.prefix { $0 == " " }
    var lines: [String] = []
    var current = String(leading)
    var holdsWord = false
    for piece in line.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false) {
      var word = piece
      // A wrapped line does not start with the spaces that ended the one before.
      if !holdsWord && word.isEmpty && !lines.isEmpty { continue }
      while true {
        let separator = holdsWord ? " " : ""
        if current.count + separator.count + word.count <= width {
          current += separator + word
          holdsWord = true
          break
        }
        if holdsWord {
          lines.append(current)
          (current, holdsWord) = (pad, false)
          continue
        }
        let room = width - current.count
        lines.append(current + word.prefix(room))
        word = word.dropFirst(room)
        current = pad
        if word.isEmpty { break }
      }
    }
    if holdsWord { lines.append(current) }
    return lines
  }

  /// The longest run of lines, from `index`, that repeats a block of one to four lines at least
  /// three times in a row: the block's length and how many times it occurs. Lines where a check
  /// failed are never folded.
  private static func repetition(
    at index: Int, in bodies: [String], stretches: [Stretch]
  ) -> (period: Int, count: Int)? {
    var best: (period: Int, count: Int)?
    for period in 1...4 where index + 3 * period <= bodies.count {
      if (index..<(index + period)).contains(where: { stretches[$0].entry.failed }) { continue }
      var count = 1
      while index + (count + 1) * period <= bodies.count,
        (0..<period).allSatisfy({ bodies[index + count * period + $0] == bodies[index + $0] })
      {
        count += 1
      }
      if count >= 3 && count * period > (best.map { $0.count * $0.period } ?? 0) {
        best = (period, count)
      }
    }
    return best
  }
}
