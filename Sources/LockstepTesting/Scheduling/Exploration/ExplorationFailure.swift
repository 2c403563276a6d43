/// A failing schedule found by ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)``:
/// what failed, the timeline of the schedule, and the token that replays it.
///
/// ```swift
/// let result = await explore(.random()) { try await model.check() }
/// if let failure = result.failure {
///   print(failure.timeline)
///   await explore(.replay(failure.token)) { try await model.check() }   // fails the same way
/// }
/// ```
public struct ExplorationFailure: Sendable, Equatable, CustomStringConvertible {
  /// The strategy that found it.
  public let strategy: String
  /// The number of the schedule that failed first, from 1 (in its shard, if any); 0 when a pinned
  /// token failed.
  public let schedule: Int
  /// The shard that found it (`LOCKSTEP_SHARD`); `nil` when not sharded. Its token replays anywhere.
  public let shard: ExplorationShard?
  /// The pinned token, as written, that failed again; `nil` when a new schedule failed.
  public let pinnedToken: String?
  /// The token that replays the reported (shrunk) schedule.
  public let token: ReplayToken
  /// What failed in the reported schedule: issues, a thrown error, a deadlock report.
  public let failures: [String]
  /// The reported schedule, step by step.
  public let timeline: Timeline
  /// Preemptions in the reported schedule: switches away from a task that could have gone on.
  public let preemptions: Int
  /// Context switches in the reported schedule: steps that ran another task than the step before.
  public let contextSwitches: Int
  /// Preemptions and context switches of the schedule as first found, before shrinking.
  public let found: (preemptions: Int, contextSwitches: Int)
  /// Whether the replay of the reported schedule before the report followed it and failed the same
  /// way (for a replay strategy: whether it followed its token).
  public let reproduced: Bool
  /// Where that replay left the schedule, if it did.
  public let divergence: ReplayDivergence?
  /// What the replay before the report found.
  let replay: Replay
  /// Whether hashing was deterministic in the process that found it.
  let hashingIsDeterministic: Bool
  /// Whether the failing schedule's run read virtual now (``VirtualNow``).
  let readsVirtualNow: Bool
  /// The strategy as the report names it (``ExplorationSetup/title``).
  let title: String
  /// The tokens the exploration pinned, as written.
  let pinned: [String]
  /// For a replay up to a crash that stopped there, the step that crashed the process in the
  /// recorded run (``ExplorationResult/stoppedBeforeCrashingStep``).
  let stoppedBeforeCrashingStep: Int?
  /// The schedule's number among all the exploration's schedules, whatever the shard (what
  /// ``schedule`` is in the unsharded exploration); `nil` for a pinned token and a sharded
  /// exhaustive search.
  let overallSchedule: Int?
  /// For a sharded exhaustive search, the subtree the schedule lies in (``SearchSplit``), and its
  /// number among the subtree's schedules, from 1.
  let subtree: (number: Int, schedule: Int)?

  /// What came of replaying the reported schedule.
  enum Replay: Sendable, Equatable {
    /// It followed the schedule and failed the same way.
    case reproduced
    /// It did not follow the schedule; `replayingToken` when the exploration was itself a replay.
    case diverged(ReplayDivergence, replayingToken: Bool)
    /// It followed the schedule and passed.
    case passed
    /// It followed the schedule and failed otherwise, first with this failure.
    case failedOtherwise(String)
    /// The exploration was a replay that followed its token: nothing more to say.
    case replayedToken

    var reproduced: Bool {
      switch self {
      case .reproduced, .replayedToken: true
      case .diverged, .passed, .failedOtherwise: false
      }
    }

    var divergence: ReplayDivergence? {
      if case .diverged(let divergence, _) = self { return divergence }
      return nil
    }

    /// The line of the report, if any.
    var line: String? {
      let did = "Replayed once before this report: it did not reproduce"
      switch self {
      case .reproduced: return "Replayed once before this report: it failed the same way."
      case .diverged(let divergence, let replayingToken):
        return (replayingToken ? "This replay did not follow its token's schedule." : "\(did).")
          + " \(divergence)"
      case .passed:
        return "\(did): it followed the same schedule and passed, so the failure depends on "
          + "something the schedule does not fix (the real clock, other threads, real I/O, or state "
          + "kept from one run to the next)."
      case .failedOtherwise(let first):
        return "\(did): it followed the same schedule but failed otherwise: "
          + first.replacingNewlines(with: "\n    ")
      case .replayedToken: return nil
      }
    }
  }

  init(
    strategy: String, schedule: Int, token: ReplayToken, failures: [String], timeline: Timeline,
    preemptions: Int, contextSwitches: Int, found: (preemptions: Int, contextSwitches: Int),
    replay: Replay, hashingIsDeterministic: Bool, title: String? = nil,
    shard: ExplorationShard? = nil, pinnedToken: String? = nil, pinned: [String] = [],
    readsVirtualNow: Bool = true, stoppedBeforeCrashingStep: Int? = nil,
    overallSchedule: Int? = nil, subtree: (number: Int, schedule: Int)? = nil
  ) {
    self.overallSchedule = overallSchedule
    self.subtree = subtree
    self.stoppedBeforeCrashingStep = stoppedBeforeCrashingStep
    self.readsVirtualNow = readsVirtualNow
    self.title = title ?? strategy
    self.shard = shard
    self.pinnedToken = pinnedToken
    self.pinned = pinned
    self.strategy = strategy
    self.schedule = schedule
    self.token = token
    self.failures = failures
    self.timeline = timeline
    self.preemptions = preemptions
    self.contextSwitches = contextSwitches
    self.found = found
    self.replay = replay
    self.hashingIsDeterministic = hashingIsDeterministic
    reproduced = replay.reproduced
    divergence = replay.divergence
  }

  /// Whether every field is equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.strategy == rhs.strategy && lhs.schedule == rhs.schedule && lhs.token == rhs.token
      && lhs.failures == rhs.failures && lhs.timeline == rhs.timeline
      && lhs.preemptions == rhs.preemptions && lhs.contextSwitches == rhs.contextSwitches
      && lhs.found == rhs.found && lhs.replay == rhs.replay
      && lhs.hashingIsDeterministic == rhs.hashingIsDeterministic && lhs.title == rhs.title
      && lhs.shard == rhs.shard && lhs.pinnedToken == rhs.pinnedToken && lhs.pinned == rhs.pinned
      && lhs.readsVirtualNow == rhs.readsVirtualNow
      && lhs.stoppedBeforeCrashingStep == rhs.stoppedBeforeCrashingStep
      && lhs.overallSchedule == rhs.overallSchedule && lhs.subtree?.number == rhs.subtree?.number
      && lhs.subtree?.schedule == rhs.subtree?.schedule
  }

  /// The argument that pins this failure's token after the tokens pinned already:
  /// `pinned: ["L2.…"]`.
  public var pinnedLine: String {
    let tokens = (pinned + [token.description]).map { "\"\($0)\"" }
    return "pinned: [\(tokens.joined(separator: ", "))]"
  }

  /// The reported schedule as an SVG picture, one lane per task; see
  /// <doc:FindingRaces#Read-the-picture>.
  public var timelineSVG: String {
    TimelinePicture(timeline: timeline, title: headline, replay: replayLine, failures: failures).svg
  }

  /// The report's first line.
  var headline: String {
    if let step = stoppedBeforeCrashingStep {
      "explore \(title) stopped before step \(step), the step that crashed the process in the "
        + "recorded run: the timeline below runs up to the crash."
    } else if let pinnedToken {
      "explore \(title): the pinned token \"\(pinnedToken)\" fails again: the failure it was "
        + "pinned for is back."
    } else if let shard {
      "explore \(title) found a failing schedule (schedule \(schedule) of shard \(shard))."
    } else {
      "explore \(title) found a failing schedule (schedule \(schedule))."
    }
  }

  /// `Replay it exactly with: .replay("L2.…")`.
  var replayLine: String {
    if let step = stoppedBeforeCrashingStep {
      return "Replay it up to the crash again with: .replayUpToCrash(\"\(token)\", atStep: \(step)); "
        + "run into the crash with: .replay(\"\(token)\")"
    }
    return "Replay it exactly with: .replay(\"\(token)\")"
      + (shard == nil ? "" : " (in any shard, or with no shard set)")
  }

  /// The whole report, as `explore` records it.
  public var description: String {
    var lines = [headline, "What failed:"]
    lines += failures.map { "  - " + $0.replacingNewlines(with: "\n    ") }
    lines.append(replayLine)
    if let line = replay.line { lines.append(line) }
    if pinnedToken == nil && replay == .reproduced {
      lines.append(
        "Once it is fixed, keep it as a regression check, replayed first on every run, with this "
          + "argument to explore:")
      lines.append("  \(pinnedLine)")
    }
    if found != (preemptions, contextSwitches) {
      lines.append(
        "Simplified from \(found.preemptions) preemption(s) and \(found.contextSwitches) context "
          + "switch(es) to \(preemptions) and \(contextSwitches) (fewer preemptions first).")
    } else {
      lines.append("\(preemptions) preemption(s), \(contextSwitches) context switch(es).")
    }
    lines.append(
      stoppedBeforeCrashingStep == nil
        ? "Timeline of the schedule:" : "Timeline of the schedule up to the crash:")
    lines.append(timeline.description)
    if !readsVirtualNow { lines.append(VirtualNow.realClocksNote) }
    // Once a report: a divergence's likely cause says it already.
    if !hashingIsDeterministic && divergence?.hashingIsDeterministic != false {
      lines.append(HashingDeterminism.note)
    }
    return lines.joined(separator: "\n")
  }
}

extension String {
  func replacingNewlines(with separator: String) -> String {
    split(separator: "\n", omittingEmptySubsequences: false).joined(separator: separator)
  }
}
