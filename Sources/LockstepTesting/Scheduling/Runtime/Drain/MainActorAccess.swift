import Dispatch
import Foundation

/// How a run gets the process's main actor for its main-actor jobs. A run's main-actor job runs
/// only while the run holds the real main actor — on the thread of a `@MainActor` caller that
/// drains it, or inside a block on the main queue — so it never overlaps other main-actor work
/// of the process, and it runs on the main thread wherever the platform's main actor is the main
/// thread. The drain runs a main-actor job only with a ``MainActorLease``; `MainActorExclusionTests`
/// checks that no write of plain main-actor tests beside deterministic ones is lost (and the
/// thread sanitizer, that no access races).
///
/// Work for the main actor goes into a mailbox and a main-queue block is queued to take it. A
/// thread that holds the main actor and blocks waiting for Lockstep (``waitServing(_:until:)``)
/// takes it too, so that a run never waits for a main actor its own waiter holds.
enum MainActorAccess {
  /// Whether the calling synchronous code holds the main actor: it runs on the main thread, or
  /// inside a block of the main queue (the main actor's queue wherever Dispatch serves it).
  static var isHeldHere: Bool {
    _ = marked
    return Thread.isMainThread || DispatchQueue.getSpecific(key: key) != nil
  }

  private static let key = DispatchSpecificKey<UInt8>()
  private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: 1)

  /// Runs `work` holding the main actor, from a thread that does not hold it, and returns once it
  /// ran; `work` gets the lease that proves it. Returns `false`, and `work` never runs, when the
  /// main actor was not free by `deadline`.
  static func runBlocking(
    until deadline: ContinuousClock.Instant, _ work: @escaping (borrowing MainActorLease?) -> Void
  ) -> Bool {
    let handOff = HandOff(work)
    let servant = mailbox.withLock { mailbox in
      mailbox.handOffs.append(handOff)
      return mailbox.servant
    }
    servant?.signal()
    DispatchQueue.main.async { serve() }
    let remaining = RealTime.now.duration(to: deadline)
    let nanoseconds = Int(max(remaining, .zero).wholeNanoseconds)
    if handOff.done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
      if handOff.claim() { return false }
      handOff.done.wait()  // it is running now
    }
    return true
  }

  /// Blocks a thread that holds the main actor until `isDone` holds, checked whenever `semaphore`
  /// is signalled, running the main-actor work that runs post meanwhile.
  static func waitServing(_ semaphore: DispatchSemaphore, until isDone: () -> Bool) {
    // A servant's wait may nest in another's (a run loop's wait in a main-actor job it served).
    let outer = mailbox.withLock { mailbox in
      defer { mailbox.servant = semaphore }
      return mailbox.servant
    }
    defer { mailbox.withLock { $0.servant = outer } }
    while true {
      serve()
      if isDone() { return }
      semaphore.wait()
    }
  }

  /// Runs the work posted so far; called holding the main actor.
  private static func serve() {
    let handOffs = mailbox.withLock { mailbox in
      defer { mailbox.handOffs.removeAll() }
      return mailbox.handOffs
    }
    for handOff in handOffs where handOff.claim() {
      let lease: MainActorLease? = MainActorLease(heldBy: ())
      handOff.work(lease)
      handOff.done.signal()
    }
  }

  private struct Mailbox {
    var handOffs: [HandOff] = []
    /// The semaphore of a thread that holds the main actor and waits for Lockstep.
    var servant: DispatchSemaphore?
  }
  private static let mailbox = Locked(Mailbox())

  /// One piece of work for the main actor, run at most once.
  private final class HandOff: @unchecked Sendable {
    let work: (borrowing MainActorLease?) -> Void
    let done = DispatchSemaphore(value: 0)
    private let claimed = Locked(false)

    init(_ work: @escaping (borrowing MainActorLease?) -> Void) { self.work = work }

    /// Claims the work, to run it or to give it up; `false` when it was claimed already.
    func claim() -> Bool {
      claimed.withLock { claimed in
        defer { claimed = true }
        return !claimed
      }
    }
  }
}

/// The right to run a run's main-actor jobs: only code that holds the process's real main actor
/// can make one — `@MainActor` code (``held()``), or ``MainActorAccess`` where it runs work on the
/// main queue or on a thread that holds the main actor — and the drain runs a main-actor job only
/// with one (``RuntimeHooks/run(_:holding:)``). Not copyable: it lives as long as the stretch of
/// draining it was made for.
struct MainActorLease: ~Copyable {
  /// A lease for code that holds the main actor, checked in debug builds.
  fileprivate init(heldBy: Void) {
    assert(MainActorAccess.isHeldHere, "a main-actor lease made off the main actor")
  }

  /// The lease of `@MainActor` code.
  @MainActor static func held() -> MainActorLease? { MainActorLease(heldBy: ()) }

  /// The lease of synchronous code, if it holds the main actor (``MainActorAccess/isHeldHere``).
  static func heldHere() -> MainActorLease? {
    MainActorAccess.isHeldHere ? MainActorLease(heldBy: ()) : nil
  }
}
