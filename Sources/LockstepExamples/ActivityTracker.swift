public import Lockstep

/// A source of readings, such as a motion sensor or a location stream.
///
/// ```swift
/// struct MotionSource: ReadingSource {
///   func nextReading() async throws -> Int { try await sensor.next() }
/// }
/// ```
public protocol ReadingSource: Sendable {
  /// Waits for the next reading. Throws `CancellationError` when the waiting task is cancelled.
  ///
  /// ```swift
  /// let steps = try await source.nextReading()
  /// ```
  func nextReading() async throws -> Int
}

/// Scenario 6, "work that must stop when cancelled": a tracker that records readings until it is
/// stopped, retrying when a reading fails.
///
/// ```swift
/// let tracker = ActivityTracker(source: source, tasks: tasks)
/// tracker.start()
/// tracker.stop()
/// ```
///
/// The `.broken` variant treats cancellation like any other failed reading and retries, so after
/// `stop()` it goes on until its safety limit of ``readingLimit`` attempts.
@MainActor
public final class ActivityTracker {
  /// The readings recorded so far.
  public private(set) var readings: [Int] = []
  /// How many readings were attempted, failed ones included.
  public private(set) var attempts = 0
  /// The tracker gives up after this many attempts, so even a broken tracker ends.
  public let readingLimit = 1_000

  private let source: any ReadingSource
  private let tasks: any TaskFactory
  private let variant: Variant
  private var running: Task<Void, Never>?

  /// Creates a stopped tracker.
  ///
  /// ```swift
  /// let tracker = ActivityTracker(source: MotionSource(), tasks: .live)
  /// ```
  public init(source: any ReadingSource, tasks: any TaskFactory, variant: Variant = .correct) {
    self.source = source
    self.tasks = tasks
    self.variant = variant
  }

  /// Starts recording in a task of its own.
  ///
  /// ```swift
  /// tracker.start()
  /// ```
  public func start() {
    running = tasks.task(name: "activity tracking") {
      while self.attempts < self.readingLimit {
        self.attempts += 1
        do {
          self.readings.append(try await self.source.nextReading())
        } catch is CancellationError where self.variant == .correct {
          return
        } catch {
          continue  // a transient failure: try again
        }
      }
    }
  }

  /// Stops recording.
  ///
  /// ```swift
  /// tracker.stop()
  /// ```
  public func stop() {
    running?.cancel()
  }
}
