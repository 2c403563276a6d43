import LockstepInterposition

// The probe that checks, once per process, that where a suspended task waits can be read here.

extension SuspendedTaskStacks {
  #if os(Linux) && compiler(>=6.3)
    /// Runs a task suspended at a known function, reads where it waits and checks that it is
    /// there, called from where it is called from; `nil` when it is.
    static func probe() -> String? {
      if let turnedOff = TaskLayoutReading.turnedOff { return turnedOff }
      guard lockstep_task_stacks_readable() else {
        return "this Swift runtime does not export its task metadata"
      }
      guard CodeSymbols.isAvailable else { return "this toolchain cannot symbolicate addresses" }
      let executor = ProbeExecutor()
      let parked = Locked<CheckedContinuation<Void, Never>?>(nil)
      let task = TaskCreationHook.unobserved {
        Task(executorPreference: executor) { await probeCaller(parked) }
      }
      executor.runAll()
      let address = UInt(bitPattern: unsafeBitCast(task, to: UnsafeRawPointer.self))
      let frames = waitingFrames(of: address)
      parked.withLock { $0.take() }?.resume()
      executor.runAll()
      let file = String(#fileID.split(separator: "/").last ?? "")
      guard frames.count >= 2, frames[0].function.contains("probeWaits"), frames[0].file == file,
        frames[0].line == probeWaitLine, frames[1].function.contains("probeCaller")
      else { return "this Swift runtime's task layout is not the one Lockstep reads" }
      return nil
    }

    /// Where a task's queue of the tasks awaiting its `value` sits, found once per process: a
    /// task awaits the value of a probe task suspended at a known function, and the one word of
    /// the probe task that holds the awaiting task is the queue's head. A word of reused memory can
    /// hold the same address by chance, so the probe runs again with new tasks until one word is
    /// left (three times at most); `nil` where none is.
    static let waitQueueOffset: Int? = {
      guard unavailability == nil else { return nil }
      var candidates = Set(stride(from: 72, to: 512, by: MemoryLayout<UInt>.size))
      for _ in 0..<3 {
        candidates.formIntersection(waitQueueOffsets())
        if candidates.count <= 1 { break }
      }
      return candidates.count == 1 ? candidates.first : nil
    }()

    /// The words of a probe task that hold the one task awaiting its value.
    private static func waitQueueOffsets() -> Set<Int> {
      let executor = ProbeExecutor()
      let parked = Locked<CheckedContinuation<Void, Never>?>(nil)
      let (awaited, waiter) = TaskCreationHook.unobserved {
        let awaited = Task(executorPreference: executor) { await probeWaits(parked) }
        let waiter = Task(executorPreference: executor) { await awaited.value }
        return (awaited, waiter)
      }
      executor.runAll()
      let awaitedTask = unsafeBitCast(awaited, to: UnsafeRawPointer.self)
      let waiterAddress = UInt(bitPattern: unsafeBitCast(waiter, to: UnsafeRawPointer.self))
      let offsets = stride(from: 72, to: 512, by: MemoryLayout<UInt>.size).filter { offset in
        UInt(lockstep_future_wait_queue(awaitedTask, offset)) == waiterAddress
      }
      parked.withLock { $0.take() }?.resume()
      executor.runAll()
      return Set(offsets)
    }

    /// The line of the probe's `await`.
    private static let probeWaitLine = #line + 4

    @inline(never)
    private static func probeWaits(_ parked: Locked<CheckedContinuation<Void, Never>?>) async {
      await withCheckedContinuation { continuation in
        parked.withLock { $0 = continuation }
      }
    }

    @inline(never)
    private static func probeCaller(_ parked: Locked<CheckedContinuation<Void, Never>?>) async {
      await probeWaits(parked)
    }

    /// Runs the probe's task on the probing thread: its jobs wait here until ``runAll()``.
    private final class ProbeExecutor: TaskExecutor, @unchecked Sendable {
      private let jobs = Locked<[UnownedJob]>([])

      func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
      }

      func runAll() {
        while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
          job.runSynchronously(on: asUnownedTaskExecutor())
        }
      }
    }
  #else
    static func probe() -> String? { "it is read on Linux only" }
    static let waitQueueOffset: Int? = nil
  #endif
}
