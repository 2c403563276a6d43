import Foundation

/// One order of a set of items — the order in which a test releases calls, opens gates or
/// delivers events. Produced by ``Interleavings``, ready to be the argument of a parameterized
/// test.
///
/// Its description is the order, plus the seed when it was sampled, so a failing case shows how
/// to repeat it:
///
/// ```swift
/// @Test(arguments: Interleavings.sample(of: Array(1...8), count: 50))
/// func newestWins(order: Interleaving<Int>) async throws {
///   for id in order { loader.calls.succeed(id, with: book(id)) }
/// }
/// // failure: "… with 1 argument order → [3, 8, 1, 2, 7, 5, 4, 6] (sample 17 of 50, seed 42)"
/// ```
public struct Interleaving<Element>: RandomAccessCollection, CustomStringConvertible {
  /// The items in this order.
  public let order: [Element]
  /// The seed of the sample this order belongs to; nil for an order of an exhaustive list.
  public let seed: UInt64?
  /// The position of this order in its list, starting at 1.
  public let number: Int
  /// How many orders its list holds.
  public let total: Int

  /// The index of the first item.
  public var startIndex: Int { order.startIndex }

  /// The index after the last item.
  public var endIndex: Int { order.endIndex }

  /// The item at `position` in this order.
  public subscript(position: Int) -> Element { order[position] }

  /// `[2, 1]` for an exhaustive list; `[3, 1, 2] (sample 4 of 10, seed 42)` for a sample.
  public var description: String {
    guard let seed else { return "\(order)" }
    return "\(order) (sample \(number) of \(total), seed \(seed))"
  }
}

extension Interleaving: Sendable where Element: Sendable {}
extension Interleaving: Equatable where Element: Equatable {}
extension Interleaving: Hashable where Element: Hashable {}

/// Orders in which a test can make things happen: every order of a few items, or a repeatable
/// random sample of orders when there are too many to try them all.
///
/// Use them as the arguments of a parameterized test, so each order is a test case of its own:
///
/// ```swift
/// @Test(arguments: Interleavings.all(of: ["sw", "swift"]))
/// func newestQueryWins(order: Interleaving<String>) async throws {
///   model.search("sw"); model.search("swift")
///   try await backend.gates.waitForRequests(2)
///   for query in order { backend.gates.open(query); await handles[query]!.value }
///   #expect(model.results == ["swift result"])
/// }
/// ```
public enum Interleavings {
  /// Every order of `items`, in lexicographic order of their positions: `n!` orders.
  ///
  /// Mind the growth: 8 items have 40,320 orders. Use ``orders(of:limit:seed:)`` to fall back
  /// to a sample above a limit.
  public static func all<Element>(of items: [Element]) -> [Interleaving<Element>] {
    var indices = Array(items.indices)
    var orders: [[Int]] = []
    repeat { orders.append(indices) } while nextPermutation(&indices)
    return orders.enumerated().map { offset, positions in
      Interleaving(
        order: positions.map { items[$0] }, seed: nil, number: offset + 1, total: orders.count)
    }
  }

  /// `count` distinct random orders of `items`, the same ones for the same seed on every
  /// platform. Each order's description shows the seed, so a failure can be repeated with
  /// `seed:`. When `count` is at least `n!`, returns every order.
  ///
  /// - Parameters:
  ///   - items: The items to order.
  ///   - count: How many distinct orders to return.
  ///   - seed: The seed; by default ``sessionSeed``, which is the `LOCKSTEP_SEED`
  ///     environment variable when set, otherwise the fixed default ``defaultSeed``.
  public static func sample<Element>(
    of items: [Element], count: Int, seed: UInt64? = nil
  ) -> [Interleaving<Element>] {
    if let all = permutationCount(items.count), count >= all { return self.all(of: items) }
    let seed = seed ?? sessionSeed
    var generator = SplitMix64(seed: seed)
    var seen: Set<[Int]> = []
    var orders: [[Int]] = []
    while orders.count < max(count, 0) {
      var positions = Array(items.indices)
      for index in stride(from: positions.count - 1, to: 0, by: -1) {
        positions.swapAt(index, generator.next(below: index + 1))
      }
      if seen.insert(positions).inserted { orders.append(positions) }
    }
    return orders.enumerated().map { offset, positions in
      Interleaving(
        order: positions.map { items[$0] }, seed: seed, number: offset + 1, total: orders.count)
    }
  }

  /// Every order of `items` when there are at most `limit`, otherwise a sample of `limit`
  /// orders (see ``sample(of:count:seed:)``).
  public static func orders<Element>(
    of items: [Element], limit: Int, seed: UInt64? = nil
  ) -> [Interleaving<Element>] {
    if let all = permutationCount(items.count), all <= limit { return self.all(of: items) }
    return sample(of: items, count: limit, seed: seed)
  }

  /// `n!`, the number of orders of `n` items; nil when it does not fit in an `Int`.
  public static func permutationCount(_ n: Int) -> Int? {
    var result = 1
    for factor in stride(from: 2, through: n, by: 1) {
      let (product, overflow) = result.multipliedReportingOverflow(by: factor)
      if overflow { return nil }
      result = product
    }
    return result
  }

  /// The seed samples and the random and PCT exploration strategies use when none is given: the
  /// `LOCKSTEP_SEED` environment variable when it holds a number, otherwise ``defaultSeed``.
  ///
  /// Fixed by default, so that CI samples and explores the same orders as your machine, run after
  /// run; set `LOCKSTEP_SEED` to try others (`LOCKSTEP_SEED=7 swift test`). It is read once per
  /// process. A value that is not a number is ignored here, with a line on standard error, and
  /// reported at every `explore` call, which then runs nothing (see <doc:FindingRaces> for every
  /// variable Lockstep reads).
  public static let sessionSeed: UInt64 = {
    let text = ProcessInfo.processInfo.environment[seedVariable]
    let seed = Interleavings.seed(fromEnvironmentValue: text)
    if let text, UInt64(text) == nil {
      FileHandle.standardError.write(
        Data("Lockstep: \(seedVariable)=\(text) is not a number; using the default seed \(seed).\n".utf8))
    }
    return seed
  }()

  /// The seed used when neither a `seed:` argument nor `LOCKSTEP_SEED` gives one: 1.
  public static let defaultSeed: UInt64 = 1

  static let seedVariable = "LOCKSTEP_SEED"

  /// The seed for a value of `LOCKSTEP_SEED` (`nil`: unset).
  static func seed(fromEnvironmentValue text: String?) -> UInt64 {
    text.flatMap { UInt64($0) } ?? defaultSeed
  }

  /// Rearranges `positions` into the next order in lexicographic order; false after the last.
  static func nextPermutation(_ positions: inout [Int]) -> Bool {
    guard positions.count > 1 else { return false }
    var pivot = positions.count - 2
    while pivot >= 0, positions[pivot] >= positions[pivot + 1] { pivot -= 1 }
    guard pivot >= 0 else { return false }
    var successor = positions.count - 1
    while positions[successor] <= positions[pivot] { successor -= 1 }
    positions.swapAt(pivot, successor)
    positions[(pivot + 1)...].reverse()
    return true
  }
}
