/// A timeline laid out as swimlanes: one lane per task, left to right in the order the tasks
/// first ran, the steps down the page in the order they ran, each stretch of steps of one task a
/// box, and an arrow from the step that started, resumed or woke a task to the stretch where it
/// ran, when that step belongs to another task.
///
/// It is a pure function of its input: the same timeline and header give the same layout, in
/// whole pixels, and the same SVG text (``svg``, written by `TimelinePicture+SVG.swift`).
struct TimelinePicture: Equatable {
  /// A task's column.
  struct Lane: Equatable {
    let task: Int
    /// The task's name as the text timeline's lines give it; its header wraps it.
    let name: String
    /// The name with where the task was created in full (the header's tooltip).
    let fullName: String
    let x: Int
  }

  /// One stretch of steps of one task (a line of the text timeline).
  struct Box: Equatable {
    let lane: Int
    let x: Int
    let y: Int
    let width: Int
    let height: Int
    /// `4–6.`, and the virtual time when it has moved.
    let label: String
    /// The actions, wrapped to the box.
    let lines: [String]
    /// Everything the box says, unwrapped and untruncated (its tooltip).
    let fullText: String
    /// Whether a check failed in one of its steps.
    let failed: Bool
    /// The steps it covers, numbered from 1.
    let steps: ClosedRange<Int>
  }

  /// From the box whose step handed a job to the run, to the box where the job's task ran.
  struct Arrow: Equatable {
    let from: Int
    let to: Int
    let start: (x: Int, y: Int)
    let end: (x: Int, y: Int)

    static func == (lhs: Arrow, rhs: Arrow) -> Bool {
      lhs.from == rhs.from && lhs.to == rhs.to && lhs.start == rhs.start && lhs.end == rhs.end
    }
  }

  /// A label in the left margin: the virtual time, where it moves.
  struct TimeMark: Equatable {
    let y: Int
    let text: String
  }

  /// The lines above the lanes: a title, the line that replays the run, what failed.
  let header: [String]
  let headerHeight: Int
  let lanes: [Lane]
  let boxes: [Box]
  let arrows: [Arrow]
  let times: [TimeMark]
  /// A line under the last box, when the failure belongs to no step (a deadlock, a thrown error,
  /// a run that timed out), or when stretches were left out.
  let footer: [String]
  let width: Int
  let height: Int

  // Dimensions, in pixels; text is 12 px monospace, about 7.2 px a character.
  static let margin = 16
  static let timeColumn = 84
  static let laneWidth = 264
  static let laneGap = 16
  static let laneHeaderHeight = 42
  static let lineHeight = 15
  static let boxPadding = 6
  static let rowGap = 12
  static let headerLineHeight = 18
  static let characterWidth = 7.2
  /// Characters a box line holds, with room to spare for wider monospace fonts.
  static let boxColumns = Int(Double(laneWidth - 2 * boxPadding - 24) / characterWidth)
  /// The most lines of actions a box shows; the rest is in its tooltip.
  static let maxBoxLines = 6
  /// The most lines of one failure in the header.
  static let maxFailureLines = 4
  /// The most lines of a lane's header.
  static let maxLaneHeaderLines = 2
  /// Beyond this many stretches, the middle ones are left out: the first `keptAtStart` and the
  /// last `keptAtEnd` are drawn.
  static let maxStretches = 300
  static let keptAtStart = 60
  static let keptAtEnd = 240

  /// Lays out `timeline`, under `title`, the `replay` line and what failed.
  init(timeline: Timeline, title: String, replay: String?, failures: [String]) {
    // Steps of no task's job have no lane: the text timeline tells them.
    let stretches = timeline.stretches.filter { $0.entry.task != 0 }
    // Lanes, in the order the tasks first ran.
    var laneOfTask: [Int: Int] = [:]
    var lanes: [Lane] = []
    for entry in timeline.entries where entry.task != 0 && laneOfTask[entry.task] == nil {
      laneOfTask[entry.task] = lanes.count
      lanes.append(
        Lane(
          task: entry.task, name: entry.shortName, fullName: entry.taskName,
          x: Self.margin + Self.timeColumn + lanes.count * (Self.laneWidth + Self.laneGap)))
    }
    let contentWidth = lanes.count * (Self.laneWidth + Self.laneGap) - Self.laneGap
    let width = Self.margin * 2 + Self.timeColumn + max(contentWidth, Self.laneWidth)
    let headerColumns = Int(Double(width - 2 * Self.margin) / Self.characterWidth)

    // The header: the title, the replay line, the first line of each failure.
    var header = [title]
    if let replay { header.append(replay) }
    header = header.map { Self.truncated($0, to: headerColumns) }
    if !failures.isEmpty {
      header.append("What failed:")
      // Each failure's first line, wrapped rather than cut: its end often says what went wrong.
      for failure in failures.prefix(5) {
        var lines = Self.wrapped(Self.firstLine(of: failure), to: headerColumns - 2)
        if lines.count > Self.maxFailureLines {
          lines = Array(lines.prefix(Self.maxFailureLines))
          lines[lines.count - 1] = Self.truncated(lines[lines.count - 1] + " …", to: headerColumns - 2)
        }
        header += lines.enumerated().map { ($0.offset == 0 ? "- " : "  ") + $0.element }
      }
      if failures.count > 5 { header.append("  … and \(failures.count - 5) more") }
    }
    let headerHeight = Self.margin + header.count * Self.headerLineHeight + 8

    // Which stretches are drawn.
    var kept = Array(stretches.indices)
    var leftOut = 0
    if stretches.count > Self.maxStretches {
      kept = Array(0..<Self.keptAtStart) + Array((stretches.count - Self.keptAtEnd)..<stretches.count)
      leftOut = stretches.count - Self.keptAtStart - Self.keptAtEnd
    }

    // Boxes, one row each, down the page.
    let showsTime = timeline.entries.contains { $0.time > .zero }
    var y = headerHeight + Self.laneHeaderHeight + Self.rowGap
    var boxes: [Box] = []
    var times: [TimeMark] = []
    var boxOfStretch: [Int: Int] = [:]
    var lastTime: Duration?
    for index in kept {
      if leftOut > 0 && index == stretches.count - Self.keptAtEnd {
        // The gap where stretches are left out.
        times.append(TimeMark(y: y + Self.lineHeight, text: "…"))
        y += Self.lineHeight * 2 + Self.rowGap
      }
      let stretch = stretches[index]
      let entry = stretch.entry
      let lane = laneOfTask[entry.task] ?? 0
      let time = Timeline.format(entry.time)
      let label = showsTime ? "\(stretch.steps) [\(time)]" : stretch.steps
      let text = entry.what.replacingNewlines(with: " ")
      var lines = Self.wrapped(text, to: Self.boxColumns)
      if lines.count > Self.maxBoxLines {
        lines = Array(lines.prefix(Self.maxBoxLines))
        lines[lines.count - 1] = Self.truncated(lines[lines.count - 1] + " …", to: Self.boxColumns)
      }
      if entry.failed { lines.append("✗ a check failed here") }
      let height = Self.boxPadding * 2 + (lines.count + 1) * Self.lineHeight
      if lastTime != entry.time {
        times.append(TimeMark(y: y + Self.boxPadding + Self.lineHeight - 3, text: time))
        lastTime = entry.time
      }
      boxOfStretch[index] = boxes.count
      boxes.append(
        Box(
          lane: lane, x: lanes[lane].x + 4, y: y, width: Self.laneWidth - 8, height: height,
          label: label, lines: lines,
          fullText: "\(stretch.steps) \(entry.taskName) at \(time): \(text)"
            + (entry.failed ? " — a check failed here" : ""),
          failed: entry.failed,
          steps: stretch.entries[0].step...stretch.entries[stretch.entries.count - 1].step))
      y += height + Self.rowGap
    }

    // Arrows: from the box of the step that handed each job to the run, when it is in another
    // lane, to the box of the stretch the job belongs to. A step shown in several boxes (an actor
    // job that ran the work of several tasks) counts as in the target's lane if one of its boxes is.
    var boxesOfStep: [Int: [Int]] = [:]
    for (index, box) in boxes.enumerated() {
      for step in box.steps { boxesOfStep[step, default: []].append(index) }
    }
    var arrows: [Arrow] = []
    var seen: Set<[Int]> = []
    for index in kept {
      guard let to = boxOfStretch[index] else { continue }
      let target = boxes[to]
      for entry in stretches[index].entries {
        guard let resumer = entry.resumedBy, let sources = boxesOfStep[resumer], !sources.isEmpty
        else { continue }
        if sources.contains(where: { boxes[$0].lane == target.lane }) { continue }
        let from = sources[0]
        guard from < to, seen.insert([from, to]).inserted else { continue }
        let source = boxes[from]
        let rightward = target.lane > source.lane
        arrows.append(
          Arrow(
            from: from, to: to,
            start: (rightward ? source.x + source.width : source.x, source.y + source.height - 8),
            end: (rightward ? target.x : target.x + target.width, target.y + 10)))
      }
    }

    // The footer.
    var footer: [String] = []
    if leftOut > 0 {
      footer.append(
        "\(leftOut) stretches of steps in the middle are left out; the text timeline has them all.")
    }
    if !failures.isEmpty && !boxes.contains(where: \.failed) {
      let last = timeline.entries.last?.step ?? 0
      footer.append(
        Self.truncated("✗ after step \(last): " + Self.firstLine(of: failures[0]), to: headerColumns))
    }
    y += footer.count * Self.headerLineHeight

    self.header = header
    self.headerHeight = headerHeight
    self.lanes = lanes
    self.boxes = boxes
    self.arrows = arrows
    self.times = times
    self.footer = footer
    self.width = width
    self.height = y + Self.margin
  }

  static func firstLine(of text: String) -> String {
    String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
  }

  /// `text` cut to `columns` characters, ending with `…` when cut.
  static func truncated(_ text: String, to columns: Int) -> String {
    text.count <= columns ? text : String(text.prefix(max(0, columns - 1))) + "…"
  }

  /// `text` broken at spaces into lines of at most `columns` characters; a word longer than a
  /// line is broken where the line ends.
  static func wrapped(_ text: String, to columns: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      var word = Substring(word)
      if !line.isEmpty && line.count + 1 + word.count > columns {
        lines.append(line)
        line = ""
      }
      while line.isEmpty && word.count > columns {
        lines.append(String(word.prefix(columns)))
        word = word.dropFirst(columns)
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty || lines.isEmpty { lines.append(line) }
    return lines
  }
}
