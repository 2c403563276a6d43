/// The object itself as the specification: what each call returns after each sequence of calls,
/// learned by calling fresh objects one call at a time, and kept across a scenario's runs.
///
/// The judge asks for transitions synchronously; one it does not know yet fails its branch and
/// is remembered, and ``learnMissing()`` learns them all at once, in a deterministic run of its
/// own, before the judge searches again.
final class SequentialReplays<Object: Sendable, Model: Hashable & Sendable>: @unchecked Sendable {
  // One exploration uses it at a time, from its loop or from the judge that loop calls.
  private struct Transition {
    let outcome: CallOutcome
    let node: Int
  }

  private struct Miss: Hashable {
    let node: Int
    let call: ScenarioCall
  }

  private let operations: [LinearizabilityOperation<Object, Model>]
  private let make: @Sendable () async -> Object
  private let timeout: Duration
  private let site: CallSite
  /// The transitions out of each node; node 0 is a fresh object.
  private var children: [[ScenarioCall: Transition]] = [[:]]
  /// The calls that lead from a fresh object to each node.
  private var paths: [[ScenarioCall]] = [[]]
  private var missing: Set<Miss> = []

  /// Whether the calls alone run on the normal executors (for a stress check) rather than in a
  /// deterministic run.
  private let onRealThreads: Bool

  init(
    operations: [LinearizabilityOperation<Object, Model>], make: @escaping @Sendable () async -> Object,
    timeout: Duration, site: CallSite, onRealThreads: Bool = false
  ) {
    self.operations = operations
    self.make = make
    self.timeout = timeout
    self.site = site
    self.onRealThreads = onRealThreads
  }

  /// The sequential specification over what is known so far: states are nodes.
  var specification: SequentialSpecification<Int, ScenarioCall, CallOutcome> {
    SequentialSpecification(initial: 0) { node, call in
      if let transition = self.children[node][call] {
        node = transition.node
        return transition.outcome
      }
      if node >= 0 { self.missing.insert(Miss(node: node, call: call)) }
      node = -1
      return .unknown
    }
  }

  /// Whether the last search asked for a transition not known yet.
  var isMissingSome: Bool { !missing.isEmpty }

  /// Learns every transition the last search asked for; returns what went wrong, if anything: a
  /// call that did not return when called alone, or a result that differed between two runs of
  /// the same calls.
  func learnMissing() async -> String? {
    let asked = missing.sorted {
      ($0.node, $0.call.operation, $0.call.argument) < ($1.node, $1.call.operation, $1.call.argument)
    }
    missing = []
    return await learn(asked.map { paths[$0.node] + [$0.call] })
  }

  /// Whether every transition along `path` from a fresh object is known.
  func knows(_ path: [ScenarioCall]) -> Bool {
    var node = 0
    for call in path {
      guard let transition = children[node][call] else { return false }
      node = transition.node
    }
    return true
  }

  /// Learns the transitions along each of `paths` from a fresh object, in one deterministic run
  /// (or one task on the normal executors); returns what went wrong, as ``learnMissing()`` does.
  func learn(_ paths: [[ScenarioCall]]) async -> String? {
    let learned = Locked<[[CallOutcome]]>([])
    let operations = operations
    let make = make
    let calls: @Sendable () async -> Void = {
      // Each sequence twice, each time on a fresh object: an object that gives other results
      // for the same calls cannot be the specification.
      for path in paths {
        for _ in 0..<2 {
          let object = await make()
          var outcomes: [CallOutcome] = []
          for call in path {
            outcomes.append(await operations[call.operation].perform(object, call.argument))
          }
          learned.withLock { $0.append(outcomes) }
        }
      }
    }
    let failure: String?
    if onRealThreads {
      switch await BoundedTask.run(within: timeout, calls) {
      case .finished: failure = nil
      case .timedOut: failure = "it did not return within \(timeout)"
      case .cancelled: failure = "the test was cancelled"
      }
    } else {
      do {
        failure = try await RunLifecycle.starting(at: site) {
          let run = RunRecipe.sequentialReplay(timeout: timeout).make(at: site)
          return await run.perform(LentBody<Void> { await calls() }).runFailure.map { "\($0)" }
        }
      } catch {
        failure = "\(error)"
      }
    }
    if let failure {
      let path = paths[learned.withLock { $0.count } / 2]
      return "calling a fresh object one call at a time did not finish — "
        + path.map { operations[$0.operation].text(argument: $0.argument) }.joined(separator: ", ")
        + ": \(failure)\nWithout a model, every operation must return when called alone; give "
        + "the operations a model (`model:`) when one waits for another."
    }
    for (index, outcomes) in learned.withLock({ $0 }).enumerated() {
      if let problem = add(outcomes, along: paths[index / 2]) { return problem }
    }
    return nil
  }

  /// Records the outcomes of the calls of `path` from a fresh object.
  private func add(_ outcomes: [CallOutcome], along path: [ScenarioCall]) -> String? {
    var node = 0
    for (index, (call, outcome)) in zip(path, outcomes).enumerated() {
      if let known = children[node][call] {
        guard known.outcome == outcome else {
          let calls = path.prefix(index).map { operations[$0.operation].text(argument: $0.argument) }
          return "a fresh object called one call at a time gave two results for the same calls: "
            + "after [\(calls.joined(separator: ", "))], "
            + "\(operations[call.operation].text(argument: call.argument)) returned \(known.outcome) "
            + "once and \(outcome) once. Without a model the object itself is the specification, "
            + "so it must give the same results for the same calls; give the operations a model "
            + "(`model:`), or make the object deterministic."
        }
        node = known.node
      } else {
        children.append([:])
        paths.append(paths[node] + [call])
        children[node][call] = Transition(outcome: outcome, node: children.count - 1)
        node = children.count - 1
      }
    }
    return nil
  }
}
