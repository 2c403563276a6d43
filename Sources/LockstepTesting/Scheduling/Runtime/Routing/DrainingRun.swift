#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// Which run the current thread is draining, kept in thread-local storage: every job enqueued on
/// a thread while it drains a run belongs to that run. (The thread Lockstep starts for the
/// purpose is ``DrainThread``; a caller's own thread drains runs too.)
enum DrainingRun {
  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
    private static let key: pthread_key_t = {
      var key = pthread_key_t()
      pthread_key_create(&key, nil)
      return key
    }()

    /// The run whose jobs this thread drains, if any.
    static var current: DeterministicRun? {
      guard let pointer = pthread_getspecific(key) else { return nil }
      return Unmanaged<DeterministicRun>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether this thread drains `run` (without a reference count's traffic).
    static func isCurrent(_ run: DeterministicRun) -> Bool {
      pthread_getspecific(key) == Unmanaged.passUnretained(run).toOpaque()
    }

    /// Runs `body` with `run` as this thread's run. Kept unretained: every caller is a method of
    /// `run` itself, which keeps it alive for the call.
    static func with<T>(_ run: DeterministicRun, _ body: () throws -> T) rethrows -> T {
      let previous = pthread_getspecific(key)
      pthread_setspecific(key, Unmanaged.passUnretained(run).toOpaque())
      defer { pthread_setspecific(key, previous) }
      return try body()
    }

    /// Runs `body` with no run as this thread's run.
    static func without<T>(_ body: () throws -> T) rethrows -> T {
      let previous = pthread_getspecific(key)
      pthread_setspecific(key, nil)
      defer { pthread_setspecific(key, previous) }
      return try body()
    }

    static let isSupported = true
  #else
    static var current: DeterministicRun? { nil }
    static func isCurrent(_ run: DeterministicRun) -> Bool { false }
    static func with<T>(_ run: DeterministicRun, _ body: () throws -> T) rethrows -> T {
      try body()
    }
    static func without<T>(_ body: () throws -> T) rethrows -> T { try body() }
    static let isSupported = false
  #endif
}
