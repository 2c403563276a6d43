/// One call of a scenario: which operation, with which of its arguments.
struct ScenarioCall: Hashable, Sendable {
  let operation: Int
  let argument: Int
}

/// What one scenario calls: some calls one after another, then tasks that call the object at the
/// same time, each its calls in order, then more calls once they are all done.
struct Scenario: Hashable, Sendable {
  var before: [ScenarioCall]
  var tasks: [[ScenarioCall]]
  var after: [ScenarioCall]

  /// How many calls it makes.
  var callCount: Int { before.count + tasks.reduce(0) { $0 + $1.count } + after.count }

  /// `2 tasks × 1–2 calls, 1 before` and so on.
  var size: String {
    let counts = tasks.map(\.count)
    let low = counts.min() ?? 0
    let high = counts.max() ?? 0
    var text =
      "\(tasks.count) task\(tasks.count == 1 ? "" : "s") × "
      + (low == high ? "\(low)" : "\(low)–\(high)") + " call\(high == 1 ? "" : "s")"
    if !before.isEmpty { text += ", \(before.count) before" }
    if !after.isEmpty { text += ", \(after.count) after" }
    return text
  }

  /// The scenarios with one call or one task fewer, largest cuts first: what shrinking tries.
  var smaller: [Scenario] {
    var candidates: [Scenario] = []
    if tasks.count > 1 {
      for index in tasks.indices.reversed() {
        var fewer = self
        fewer.tasks.remove(at: index)
        candidates.append(fewer)
      }
    }
    for index in after.indices.reversed() {
      var fewer = self
      fewer.after.remove(at: index)
      candidates.append(fewer)
    }
    for index in before.indices.reversed() {
      var fewer = self
      fewer.before.remove(at: index)
      candidates.append(fewer)
    }
    for task in tasks.indices where tasks[task].count > 1 {
      for index in tasks[task].indices.reversed() {
        var fewer = self
        fewer.tasks[task].remove(at: index)
        candidates.append(fewer)
      }
    }
    return candidates
  }
}

/// The text of a scenario in a replay token: `C1.` and, in base64url, its parts as LEB128 numbers.
enum ScenarioCodec {
  static let prefix = "C1."

  static func encode(_ scenario: Scenario) -> String {
    var bytes: [UInt8] = []
    func put(_ calls: [ScenarioCall]) {
      Varint.append(UInt64(calls.count), to: &bytes)
      for call in calls {
        Varint.append(UInt64(call.operation), to: &bytes)
        Varint.append(UInt64(call.argument), to: &bytes)
      }
    }
    put(scenario.before)
    Varint.append(UInt64(scenario.tasks.count), to: &bytes)
    scenario.tasks.forEach(put)
    put(scenario.after)
    return prefix + Base64URL.encode(bytes)
  }

  /// The scenario of `text`, or `nil` when it is not one.
  static func decode(_ text: Substring) -> Scenario? {
    guard text.hasPrefix(prefix), let bytes = Base64URL.decode(text.dropFirst(prefix.count))
    else { return nil }
    var position = 0
    func number() -> Int? {
      Varint.read(bytes, at: &position).flatMap { $0 < 1 << 20 ? Int($0) : nil }
    }
    func calls() -> [ScenarioCall]? {
      guard let count = number() else { return nil }
      var calls: [ScenarioCall] = []
      for _ in 0..<count {
        guard let operation = number(), let argument = number() else { return nil }
        calls.append(ScenarioCall(operation: operation, argument: argument))
      }
      return calls
    }
    guard let before = calls(), let taskCount = number() else { return nil }
    var tasks: [[ScenarioCall]] = []
    for _ in 0..<taskCount {
      guard let task = calls() else { return nil }
      tasks.append(task)
    }
    guard let after = calls(), position == bytes.count else { return nil }
    return Scenario(before: before, tasks: tasks, after: after)
  }
}
