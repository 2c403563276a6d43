import LockstepInterposition

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// What Lockstep leaves on standard error when the code under test crashes the process: during an
/// exploration, which exploration and which schedule ran, the step that crashed, and the strategy
/// that replays the schedule up to that step (``ExplorationStrategy/replayUpToCrash(_:atStep:)``);
/// while a run unwinds after a deadlock, the deadlock's report (``holdRunReport(_:)``).
///
/// A trap in the code under test ("Fatal error: Can't removeFirst from an empty Set") ends the
/// process before `explore` can report anything. So while an exploration runs, signal handlers for
/// SIGILL, SIGTRAP, SIGABRT, SIGSEGV and SIGBUS — installed once per process, by the first
/// exploration — write that report, then restore the handler that was there before and let the
/// signal take its course: the process dies the same way, and crash reporters still see it.
///
/// A signal handler may only make async-signal-safe calls. So the text is kept ready in raw memory
/// allocated once (updated once per schedule); each choice point appends its choice as raw bytes
/// (``record(choice:readyCount:task:)``: no allocation, no lock), and each step stores its number
/// (``record(step:)``); the handler encodes the token with plain arithmetic
/// (``ReplayTokenLayout``, ``Base64URLSink``) into a static buffer that it writes out with
/// `write(2)`.
enum CrashReport {
  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
    /// The signals of a crash, in the order of ``slot(of:)``.
    static let signals: [Int32] = [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS]
    /// The most choice points kept for the token; a longer schedule's token holds the first ones.
    static let capacity = 1 << 20
    private static let textCapacity = 4096
    private static let chunkCapacity = 1024
    /// The most bytes of a held run report written; a longer one is cut there.
    private static let runReportCapacity = 1 << 16

    /// The process's raw memory, allocated once and never freed, that the signal handler reads.
    private struct Memory {
      /// `handling`, `runReportLength` (see the indices below).
      let state: UnsafeMutablePointer<Int>
      let chunk: UnsafeMutablePointer<UInt8>
      /// The report of a run that unwinds after a deadlock (``holdRunReport(_:)``).
      let runReport: UnsafeMutablePointer<UInt8>
      /// The handlers installed before ours, one per signal of ``signals``.
      let previous: UnsafeMutablePointer<sigaction>
    }

    /// One exploration's raw memory, which the signal handler reads: the running schedule's text,
    /// choices and step. Allocated once per exploration running at the same time and never freed
    /// (``Trail/take()`` reuses those of explorations that ended).
    struct Trail: @unchecked Sendable {
      /// `active`, `count`, `cancel`, `textLength`, `dropped`, `step` (see the indices below).
      let state: UnsafeMutablePointer<Int>
      let choices: UnsafeMutablePointer<UInt32>
      let readyCounts: UnsafeMutablePointer<UInt32>
      let tasks: UnsafeMutablePointer<UInt8>
      let text: UnsafeMutablePointer<UInt8>
      /// The trail itself, for the thread-local pointer the handler reads (`CrashTrails.c`).
      let address: UnsafeMutablePointer<Trail>

      private init() {
        state = .allocate(capacity: 6)
        state.initialize(repeating: 0, count: 6)
        choices = .allocate(capacity: capacity)
        readyCounts = .allocate(capacity: capacity)
        tasks = .allocate(capacity: capacity)
        text = .allocate(capacity: textCapacity)
        address = .allocate(capacity: 1)
      }

      /// A trail no exploration records into.
      static func take() -> Trail {
        if let trail = spare.withLock({ $0.popLast() }) { return trail }
        let trail = Trail()
        trail.address.initialize(to: trail)
        return trail
      }

      private static let spare = Locked<[Trail]>([])

      /// The exploration is over: a crash from now on is none of its business.
      func end() {
        state[active] = 0
      }

      /// Nothing records into the trail any more: a later exploration may take it.
      func giveBack() {
        end()
        Self.spare.withLock { $0.append(self) }
      }

      /// A schedule of the exploration `exploration` ("explore … at …") starts (`during`:
      /// "schedule 17", …): its text is made ready and the choices of the previous schedule are
      /// forgotten.
      func beginSchedule(_ during: String, of exploration: String, cancelAtWait: Int?) {
        _ = installed
        state[active] = 0
        state[count] = 0
        state[dropped] = 0
        record(step: 0)
        state[cancel] = cancelAtWait.map { $0 + 1 } ?? 0
        // "  \(exploration), \(during)\n", cut at the capacity, written in place: no string built.
        var length = 0
        func append(_ piece: String) {
          var piece = piece
          piece.withUTF8 { bytes in
            let kept = min(bytes.count, textCapacity - length)
            guard kept > 0, let base = bytes.baseAddress else { return }
            (text + length).update(from: base, count: kept)
            length += kept
          }
        }
        append("  ")
        append(exploration)
        append(", ")
        append(during)
        append("\n")
        state[textLength] = length
        state[active] = 1
        lockstep_crash_trail_set_last(address)
      }

      /// A choice point of the running schedule: the index picked, how many jobs were eligible,
      /// and the picked job's task. The hot path: three stores into raw memory.
      @inline(__always)
      func record(choice: Int, readyCount: Int, task: Int) {
        let point = state[count]
        guard point < capacity else {
          state[dropped] = 1
          return
        }
        choices[point] = UInt32(truncatingIfNeeded: choice)
        readyCounts[point] = UInt32(truncatingIfNeeded: readyCount)
        tasks[point] = UInt8(truncatingIfNeeded: task & 3)
        state[count] = point &+ 1
      }

      /// The step of the running schedule whose job runs now, numbered from 1 as its timeline
      /// numbers them; 0 between two jobs. One store.
      @inline(__always)
      func record(step number: Int) {
        // Atomic: a thread of a run that ended (a job parked when it did, going on) may write it
        // after the next schedule began.
        UnsafeMutableRawPointer(state + step).withMemoryRebound(to: Int64.self, capacity: 1) {
          lockstep_atomic_store_relaxed($0, Int64(number))
        }
      }

    }

    // Indices into a trail's `state`.
    private static let active = 0, count = 1, cancel = 2, textLength = 3, dropped = 4, step = 5
    // Indices into the process's `state`.
    private static let handling = 0, runReportLength = 1

    nonisolated(unsafe) private static let memory: Memory = {
      let state = UnsafeMutablePointer<Int>.allocate(capacity: 2)
      state.initialize(repeating: 0, count: 2)
      return Memory(
        state: state, chunk: .allocate(capacity: chunkCapacity),
        runReport: .allocate(capacity: runReportCapacity), previous: .allocate(capacity: signals.count))
    }()

    /// The trail a crash on this thread writes: the thread's schedule's, or the schedule begun last.
    private static var crashingTrail: Trail? {
      let pointer = lockstep_run_context_current().pointee.crash_trail ?? lockstep_crash_trail_last()
      return pointer?.assumingMemoryBound(to: Trail.self).pointee
    }

    /// Installs the handlers, the first time only.
    private static let installed: Void = {
      let memory = CrashReport.memory
      for (index, signal) in signals.enumerated() {
        var action = sigaction()
        #if canImport(Darwin)
          action.__sigaction_u.__sa_sigaction = handler
        #else
          action.__sigaction_handler.sa_sigaction = handler
        #endif
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        sigaction(signal, &action, memory.previous + index)
      }
      // Instantiate, outside any handler, what writing a token needs at run time (the generic
      // types' metadata of a debug build), so that the handler itself never allocates.
      var discard = ChunkSink(buffer: memory.chunk, capacity: chunkCapacity, discards: true)
      let warm = Trail.take()
      writeToken(warm, into: &discard)
      warm.giveBack()
    }()

    private static let handler:
      @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
        signal, info, _ in CrashReport.handle(signal, info)
      }

    /// A run reported a deadlock and unwinds its body: if the code under test crashes the process
    /// meanwhile, or sends it a signal that ends it (`kill`), the report is written first, so
    /// that the crash cannot swallow it.
    static func holdRunReport(_ report: String, for run: AnyObject) {
      // Runs proceed side by side: the first to hold a report keeps the memory until it lets go.
      let owner = ObjectIdentifier(run)
      guard
        runReportOwner.withLock({ held in
          if held != nil && held != owner { return false }
          held = owner
          return true
        })
      else { return }
      _ = installed
      _ = fatalSignalsWatched
      let memory = CrashReport.memory
      memory.state[runReportLength] = 0
      let bytes = Array(report.utf8.prefix(runReportCapacity))
      bytes.withUnsafeBufferPointer { memory.runReport.update(from: $0.baseAddress!, count: $0.count) }
      memory.state[runReportLength] = bytes.count
    }

    /// Signals the process sends itself that would end it write a held run report first.
    private static let fatalSignalsWatched: Void = {
      lockstep_fatal_signal_set_observer { signal in
        let memory = CrashReport.memory
        if memory.state[runReportLength] != 0 { writeRunReport(signal, memory) }
      }
    }()

    /// The run's report reached its caller: a crash from now on is none of its business.
    static func releaseRunReport(for run: AnyObject) {
      runReportOwner.withLock { held in
        guard held == ObjectIdentifier(run) else { return }
        memory.state[runReportLength] = 0
        held = nil
      }
    }

    /// The run whose report the memory holds.
    private static let runReportOwner = Locked<ObjectIdentifier?>(nil)

    /// The signal handler: async-signal-safe calls and arithmetic only.
    private static func handle(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?) {
      let memory = CrashReport.memory
      let trail = crashingTrail.flatMap { $0.state[active] != 0 ? $0 : nil }
      if memory.state[handling] == 0 && (trail != nil || memory.state[runReportLength] != 0) {
        memory.state[handling] = 1
        if memory.state[runReportLength] != 0 { writeRunReport(signal, memory) }
        if let trail { writeReport(signal, memory, trail) }
      }
      // Give the signal back to whoever had it before: a fault faults again when this handler
      // returns; a signal that was sent (abort(), raise(), kill) is sent again.
      if let index = slot(of: signal) { sigaction(signal, memory.previous + index, nil) }
      let sent = info.map { wasSent($0.pointee.si_code) } ?? true
      if sent || signal == SIGABRT { raise(signal) }
    }

    /// Whether a signal with `code` was sent (`kill`, `raise`, `sigqueue`) rather than raised by a
    /// fault: Linux gives sent signals codes of 0 or less (`SI_USER` is 0), Darwin positive codes
    /// of its own (`SI_USER` is 0x10001), while faults have small positive ones on both.
    static func wasSent(_ code: Int32) -> Bool {
      code <= 0 || code == Int32(SI_USER) || code == Int32(SI_QUEUE)
    }

    /// `Lockstep: the process is crashing (signal 4, SIGILL) while …`, up to `while`.
    private static func startCrashLine(_ signal: Int32, _ memory: Memory) -> ChunkSink {
      var out = ChunkSink(buffer: memory.chunk, capacity: chunkCapacity)
      out.put("\nLockstep: the process is crashing (signal ")
      out.put(decimal: Int(signal))
      out.put(", ")
      out.put(name(of: signal))
      out.put(") while ")
      return out
    }

    private static func writeRunReport(_ signal: Int32, _ memory: Memory) {
      var out = startCrashLine(signal, memory)
      out.put("a deterministic run unwinds its cancelled body after this report:\n")
      out.put(memory.runReport, count: memory.state[runReportLength])
      out.put("\n")
      out.flush()
    }

    private static func writeReport(_ signal: Int32, _ memory: Memory, _ trail: Trail) {
      var out = startCrashLine(signal, memory)
      out.put("an exploration ran:\n")
      out.put(trail.text, count: trail.state[textLength])
      let points = trail.state[count]
      let crashed = trail.state[step]
      if crashed > 0 && trail.state[dropped] == 0 {
        out.put("  It crashed in step ")
        out.put(decimal: crashed)
        out.put(" (")
        out.put(decimal: points)
        out.put(" choice point(s) so far). For the timeline up to the crash, run this explore ")
        out.put("call again with the strategy below: it replays the schedule and stops before step ")
        out.put(decimal: crashed)
        out.put(", so the process survives:\n    .replayUpToCrash(\"")
        writeToken(trail, into: &out)
        out.put("\", atStep: ")
        out.put(decimal: crashed)
        out.put(")\n  To run into the crash again (under a debugger, say): .replay(\"")
        writeToken(trail, into: &out)
        out.put("\")\n")
      } else {
        out.put("  The choices it made so far (")
        out.put(decimal: points)
        out.put(" choice point(s)")
        if trail.state[dropped] != 0 { out.put("; only the first ones were kept") }
        out.put(") replay with: .replay(\"")
        writeToken(trail, into: &out)
        out.put("\")\n  ")
        if trail.state[dropped] != 0 {
          out.put("The token holds only the first choice points")
        } else {
          out.put("It crashed between two steps of the schedule")
        }
        out.put(", so no replay can stop just before the crash: replay it under a debugger.\n")
      }
      out.flush()
    }

    /// `L2.` and the token of the choices recorded so far.
    private static func writeToken(_ trail: Trail, into out: inout ChunkSink) {
      out.put("L2.")
      var token = Base64URLSink(output: out)
      let cancelled = trail.state[cancel]
      ReplayTokenLayout.write(
        RawChoices(trail: trail, count: trail.state[count]),
        cancelAtWait: cancelled == 0 ? nil : cancelled &- 1, whole: nil, into: &token)
      token.finish()
      out = token.output
    }

    /// The position of `signal` in ``signals``.
    private static func slot(of signal: Int32) -> Int? {
      switch signal {
      case SIGILL: 0
      case SIGTRAP: 1
      case SIGABRT: 2
      case SIGSEGV: 3
      case SIGBUS: 4
      default: nil
      }
    }

    private static func name(of signal: Int32) -> StaticString {
      switch signal {
      case SIGILL: "SIGILL"
      case SIGTRAP: "SIGTRAP"
      case SIGABRT: "SIGABRT"
      case SIGSEGV: "SIGSEGV"
      case SIGBUS: "SIGBUS"
      default: "signal"
      }
    }
  #else
    struct Trail: Sendable {
      static func take() -> Trail { Trail() }
      func end() {}
      func giveBack() {}
      func beginSchedule(_ during: String, of exploration: String, cancelAtWait: Int?) {}
      func record(choice: Int, readyCount: Int, task: Int) {}
      func record(step number: Int) {}
      func recording<T>(_ body: () -> T) -> T { body() }
    }
    static func holdRunReport(_ report: String, for run: AnyObject) {}
    static func releaseRunReport(for run: AnyObject) {}
  #endif
}
