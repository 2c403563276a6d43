@testable import LockstepTesting

/// A job of plain values, for the tests of a run's state machine (``RunState``).
struct FakeJob: SchedulableJob, Equatable {
  let taskID: UInt64?
  var isMainActor = false
  init(_ id: UInt64?, main: Bool = false) {
    taskID = id
    isMainActor = main
  }
}
