/// What a call gave back, erased to compare by value: a returned value, or a thrown error.
///
/// Values compare with their own `==` and never equal a value of another type. An error whose type
/// is `Equatable` compares the same way; any other error equals an error of the same type with the
/// same description.
package struct CallOutcome: Equatable, Sendable, CustomStringConvertible {
  /// Whether the call returned or threw.
  package enum Kind: Equatable, Sendable {
    case returned
    case threw
  }

  /// The identity of an error whose type is not `Equatable`: its type and its description.
  private struct ErrorIdentity: Equatable, Sendable {
    let type: String
    let description: String
  }

  /// Whether the call returned or threw.
  package let kind: Kind
  private let value: any Equatable & Sendable
  /// What ``description`` prints, put in words only when a report asks.
  private let shown: any Sendable

  /// The value or the error, as a report prints it: `3`, `throws Overdrawn()`.
  package var description: String {
    kind == .threw ? "throws \(shown)" : Self.text(shown)
  }

  /// `returned 3`, `threw Overdrawn()`; with `would`, `would return 3`, `would throw Overdrawn()`.
  func statement(would: Bool) -> String {
    switch (kind, would) {
    case (.returned, false): "returned \(Self.text(shown))"
    case (.threw, false): "threw \(shown)"
    case (.returned, true): "would return \(Self.text(shown))"
    case (.threw, true): "would throw \(shown)"
    }
  }

  /// A value as a report prints it: an optional as its value or `nil`, not `Optional(3)`.
  private static func text(_ value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return String(describing: value) }
    return mirror.children.first.map { text($0.value) } ?? "nil"
  }

  private init(kind: Kind, value: any Equatable & Sendable, shown: any Sendable) {
    self.kind = kind
    self.value = value
    self.shown = shown
  }

  /// A call that returned `value`.
  package static func returned(_ value: some Equatable & Sendable) -> CallOutcome {
    CallOutcome(kind: .returned, value: value, shown: value)
  }

  /// A call that returned nothing.
  package static var returnedVoid: CallOutcome {
    .returned(VoidResult())
  }

  /// A call that threw `error`.
  package static func threw(_ error: any Error) -> CallOutcome {
    let erased: Any = error
    if let equatable = erased as? any Equatable {
      return CallOutcome(kind: .threw, value: equatableError(equatable), shown: error)
    }
    let identity = ErrorIdentity(type: String(reflecting: type(of: error)), description: "\(error)")
    return CallOutcome(kind: .threw, value: identity, shown: error)
  }

  /// What a throwing call gave back.
  package static func of(_ body: () throws -> some Equatable & Sendable) -> CallOutcome {
    do { return .returned(try body()) } catch { return .threw(error) }
  }

  /// A result not known yet: equal to no recorded result.
  static let unknown = CallOutcome(kind: .returned, value: Unknown(), shown: Unknown())

  /// What an asynchronous, throwing call gave back.
  package static func awaiting(_ body: () async throws -> some Equatable & Sendable) async
    -> CallOutcome
  {
    do { return .returned(try await body()) } catch { return .threw(error) }
  }

  package static func == (lhs: CallOutcome, rhs: CallOutcome) -> Bool {
    lhs.kind == rhs.kind && equal(lhs.value, rhs.value)
  }

  private static func equal<Value: Equatable>(_ value: Value, _ other: any Equatable) -> Bool {
    guard let other = other as? Value else { return false }
    return value == other
  }

  /// An `Equatable` error, boxed to be stored as `Sendable` (the cast to `Equatable` lost that).
  private struct EquatableError<Value: Equatable>: Equatable, @unchecked Sendable {  // an `Error`
    let value: Value
  }

  private static func equatableError(_ error: some Equatable) -> any Equatable & Sendable {
    EquatableError(value: error)
  }

  /// The value of ``unknown``, a type no call returns.
  private struct Unknown: Equatable, Sendable, CustomStringConvertible {
    var description: String { "?" }
  }
}
