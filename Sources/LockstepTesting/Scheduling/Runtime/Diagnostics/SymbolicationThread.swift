import Foundation

/// The thread every symbolication of the process runs on (``CodeSymbols``): the toolchain's
/// symbolicator keeps what it read of each image's debug information per thread, so one thread
/// reads it once, where a report made on a new thread would read it again (about 200 ms a time
/// in a debug test binary, against tens of milliseconds once read).
final class SymbolicationThread: @unchecked Sendable {
  static let shared = SymbolicationThread()

  private let pending = Locked<[@Sendable () -> Void]>([])
  private let available = DispatchSemaphore(value: 0)

  private init() {
    let thread = Thread { [self] in
      while true {
        available.wait()
        guard let work = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
        work()
      }
    }
    thread.name = "Lockstep symbols"
    thread.stackSize = 8 << 20
    thread.start()
  }

  /// Runs `work` on this thread and returns its result, blocking the caller meanwhile.
  func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) -> Result {
    let result = Locked<Result?>(nil)
    let done = DispatchSemaphore(value: 0)
    pending.withLock { pending in
      pending.append {
        let value = work()
        result.withLock { $0 = value }
        done.signal()
      }
    }
    available.signal()
    done.wait()
    return result.withLock { $0 }!
  }
}
