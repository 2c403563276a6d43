/// Thrown when a recorder's next event is not the one the test awaited: the sequence finished
/// while the test waited for a value, a value came where the test expected the end, or the
/// recording was cancelled.
///
/// Tests usually let it propagate; it names the recorder, what the test expected, what came
/// instead, where the test waited, and what had arrived:
///
/// ```swift
/// let prices = SequenceRecorder(feed.prices(), name: "price feed")
/// #expect(try await prices.next() == 10)
/// try await prices.expectFinished()
/// // "price feed": expected the end at PriceTests.swift:14:22, got the value 11
/// //  (values so far: [10, 11])
/// ```
public struct UnexpectedEventError: Error, CustomStringConvertible, Sendable {
  /// The recorder's name, e.g. `"price feed"`.
  public let name: String
  /// What the test waited for: `a value`, `the end`, `a failure`.
  public let expected: String
  /// What came instead, e.g. `the value 11` or `the end (finished)`.
  public let found: String
  /// Where the test waited.
  public let site: CallSite
  /// Every value recorded so far, as `String(reflecting:)` prints them.
  public let values: [String]

  /// Creates the error; recorders throw it, you rarely need to.
  public init(name: String, expected: String, found: String, site: CallSite, values: [String]) {
    self.name = name
    self.expected = expected
    self.found = found
    self.site = site
    self.values = values
  }

  /// `"price feed": expected the end at …, got the value 11 (values so far: [10, 11])`.
  public var description: String {
    let shown = values.prefix(20).joined(separator: ", ") + (values.count > 20 ? ", …" : "")
    return "\"\(name)\": expected \(expected) at \(site), got \(found) (values so far: [\(shown)])"
  }
}
