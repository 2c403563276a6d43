#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether this process runs under the thread sanitizer, seen at run time: its runtime exports
/// `__tsan_init`.
///
/// Tests that call a `Synchronization.Mutex` from tasks on real threads are disabled under it: on
/// Linux the sanitizer does not see that mutex's locking (its fast path is an inlined atomic on a
/// futex word, never a `pthread_mutex` call the sanitizer intercepts), so it reports the accesses
/// the mutex guards as a data race that is not one.
public enum ThreadSanitizer {
  /// `true` under `-sanitize=thread`.
  public static let isActive: Bool = {
    #if canImport(Darwin)
      let everyImage = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
    #else
      let everyImage: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
    #endif
    return dlsym(everyImage, "__tsan_init") != nil
  }()
}
