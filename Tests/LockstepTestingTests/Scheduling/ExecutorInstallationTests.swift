import LockstepInterposition
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Swift's executor factory stores the executors with plain stores, which the standard library
/// asks for before the first job: in a Linux test process Lockstep installs them before `main`,
/// when no other thread can enqueue one.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExecutorInstallationTests {
  #if os(Linux)
    @Test func aLinuxTestProcessHasLockstepsExecutorsFromBeforeMain() async throws {
      #expect(lockstep_executors_installed_before_main())
      // A run finds them installed and installs nothing more.
      try await withDeterministicScheduling {}
      #expect(lockstep_executors_installed_before_main())
    }
  #endif
}
