import Foundation
import LockstepInterposition

/// Which run in progress uses each default actor, so that runs proceed side by side and an actor
/// that two of them use is theirs one after the other. A run claims an actor when one of its jobs
/// first switches to it (`TaskSwitch.c` tells every switch to a default actor on a thread that
/// drains a run) and holds it until the run ends. A job of another run that switches to it waits,
/// on its own thread, until that run ends: the waiting run stands still meanwhile, so its order is
/// the one it has alone. The wait is in its timeline (``SchedulerTrace/waitsForOtherRuns``).
///
/// The decisions are ``Registry``'s, pure; `ActorClaimsTests` checks them, and
/// `ParallelRunsTests` runs that share an actor.
enum ActorClaims {
  /// Starts telling this process's switches to default actors to the runs, once: a stretch of a
  /// run's draining names the run as its thread's claiming run (`RunContext`).
  static let installed: Void = {
    lockstep_actor_claims_set_observer { context, actor in
      guard let context, let actor else { return }
      let run = Unmanaged<DeterministicRun>.fromOpaque(context).takeUnretainedValue()
      ActorClaims.switched(run, to: actor)
    }
  }()

  /// A job of `run` switches to `actor` on this thread.
  private static func switched(_ run: DeterministicRun, to actor: UnsafeRawPointer) {
    guard run.state.withLock({ $0.claimingActors() }) == .claim else { return }
    let object = Unmanaged<AnyObject>.fromOpaque(actor).takeUnretainedValue()
    var decision = registry.withLock { registry in
      registry.claim(UInt(bitPattern: actor), object: object, by: ObjectIdentifier(run), at: run.site)
    }
    // Asked only when the run would wait: reading it costs more than a claim.
    if case .wait(let turn, let holder) = decision, MainActorAccess.isHeldHere {
      registry.withLock { $0.giveUp(turn, of: ObjectIdentifier(run)) }
      decision = .goesOnBeside(holder, why: Registry.mainActorReason)
    }
    switch decision {
    case .proceed: return
    case .wait(let turn, let holder):
      let started = RealTime.now
      let gotIt = turn.wait(until: run.deadline)
      if !gotIt {
        registry.withLock { $0.giveUp(turn, of: ObjectIdentifier(run)) }
      }
      run.noteWaitForOtherRun(
        OtherRunWait(
          actor: typeName(of: object), otherRun: holder.site, waited: started.duration(to: RealTime.now),
          servedInTurn: gotIt))
    case .goesOnBeside(let holder, let why):
      run.noteWaitForOtherRun(
        OtherRunWait(
          actor: typeName(of: object), otherRun: holder.site, waited: .zero, servedInTurn: false,
          notWaitedBecause: why))
    }
  }

  /// Lets go of the actors `run` claimed, handing each to the run waiting first for it, and of
  /// its wait for another's, if it waits. Called when the run ends; costs nothing for a run that
  /// switched to no actor.
  static func release(_ run: DeterministicRun) {
    guard run.state.withLock({ $0.endClaimingActors() }) == .release else { return }
    let turns = registry.withLock { $0.release(ObjectIdentifier(run)) }
    for turn in turns { turn.grant() }
  }

  private static func typeName(of object: AnyObject) -> String {
    String(describing: type(of: object))
  }

  private static let registry = Locked(Registry())

  /// A run's turn at an actor another run holds: granted when that run ends. Waited for on a
  /// condition variable of Lockstep's own, which the run does not take for a wait of its job (a
  /// semaphore's wait is parked, and the run would go on).
  final class Turn: @unchecked Sendable {
    let run: ObjectIdentifier
    /// Where the waiting run was started.
    let site: CallSite
    private let condition = PrivateCondition()
    private var granted = false

    init(run: ObjectIdentifier, site: CallSite) {
      self.run = run
      self.site = site
    }

    func grant() {
      condition.lock()
      granted = true
      condition.broadcast()
      condition.unlock()
    }

    /// Waits for the turn until `deadline`; `false` when the deadline came first.
    func wait(until deadline: ContinuousClock.Instant) -> Bool {
      condition.lock()
      defer { condition.unlock() }
      while !granted {
        if !condition.wait(until: deadline) { return granted }
      }
      return true
    }
  }

  /// The run that holds an actor another run wants.
  struct Holder: Sendable {
    let run: ObjectIdentifier
    let site: CallSite
  }

  /// What a run switching to an actor does.
  enum Decision {
    /// The actor is free or the run's own: it goes on.
    case proceed
    /// Another run holds the actor: the run waits for its turn.
    case wait(Turn, Holder)
    /// Another run holds the actor, and waiting for it could never end: the run goes on beside it.
    case goesOnBeside(Holder, why: String)
  }

  /// The claims, waiting runs and who waits for whom: the decisions, pure.
  struct Registry {
    struct Claim {
      var owner: ObjectIdentifier
      /// Where the owner was started.
      var site: CallSite
      /// The actor, while it lives: an address whose actor was freed may be another actor's.
      weak var object: AnyObject?
      var turns: [Turn] = []
    }
    var claims: [UInt: Claim] = [:]
    /// The actors each run holds.
    var held: [ObjectIdentifier: [UInt]] = [:]
    /// The run each waiting run waits for.
    var waitsFor: [ObjectIdentifier: ObjectIdentifier] = [:]

    /// `run`, started at `site`, switches to the actor at `address`, `object`; it may block its
    /// thread for its turn when `mayWait`.
    mutating func claim(
      _ address: UInt, object: AnyObject, by run: ObjectIdentifier, at site: CallSite = CallSite(),
      mayWait: Bool = true
    ) -> Decision {
      if let claim = claims[address], claim.object === object {
        if claim.owner == run { return .proceed }
        let holder = Holder(run: claim.owner, site: claim.site)
        if !mayWait {
          return .goesOnBeside(holder, why: Self.mainActorReason)
        }
        if waits(claim.owner, transitivelyFor: run) {
          return .goesOnBeside(holder, why: "the other run waits for an actor this run holds")
        }
        let turn = Turn(run: run, site: site)
        claims[address]?.turns.append(turn)
        waitsFor[run] = claim.owner
        return .wait(turn, holder)
      }
      // Free, or the address of an actor that was freed.
      if let stale = claims[address] { held[stale.owner]?.removeAll { $0 == address } }
      claims[address] = Claim(owner: run, site: site, object: object)
      held[run, default: []].append(address)
      return .proceed
    }

    static let mainActorReason =
      "this run's thread holds the main actor, which the other run may need"

    /// Whether `run`, following who waits for whom, waits for `other`.
    func waits(_ run: ObjectIdentifier, transitivelyFor other: ObjectIdentifier) -> Bool {
      var next = waitsFor[run]
      var steps = 0
      while let current = next, steps <= waitsFor.count {
        if current == other { return true }
        next = waitsFor[current]
        steps += 1
      }
      return false
    }

    /// `run` stopped waiting for `turn` without it (its deadline came first).
    mutating func giveUp(_ turn: Turn, of run: ObjectIdentifier) {
      for address in claims.keys { claims[address]?.turns.removeAll { $0 === turn } }
      waitsFor[run] = nil
    }

    /// `run` ended: each actor it held goes to the first run waiting for it; returns their turns.
    mutating func release(_ run: ObjectIdentifier) -> [Turn] {
      var granted: [Turn] = []
      for address in held.removeValue(forKey: run) ?? [] {
        guard var claim = claims[address], claim.owner == run else { continue }
        guard !claim.turns.isEmpty, claim.object != nil else {
          claims[address] = nil
          continue
        }
        let next = claim.turns.removeFirst()
        claim.owner = next.run
        claim.site = next.site
        claims[address] = claim
        held[next.run, default: []].append(address)
        waitsFor[next.run] = nil
        granted.append(next)
      }
      // A run that ends while it waits (given up by the watchdog) waits no more.
      if waitsFor.removeValue(forKey: run) != nil {
        for address in claims.keys { claims[address]?.turns.removeAll { $0.run == run } }
      }
      return granted
    }
  }
}

/// A wait of a run for an actor that another run in progress used, as its timeline tells it.
struct OtherRunWait: Sendable {
  /// The actor's type.
  let actor: String
  /// Where the other run was started.
  let otherRun: CallSite
  /// How long the run stood still, in real time.
  let waited: Duration
  /// Whether the run had the actor to itself afterwards.
  let servedInTurn: Bool
  /// Why the run went on beside the other without waiting, if it did.
  var notWaitedBecause: String? = nil

  /// `waited 12 ms for the run started at CacheTests.swift:20 to end: both use actor Cache`.
  var text: String {
    if let why = notWaitedBecause {
      return "used actor \(actor) while the run started at \(otherRun) used it, without waiting: "
        + "\(why); the two runs' orders on it depend on timing (mark such tests `.serialized`)"
    }
    let waited =
      "waited \(waited.millisecondsText) for the run started at \(otherRun) to end: both use actor \(actor)"
    return servedInTurn
      ? waited
      : waited + ", then went on beside it at its own deadline (its order on the actor depends on timing)"
  }
}
