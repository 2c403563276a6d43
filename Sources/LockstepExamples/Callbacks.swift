import Foundation
public import Lockstep

/// Scenario 5, "events that must happen a given number of times", part one: a completion-handler
/// API that must call its completion exactly once, cached or not.
///
/// ```swift
/// let directory = UserDirectory(service: service, tasks: .live)
/// directory.fetchName { result in print(result) }
/// ```
///
/// The `.broken` variant forgets to `return` after answering from its cache, so a cached call
/// also fetches again and calls the completion a second time.
public final class UserDirectory: Sendable {
  private let service: any ProfileService
  private let tasks: any TaskFactory
  private let variant: Variant
  private let cache = CachedValue<String>()

  /// Creates the directory.
  ///
  /// ```swift
  /// let directory = UserDirectory(service: LiveProfileService(), tasks: .live)
  /// ```
  public init(service: any ProfileService, tasks: any TaskFactory, variant: Variant = .correct) {
    self.service = service
    self.tasks = tasks
    self.variant = variant
  }

  /// Fetches the user's name, from the cache when it has one, and calls `completion` exactly once.
  ///
  /// ```swift
  /// directory.fetchName { result in
  ///   if case .success(let name) = result { label.text = name }
  /// }
  /// ```
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
///
/// ```swift
/// let feed = PriceFeed(prices: [10, 11, 12], tasks: .live)
/// feed.start { price in print(price) }
/// ```
///
/// The `.broken` variant has an off-by-one loop and emits the last price twice.
public final class PriceFeed: Sendable {
  private let prices: [Int]
  private let tasks: any TaskFactory
  private let variant: Variant

  /// Creates a feed that will emit `prices`.
  ///
  /// ```swift
  /// let feed = PriceFeed(prices: [10, 11, 12], tasks: tasks)
  /// ```
  public init(prices: [Int], tasks: any TaskFactory, variant: Variant = .correct) {
    self.prices = prices
    self.tasks = tasks
    self.variant = variant
  }

  /// Starts emitting, one price per step of a background task.
  ///
  /// ```swift
  /// feed.start { price in chart.append(price) }
  /// ```
  public func start(onPrice: @escaping @Sendable (Int) -> Void) {
    let prices = self.prices
    let last = variant == .correct ? prices.count - 1 : prices.count
    tasks.task(name: "price feed") {
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
}
