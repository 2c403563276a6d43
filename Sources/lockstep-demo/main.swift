import Foundation
import LockstepExamples
import LockstepTesting

// lockstep-demo: runs each scenario the way a Lockstep test runs it — the correct model must
// pass, the broken model must be caught. It exits non-zero only if Lockstep itself misbehaves
// (a correct model fails, or a broken one slips through).

@MainActor
func runDemo() async -> Bool {
  print("Lockstep demo: every scenario runs twice, correct and broken. No sleeps, no guesses.\n")
  var healthy = true
  var caught = 0
  for scenario in scenarios {
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
  print(
    "Summary: \(scenarios.count) scenarios, \(caught) broken models caught, Lockstep \(healthy ? "behaved" : "MISBEHAVED")."
  )
  return healthy
}

let healthy = await runDemo()
exit(healthy ? 0 : 1)
