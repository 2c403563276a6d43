/// A parsed marble diagram: what happens at each tick.
///
/// The syntax, one character a tick:
/// - a letter or a digit: a value (its value comes from the diagram's values);
/// - `-`: a tick in which nothing happens;
/// - `|`: the sequence finishes; `#`: it fails;
/// - `(…)`: several events in one tick, in order, e.g. `(ab)` or `(c|)`; the group is one tick
///   however many characters it takes;
/// - spaces are ignored, to align diagrams in source.
///
/// Nothing may follow `|` or `#` but spaces. A diagram that ends without either never finishes.
struct MarbleDiagram: Equatable, CustomStringConvertible {
  /// One event of a tick.
  enum Symbol: Equatable {
    case value(Character)
    case finish
    case failure

    var character: Character {
      switch self {
      case .value(let character): character
      case .finish: "|"
      case .failure: "#"
      }
    }

    var isTerminal: Bool { self == .finish || self == .failure }
  }

  /// The events of each tick, from tick 0; a tick in which nothing happens is empty.
  var ticks: [[Symbol]]

  /// Whether the diagram ends with `|` or `#`.
  var isTerminated: Bool { ticks.last?.last?.isTerminal ?? false }

  /// The letters and digits that stand for values, in order of appearance.
  var valueCharacters: [Character] {
    ticks.flatMap { $0 }.compactMap { symbol in
      if case .value(let character) = symbol { return character }
      return nil
    }
  }

  /// The diagram written back, one cell a tick: `-`, a symbol, or a group.
  var description: String { ticks.map(Self.cell).joined() }

  /// How a tick is written.
  static func cell(_ symbols: [Symbol]) -> String {
    switch symbols.count {
    case 0: "-"
    case 1: String(symbols[0].character)
    default: "(" + String(symbols.map(\.character)) + ")"
    }
  }

  /// Whether a character stands for a value.
  static func isValueCharacter(_ character: Character) -> Bool {
    character.isASCII && (character.isLetter || character.isNumber)
  }

  /// Parses `text`, or says what is wrong with it and where.
  static func parse(_ text: String) -> Result<MarbleDiagram, MarbleSyntaxError> {
    var ticks: [[Symbol]] = []
    var group: [Symbol]?
    var ended = false
    func fail(_ problem: String, at position: Int) -> Result<MarbleDiagram, MarbleSyntaxError> {
      .failure(MarbleSyntaxError(diagram: text, position: position, problem: problem))
    }
    for (offset, character) in text.enumerated() {
      let position = offset + 1
      if character == " " { continue }
      if ended, group == nil {
        return fail(
          "nothing can follow the end ('|' or '#'), found '\(character)'", at: position)
      }
      switch character {
      case "-":
        guard group == nil else { return fail("'-' inside a group: a group is one tick", at: position) }
        ticks.append([])
      case "(":
        guard group == nil else { return fail("a group cannot contain another group", at: position) }
        group = []
      case ")":
        guard let events = group else { return fail("')' without an opening '('", at: position) }
        guard !events.isEmpty else { return fail("an empty group '()'", at: position) }
        ticks.append(events)
        group = nil
      case "|", "#":
        let symbol: Symbol = character == "|" ? .finish : .failure
        if group != nil {
          group!.append(symbol)
        } else {
          ticks.append([symbol])
        }
        ended = true
      default:
        guard isValueCharacter(character) else {
          return fail(
            "unknown marble character '\(character)'; use a letter or digit for a value, '-' for "
              + "a tick with nothing, '|' for the end, '#' for a failure, '(…)' for events of one "
              + "tick and spaces to align",
            at: position)
        }
        if group != nil {
          if ended { return fail("nothing can follow the end ('|' or '#') in a group", at: position) }
          group!.append(.value(character))
        } else {
          ticks.append([.value(character)])
        }
      }
    }
    if group != nil { return fail("a group '(' that is never closed", at: text.count) }
    return .success(MarbleDiagram(ticks: ticks))
  }
}

/// What is wrong with a marble diagram, and where.
struct MarbleSyntaxError: Error, Equatable, CustomStringConvertible {
  let diagram: String
  /// The position of the offending character, 1 for the first.
  let position: Int
  let problem: String

  var description: String {
    "marble diagram \"\(diagram)\", character \(position): \(problem)"
  }
}
