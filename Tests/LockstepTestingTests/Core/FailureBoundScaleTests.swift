import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// `LOCKSTEP_TIMEOUT_SCALE`: reading the variable, lengthening a bound, and saying so in the error.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct FailureBoundScaleTests {
  @Test func theVariableIsAPositiveFactor() {
    #expect(FailureBoundScale.read(nil).scale == 1)
    #expect(FailureBoundScale.read("").scale == 1)
    #expect(FailureBoundScale.read("5").scale == 5)
    #expect(FailureBoundScale.read(" 2.5 ").scale == 2.5)
    #expect(FailureBoundScale.read("5").problem == nil)
  }

  @Test(arguments: ["0", "-3", "fast", "inf"])
  func aValueThatIsNotAPositiveNumberIsIgnoredAndSaysWhy(text: String) {
    let (scale, problem) = FailureBoundScale.read(text)
    #expect(scale == 1)
    #expect(problem?.hasPrefix("LOCKSTEP_TIMEOUT_SCALE=\(text) is not a positive number") == true)
  }

  @Test func aBoundIsMultiplied() {
    #expect(FailureBoundScale.scaled(.seconds(10), by: 5) == .seconds(50))
    #expect(FailureBoundScale.scaled(.milliseconds(250), by: 1.5) == .milliseconds(375))
    #expect(FailureBoundScale.scaled(.seconds(10), by: 1) == .seconds(10))
    #expect(FailureBoundScale.scaled(.zero, by: 5) == .zero)
  }

  @Test func aScaledBoundReadsWithItsFactor() {
    #expect(FailureBoundScale.text(.seconds(10), by: 5) == "50 s (10 s × LOCKSTEP_TIMEOUT_SCALE=5)")
    #expect(FailureBoundScale.text(.seconds(10), by: 1) == "10 s")
  }

  @Test func theErrorSaysTheBoundItWaitedAndWhy() {
    let error = WaitTimeoutError(
      awaited: "Gate(\"save\") to open", timeout: .seconds(10), site: CallSite(), pending: [],
      isVirtualTime: false, scale: 5)
    #expect(error.timeout == .seconds(10))
    #expect(error.description.hasPrefix("Timed out after 50 s (10 s × LOCKSTEP_TIMEOUT_SCALE=5) at "))
  }

  @Test func anyFactorTheVariableAcceptsCanBeDescribed() {
    for scale in [2.5, 1e30] {
      let error = WaitTimeoutError(
        awaited: "Gate(\"save\") to open", timeout: .seconds(10), site: CallSite(), pending: [],
        isVirtualTime: false, scale: scale)
      #expect(error.description.contains("× LOCKSTEP_TIMEOUT_SCALE=\(scale))"))
    }
  }

  @Test func aBoundInVirtualTimeIsNotScaled() {
    let error = WaitTimeoutError(
      awaited: "Gate(\"save\") to open", timeout: .seconds(10), site: CallSite(), pending: [],
      isVirtualTime: true, scale: 5)
    #expect(error.description.hasPrefix("Timed out after 10 s of virtual time at "))
  }
}
