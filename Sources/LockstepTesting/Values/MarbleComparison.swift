/// How the letters and digits of marble diagrams stand for values, both ways.
struct MarbleValues<Value: Sendable & Equatable>: Sendable {
  /// The value a character stands for, nil when it stands for none.
  let value: @Sendable (Character) -> Value?
  /// A character that stands for the value, nil when none does.
  let symbol: @Sendable (Value) -> Character?
  /// The characters with values, for misuse reports; nil when every letter and digit has one.
  let known: [Character]?

  init(
    value: @escaping @Sendable (Character) -> Value?, symbol: @escaping @Sendable (Value) -> Character?,
    known: [Character]?
  ) {
    self.value = value
    self.symbol = symbol
    self.known = known
  }

  /// Each character stands for the value it is mapped to.
  init(_ map: [Character: Value]) {
    value = { map[$0] }
    symbol = { value in map.filter { $0.value == value }.keys.sorted().first }
    known = map.keys.sorted()
  }
}

extension MarbleValues where Value == String {
  /// Each letter or digit stands for itself, as a one-character string.
  static var letters: MarbleValues {
    MarbleValues(
      value: { String($0) },
      symbol: { value in
        guard value.count == 1, let character = value.first,
          MarbleDiagram.isValueCharacter(character)
        else { return nil }
        return character
      },
      known: nil)
  }
}

/// One event of the recorded output.
enum MarbleOutputEvent<Value> {
  case value(Value)
  case finish
  case failure(String)
}

/// Compares a recorded output with an expected diagram, and writes the report of a mismatch:
/// every diagram aligned tick by tick, the first difference marked.
struct MarbleComparison<Value: Sendable & Equatable> {
  let expected: MarbleDiagram
  /// The output's events of each tick, from tick 0.
  let actual: [[MarbleOutputEvent<Value>]]
  let inputs: [String]
  let values: MarbleValues<Value>
  let tick: Duration

  /// The actual output written as a diagram (`?` for a value no character stands for).
  var actualDiagram: String { actual.map(cell).joined() }

  /// The first tick at which the output differs from the expected diagram, if any.
  var firstDifference: Int? {
    let length = max(expected.ticks.count, actual.count)
    return (0..<length).first { tick in !matches(expectedEvents(tick), actualEvents(tick)) }
  }

  /// The report of a mismatch, or nil when the output matches.
  func mismatchReport(stoppedEarly: String?) -> String? {
    guard let tick = firstDifference else { return nil }
    let expectedHere = expectedEvents(tick)
    let actualHere = actualEvents(tick)
    var text =
      "Marble diagrams differ at tick \(tick) (\(timeOf(tick))): expected "
      + describe(expectedHere) + ", got " + describe(actualHere) + "."
    if tick >= expected.ticks.count, !expected.isTerminated {
      text +=
        " The output goes on after the expected diagram ends (it has \(expected.ticks.count) "
        + "tick\(expected.ticks.count == 1 ? "" : "s")): lengthen the expected diagram, or end "
        + "it with '|'."
    }
    text += "\n" + alignedRows(marking: tick)
    let unnamed = unnamedValues()
    if !unnamed.isEmpty {
      text += "\n'?' is a value no marble character stands for: " + unnamed.joined(separator: ", ")
    }
    if let stoppedEarly { text += "\n" + stoppedEarly }
    return text
  }

  /// Every diagram, one row each, with each tick's cells padded to the same width, and a caret
  /// under the start of tick `marked`.
  func alignedRows(marking marked: Int) -> String {
    let parsedInputs = inputs.map {
      (try? MarbleDiagram.parse($0).get())?.ticks.map(MarbleDiagram.cell) ?? [$0]
    }
    var rows: [(label: String, cells: [String])] = []
    for (index, cells) in parsedInputs.enumerated() {
      rows.append((inputs.count == 1 ? "input" : "input \(index + 1)", cells))
    }
    rows.append(("expected", expected.ticks.map(MarbleDiagram.cell)))
    rows.append(("actual", actual.map(cell)))
    let length = rows.map(\.cells.count).max() ?? 0
    let widths = (0..<length).map { tick in
      rows.map { $0.cells.indices.contains(tick) ? $0.cells[tick].count : 0 }.max() ?? 1
    }
    let labelWidth = rows.map(\.label.count).max() ?? 0
    func pad(_ text: String, _ width: Int) -> String {
      text + String(repeating: " ", count: max(0, width - text.count))
    }
    var lines = rows.map { row in
      var line = "  " + pad(row.label + ":", labelWidth + 2)
      for tick in 0..<length {
        line += pad(row.cells.indices.contains(tick) ? row.cells[tick] : "", widths[tick])
      }
      return String(line.reversed().drop { $0 == " " }.reversed())
    }
    let caretColumn = 2 + labelWidth + 2 + widths.prefix(marked).reduce(0, +)
    lines.append(String(repeating: " ", count: caretColumn) + "^")
    return lines.joined(separator: "\n")
  }

  // MARK: Helpers

  private func expectedEvents(_ tick: Int) -> [MarbleDiagram.Symbol] {
    expected.ticks.indices.contains(tick) ? expected.ticks[tick] : []
  }

  private func actualEvents(_ tick: Int) -> [MarbleOutputEvent<Value>] {
    actual.indices.contains(tick) ? actual[tick] : []
  }

  private func matches(_ expected: [MarbleDiagram.Symbol], _ actual: [MarbleOutputEvent<Value>]) -> Bool {
    guard expected.count == actual.count else { return false }
    return zip(expected, actual).allSatisfy { symbol, event in
      switch (symbol, event) {
      case (.value(let character), .value(let value)): values.value(character) == value
      case (.finish, .finish), (.failure, .failure): true
      default: false
      }
    }
  }

  private func cell(_ events: [MarbleOutputEvent<Value>]) -> String {
    let characters = events.map { event -> Character in
      switch event {
      case .value(let value): values.symbol(value) ?? "?"
      case .finish: "|"
      case .failure: "#"
      }
    }
    switch characters.count {
    case 0: return "-"
    case 1: return String(characters[0])
    default: return "(" + String(characters) + ")"
    }
  }

  private func describe(_ symbols: [MarbleDiagram.Symbol]) -> String {
    guard !symbols.isEmpty else { return "nothing" }
    return symbols.map { symbol in
      switch symbol {
      case .value(let character): "'\(character)'"
      case .finish: "the end"
      case .failure: "a failure"
      }
    }.joined(separator: " then ")
  }

  private func describe(_ events: [MarbleOutputEvent<Value>]) -> String {
    guard !events.isEmpty else { return "nothing" }
    return events.map { event in
      switch event {
      case .value(let value):
        values.symbol(value).map { "'\($0)'" } ?? "the value \(String(reflecting: value))"
      case .finish: "the end"
      case .failure(let error): "a failure (\(error))"
      }
    }.joined(separator: " then ")
  }

  private func unnamedValues() -> [String] {
    actual.enumerated().flatMap { tick, events in
      events.compactMap { event -> String? in
        guard case .value(let value) = event, values.symbol(value) == nil else { return nil }
        return "\(String(reflecting: value)) at tick \(tick)"
      }
    }
  }

  private func timeOf(_ tick: Int) -> String {
    (self.tick * tick).lockstepText
  }
}

/// The tick during which `offset` falls: exact multiples of `tick` land on their tick.
func marbleTick(of offset: Duration, tick: Duration) -> Int {
  let ticks = offset / tick
  let nearest = ticks.rounded()
  return abs(ticks - nearest) < 1e-9 ? Int(nearest) : Int(ticks.rounded(.down))
}
