public import Lockstep

/// A source of readings, such as a motion sensor or a location stream.
public protocol ReadingSource: Sendable {
  /// Waits for the next reading. Throws `CancellationError` when the waiting task is cancelled.
  func nextReading() async throws -> Int
}

/// Scenario 6, "work that must stop when cancelled": a tracker that records readings until it is
/// stopped, retrying when a reading fails.
///
/// The tracker drops a reading that arrives after `stop()`. The `.broken` variant treats cancellation
/// like any other failed reading and retries, so after `stop()` it goes on until its safety limit
/// of ``readingLimit`` attempts (``Flaw/retriesAfterCancellation``);
/// ``Flaw/recordsAReadingThatArrivesAfterStop`` is a bug that only some interleavings show.
@MainActor
public final class ActivityTracker {
  /// A deliberate bug of a broken tracker.
  public enum Flaw: Sendable, CaseIterable {
    /// Treats cancellation like a transient failure and retries until ``readingLimit``, on every
    /// run that stops it: the `.broken` variant.
    case retriesAfterCancellation
    /// Checks for a stop only when a reading fails, so a reading that was already on its way when
    /// `stop()` came is still recorded — in the interleavings where the stop lands while a
    /// reading is in flight.
    case recordsAReadingThatArrivesAfterStop
  }

  /// The readings recorded so far.
  public private(set) var readings: [Int] = []
  /// How many readings were attempted, failed ones included.
  public private(set) var attempts = 0
  /// The tracker gives up after this many attempts, so even a broken tracker ends.
  public let readingLimit = 1_000

  private let source: any ReadingSource
  private let tasks: any TaskFactory
  private let flaw: Flaw?
  private var running: Task<Void, Never>?

  /// Creates a stopped tracker.
  public convenience init(source: any ReadingSource, tasks: any TaskFactory, variant: Variant = .correct) {
    self.init(source: source, tasks: tasks, flaw: variant == .broken ? .retriesAfterCancellation : nil)
  }

  /// Creates a stopped tracker with `flaw` (or none).
  public init(source: any ReadingSource, tasks: any TaskFactory, flaw: Flaw?) {
    self.source = source
    self.tasks = tasks
    self.flaw = flaw
  }

  /// Starts recording in a task of its own.
  public func start() {
    running = tasks.task(name: "activity tracking") {
      while self.attempts < self.readingLimit {
        self.attempts += 1
        let reading: Int
        do {
          reading = try await self.source.nextReading()
        } catch is CancellationError where self.flaw != .retriesAfterCancellation {
          return
        } catch {
          continue  // a transient failure: try again
        }
        // Stopped while the reading was on its way: drop it.
        if Task.isCancelled && self.flaw == nil { return }
        self.readings.append(reading)
      }
    }
  }

  /// Stops recording.
  public func stop() {
    running?.cancel()
  }
}
