import Foundation
import LockstepTesting
import Testing

// A workload that resumes continuations in dictionary order, as a multicast ("share") operator
// does: the order in which its subscribers become ready depends on how the dictionary iterates,
// which depends on Swift's hash seed unless SWIFT_DETERMINISTIC_HASHING=1 was set before the
// process started (the seed is per process and per storage address, so even two replays in one
// process can iterate differently).

/// Subscribers that each wait for one value; `send` resumes them in the order their dictionary
/// iterates (after `order`, which a test can use to simulate another iteration order).
actor Broadcast {
  private var subscribers: [Int: CheckedContinuation<Int, Never>] = [:]
  private var whenSubscribed: (count: Int, continuation: CheckedContinuation<Void, Never>)?
  private let order: @Sendable ([Int]) -> [Int]

  /// - Parameter order: Rearranges the subscriber ids in the dictionary's order into the order
  ///   `send` resumes them; by default the dictionary's order itself.
  init(order: @escaping @Sendable ([Int]) -> [Int] = { $0 }) { self.order = order }

  /// Waits for the next value sent.
  func subscribe(_ id: Int) async -> Int {
    await withCheckedContinuation { continuation in
      subscribers[id] = continuation
      if let waiting = whenSubscribed, subscribers.count >= waiting.count {
        whenSubscribed = nil
        waiting.continuation.resume()
      }
    }
  }

  /// Returns once `count` subscribers wait.
  func waitForSubscribers(_ count: Int) async {
    guard subscribers.count < count else { return }
    await withCheckedContinuation { whenSubscribed = (count, $0) }
  }

  /// Resumes every subscriber with `value`, in dictionary order.
  func send(_ value: Int) {
    let waiting = subscribers
    subscribers = [:]
    for id in order(Array(waiting.keys)) { waiting[id]!.resume(returning: value) }
    DictionaryHistory.keep(waiting)
  }
}

/// Keeps every broadcast's dictionary alive, so that each run's dictionary storage
/// lands at a new address, as it does in a test process whose heap changes between runs. (Without
/// this, the allocator tends to hand one run's freed storage to the next, and replays in one
/// process see the same per-address hash seed — which they must not rely on.)
enum DictionaryHistory {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var kept: [[Int: CheckedContinuation<Int, Never>]] = []
  static func keep(_ dictionary: [Int: CheckedContinuation<Int, Never>]) {
    lock.withLock { kept.append(dictionary) }
  }
}

/// The order in which subscribers received their value.
actor Receipts {
  private(set) var ids: [Int] = []
  func append(_ id: Int) { ids.append(id) }
}

/// Three subscribers wait for a broadcast; returns the order in which they noted its receipt.
/// Which subscriber runs first after the broadcast is a choice of the scheduler among jobs that
/// arrived in dictionary order.
func broadcastToThree(order: @escaping @Sendable ([Int]) -> [Int] = { $0 }) async -> [Int] {
  let broadcast = Broadcast(order: order)
  let receipts = Receipts()
  var subscribers: [Task<Void, Never>] = []
  for id in 1...3 {
    subscribers.append(
      Task(name: "subscriber \(id)") {
        let value = await broadcast.subscribe(id)
        Timeline.note("subscriber \(id) receives \(value)")
        await receipts.append(id)
      })
  }
  await broadcast.waitForSubscribers(3)
  await broadcast.send(42)
  for subscriber in subscribers { await subscriber.value }
  return await receipts.ids
}

/// The broadcast's invariant, which many schedules break: subscribers receive in the order they
/// subscribed. Throws rather than `#expect`s, so that many replays do not log many known issues.
@Sendable func subscribersReceiveInOrder() async throws {
  let ids = await broadcastToThree()
  guard ids == [1, 2, 3] else { throw OutOfOrder(ids: ids) }
}

/// The same, with the broadcast resuming its subscribers in ascending order of their ids, or in
/// descending order when `reversed`: a stand-in for two runs whose dictionaries iterate
/// differently, that does not depend on the process's hash seed.
func subscribersReceiveInOrder(reversed: Bool) async throws {
  let ids = await broadcastToThree { ids in reversed ? ids.sorted(by: >) : ids.sorted() }
  guard ids == [1, 2, 3] else { throw OutOfOrder(ids: ids) }
}

struct OutOfOrder: Error, CustomStringConvertible {
  let ids: [Int]
  var description: String { "subscribers received in the order \(ids)" }
}
