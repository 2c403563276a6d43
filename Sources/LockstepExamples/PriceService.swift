public import Lockstep

/// Where the latest price comes from: a socket, a poll, a test's fake.
public protocol PriceSource: Sendable {
  /// The next price quoted, or nil when the market closes.
  func nextPrice() async throws -> Int?
}

/// Scenario 8, "values over time": a price service that exposes the quotes of a source as an
/// `AsyncStream<Int>` of *changes*: a quote equal to the previous one is not sent again, and the
/// stream finishes when the market closes (or the source fails).
///
/// The `.broken` variant forgets the de-duplication: a repeated quote is sent twice.
public struct PriceService: Sendable {
  private let source: any PriceSource
  private let tasks: any TaskFactory
  private let variant: Variant

  /// Creates the service.
  public init(source: any PriceSource, tasks: any TaskFactory = .live, variant: Variant = .correct) {
    self.source = source
    self.tasks = tasks
    self.variant = variant
  }

  /// The prices, one per change, until the market closes. Each call starts reading the source;
  /// cancelling the iteration stops it.
  public func prices() -> AsyncStream<Int> {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let source = self.source
    let variant = self.variant
    let reading = tasks.task(name: "read prices") {
      var last: Int?
      while let price = try? await source.nextPrice() {
        if variant == .correct, price == last { continue }
        last = price
        continuation.yield(price)
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in reading.cancel() }
    return stream
  }
}
