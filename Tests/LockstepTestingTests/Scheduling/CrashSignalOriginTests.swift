import LockstepTestSupport
import Testing

@testable import LockstepTesting

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#endif

/// After writing its report, the crash handler gives a signal back: a fault faults again when the
/// handler returns, a sent signal must be sent again. Linux and Darwin number the two differently.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CrashSignalOriginTests {
  #if canImport(Darwin) || canImport(Glibc)
    @Test func sentSignalsAreToldFromFaultsByThePlatformsCodes() {
      #expect(CrashReport.wasSent(Int32(SI_USER)))
      #expect(CrashReport.wasSent(Int32(SI_QUEUE)))
      // A fault's codes are small and positive on both (SEGV_MAPERR, BUS_ADRERR, ILL_ILLOPC).
      #expect(!CrashReport.wasSent(Int32(SEGV_MAPERR)))
      #expect(!CrashReport.wasSent(Int32(BUS_ADRERR)))
      #expect(!CrashReport.wasSent(Int32(ILL_ILLOPC)))
      #if os(Linux)
        // `raise` and `abort` send with `tgkill` (SI_TKILL, -6) on Linux.
        #expect(CrashReport.wasSent(-6))
      #endif
    }
  #endif
}
