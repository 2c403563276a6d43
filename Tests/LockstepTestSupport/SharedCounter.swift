import Foundation

/// A counter shared by tasks, read and written under a lock but without an actor: an increment
/// that reads, suspends, then writes can lose another task's increment.
public final class SharedCounter: @unchecked Sendable {  // every access is under `lock`
  private let lock = NSLock()
  private var stored = 0

  /// A counter at 0.
  public init() {}

  /// The count; each read and each write takes the lock on its own.
  public var value: Int {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// What a body throws when two increments of a ``SharedCounter`` made less than 2.
public struct LostUpdate: Error, CustomStringConvertible {
  /// What the two increments made.
  public let value: Int

  /// The error for a counter that ended at `value`.
  public init(value: Int) { self.value = value }

  /// `two increments made 1`.
  public var description: String { "two increments made \(value)" }
}
