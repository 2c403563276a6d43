import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// Scenario 1: a screen that loads on its own.
@MainActor @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ProfileScreenTests {
  @Test(arguments: Variant.allCases)
  func loadPublishesTheNameAndRunsTheNestedTask(variant: Variant) async throws {
    let tasks = TestTaskFactory()
    let model = ProfileModel(service: FakeProfileService(name: "Blob"), tasks: tasks, variant: variant)

    model.load()
    try await tasks.waitUntilIdle()

    #expect(model.name == "Blob")
    #expect(model.greetingShown)  // set by a task that the load's task started
    #expect(tasks.createdCount == 2)
  }

  @Test(arguments: Variant.allCases)
  func aLoadCancelledBeforeTheServiceAnswersLeavesNoTrace(variant: Variant) async throws {
    let gate = Gate("profile service")
    let tasks = TestTaskFactory()
    let model = ProfileModel(service: FakeProfileService(gate: gate), tasks: tasks, variant: variant)

    model.load()
    try await gate.waitForArrivals(1)  // the request has really reached the service
    model.cancel()
    gate.open()  // the service answers anyway
    try await tasks.waitUntilIdle()

    // The broken model publishes the cancelled load's result.
    #expect(model.name == (variant == .correct ? "" : "Blob"))
    #expect(model.greetingShown == (variant == .broken))
  }

  @Test func aTaskThatNeverFinishesFailsTheWaitNamingTheTask() async throws {
    let gate = Gate("a service that never answers")
    let tasks = TestTaskFactory()
    let model = ProfileModel(service: FakeProfileService(gate: gate), tasks: tasks)

    model.load()
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await tasks.waitUntilIdle(timeout: .milliseconds(50))
    }
    #expect(
      error?.pending.first?.contains(
        "task #1 \"load profile\", created at LockstepExamples/ProfileModel.swift") == true)
    gate.open()  // let it finish, so that nothing outlives the test
    try await tasks.waitUntilIdle()
  }
}

final class ProfileScreenXCTests: XCTestCase {
  @MainActor func testLoadPublishesTheName() async throws {
    let tasks = TestTaskFactory()
    let model = ProfileModel(service: FakeProfileService(name: "Blob"), tasks: tasks)
    model.load()
    try await tasks.waitUntilIdle()
    XCTAssertEqual(model.name, "Blob")
    XCTAssertTrue(model.greetingShown)
  }

  @MainActor func testCancelledLoadLeavesNoTrace() async throws {
    let gate = Gate("profile service")
    let tasks = TestTaskFactory()
    let model = ProfileModel(service: FakeProfileService(gate: gate), tasks: tasks)
    model.load()
    try await gate.waitForArrivals(1)
    model.cancel()
    gate.open()
    try await tasks.waitUntilIdle()
    XCTAssertEqual(model.name, "")
  }
}
