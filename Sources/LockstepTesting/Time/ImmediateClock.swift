/// A clock on which every sleep returns at once, moving ``now`` forward by the time slept.
///
/// Use it when a test does not care *when* the code under test wakes up, only that it gets on with
/// it: retries with backoff, polling, animations, timeouts that are never reached.
///
/// ```swift
/// @Test(.timeLimit(.minutes(1))) func retriesUntilTheServerAnswers() async throws {
///   let clock = ImmediateClock()
///   let value = try await retrying(Backoff(attempts: 3, initialDelay: .milliseconds(100)),
///                                  clock: clock) { try await flakyServer.fetch() }
///   #expect(value == 42)
///   #expect(clock.now.offset == .milliseconds(300))   // slept 100 ms + 200 ms, instantly
/// }
/// ```
///
/// A sleep never suspends. A cancelled task still throws `CancellationError` from `sleep`, as it
/// would on a real clock. Sleeps of concurrent tasks overlap like real ones: two tasks that each
/// sleep one second from zero leave ``now`` at one second. To control when sleepers wake, use
/// ``TestClock``.
public final class ImmediateClock: Clock, Sendable, CustomStringConvertible {
  /// A point in time of an ``ImmediateClock``: an offset from the clock's zero, like a
  /// ``TestClock/Instant``.
  public typealias Instant = TestClock.Instant

  private let current = Locked(Duration.zero)

  /// Creates a clock at zero.
  public init() {}

  /// The current time: the latest deadline any sleeper reached.
  public var now: Instant { Instant(offset: current.value) }

  /// Zero.
  public var minimumResolution: Duration { .zero }

  /// `ImmediateClock(now: 5.0 seconds)`.
  public var description: String { "ImmediateClock(now: \(now))" }

  /// Returns at once, moving ``now`` to `deadline` if it is later.
  ///
  /// - Throws: `CancellationError` when the task is cancelled; time does not move then.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    current.withLock { $0 = max($0, deadline.offset) }
  }
}
