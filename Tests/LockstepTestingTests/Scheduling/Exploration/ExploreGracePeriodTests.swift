import LockstepTestSupport
import Testing

@testable import LockstepTesting

private struct LoadFailed: Error, CustomStringConvertible {
  var description: String { "the file is missing" }
}

/// `explore(…, gracePeriod:)`: each schedule waits for work from outside it, as a run does.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExploreGracePeriodTests {
  @Test func aScheduleWaitsItsGracePeriodForAJobFromOutside() async throws {
    let waiter = OutsideResumption()
    // Collected: one schedule of one task has nothing to explore, which explore warns about.
    async let explored = collectingIssues {
      await explore(.random(schedules: 1, seed: 1), gracePeriod: .seconds(30)) {
        await waiter.wait()  // resumed by the test, outside the run, once the body waits
      }
    }
    do {
      try await waiter.arrivals.waitForCount(1, timeout: .seconds(45))
    } catch {
      waiter.resume()  // lets the schedule end instead of waiting out its grace period
      throw error
    }
    waiter.resume()
    let (result, issues) = await explored
    #expect(result.failure == nil, "\(result)")
    #expect(result.schedulesRun == 1)
    #expect(issues.allSatisfy { $0.message.contains("nothing to explore") }, "\(issues)")
  }

  @Test func aNegativeGracePeriodIsMisuseAndNothingRuns() async {
    let ran = Locked(false)
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 3, seed: 1), gracePeriod: .seconds(-1)) {
        ran.withLock { $0 = true }
      }
    }
    #expect(!ran.withLock { $0 })
    #expect(result.schedulesRun == 0)
    #expect(issues.first?.message.contains("gracePeriod: -1 s must not be negative") == true, "\(issues)")
  }

  @Test func anErrorTheBodyThrowsIsNamedByTypeAndDescription() async throws {
    let (result, _) = await collectingIssues {
      await explore(.random(schedules: 1, seed: 1)) { throw LoadFailed() }
    }
    let failure = try #require(result.failure)
    #expect(failure.failures == ["The body threw an error of type LoadFailed: the file is missing"])
  }
}
