import LockstepTestSupport
import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DrainTableTests {
  private static let pauses: [DrainPause] = [.needsMainActor, .yieldMainActor, .budgetSpent, .leaveMainActor]

  /// The table in `DrainTable`'s documentation, row by row, in the order of ``pauses``.
  private static let table: [(DrainPlace, [DrainMove])] = [
    (
      .callerThread,
      [.moveTo(.callerOnMainActor), .moveTo(.callerOnMainActor), .moveTo(.thread), .moveTo(.thread)]
    ),
    (.mainActor, [.stay, .yieldThenStay, .yieldThenStay, .moveTo(.thread)]),
    (.callerOnMainActor, [.stay, .yieldThenStay, .yieldThenStay, .moveTo(.thread)]),
    (.thread, [.moveTo(.threadInMainActor), .moveTo(.threadInMainActor), .stay, .stay]),
    (.threadInMainActor, [.moveTo(.thread), .moveTo(.thread), .moveTo(.thread), .moveTo(.thread)]),
    (.mainThread, [.stay, .stay, .stay, .handToDrainThreadServingMainActor]),
  ]

  @Test func everyPauseAtEveryPlaceGoesWhereTheTableSays() {
    for (place, moves) in Self.table {
      for (pause, move) in zip(Self.pauses, moves) {
        #expect(DrainTable.move(after: pause, at: place) == move, "\(place), \(pause)")
      }
    }
  }

  @Test func aMainActorJobNeverRunsWhereTheMainActorIsNotHeld() {
    // A pause for a main-actor job moves off every place that does not hold the main actor, and
    // only to one that does.
    for (place, _) in Self.table where !place.holdsMainActor {
      guard case .moveTo(let next) = DrainTable.move(after: .needsMainActor, at: place) else {
        Issue.record("\(place) stays without the main actor")
        continue
      }
      #expect(next.holdsMainActor)
    }
  }

  @Test func aWaitForOutsideJobsNeverHoldsTheMainActor() {
    for (place, _) in Self.table where place.holdsMainActor {
      switch DrainTable.move(after: .leaveMainActor, at: place) {
      case .moveTo(let next): #expect(!next.holdsMainActor, "\(place)")
      case .handToDrainThreadServingMainActor: break
      case .stay, .yieldThenStay: Issue.record("\(place) waits holding the main actor")
      }
    }
  }

  @Test func aStretchHoldingTheMainActorForItsJobsOnlyLeavesItForAnyOther() {
    // Only places that hold the main actor without the caller holding it run only its jobs, and
    // the pause before another job takes them to a place without it.
    for (place, _) in Self.table where place.runsOnlyMainActorJobs {
      #expect(place.holdsMainActor, "\(place)")
      guard case .moveTo(let next) = DrainTable.move(after: .leaveMainActor, at: place) else {
        Issue.record("\(place) stays holding the main actor")
        continue
      }
      #expect(!next.holdsMainActor, "\(place)")
    }
    let onlyItsJobs = Self.table.map(\.0).filter(\.runsOnlyMainActorJobs)
    #expect(onlyItsJobs == [.callerOnMainActor, .threadInMainActor])
  }

  @Test func whereARunStarts() {
    #expect(DrainTable.start(caller: .nonisolated, gracePeriod: false) == .callerThread)
    #expect(DrainTable.start(caller: .otherActor, gracePeriod: false) == .callerThread)
    #expect(DrainTable.start(caller: .mainActor, gracePeriod: false) == .mainActor)
    #expect(DrainTable.start(caller: .blocking, gracePeriod: false) == .thread)
    #expect(DrainTable.start(caller: .blockingHoldingMainActor, gracePeriod: false) == .mainThread)
    // A run with a grace period may wait in real time for other threads: never inline.
    for caller in [DrainCaller.nonisolated, .otherActor, .mainActor, .blocking] {
      #expect(DrainTable.start(caller: caller, gracePeriod: true) == .thread)
    }
    #expect(DrainTable.start(caller: .blockingHoldingMainActor, gracePeriod: true) == .mainThread)
  }
}
