import Dispatch
import LockstepInterposition

/// The thread of a parked job: what it waits on, where, and the slot it is handed its turn on.
final class ParkedThread: Sendable {
  /// The semaphore its thread waits on (a group's waiter waits on one the group signals); `nil`
  /// at a lock point, where the thread waits only for its turn.
  nonisolated(unsafe) let waitOn: UnsafeMutableRawPointer?
  /// The return addresses of its stack when it parked, for reports.
  let frames: [UInt]
  let slot = BatonSlot()
  /// Where a thread that serves the main actor while it waits (a run loop's wait on the main
  /// thread) waits instead of `waitOn`: woken by main-actor work and by the end of its wait.
  let servant: DispatchSemaphore?
  private let woken = Locked(false)

  init(waitOn: UnsafeMutableRawPointer?, frames: [UInt], servant: DispatchSemaphore? = nil) {
    self.waitOn = waitOn
    self.frames = frames
    self.servant = servant
  }

  /// The return addresses of the calling thread's stack, for ``frames``.
  static func stackHere() -> [UInt] {
    [UInt](unsafeUninitializedCapacity: 32) { buffer, count in
      count = Int(lockstep_return_addresses(buffer.baseAddress, 32))
    }
  }

  /// Whether the run ended its wait.
  var isWoken: Bool { woken.withLock { $0 } }

  /// Ends its wait: its thread comes back.
  func wake() {
    woken.withLock { $0 = true }
    if let servant {
      servant.signal()
    } else if let waitOn {
      _ = lockstep_semaphore_signal_now(waitOn)
    }
  }
}
