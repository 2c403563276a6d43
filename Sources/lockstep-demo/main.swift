import Foundation
import LockstepExamples
import LockstepTesting

// lockstep-demo: runs each scenario the way a Lockstep test runs it — the correct model must
// pass, the broken model must be caught — then lets the race finder (scenario 7) find a bug
// nobody wrote a test order for. It exits non-zero only if Lockstep itself misbehaves (a correct
// model fails, a broken one slips through, a replay differs).

@MainActor
func runDemo() async -> Bool {
  print(
    "Lockstep demo: every scenario runs twice, correct and broken. No sleeps, no guesses.\n"
      + "Scenarios 1-6 fix the order by hand; in scenario 7 Lockstep finds the failing order itself.\n")
  var healthy = true
  var caught = 0
  for scenario in demoScenarios {
    print("▶ \(scenario.title)")
    print("  proves: \(scenario.proves)")
    do {
      let correct = try await scenario.check(.correct)
      if correct.isEmpty {
        print("  ✔ correct model passes")
      } else {
        healthy = false
        print("  ✘ correct model FAILED (a Lockstep bug):")
        for violation in correct { print("      \(violation)") }
      }
      let broken = try await scenario.check(.broken)
      if broken.isEmpty {
        healthy = false
        print("  ✘ broken model was NOT caught (a Lockstep bug)")
      } else {
        caught += 1
        print("  ✔ broken model caught:")
        for violation in broken { print("      \(violation)") }
      }
    } catch {
      healthy = false
      print("  ✘ the scenario threw: \(error)")
    }
    print("")
  }
  let race = await runRaceFinder()
  healthy = healthy && race.healthy
  if race.foundAt != nil { caught += 1 }
  var found = race.foundAt.map { "found at schedule \($0)" } ?? "NOT found"
  if race.foundAt != nil { found += race.replayed ? ", replayed exactly" : ", NOT replayed" }
  print(
    "Summary: \(demoScenarios.count + 1) scenarios, \(caught) broken models caught, Lockstep "
      + "\(healthy ? "behaved" : "MISBEHAVED").")
  let correct =
    race.correctPassed
    ? "passed all \(race.correctSchedules) explored schedules" : "FAILED its exploration"
  printWrapped(
    "The race in scenario 7 was \(found); the correct model \(correct).", indent: 2, hanging: 2)
  return healthy
}

let healthy = await runDemo()
exit(healthy ? 0 : 1)
