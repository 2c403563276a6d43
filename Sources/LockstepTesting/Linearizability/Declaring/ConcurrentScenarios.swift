/// How ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``
/// makes its scenarios: how many, how many tasks call the object at once, how many calls each
/// makes, and how many calls come before and after the concurrent part.
///
/// ```swift
/// await checkLinearizability(
///   scenarios: .random(50, tasks: 2...2, callsPerTask: 1...4),
///   of: { Counter() }, operations: [.call("increment") { await $0.increment() }])
/// ```
public struct ConcurrentScenarios: Sendable, CustomStringConvertible {
  /// How many scenarios to generate.
  public let count: Int
  /// How many tasks call the object at the same time.
  public let tasks: ClosedRange<Int>
  /// How many calls each task makes, one after another.
  public let callsPerTask: ClosedRange<Int>
  /// How many calls one task makes before the tasks start.
  public let callsBefore: ClosedRange<Int>
  /// How many calls one task makes after every task is done.
  public let callsAfter: ClosedRange<Int>
  /// The seed the scenarios are generated from.
  public let seed: UInt64

  /// `count` scenarios, each drawn at random within the sizes given, from `seed`.
  ///
  /// - Parameters:
  ///   - count: How many scenarios; at least 1.
  ///   - tasks: How many tasks call the object at once; from 1.
  ///   - callsPerTask: How many calls each task makes; from 1.
  ///   - callsBefore: How many calls come before the tasks start; from 0.
  ///   - callsAfter: How many calls come after they are all done; from 0.
  ///   - seed: The seed; by default ``Interleavings/sessionSeed`` (`LOCKSTEP_SEED`, else 1).
  public static func random(
    _ count: Int = 20, tasks: ClosedRange<Int> = 2...3, callsPerTask: ClosedRange<Int> = 1...3,
    callsBefore: ClosedRange<Int> = 0...1, callsAfter: ClosedRange<Int> = 0...1,
    seed: UInt64 = Interleavings.sessionSeed
  ) -> Self {
    Self(
      count: count, tasks: tasks, callsPerTask: callsPerTask, callsBefore: callsBefore,
      callsAfter: callsAfter, seed: seed)
  }

  /// `random(20, tasks: 2...3, callsPerTask: 1...3, callsBefore: 0...1, callsAfter: 0...1, seed: 1)`.
  public var description: String {
    "random(\(count), tasks: \(tasks), callsPerTask: \(callsPerTask), callsBefore: \(callsBefore), "
      + "callsAfter: \(callsAfter), seed: \(seed))"
  }

  /// What is wrong with the sizes, or `nil`.
  var problem: String? {
    var problems: [String] = []
    if count < 1 { problems.append("count: \(count) must be at least 1") }
    if tasks.lowerBound < 1 { problems.append("tasks: \(tasks) must start at 1 or more") }
    if callsPerTask.lowerBound < 1 {
      problems.append("callsPerTask: \(callsPerTask) must start at 1 or more")
    }
    if callsBefore.lowerBound < 0 { problems.append("callsBefore: \(callsBefore) must not be negative") }
    if callsAfter.lowerBound < 0 { problems.append("callsAfter: \(callsAfter) must not be negative") }
    return problems.isEmpty ? nil : problems.joined(separator: "; ")
  }

  /// Scenario `index` (from 0), for operations that take `argumentCounts[i]` arguments each: the
  /// same on every platform for the same seed.
  func scenario(_ index: Int, argumentCounts: [Int]) -> Scenario {
    var random = SplitMix64(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
    func pick(_ range: ClosedRange<Int>) -> Int {
      range.lowerBound + random.next(below: range.count)
    }
    func calls(_ range: ClosedRange<Int>) -> [ScenarioCall] {
      (0..<pick(range)).map { _ in
        let operation = random.next(below: argumentCounts.count)
        return ScenarioCall(
          operation: operation, argument: random.next(below: argumentCounts[operation]))
      }
    }
    let before = calls(callsBefore)
    let columns = (0..<pick(tasks)).map { _ in calls(callsPerTask) }
    return Scenario(before: before, tasks: columns, after: calls(callsAfter))
  }
}
