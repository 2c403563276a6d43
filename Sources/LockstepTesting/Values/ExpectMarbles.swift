/// Drives an input marble diagram into the code under test on a ``TestClock``, records what comes
/// out, and checks it against an expected diagram.
///
/// One character is one tick (one second unless you give `tick:`): a letter or digit is a value,
/// `-` a tick with nothing, `|` the end, `#` a failure, `(…)` several events in one tick; spaces
/// are ignored. Here a debounce of three ticks drops `a`, emits `b` three ticks after it, and
/// flushes `c` when the input ends:
///
/// ```swift
/// @Test(.timeLimit(.minutes(1))) func debounceWaitsForAQuietPeriod() async {
///   await expectMarbles(from: "a-b----c-|", to: "-----b---(c|)") { input, clock in
///     input.debounced(for: .seconds(3), clock: clock)
///   }
/// }
/// ```
///
/// A mismatch is reported at your line with the diagrams aligned tick by tick and the first
/// difference marked:
///
/// ```text
/// Marble diagrams differ at tick 3 (3 s): expected nothing, got 'b'.
///   input:    a-b----c-|
///   expected: -----b---(c|)
///   actual:   ---b-----(c|)
///                ^
/// ```
///
/// It runs on the deterministic scheduler with a `TestClock(advancesAutomatically: true)` (inside a
/// deterministic run, on that run), so the ticks are exact and take microseconds. Misuse of a
/// diagram is reported at your line and nothing runs. See <doc:ValuesOverTime> for the rules.
///
/// - Parameters:
///   - input: The input diagram; each letter or digit stands for itself, as a `String`.
///   - expected: The output diagram the code under test must produce.
///   - tick: How long one character lasts on the clock.
///   - body: Builds the code under test from the input and the clock, and returns its output.
///     It runs inside the deterministic run.
/// - Returns: Whether the output matched.
@discardableResult
public func expectMarbles<Output: AsyncSequence & SendableMetatype>(
  from input: String, to expected: String, tick: Duration = .seconds(1),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: @escaping @Sendable (MarbleInput<String>, TestClock) async -> sending Output
) async -> Bool where Output.Element == String {
  await runMarbleTest(
    inputs: [input], expected: expected, values: .letters, tick: tick,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  ) { inputs, clock in await body(inputs[0], clock) }
}

/// Drives several input diagrams — one sequence each — into the code under test, and checks its
/// output against an expected diagram. See
/// ``expectMarbles(from:to:tick:fileID:filePath:line:column:_:)-(String,_,_,_,_,_,_,_)`` for the diagrams and how the
/// test runs.
///
/// ```swift
/// await expectMarbles(from: ["a-c-e|", "-b-d---f|"], to: "abcde--f|") { inputs, _ in
///   inputs[0].merged(with: inputs[1])
/// }
/// ```
///
/// - Parameters:
///   - inputs: The input diagrams, in the order the body receives them.
///   - expected: The output diagram the code under test must produce.
///   - tick: How long one character lasts on the clock.
///   - body: Builds the code under test from the inputs and the clock, and returns its output.
/// - Returns: Whether the output matched.
@discardableResult
public func expectMarbles<Output: AsyncSequence & SendableMetatype>(
  from inputs: [String], to expected: String, tick: Duration = .seconds(1),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: @escaping @Sendable ([MarbleInput<String>], TestClock) async -> sending Output
) async -> Bool where Output.Element == String {
  await runMarbleTest(
    inputs: inputs, expected: expected, values: .letters, tick: tick,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), body)
}

/// Like ``expectMarbles(from:to:tick:fileID:filePath:line:column:_:)-(String,_,_,_,_,_,_,_)``, with each letter or digit
/// standing for the value `values` gives it.
///
/// ```swift
/// await expectMarbles(
///   from: "abc|", to: "a-c|", values: ["a": 1, "b": 2, "c": 3]
/// ) { input, clock in
///   input.throttled(for: .seconds(2), clock: clock)
/// }
/// ```
///
/// An output value that no character stands for is drawn as `?` and named in the report.
///
/// - Parameters:
///   - input: The input diagram.
///   - expected: The output diagram the code under test must produce.
///   - values: The value of each letter or digit used in the diagrams.
///   - tick: How long one character lasts on the clock.
///   - body: Builds the code under test from the input and the clock, and returns its output.
/// - Returns: Whether the output matched.
@discardableResult
public func expectMarbles<Value: Sendable & Equatable, Output: AsyncSequence & SendableMetatype>(
  from input: String, to expected: String, values: [Character: Value],
  tick: Duration = .seconds(1),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: @escaping @Sendable (MarbleInput<Value>, TestClock) async -> sending Output
) async -> Bool where Output.Element == Value {
  await runMarbleTest(
    inputs: [input], expected: expected, values: MarbleValues(values), tick: tick,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  ) { inputs, clock in await body(inputs[0], clock) }
}

/// Like ``expectMarbles(from:to:tick:fileID:filePath:line:column:_:)-(String,_,_,_,_,_,_,_)``, for several inputs, with
/// each letter or digit standing for the value `values` gives it.
///
/// ```swift
/// await expectMarbles(
///   from: ["1-3|", "-2-4|"], to: "1234|", values: ["1": 1, "2": 2, "3": 3, "4": 4]
/// ) { inputs, _ in
///   inputs[0].merged(with: inputs[1])
/// }
/// ```
///
/// - Parameters:
///   - inputs: The input diagrams, in the order the body receives them.
///   - expected: The output diagram the code under test must produce.
///   - values: The value of each letter or digit used in the diagrams.
///   - tick: How long one character lasts on the clock.
///   - body: Builds the code under test from the inputs and the clock, and returns its output.
/// - Returns: Whether the output matched.
@discardableResult
public func expectMarbles<Value: Sendable & Equatable, Output: AsyncSequence & SendableMetatype>(
  from inputs: [String], to expected: String, values: [Character: Value],
  tick: Duration = .seconds(1),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: @escaping @Sendable ([MarbleInput<Value>], TestClock) async -> sending Output
) async -> Bool where Output.Element == Value {
  await runMarbleTest(
    inputs: inputs, expected: expected, values: MarbleValues(values), tick: tick,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), body)
}

// MARK: - The driver

/// Checks the diagrams, then runs the test inside the current deterministic run, or a new one.
private func runMarbleTest<Value: Sendable & Equatable, Output: AsyncSequence & SendableMetatype>(
  inputs: [String], expected: String, values: MarbleValues<Value>, tick: Duration, site: CallSite,
  _ body: @escaping @Sendable ([MarbleInput<Value>], TestClock) async -> sending Output
) async -> Bool where Output.Element == Value {
  let plan: MarblePlan<Value>
  switch MarblePlan.make(inputs: inputs, expected: expected, values: values, tick: tick) {
  case .success(let made): plan = made
  case .failure(let misuse):
    reportIssue("expectMarbles: \(misuse.message)", at: site)
    return false
  }
  let report: String?
  if CurrentRun.isActive {
    report = await drive(plan, body)
  } else {
    do {
      report = try await withDeterministicScheduling(
        fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column
      ) { await drive(plan, body) }
    } catch {
      reportIssue("expectMarbles could not run its deterministic run: \(error)", at: site)
      return false
    }
  }
  guard let report else { return true }
  reportIssue(report, at: site)
  return false
}

/// The checked diagrams of a marble test.
private struct MarblePlan<Value: Sendable & Equatable>: Sendable {
  let inputTexts: [String]
  let inputs: [MarbleDiagram]
  let expected: MarbleDiagram
  let values: MarbleValues<Value>
  let tick: Duration

  struct Misuse: Error {
    let message: String
  }

  static func make(
    inputs: [String], expected: String, values: MarbleValues<Value>, tick: Duration
  ) -> Result<MarblePlan, Misuse> {
    guard tick > .zero else {
      return .failure(Misuse(message: "the tick must be longer than zero, not \(tick.lockstepText)"))
    }
    guard !inputs.isEmpty else { return .failure(Misuse(message: "there is no input diagram")) }
    var parsed: [MarbleDiagram] = []
    for (index, text) in inputs.enumerated() {
      let role = inputs.count == 1 ? "the input" : "input \(index + 1)"
      switch MarbleDiagram.parse(text) {
      case .success(let diagram):
        if let missing = missingValue(in: diagram, values: values) {
          return .failure(Misuse(message: "'\(missing)' in \(role), \(describeMissing(text, values))"))
        }
        parsed.append(diagram)
      case .failure(let error):
        return .failure(Misuse(message: "\(role) is not a marble diagram: \(error)"))
      }
    }
    let output: MarbleDiagram
    switch MarbleDiagram.parse(expected) {
    case .success(let diagram): output = diagram
    case .failure(let error):
      return .failure(Misuse(message: "the expected output is not a marble diagram: \(error)"))
    }
    if let missing = missingValue(in: output, values: values) {
      return .failure(
        Misuse(message: "'\(missing)' in the expected output, \(describeMissing(expected, values))"))
    }
    return .success(
      MarblePlan(inputTexts: inputs, inputs: parsed, expected: output, values: values, tick: tick))
  }

  private static func missingValue(in diagram: MarbleDiagram, values: MarbleValues<Value>) -> Character? {
    diagram.valueCharacters.first { values.value($0) == nil }
  }

  private static func describeMissing(_ text: String, _ values: MarbleValues<Value>) -> String {
    let known = (values.known ?? []).map { "'\($0)'" }.joined(separator: ", ")
    return "\"\(text)\", stands for no value; values has \(known.isEmpty ? "none" : known)"
  }

  /// The events of input `index`, each with its tick.
  func events(ofInput index: Int) -> [(tick: Int, event: MarbleInput<Value>.Event)] {
    inputs[index].ticks.enumerated().flatMap { tick, symbols in
      symbols.map { symbol -> (tick: Int, event: MarbleInput<Value>.Event) in
        switch symbol {
        case .value(let character): (tick, .value(values.value(character)!))
        case .finish: (tick, .finish)
        case .failure: (tick, .failure)
        }
      }
    }
  }

  /// The longest diagram, in ticks.
  var length: Int { max(expected.ticks.count, inputs.map(\.ticks.count).max() ?? 0) }
}

/// What the output did, in order, with the clock's time of each event.
private struct MarbleOutputLog<Value> {
  var events: [(offset: Duration, event: MarbleOutputEvent<Value>)] = []
  var ended = false
}

/// Runs one marble test inside the current deterministic run; returns the mismatch report, if
/// any.
private func drive<Value: Sendable & Equatable, Output: AsyncSequence & SendableMetatype>(
  _ plan: MarblePlan<Value>,
  _ body: @Sendable ([MarbleInput<Value>], TestClock) async -> sending Output
) async -> String? where Output.Element == Value {
  let clock = TestClock(advancesAutomatically: true)
  let inputs = plan.inputTexts.indices.map { index in
    MarbleInput(
      diagram: plan.inputTexts[index], number: index + 1, events: plan.events(ofInput: index),
      clock: clock, tick: plan.tick)
  }
  let output = await body(inputs, clock)
  let log = Locked(MarbleOutputLog<Value>())
  let consumer = Task {
    do {
      for try await value in output {
        let now = clock.now.offset
        log.withLock { $0.events.append((now, .value(value))) }
      }
      let now = clock.now.offset
      log.withLock {
        $0.events.append((now, .finish))
        $0.ended = true
      }
    } catch {
      let now = clock.now.offset
      let description = String(describing: error)
      log.withLock {
        $0.events.append((now, .failure(description)))
        $0.ended = true
      }
    }
  }
  // Step through time: let everything at this instant happen, then move to the next sleeper.
  let horizon = plan.tick * (plan.length + 1000)
  var stoppedEarly: String?
  while true {
    _ = await CurrentRun.awaitQuiescence()
    if log.withLock({ $0.ended }) { break }
    guard let next = clock.pendingDeadlines.first else { break }  // nothing more can happen
    if next.offset > horizon {
      stoppedEarly =
        "The recording stopped at tick \(marbleTick(of: clock.now.offset, tick: plan.tick)), "
        + "1,000 ticks after the longest diagram, with the output still going: compare a prefix of it."
      break
    }
    do { try await clock.sleep(until: next) } catch { break }
  }
  consumer.cancel()
  let events = log.withLock { $0.events }
  var ticks: [[MarbleOutputEvent<Value>]] = []
  for (offset, event) in events {
    let tick = marbleTick(of: offset, tick: plan.tick)
    while ticks.count <= tick { ticks.append([]) }
    ticks[tick].append(event)
  }
  let comparison = MarbleComparison(
    expected: plan.expected, actual: ticks, inputs: plan.inputTexts, values: plan.values,
    tick: plan.tick)
  return comparison.mismatchReport(stoppedEarly: stoppedEarly)
}
