import LockstepInterposition

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
final class Locked<State>: @unchecked Sendable {
  /// Accessed only under the lock, which already makes every access exclusive: the runtime's
  /// dynamic exclusivity check would only add two calls to every `withLock`.
  @exclusivity(unchecked) private var state: State

  #if canImport(os)
    private typealias Lock = os_unfair_lock
  #elseif canImport(WinSDK)
    private typealias Lock = SRWLOCK
  #else
    private typealias Lock = pthread_mutex_t
  #endif
  private let lock: UnsafeMutablePointer<Lock>

  init(_ state: State) {
    self.state = state
    lock = Self.makeLock()
  }

  /// The value `make` returns behind a lock, built in place: a large value passed to
  /// ``init(_:)`` is copied in, and the temporary destroyed.
  init(making make: () -> State) {
    state = make()
    lock = Self.makeLock()
  }

  private static func makeLock() -> UnsafeMutablePointer<Lock> {
    let lock = UnsafeMutablePointer<Lock>.allocate(capacity: 1)
    #if canImport(os)
      lock.initialize(to: os_unfair_lock())
    #elseif canImport(WinSDK)
      InitializeSRWLock(lock)
    #else
      lock.initialize(to: pthread_mutex_t())
      #if canImport(Glibc)
        // Spin briefly before sleeping: critical sections here are a few dozen instructions. Set
        // as `PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP` does, without four calls for every lock.
        lock.pointee.__data.__kind = Int32(PTHREAD_MUTEX_ADAPTIVE_NP)
      #else
        pthread_mutex_init(lock, nil)
      #endif
    #endif
    return lock
  }

  deinit {
    #if !canImport(os) && !canImport(WinSDK)
      pthread_mutex_destroy(lock)
    #endif
    lock.deinitialize(count: 1)
    lock.deallocate()
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
      // Not through the lock stand-ins (`LockCalls.c`): Lockstep's own lock is no scheduling point.
      lockstep_private_mutex_lock(lock)
      defer { lockstep_private_mutex_unlock(lock) }
    #endif
    return try body(&state)
  }

  /// A copy of the current state.
  var value: State { withLock { $0 } }
}
