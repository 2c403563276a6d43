import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The shell of ``ExplorationProgress``: reads the real time of the work (the clock of
/// ``ExplorationClock``, which Lockstep's tests replace) at each tick and writes the lines the
/// meter decides on to standard error — never into a report.
///
/// `LOCKSTEP_PROGRESS=0` turns progress off, `=1` writes lines as in a CI log even to a terminal;
/// otherwise a terminal (standard error is a TTY) gets one line rewritten in place, anything else
/// a line at a time.
package struct ProgressReporter {
  /// Where the lines go, and how.
  package struct Output: Sendable {
    let mode: ExplorationProgress.Mode
    let write: @Sendable (String) -> Void

    /// Lines in `mode`, each handed to `write`.
    package init(mode: ExplorationProgress.Mode, write: @escaping @Sendable (String) -> Void) {
      self.mode = mode
      self.write = write
    }
  }

  static let variable = "LOCKSTEP_PROGRESS"

  /// The mode `value` of `LOCKSTEP_PROGRESS` asks for, with standard error a terminal or not; and
  /// what is wrong with the value, if anything.
  static func mode(_ value: String?, isTerminal: Bool) -> (
    mode: ExplorationProgress.Mode, problem: String?
  ) {
    let automatic: ExplorationProgress.Mode = isTerminal ? .terminal : .lines
    switch value?.trimmingCharacters(in: .whitespaces) ?? "" {
    case "": return (automatic, nil)
    case "0": return (.off, nil)
    case "1": return (.lines, nil)
    case let text:
      return (
        automatic,
        "\(variable)=\(text) is neither 0 (no progress lines) nor 1 (a line at a time, even to a "
          + "terminal); progress is shown as when it is not set"
      )
    }
  }

  /// This process's output: standard error, in the mode the environment and the TTY say. A bad
  /// value of the variable is said once, on standard error.
  static let process: Output = {
    let (mode, problem) = Self.mode(
      ProcessInfo.processInfo.environment[variable], isTerminal: isatty(2) != 0)
    if let problem { FileHandle.standardError.write(Data("lockstep: \(problem)\n".utf8)) }
    return Output(mode: mode) { text in FileHandle.standardError.write(Data(text.utf8)) }
  }()

  /// Replaces ``process`` in a task, in Lockstep's own tests and the bench.
  @TaskLocal package static var override: Output?

  private var meter: ExplorationProgress
  /// Which work this is.
  var subject: String { meter.subject }
  private let output: Output
  private let clock: ExplorationClock?
  /// The clock is read every `stride` ticks (1 to 256): more ticks between reads while reads come
  /// less than a millisecond apart, fewer when they come more than 20 ms apart — so that cheap
  /// schedules do not pay a clock read each, and slow ones are still seen in time.
  private var stride = 1
  private var ticksToRead = 1
  private var lastRead = Duration.zero

  /// Starts the clock of the work `subject` (`explore at Tests/File.swift:12`).
  init(subject: String) {
    output = Self.override ?? Self.process
    meter = ExplorationProgress(mode: output.mode, subject: subject)
    if output.mode == .terminal, let columns = ProcessInfo.processInfo.environment["COLUMNS"],
      let width = Int(columns), width > 20
    {
      meter.columns = width
    }
    clock = output.mode == .off ? nil : ExplorationClock()
  }

  /// Writes a line if one is due; `counts` is asked only then. Cheap: most ticks only count down.
  mutating func tick(_ counts: () -> ExplorationProgress.Counts) {
    guard let clock else { return }
    ticksToRead -= 1
    guard ticksToRead <= 0 else { return }
    let elapsed = clock.elapsed
    let gap = elapsed - lastRead
    if gap < .milliseconds(1) {
      stride = min(stride * 2, 256)
    } else if gap > .milliseconds(20) {
      stride = max(stride / 2, 1)
    }
    ticksToRead = stride
    lastRead = elapsed
    guard meter.isDue(at: elapsed) else { return }
    output.write(meter.text(counts(), at: elapsed))
  }

  /// Ends the progress: clears the terminal line, or writes the totals in a CI log, if a line was
  /// written.
  func finish(_ counts: ExplorationProgress.Counts) {
    guard let clock, let text = meter.ending(counts, at: clock.elapsed) else { return }
    output.write(text)
  }
}
