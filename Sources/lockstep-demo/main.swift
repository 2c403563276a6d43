import Foundation
import LockstepExamples
import LockstepTesting

// lockstep-demo: runs each check of each scenario the way a Lockstep test runs it — on the correct
// model it must pass, on the broken model (which has that check's bug and no other) it must catch
// the bug — then lets the race finder (scenario 7) find a bug nobody wrote a test order for. It
// exits non-zero only if Lockstep itself misbehaves (a correct model fails, a bug slips through,
// a replay differs).

/// What one check showed.
struct CheckOutcome {
  var healthy = true
  var caught = false
}

/// Runs `check` on the correct model, then on the broken one, and prints a line for each.
@MainActor
func run(_ check: Check) async -> CheckOutcome {
  var outcome = CheckOutcome()
  print("  check: \(check.name)")
  do {
    let violations = try await check.run(.correct)
    if violations.isEmpty {
      print("    ✔ correct model passes")
    } else {
      outcome.healthy = false
      print("    ✘ correct model FAILED (a Lockstep bug):")
      for violation in violations { print("        \(violation)") }
    }
  } catch {
    outcome.healthy = false
    print("    ✘ the check threw on the correct model: \(error)")
  }
  do {
    let violations = try await check.run(.broken)
    if violations.isEmpty {
      outcome.healthy = false
      print("    ✘ bug NOT caught: \(check.bug) (a Lockstep bug)")
    } else {
      outcome.caught = true
      print("    ✔ bug caught: \(check.bug)")
      for violation in violations { print("        \(violation)") }
    }
  } catch {
    outcome.healthy = false
    print("    ✘ the check threw on the broken model (\(check.bug)): \(error)")
  }
  return outcome
}

@MainActor
func runDemo() async -> Bool {
  print(
    "Lockstep demo: every check runs twice, on the correct model and on a model with one bug. "
      + "No sleeps, no guesses.\n"
      + "Scenarios 1-6 fix the order by hand; in scenario 7 Lockstep finds the failing order itself.\n")
  var healthy = true
  var bugs = 0
  var caught = 0
  func runChecks(of scenarios: [Scenario]) async {
    for scenario in scenarios {
      printHeading(scenario.title, proves: scenario.proves)
      for check in scenario.checks {
        let outcome = await run(check)
        healthy = healthy && outcome.healthy
        bugs += 1
        if outcome.caught { caught += 1 }
      }
      print("")
    }
  }
  // Scenarios 1-6, then the race finder (7), values over time (8, 9), concurrent calls (10).
  await runChecks(of: scenarios)
  let race = await runRaceFinder()
  healthy = healthy && race.healthy
  bugs += 1
  if race.foundAt != nil { caught += 1 }
  print("")
  await runChecks(of: valuesOverTimeScenarios)
  let calls = await runConcurrentCallsChecker()
  healthy = healthy && calls.healthy
  bugs += calls.broken
  caught += calls.caught
  var found = race.foundAt.map { "found at schedule \($0)" } ?? "NOT found"
  if race.foundAt != nil { found += race.replayed ? ", replayed exactly" : ", NOT replayed" }
  print(
    "Summary: \(scenarios.count + valuesOverTimeScenarios.count + 2) scenarios, \(caught) of \(bugs) bugs caught, each by a "
      + "check of its own; Lockstep \(healthy ? "behaved" : "MISBEHAVED").")
  let correct =
    race.correctPassed
    ? "passed all \(race.correctSchedules) explored schedules" : "FAILED its exploration"
  printWrapped(
    "The race in scenario 7 was \(found); the correct model \(correct).", indent: 2, hanging: 2)
  return healthy
}

if let healthy = await progressCheck() { exit(healthy ? 0 : 1) }
let healthy = await runDemo()
exit(healthy ? 0 : 1)
