import LockstepExamples
import LockstepTesting

/// Scenarios 8 and 9, values over time, run like the others: the correct model must pass, the
/// broken one must be caught. Scenario 9's report is a marble diagram failure: both diagrams,
/// aligned tick by tick, with the first difference marked.
let valuesOverTimeScenarios: [Scenario] = [
  Scenario(
    title: "8. Values over time",
    proves:
      "a PropertyRecorder sees isLoading go false → true → false through each load, a failed one included; a SequenceRecorder checks a price stream value by value and sees an extra emission",
    checks: [
      Check(
        name: "isLoading through a load and a failed load",
        bug: "the spinner stays on after a failed load"
      ) { variant in
        let (_, issues) = try await collectingIssues {
          try await withTeardownVerification {
            let service = DemoItemsService()
            let tasks = TestTaskFactory()
            let model = ItemsModel(service: service, tasks: tasks, variant: variant)
            let isLoading = PropertyRecorder(model, \.isLoading, name: "isLoading")
            model.load()
            try await service.calls.waitUntilPending(1)
            service.calls.succeed(1, with: ["apples"])
            try await tasks.waitUntilIdle()
            model.load()
            try await service.calls.waitUntilPending(2)
            service.calls.fail(2, with: DemoOffline())
            try await tasks.waitUntilIdle()
            await isLoading.expectValues([false, true, false, true, false])
          }
        }
        return issues.map(\.message)
      },
      Check(
        name: "a price stream checked value by value",
        bug: "a repeated quote is sent twice"
      ) { variant in
        var expectations = Expectations()
        let (_, issues) = try await collectingIssues {
          try await withTeardownVerification {
            let source = DemoPriceSource()
            let tasks = TestTaskFactory()
            let prices = SequenceRecorder(
              PriceService(source: source, tasks: tasks, variant: variant).prices(), name: "prices")
            try await source.calls.waitUntilPending(1)
            source.calls.succeed(1, with: 10)
            expectations.expect(try await prices.next() == 10, "the first price did not arrive")
            try await source.calls.waitUntilPending(2)
            source.calls.succeed(2, with: 10)  // the same quote again: no change, no value
            try await source.calls.waitUntilPending(3)
            await prices.expectNoEvents()
            source.calls.succeed(3, with: nil)
            try await prices.expectFinished()
          }
        }
        expectations.record(issues)
        return expectations.violations
      },
    ]),
  Scenario(
    title: "9. Time-based operators as diagrams",
    proves:
      "a debounce of 3 ticks on a TestClock, stated as marble diagrams; the broken one's failure shows both diagrams aligned, the first difference marked",
    checks: [
      Check(
        name: "a debounce of 3 ticks as marble diagrams",
        bug: "the debounce's old timer still emits"
      ) { variant in
        let (_, issues) = await collectingIssues {
          await expectMarbles(from: "a-b----c-|", to: "-----b---(c|)") { input, clock in
            input.debounced(for: .seconds(3), clock: clock, variant: variant)
          }
        }
        // Keep the diagrams aligned under the demo's indentation.
        return issues.map { $0.message.replacingOccurrences(of: "\n", with: "\n        ") }
      }
    ]),
]

private struct DemoOffline: Error {}

private struct DemoItemsService: ItemsService {
  let calls = ControlledCalls<Void, [String]>("items service")
  func fetchItems() async throws -> [String] { try await calls.call() }
}

private struct DemoPriceSource: PriceSource {
  let calls = ControlledCalls<Void, Int?>("price source")
  func nextPrice() async throws -> Int? { try await calls.call() }
}
