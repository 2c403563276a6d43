import Foundation

/// What the environment of the test process asks of every exploration, read once per process:
///
/// | variable | value | what it does |
/// |---|---|---|
/// | `LOCKSTEP_SEED` | a whole number | the seed of random and PCT strategies given no `seed:` |
/// | `LOCKSTEP_EXPLORE_SCALE` | a positive number | multiplies `schedules:` and exhaustive `limit:` |
/// | `LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS` | 0 or more | adds to every exhaustive `maxPreemptions:` |
/// | `LOCKSTEP_EXPLORE_TIME` | `90s`, `5m`, `1h`, `500ms` | the most real time one `explore` spends |
/// | `LOCKSTEP_SHARD` | `k/n`, 1 ≤ k ≤ n | this process explores only shard k of n |
///
/// An empty value is the same as no value. A value that cannot be read is a problem reported at
/// every `explore` call, which then runs nothing: a misconfigured CI job fails loudly instead of
/// exploring something else in silence.
struct ExplorationEnvironment: Sendable, Equatable {
  static let seedVariable = Interleavings.seedVariable
  static let scaleVariable = "LOCKSTEP_EXPLORE_SCALE"
  static let extraPreemptionsVariable = "LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS"
  static let timeVariable = "LOCKSTEP_EXPLORE_TIME"
  static let shardVariable = "LOCKSTEP_SHARD"

  /// How many times the schedules of every strategy: 1 unless `LOCKSTEP_EXPLORE_SCALE` is set.
  var scale: Double = 1
  /// What `LOCKSTEP_EXPLORE_SCALE` says, as written, when it is set.
  var scaleText: String?
  /// Added to the preemption bound of every exhaustive strategy.
  var extraPreemptions = 0
  /// The most real time one exploration spends, and the variable's text.
  var timeBudget: Duration?
  var timeText: String?
  /// The part of the schedules this process explores.
  var shard: ExplorationShard?
  /// Each variable whose value cannot be read, with what it must be.
  var problems: [String] = []

  init() {}

  /// Reads the variables from `environment`.
  init(_ environment: [String: String]) {
    var problems: [String] = []
    /// The value of variable `name` and its text; `nil` when it is not set or `parse` cannot read
    /// it, which is a problem that says what the value must be: `what`.
    func read<T>(_ name: String, _ what: String, _ parse: (String) -> T?) -> (T, text: String)? {
      guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty
      else { return nil }
      guard let value = parse(text) else {
        problems.append("\(name)=\(text) is not \(what)")
        return nil
      }
      return (value, text)
    }
    _ = read(
      Self.seedVariable,
      "a seed: a whole number from 0 to \(UInt64.max) (\(Self.seedVariable)=7)"
    ) { UInt64($0) }
    if case let (scale, text)? = read(
      Self.scaleVariable,
      "a positive number: it multiplies the schedules of every exploration "
        + "(\(Self.scaleVariable)=100)",
      { Double($0).flatMap { $0.isFinite && $0 > 0 ? $0 : nil } })
    {
      self.scale = scale
      scaleText = text
    }
    if case let (extra, _)? = read(
      Self.extraPreemptionsVariable,
      "a whole number of 0 or more: it is added to the preemption bound of every exhaustive "
        + "exploration (\(Self.extraPreemptionsVariable)=1)",
      { Int($0).flatMap { $0 >= 0 ? $0 : nil } })
    {
      extraPreemptions = extra
    }
    if case let (duration, text)? = read(
      Self.timeVariable,
      "a duration of more than zero: a number with ms, s, m or h "
        + "(\(Self.timeVariable)=90s, \(Self.timeVariable)=5m)",
      { Self.duration($0).flatMap { $0 > .zero ? $0 : nil } })
    {
      timeBudget = duration
      timeText = text
    }
    if case let (shard, _)? = read(
      Self.shardVariable,
      "a shard: k/n with 1 ≤ k ≤ n, for shard k of n (\(Self.shardVariable)=2/4)",
      Self.shard)
    {
      self.shard = shard
    }
    self.problems = problems
  }

  /// The environment of this process, read the first time an exploration asks.
  static let process = ExplorationEnvironment(ProcessInfo.processInfo.environment)

  /// Replaces ``process`` in a task, in Lockstep's own tests.
  @TaskLocal static var override: ExplorationEnvironment?

  /// What explorations started now use.
  static var current: ExplorationEnvironment { override ?? process }

  /// `90s`, `1.5m`, `500ms`, `2h`, or a plain number of seconds; `nil` when it is none of these.
  static func duration(_ text: String) -> Duration? {
    let units: [(suffix: String, seconds: Double)] = [
      ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600),
    ]
    var number = Substring(text)
    var factor = 1.0
    for unit in units where text.hasSuffix(unit.suffix) {
      number = text.dropLast(unit.suffix.count)
      factor = unit.seconds
      break
    }
    guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite,
      value * factor < 1e12
    else { return nil }
    return .nanoseconds(Int64((value * factor * 1e9).rounded()))
  }

  /// `k/n` with `1 ≤ k ≤ n`; `nil` otherwise.
  static func shard(_ text: String) -> ExplorationShard? {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2,
      let index = Int(parts[0].trimmingCharacters(in: .whitespaces)),
      let count = Int(parts[1].trimmingCharacters(in: .whitespaces)),
      count >= 1, (1...count).contains(index)
    else { return nil }
    return ExplorationShard(index: index, count: count)
  }

  /// `count` schedules times ``scale``, rounded up; at least 1.
  func scaled(_ count: Int) -> Int {
    guard scale != 1 else { return count }
    let product = (Double(count) * scale).rounded(.up)
    return product >= Double(Int.max / 2) ? Int.max / 2 : max(1, Int(product))
  }

  /// The variables that change `strategy`, as written: `LOCKSTEP_EXPLORE_SCALE=100`.
  func settings(changing strategy: ExplorationStrategy) -> [String] {
    var settings: [String] = []
    if strategy.isReplay { return [] }
    if let scaleText { settings.append("\(Self.scaleVariable)=\(scaleText)") }
    if extraPreemptions > 0, case .exhaustive = strategy.kind {
      settings.append("\(Self.extraPreemptionsVariable)=\(extraPreemptions)")
    }
    return settings
  }
}
