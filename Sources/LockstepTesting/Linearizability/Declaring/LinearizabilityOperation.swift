/// One operation ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``
/// may call on the object under test: a name, the call itself, optionally the arguments to pick
/// from and a sequential model of the call.
///
/// ```swift
/// let operations: [LinearizabilityOperation<Account, Never>] = [
///   .call("balance") { await $0.balance },
///   .call("withdraw", with: [30, 80]) { try await $0.withdraw($1) },
/// ]
/// ```
///
/// `Model` is the state of the sequential model the results are compared with; `Never` when there
/// is none, and the object itself, called one call at a time, is the specification.
public struct LinearizabilityOperation<Object: Sendable, Model: Hashable & Sendable>: Sendable {
  /// The operation's name, as the report prints it.
  public let name: String
  /// The arguments, as the report prints them (`withdraw(30)`); `nil` for an operation without.
  let argumentTexts: [String]?
  /// Calls the object with the argument at an index of the arguments (0 without arguments).
  let perform: @Sendable (Object, Int) async -> CallOutcome
  /// Applies the call to the model's state; `nil` without a model.
  let model: (@Sendable (inout Model, Int) -> CallOutcome)?

  /// How many arguments there are to pick from; 1 for an operation without arguments.
  var argumentCount: Int { argumentTexts?.count ?? 1 }

  /// `withdraw(30)`, `balance()`.
  func text(argument: Int) -> String {
    "\(name)(\(argumentTexts.map { $0[argument] } ?? ""))"
  }
}

extension LinearizabilityOperation where Model == Never {
  /// An operation without arguments, checked against the object itself called one call at a time.
  ///
  /// - Parameters:
  ///   - name: The name the report prints: `increment` prints `increment()`.
  ///   - call: Calls the object and returns what it gives back; a thrown error is a result too.
  public static func call<Result: Equatable & Sendable>(
    _ name: String, _ call: @escaping @Sendable (Object) async throws -> Result
  ) -> Self {
    Self(
      name: name, argumentTexts: nil,
      perform: { object, _ in await CallOutcome.awaiting { try await call(object) } }, model: nil)
  }

  /// An operation with an argument picked from `arguments` for each call, checked against the
  /// object itself called one call at a time.
  ///
  /// - Parameters:
  ///   - name: The name the report prints: `withdraw` with 30 prints `withdraw(30)`.
  ///   - arguments: The arguments to pick from; at least one.
  ///   - call: Calls the object with an argument and returns what it gives back.
  public static func call<Argument: Sendable, Result: Equatable & Sendable>(
    _ name: String, with arguments: [Argument],
    _ call: @escaping @Sendable (Object, Argument) async throws -> Result
  ) -> Self {
    Self(
      name: name, argumentTexts: arguments.map { String(describing: $0) },
      perform: { object, index in await CallOutcome.awaiting { try await call(object, arguments[index]) } },
      model: nil)
  }

  /// An operation without arguments that returns nothing (its result is `()`), checked against
  /// the object itself called one call at a time.
  public static func call(
    _ name: String, _ call: @escaping @Sendable (Object) async throws -> Void
  ) -> Self {
    Self.call(name) { object in
      try await call(object)
      return VoidResult()
    }
  }

  /// An operation with an argument that returns nothing, checked against the object itself.
  public static func call<Argument: Sendable>(
    _ name: String, with arguments: [Argument],
    _ call: @escaping @Sendable (Object, Argument) async throws -> Void
  ) -> Self {
    Self.call(name, with: arguments) { object, argument in
      try await call(object, argument)
      return VoidResult()
    }
  }
}

extension LinearizabilityOperation {
  /// An operation without arguments, with a sequential model of what it should do.
  ///
  /// - Parameters:
  ///   - name: The name the report prints.
  ///   - call: Calls the object and returns what it gives back.
  ///   - model: Does the same to the model's state, one call at a time, and returns what the call
  ///     should give back; deterministic, depending only on the state.
  public static func call<Result: Equatable & Sendable>(
    _ name: String, _ call: @escaping @Sendable (Object) async throws -> Result,
    model: @escaping @Sendable (inout Model) throws -> Result
  ) -> Self {
    Self(
      name: name, argumentTexts: nil,
      perform: { object, _ in await CallOutcome.awaiting { try await call(object) } },
      model: { state, _ in CallOutcome.of { try model(&state) } })
  }

  /// An operation with an argument picked from `arguments`, with a sequential model of what it
  /// should do.
  ///
  /// - Parameters:
  ///   - name: The name the report prints.
  ///   - arguments: The arguments to pick from; at least one.
  ///   - call: Calls the object with an argument and returns what it gives back.
  ///   - model: Does the same to the model's state and returns what the call should give back.
  public static func call<Argument: Sendable, Result: Equatable & Sendable>(
    _ name: String, with arguments: [Argument],
    _ call: @escaping @Sendable (Object, Argument) async throws -> Result,
    model: @escaping @Sendable (inout Model, Argument) throws -> Result
  ) -> Self {
    Self(
      name: name, argumentTexts: arguments.map { String(describing: $0) },
      perform: { object, index in await CallOutcome.awaiting { try await call(object, arguments[index]) } },
      model: { state, index in CallOutcome.of { try model(&state, arguments[index]) } })
  }

  /// An operation without arguments that returns nothing, with a sequential model.
  public static func call(
    _ name: String, _ call: @escaping @Sendable (Object) async throws -> Void,
    model: @escaping @Sendable (inout Model) throws -> Void
  ) -> Self {
    Self.call(
      name,
      { object in
        try await call(object)
        return VoidResult()
      },
      model: { state in
        try model(&state)
        return VoidResult()
      })
  }

  /// An operation with an argument that returns nothing, with a sequential model.
  public static func call<Argument: Sendable>(
    _ name: String, with arguments: [Argument],
    _ call: @escaping @Sendable (Object, Argument) async throws -> Void,
    model: @escaping @Sendable (inout Model, Argument) throws -> Void
  ) -> Self {
    Self.call(
      name, with: arguments,
      { object, argument in
        try await call(object, argument)
        return VoidResult()
      },
      model: { state, argument in
        try model(&state, argument)
        return VoidResult()
      })
  }
}

/// What a call that returns nothing gave back: `()` (`Void` is not `Equatable`).
struct VoidResult: Equatable, Sendable, CustomStringConvertible {
  var description: String { "()" }
}
