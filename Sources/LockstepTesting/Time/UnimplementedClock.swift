/// A clock for dependencies that must not touch time: every read of ``now`` and every sleep is
/// reported as a test issue.
///
/// Pass it where the code under test takes a clock but the test's path should never use it — a
/// cache that must answer without waiting, a model whose timeout must not start:
///
/// ```swift
/// @Test(.timeLimit(.minutes(1))) func aCachedProfileNeedsNoRetry() async throws {
///   let loader = ProfileLoader(cache: warmCache, clock: UnimplementedClock("retry clock"))
///   #expect(try await loader.profile().name == "Blob")
///   // a sleep would fail the test: "UnimplementedClock "retry clock": the code under test
///   // slept until 1 s; this test expects it not to use the clock"
/// }
/// ```
///
/// The issue is recorded at the line that created the clock: `now` and `sleep(until:tolerance:)`
/// are requirements of `Clock` and cannot learn their caller's line. Swift Testing records the
/// backtrace of the call with the issue, so the failing call is in the report.
///
/// After reporting, the clock behaves like an ``ImmediateClock``: a sleep returns at once and
/// moves ``now`` to its deadline, so code that loops until a deadline still ends. A
/// `sleep(for:)` through the `Clock` protocol reads `now` first, so it reports the read and the
/// sleep: two issues.
public final class UnimplementedClock: Clock, Sendable, CustomStringConvertible {
  /// A point in time of an ``UnimplementedClock``, like a ``TestClock/Instant``.
  public typealias Instant = TestClock.Instant

  /// The name reports use, e.g. `"retry clock"`.
  public let name: String

  private let current = Locked(Duration.zero)
  private let site: CallSite

  /// Creates a clock that reports every use.
  ///
  /// - Parameters:
  ///   - name: A name for reports.
  public init(
    _ name: String = "UnimplementedClock",
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    self.name = name
    self.site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Reports the read, then returns the latest deadline slept to (zero at first).
  public var now: Instant {
    let offset = current.value
    report("read now (it is \(Instant(offset: offset)))")
    return Instant(offset: offset)
  }

  /// Zero; reading it is not reported.
  public var minimumResolution: Duration { .zero }

  /// `UnimplementedClock("retry clock")`.
  public var description: String { "UnimplementedClock(\"\(name)\")" }

  /// Reports the sleep, then returns at once, moving ``now`` to `deadline` if it is later.
  ///
  /// - Throws: `CancellationError` when the task is cancelled.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    report("slept until \(deadline)")
    try Task.checkCancellation()
    current.withLock { $0 = max($0, deadline.offset) }
  }

  private func report(_ what: String) {
    reportIssue(
      "UnimplementedClock \"\(name)\": the code under test \(what); this test expects it not to use "
        + "the clock",
      at: site)
  }
}
