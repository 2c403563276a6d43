import Foundation
import LockstepExamples
import LockstepTesting

/// What the concurrent-calls walkthrough showed.
struct ConcurrentCallsOutcome {
  /// Whether Lockstep behaved: every broken actor caught, every correct one passed.
  var healthy = true
  /// How many broken actors were caught, of how many.
  var caught = 0
  var broken = 0
}

/// One actor of the walkthrough: its name, its bug, and its check with a variant.
private struct CheckedActor {
  let name: String
  let bug: String
  let check: @Sendable (Variant) async -> LinearizabilityResult
}

private let actors: [CheckedActor] = [
  CheckedActor(name: "VisitCounter", bug: "increment reads, awaits saving, then writes") { variant in
    await checkLinearizability(
      of: { VisitCounter(variant: variant) },
      operations: [.call("increment") { await $0.increment() }, .call("value") { await $0.value }])
  },
  CheckedActor(name: "PriceCache", bug: "checks the cache, awaits the load, then writes") { variant in
    await checkLinearizability(
      of: { PriceCache(variant: variant) },
      operations: [
        .call("price", with: [1, 2]) { await $0.price(of: $1) }, .call("count") { await $0.count },
      ])
  },
  CheckedActor(name: "BankAccounts", bug: "a transfer awaits the ledger between check and debit") {
    variant in
    await checkLinearizability(
      of: { BankAccounts(variant: variant, opening: 100) },
      operations: [
        .call("transfer", with: [30, 80]) { try await $0.transfer($1) },
        .call("balances") { await $0.balances },
      ])
  },
  CheckedActor(name: "SizedQueue", bug: "the size is written after an await, apart from the elements") {
    variant in
    await checkLinearizability(
      of: { SizedQueue(variant: variant) },
      operations: [
        .call("push", with: [1, 2]) { await $0.push($1) }, .call("pop") { await $0.pop() },
        .call("size") { await $0.size() },
      ])
  },
]

/// Scenario 10, "checking an actor under concurrent calls": each example actor's operations are
/// listed, never an order; the broken variant must be reported with a table of calls no order
/// explains, shrunk, and the correct variant must pass every run.
@MainActor
func runConcurrentCallsChecker() async -> ConcurrentCallsOutcome {
  var outcome = ConcurrentCallsOutcome()
  printHeading(
    "10. Checking an actor under concurrent calls",
    proves: "checkLinearizability() calls an actor from several tasks at once in generated "
      + "scenarios, explores each, and reports results that no order of the same calls gives, "
      + "shrunk to a small table — from a list of operations, with no invariant and no order "
      + "written down")
  for (index, checked) in actors.enumerated() {
    print("  check: \(checked.name) — \(checked.bug)")
    let (passed, passIssues) = await collectingIssues { await checked.check(.correct) }
    if passed.failure == nil && passIssues.isEmpty {
      print("    ✔ correct actor passes \(passed.schedulesRun) runs of \(passed.scenariosRun) scenarios")
    } else {
      outcome.healthy = false
      print("    ✘ correct actor FAILED (a Lockstep bug): \(passIssues.first?.message ?? "")")
    }
    outcome.broken += 1
    let (found, _) = await collectingIssues { await checked.check(.broken) }
    if let failure = found.failure, failure.isNotLinearizable {
      outcome.caught += 1
      print(
        "    ✔ bug caught in scenario \(failure.scenario), shrunk from \(failure.foundSize) to "
          + "\(failure.size):")
      if index == 0 {
        print(failure.calls.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        print("      replay: .replay(\"\(failure.token)\")")
      } else {
        print(failure.calls.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
      }
    } else {
      outcome.healthy = false
      print("    ✘ bug NOT caught (a Lockstep bug): \(found)")
    }
  }
  print("")
  return outcome
}
