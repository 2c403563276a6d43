import LockstepInterposition

/// Where each suspended task of a run waits, for deadlock reports: the `await` it is suspended at
/// and the awaits of its async callers, read from the task's chain of async contexts
/// (`LockstepInterposition`'s `lockstep_suspended_task_stack`) and symbolicated
/// (``CodeSymbols``).
///
/// A run keeps each of its tasks alive from the moment its first job reaches the run
/// (``retain(_:)``) until the run finishes (``release(_:)``); a quarantined run keeps them for
/// good, as its suspended frames keep everything else. The chain is the runtime's layout, not its
/// API, so a probe checks it once per process, at the first report: a task suspended at a known
/// function must be found there. Where the probe fails, or on other platforms, reports say in one
/// line that they cannot show where tasks wait (``unavailability``).
enum SuspendedTaskStacks {
  /// The most frames shown for one task.
  static let frameLimit = 6

  /// Keeps the task whose job is `job` alive; returns its address, or `nil` when the job is not a
  /// task that can be kept (an `async let` task lives in its parent's frame).
  static func retain(_ job: UnownedJob) -> UInt? {
    let address = unsafeBitCast(job, to: UnsafeRawPointer.self)
    return lockstep_task_retain(address) ? UInt(bitPattern: address) : nil
  }

  /// Gives up the references ``retain(_:)`` took on `tasks`.
  static func release(_ tasks: [UInt]) {
    for task in tasks {
      guard let pointer = UnsafeRawPointer(bitPattern: task) else { continue }
      lockstep_task_release(pointer)
    }
  }

  /// Why reports cannot show where tasks wait in this process; `nil` when they can.
  static var unavailability: String? { probeResult }

  private static let probeResult: String? = probe()

  /// The report lines of each task in `tasks` (task number to address, of live tasks): where it
  /// waits, then its async callers. A task that is not suspended gets none.
  static func lines(for tasks: [Int: UInt]) -> [Int: [String]] {
    guard unavailability == nil else { return [:] }
    // One symbolication for every task of the report: each reads the images' debug information.
    let stacks = tasks.mapValues(rawStack(of:))
    let known = points(at: Array(Set(stacks.values.joined())))
    var lines: [Int: [String]] = [:]
    for (number, addresses) in stacks {
      var frames: [CodeFrame] = []
      var entered: CodeFrame?
      for point in addresses.compactMap({ known[$0] }) {
        if point.entersFunction, frames.isEmpty, let function = point.frames.last {
          entered = function
          continue
        }
        for frame in point.frames where frames.last != frame { frames.append(frame) }
      }
      // Lockstep's own frames (a run's body, its primitives) are not the test's, nor the
      // compiler's thunks that call them.
      let shown = frames.filter { !$0.rawName.hasPrefix(lockstepPrefix) && !$0.isThunk }.prefix(frameLimit)
      if let entered, !entered.rawName.hasPrefix(lockstepPrefix) {
        lines[number] =
          ["waits to enter \(CodeFrame.shortened(entered.function)) (before its first line)"]
          + shown.map { "called from \($0.text)" }
        continue
      }
      guard let first = shown.first else { continue }
      lines[number] = ["waits at \(first.text)"] + shown.dropFirst().map { "called from \($0.text)" }
    }
    // Who awaits whose `value`: the first task in each unfinished task's queue of waiters.
    let numbers = Dictionary(tasks.map { ($0.value, $0.key) }, uniquingKeysWith: min)
    for (awaited, address) in tasks.sorted(by: { $0.key < $1.key }) {
      guard let waiter = firstWaiter(of: address).flatMap({ numbers[$0] }) else { continue }
      lines[waiter, default: []].insert("waits for the value of task \(awaited)", at: 0)
    }
    return lines
  }

  /// The first task waiting for the value of the unfinished task at `address`, read from the
  /// task's future where the probe located its queue of waiters (``waitQueueOffset``).
  private static func firstWaiter(of address: UInt) -> UInt? {
    guard let offset = waitQueueOffset, let task = UnsafeRawPointer(bitPattern: address) else {
      return nil
    }
    // The queue's head is a task, its two low bits the future's status (0: still running).
    let head = UInt(lockstep_future_wait_queue(task, offset))
    return head & 3 == 0 && head != 0 ? head : nil
  }

  /// Where the task of `job` is suspended, read right after the job ran, or what else reading it
  /// found (it finished, it runs on another thread); ``SuspensionSite/none`` where nothing is
  /// read. Only for a task the run keeps alive (``retain(_:)``), or an `async let` task right
  /// after its own job (its parent's frame, which holds it, cannot have gone on).
  static func site(of job: UnownedJob) -> SuspensionSite {
    site(ofTask: unsafeBitCast(job, to: UnsafeRawPointer.self))
  }

  /// Where the task at `task` is suspended (see ``site(of:)``).
  static func site(ofTask task: UnsafeRawPointer) -> SuspensionSite {
    guard readsSites else { return .none }
    var raw = SuspensionSite.none.addresses
    let count = withUnsafeMutableBytes(of: &raw) { bytes in
      lockstep_suspension_site(
        task, bytes.baseAddress?.assumingMemoryBound(to: UInt.self), Int32(SuspensionSite.capacity))
    }
    switch Int(count) {
    case 1...: return SuspensionSite(addresses: raw, status: .suspended)
    case lockstep_task_stack_complete: return SuspensionSite(.finished)
    case lockstep_task_stack_running: return SuspensionSite(.running)
    default: return SuspensionSite(.unreadable)
    }
  }

  /// Whether ``site(of:)`` reads anything in this process.
  private static let readsSites = TaskLayoutReading.turnedOff == nil

  /// What each site of `sites` says in a timeline, symbolicated in one call: the innermost
  /// `await` of the code under test (not Lockstep's, not the standard library's), by its line —
  /// `load() at Cache.swift:31` — or the function a task waits to enter. A site with no such
  /// frame, or any site where stacks cannot be read here (``unavailability``), has no text.
  static func texts(for sites: Set<SuspensionSite>) -> [SuspensionSite: SiteText] {
    let sites = sites.filter { $0.status == .suspended }
    guard !sites.isEmpty, unavailability == nil else { return [:] }
    let known = points(at: Array(Set(sites.flatMap(\.resumeFunctions))))
    var texts: [SuspensionSite: SiteText] = [:]
    for site in sites {
      let points = site.resumeFunctions.compactMap { known[$0] }
      guard
        let index = points.firstIndex(where: { point in
          point.frames.contains { !$0.rawName.hasPrefix(lockstepPrefix) }
        })
      else {
        // Suspended where no line of the code under test shows: name Lockstep's function, or the
        // library's.
        if let own = points.lazy.flatMap(\.frames).first {
          texts[site] = SiteText(place: "\(own.shortText) (Lockstep's code)", entersFunction: false)
        } else if let library = points.first?.library {
          texts[site] = SiteText(
            place: "\(library) (not the code under test: the standard library or the runtime)",
            entersFunction: false)
        }
        continue
      }
      let point = points[index]
      guard point.entersFunction, let function = point.frames.last else {
        if let frame = point.frames.first(where: { !$0.rawName.hasPrefix(lockstepPrefix) }) {
          texts[site] = SiteText(place: frame.shortText, entersFunction: false)
        }
        continue
      }
      // Where the task waits to enter the function: the caller's `await`, when it is known.
      let caller = points.dropFirst(index + 1).lazy.flatMap(\.frames)
        .first { !$0.rawName.hasPrefix(lockstepPrefix) }
      var place = CodeFrame.shortened(function.function)
      if let caller, let file = caller.file { place += " (called at \(file):\(caller.line))" }
      texts[site] = SiteText(place: place, entersFunction: true)
    }
    return texts
  }

  /// How a timeline tells where a task was left suspended.
  struct SiteText: Sendable, Equatable {
    /// `withdraw(_:) at Account.swift:44`: the function and the line of the `await`; for a task
    /// that waits to enter a function, the function and where it was called.
    let place: String
    /// Whether the task waits to enter the function (the hop onto its actor, before its first
    /// line), so that no `await` in it is known.
    let entersFunction: Bool

    /// `awaits in withdraw(_:) at Account.swift:44`, or `waits to enter withdraw(_:) (called at
    /// Bank.swift:12)`.
    var phrase: String { (entersFunction ? "waits to enter " : "awaits in ") + place }
  }

  /// The frames of the `await` a suspended task waits at and of its async callers, innermost
  /// first.
  static func waitingFrames(of address: UInt) -> [CodeFrame] {
    let addresses = rawStack(of: address)
    let known = points(at: addresses)
    var frames: [CodeFrame] = []
    for frame in addresses.flatMap({ known[$0]?.frames ?? [] }) where frames.last != frame {
      frames.append(frame)
    }
    return frames
  }

  /// The resume addresses of a suspended task's async contexts, innermost first, each once.
  private static func rawStack(of address: UInt) -> [UInt] {
    guard let task = UnsafeRawPointer(bitPattern: address) else { return [] }
    let rawLimit = 32
    var raw = [UInt](repeating: 0, count: rawLimit)
    let count = raw.withUnsafeMutableBufferPointer { buffer in
      lockstep_suspended_task_stack(task, buffer.baseAddress, Int32(rawLimit))
    }
    guard count > 0 else { return [] }
    var seen = Set<UInt>()
    return raw.prefix(Int(count)).filter { seen.insert($0).inserted }
  }

  /// What a resume function shows: the frames of the `await` it goes on after, innermost first,
  /// or the function a task waits to enter.
  struct ResumePoint: Sendable {
    /// The shown frames, innermost first.
    let frames: [CodeFrame]
    /// Whether the resume function goes on after the hop onto the function's actor at its start:
    /// the task waits to enter the function (the outermost of ``frames``).
    let entersFunction: Bool
    /// The function that holds the resume function when it is not code under test (the standard
    /// library's, the runtime's): `AsyncStream.Iterator.next()`.
    var library: String? = nil
  }

  private static let entryOffsets: [UInt] = [0, 4]

  /// What each resume function showed, at most ``cacheLimit`` of them.
  private static let cache = Locked<[UInt: ResumePoint]>([:])
  private static let cacheLimit = 4096

  /// The resume points at `addresses` (each the entry of the code that goes on after an `await`
  /// or a hop), from the cache or symbolicated in one call.
  private static func points(at addresses: [UInt]) -> [UInt: ResumePoint] {
    var known: [UInt: ResumePoint] = [:]
    let missing = cache.withLock { cache in
      addresses.filter { address in
        if let point = cache[address] { known[address] = point }
        return known[address] == nil
      }
    }
    guard !missing.isEmpty else { return known }
    let found = symbolicated(missing)
    cache.withLock { cache in
      for (address, point) in zip(missing, found) {
        known[address] = point
        if cache.count < cacheLimit { cache[address] = point }
      }
    }
    return known
  }

  /// Each resume function's point. The entry of a function that goes on after an awaited call
  /// (`TQn_`) is on the line of the `await`. The entry of one that goes on after a hop between
  /// executors (`TYn_`) is on the line after it; the hop itself, the last instruction of the piece
  /// of the same function before it, is on the line of the `await`. The first piece (`TY0_`) with
  /// no piece of the same function before it follows the hop onto the function's actor at its
  /// start.
  private static func symbolicated(_ addresses: [UInt]) -> [ResumePoint] {
    let probes = addresses.flatMap { address in entryOffsets.map { address + $0 } + [address - 1] }
    let width = entryOffsets.count + 1
    guard let symbolicated = CodeSymbols.frames(at: probes, as: .instruction) else {
      return addresses.map { _ in ResumePoint(frames: [], entersFunction: false) }
    }
    return addresses.indices.map { index in
      let candidates = symbolicated[(index * width)..<(index * width + entryOffsets.count)]
      // The entry's own frames, or those a few bytes in when they show more (inlined) callers of
      // the same function.
      var best = candidates.first ?? []
      for candidate in candidates.dropFirst()
      where candidate.count > best.count && candidate.last?.rawName == best.last?.rawName {
        best = candidate
      }
      var entersFunction = false
      if let symbol = best.last?.rawName, let piece = PartialFunction(symbol), piece.afterHop {
        let before = symbolicated[index * width + entryOffsets.count]
        if let previous = before.last.flatMap({ PartialFunction($0.rawName) }),
          previous.function == piece.function, before.contains(where: isShown)
        {
          best = before
        } else if piece.number == 0 {
          // The first suspension of a function that starts with a hop: the hop onto its actor.
          entersFunction = true
        }
      }
      let shown = best.filter(isShown).map(withoutPartialFunctionPrefix)
      let library = shown.isEmpty ? best.last.map { withoutPartialFunctionPrefix($0).function } : nil
      return ResumePoint(
        frames: shown, entersFunction: entersFunction,
        library: library.map { CodeFrame.shortened($0) })
    }
  }

  /// A piece of an async function, as its mangled name ends: `…TQ2_` goes on after an awaited call
  /// returns, `…TY3_` after a hop between executors.
  private struct PartialFunction {
    /// The mangled name of the async function it is a piece of.
    let function: Substring
    /// Whether it goes on after a hop (`TY`), not after a call (`TQ`).
    let afterHop: Bool
    /// Which suspension of the function it follows, from 0.
    let number: Int

    init?(_ symbol: String) {
      guard symbol.hasSuffix("_") else { return nil }
      let body = symbol.dropLast()
      let digits = body.reversed().prefix { $0.isNumber }.count
      let kind = body.dropLast(digits)
      guard digits > 0, kind.count > 2, kind.hasSuffix("TQ") || kind.hasSuffix("TY") else { return nil }
      function = kind.dropLast(2)
      afterHop = kind.hasSuffix("TY")
      number = Int(body.suffix(digits)) ?? 0
    }
  }

  /// Whether a report shows `frame`: code of the test or of the code it tests, on a line.
  private static func isShown(_ frame: CodeFrame) -> Bool {
    frame.hasLocation && !frame.isLibrary && !frame.isThunk && !frame.image.hasPrefix("libswift_Concurrency")
  }

  /// How the mangled names of Lockstep's own functions begin (the module `LockstepTesting`).
  private static let lockstepPrefix = "$s15LockstepTesting"

  /// `frame` named for the function it belongs to rather than for the piece of it that goes on
  /// after an `await` (`(1) await resume partial function for …`).
  private static func withoutPartialFunctionPrefix(_ frame: CodeFrame) -> CodeFrame {
    guard frame.function.hasPrefix("("),
      let range = frame.function.range(of: " resume partial function for ")
    else { return frame }
    return CodeFrame(
      function: String(frame.function[range.upperBound...]), rawName: frame.rawName, file: frame.file,
      line: frame.line, image: frame.image)
  }
}
