#if canImport(Testing)
  import Testing

  /// Skips the running test, saying why, where the deterministic scheduler cannot run (an OS older
  /// than the 26.4 releases); with Swift 6.2, which has no way to skip from a trait, throws the
  /// reason instead. See <doc:Platforms>.
  func skipTestIfSchedulingIsUnavailable() throws {
    guard let reason = RuntimeHooks.unavailability else { return }
    #if compiler(>=6.3)
      try Test.cancel("Skipped: deterministic scheduling is unavailable: \(reason)")
    #else
      throw DeterministicSchedulingUnavailable(reason: reason)
    #endif
  }
#endif
