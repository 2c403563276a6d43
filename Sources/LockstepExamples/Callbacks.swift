import Foundation
public import Lockstep

/// Scenario 5, "events that must happen a given number of times", part one: a completion-handler
/// API that must call its completion exactly once, cached or not.
///
/// The `.broken` variant forgets to `return` after answering from its cache, so a cached call
/// also fetches again and calls the completion a second time.
public final class UserDirectory: Sendable {
  private let service: any ProfileService
  private let tasks: any TaskFactory
  private let variant: Variant
  private let cache = CachedValue<String>()

  /// Creates the directory.
  public init(service: any ProfileService, tasks: any TaskFactory, variant: Variant = .correct) {
    self.service = service
    self.tasks = tasks
    self.variant = variant
  }

  /// Fetches the user's name, from the cache when it has one, and calls `completion` exactly once.
  public func fetchName(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
    if let cached = cache.value {
      completion(.success(cached))
      if variant == .correct { return }
    }
    tasks.task(name: "fetch name") {
      do {
        let name = try await self.service.fetchName()
        self.cache.value = name
        completion(.success(name))
      } catch {
        completion(.failure(error))
      }
    }
  }
}

/// Scenario 5, part two: a price feed that must emit exactly the prices it was given, once each.
/// A feed starts once: calling `start` again — a screen that appears twice — does nothing.
///
/// The `.broken` variant has an off-by-one loop and emits the last price twice
/// (``Flaw/emitsTheLastPriceTwice``); ``Flaw/marksItselfStartedLate`` is a bug that only some
/// interleavings show.
public final class PriceFeed: Sendable {
  /// A deliberate bug of a broken feed.
  public enum Flaw: Sendable, CaseIterable {
    /// An off-by-one loop emits the last price twice, on every run: the `.broken` variant.
    case emitsTheLastPriceTwice
    /// `start` checks whether the feed has started, but the feed marks itself started only when
    /// its task begins to run. A second `start` that comes before that starts a second feed, and
    /// every price is emitted twice — in the interleavings where the second call wins the race.
    case marksItselfStartedLate
  }

  private let prices: [Int]
  private let tasks: any TaskFactory
  private let flaw: Flaw?
  private let started = CachedValue<Bool>()

  /// Creates a feed that will emit `prices`.
  public convenience init(prices: [Int], tasks: any TaskFactory, variant: Variant = .correct) {
    self.init(prices: prices, tasks: tasks, flaw: variant == .broken ? .emitsTheLastPriceTwice : nil)
  }

  /// Creates a feed that will emit `prices`, with `flaw` (or none).
  public init(prices: [Int], tasks: any TaskFactory, flaw: Flaw?) {
    self.prices = prices
    self.tasks = tasks
    self.flaw = flaw
  }

  /// Starts emitting, one price per step of a background task; does nothing if the feed has
  /// started already.
  public func start(onPrice: @escaping @Sendable (Int) -> Void) {
    let flaw = self.flaw
    if flaw == .marksItselfStartedLate {
      guard started.value != true else { return }
    } else {
      guard started.replace(with: true) != true else { return }
    }
    let prices = self.prices
    let last = flaw == .emitsTheLastPriceTwice ? prices.count : prices.count - 1
    tasks.task(name: "price feed") {
      if flaw == .marksItselfStartedLate { self.started.value = true }  // too late for a second start
      guard !prices.isEmpty else { return }
      for index in 0...last {
        await Task.yield()  // a real feed awaits the network here
        onPrice(prices[min(index, prices.count - 1)])
      }
    }
  }
}

/// A value shared between tasks, guarded by a lock.
final class CachedValue<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value?

  var value: Value? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }

  /// Stores `newValue` and returns the value it replaced, in one step.
  func replace(with newValue: Value) -> Value? {
    lock.withLock {
      defer { stored = newValue }
      return stored
    }
  }
}
