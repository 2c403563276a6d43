#if canImport(os)
  import os
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#elseif canImport(WinSDK)
  import WinSDK
#endif

/// A value protected by a lock. The shell of every Lockstep primitive: decisions are made by a
/// pure state machine inside `withLock`, effects (resuming continuations, reporting) happen after
/// it returns.
///
/// The state lives in memory of its own, reached through a pointer: a stored `var` of a class
/// would pay a dynamic exclusivity check (`swift_beginAccess`) on every `withLock`, about as much
/// as the lock itself; the lock already makes the accesses exclusive.
final class Locked<State>: @unchecked Sendable {
  private let state: UnsafeMutablePointer<State>

  #if canImport(os)
    private let lock: UnsafeMutablePointer<os_unfair_lock>
  #elseif canImport(WinSDK)
    private let lock: UnsafeMutablePointer<SRWLOCK>
  #else
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
  #endif

  init(_ state: State) {
    self.state = .allocate(capacity: 1)
    self.state.initialize(to: state)
    lock = .allocate(capacity: 1)
    #if canImport(os)
      lock.initialize(to: os_unfair_lock())
    #elseif canImport(WinSDK)
      InitializeSRWLock(lock)
    #else
      lock.initialize(to: pthread_mutex_t())
      var attributes = pthread_mutexattr_t()
      pthread_mutexattr_init(&attributes)
      #if canImport(Glibc)
        // Spin briefly before sleeping: critical sections here are a few dozen instructions.
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
      #endif
      pthread_mutex_init(lock, &attributes)
      pthread_mutexattr_destroy(&attributes)
    #endif
  }

  deinit {
    #if !canImport(os) && !canImport(WinSDK)
      pthread_mutex_destroy(lock)
    #endif
    lock.deinitialize(count: 1)
    lock.deallocate()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  /// Runs `body` with exclusive access to the state. Never resume a continuation or call user code
  /// inside `body`.
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    #if canImport(os)
      os_unfair_lock_lock(lock)
      defer { os_unfair_lock_unlock(lock) }
    #elseif canImport(WinSDK)
      AcquireSRWLockExclusive(lock)
      defer { ReleaseSRWLockExclusive(lock) }
    #else
      pthread_mutex_lock(lock)
      defer { pthread_mutex_unlock(lock) }
    #endif
    return try body(&state.pointee)
  }

  /// A copy of the current state.
  var value: State { withLock { $0 } }
}
