import Foundation
import LockstepReports

/// A process `lockstep-explore` starts — a worker's run of the test executable, or a short
/// command whose output it reads — and waits for; the ones still running are stopped when
/// `lockstep-explore` is interrupted.
struct ChildProcess {
  let executable: String
  let arguments: [String]
  var environment: [String: String]? = nil

  /// Runs it to the end, writing each line it writes after `prefix`: standard output to standard
  /// output, standard error to standard error.
  func run(prefix: String) throws -> WorkerOutcome.Termination {
    let ended = try launch(prefix: prefix, limit: nil) { text, isError in
      Console.shared.write(text, toError: isError)
    }
    return ended ?? .signaled(SIGTERM)
  }

  /// Runs it to the end and returns how it ended and what it wrote to standard output; `nil` when
  /// it did not end within `seconds` (it is stopped then).
  func capture(seconds: Double) throws -> (termination: WorkerOutcome.Termination, output: String)? {
    let collected = Collected()
    let ended = try launch(prefix: "", limit: seconds) { text, isError in
      if !isError { collected.append(text) }
    }
    return ended.map { ($0, collected.text) }
  }

  /// Launches the process, passes its output in whole lines to `output` (with `true` for standard
  /// error), and waits for it; `nil` when it ran longer than `limit` seconds and was stopped. Waits
  /// at most `drainSeconds` after it exits for its output to end (a process it started may keep
  /// the pipes open).
  private func launch(
    prefix: String, limit: Double?, drainSeconds: Double = 10,
    _ output: @escaping @Sendable (String, Bool) -> Void
  ) throws -> WorkerOutcome.Termination? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice
    let (standardOutput, standardError) = (Pipe(), Pipe())
    process.standardOutput = standardOutput
    process.standardError = standardError
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try Running.shared.start(process)
    defer { Running.shared.remove(process) }
    let drained = DispatchGroup()
    forward(standardOutput.fileHandleForReading, prefix: prefix, isError: false, drained, output)
    forward(standardError.fileHandleForReading, prefix: prefix, isError: true, drained, output)
    if exited.wait(timeout: limit.map { .now() + $0 } ?? .distantFuture) == .timedOut {
      process.terminate()
      exited.wait()
      _ = drained.wait(timeout: .now() + drainSeconds)
      return nil
    }
    _ = drained.wait(timeout: .now() + drainSeconds)
    return process.terminationReason == .uncaughtSignal
      ? .signaled(process.terminationStatus) : .exited(process.terminationStatus)
  }

  /// Reads `handle` to its end on a thread of its own, passing whole lines to `output`.
  private func forward(
    _ handle: FileHandle, prefix: String, isError: Bool, _ drained: DispatchGroup,
    _ output: @escaping @Sendable (String, Bool) -> Void
  ) {
    drained.enter()
    // A thread of its own: it blocks in read(2) until the process writes or ends.
    Thread.detachNewThread {
      var lines = PrefixedLines(prefix: prefix)
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        output(lines.add(buffer[..<count]), isError)
      }
      output(lines.finish(), isError)
      drained.leave()
    }
  }
}

/// Text collected from a reader thread.
private final class Collected: @unchecked Sendable {
  private let lock = NSLock()
  private var parts: [String] = []

  func append(_ text: String) { lock.withLock { parts.append(text) } }
  var text: String { lock.withLock { parts.joined() } }
}

/// Why a process was not launched: `lockstep-explore` was interrupted.
struct Interrupted: Error, CustomStringConvertible {
  var description: String { "not launched: lockstep-explore was interrupted" }
}

/// The processes running now, to stop when `lockstep-explore` is interrupted.
final class Running: @unchecked Sendable {
  static let shared = Running()
  private let lock = NSLock()
  private var processes: [ObjectIdentifier: Process] = [:]
  private var stopping = false

  /// Launches `process` and keeps it until ``remove(_:)``; refuses once stopping.
  func start(_ process: Process) throws {
    try lock.withLock {
      guard !stopping else { throw Interrupted() }
      try process.run()
      processes[ObjectIdentifier(process)] = process
    }
  }

  func remove(_ process: Process) {
    _ = lock.withLock { processes.removeValue(forKey: ObjectIdentifier(process)) }
  }

  /// Sends `SIGTERM` to every process still running, and launches no more.
  func stopAll() {
    lock.withLock {
      stopping = true
      for process in processes.values where process.isRunning { process.terminate() }
    }
  }
}
