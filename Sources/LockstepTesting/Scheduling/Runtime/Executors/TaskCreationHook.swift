import LockstepInterposition

/// The tasks a run's jobs create, seen as they are created (Linux): `LockstepInterposition`
/// defines `swift_task_create`, which `Task(name:)`, `Task.detached(name:)`, `Task {}` and a task
/// group's `addTask` call, and passes each creation on to the runtime. While a run is drained, its
/// thread's creations reach the run with the task's name and where it was created, so reports and
/// timelines name tasks that never run Lockstep's code, such as a task parked on a continuation.
///
/// The hook reads the runtime's ABI (the task's option records), so a probe checks it once per
/// process before any run: it creates tasks with and without a name and compares what the hook
/// read with what they are. Where the probe fails — another runtime, a statically linked runtime
/// whose own definition wins, Apple platforms — nothing is observed and names are read as before,
/// from inside a task that runs Lockstep's code.
enum TaskCreationHook {
  /// Whether runs observe the tasks they create: the probe passed.
  static let isInEffect: Bool = probe()

  /// Runs `body` without reporting the tasks it creates on this thread to the run it drains (a
  /// stretch of draining names the run as its thread's creation run, `RunContext`).
  static func unobserved<T>(_ body: () -> T) -> T {
    guard isInEffect else { return body() }
    return RunContext.with(lockstep_run_context(), .creation_run, body)
  }

  /// Makes the hook report the tasks that threads not draining a run create (`true` while a run
  /// is in progress), so that the run tells them from its own.
  static func watchOutside(_ watch: Bool) {
    guard isInEffect else { return }
    lockstep_task_creation_watch_outside(watch)
  }

  /// Creates probe tasks on this thread and checks that the hook saw each as it is.
  private static func probe() -> Bool {
    guard TaskLayoutReading.turnedOff == nil, lockstep_task_creation_interposable() else {
      return false
    }
    lockstep_task_creation_set_observer { context, created in
      guard let context, let created else { return }
      Unmanaged<DeterministicRun>.fromOpaque(context).takeUnretainedValue().noteCreated(created.pointee)
    }
    lockstep_task_creation_set_outside_observer { task in
      guard let task else { return }
      let id = runtimeJobTaskID(unsafeBitCast(task, to: UnownedJob.self))
      ActiveRuns.noteCreatedOffEveryDrain(taskID: id)
    }
    guard #available(LockstepTaskNames , *) else { return false }
    // A name no other task has, longer than a string stored inline.
    let name = "Lockstep's task creation probe \(UInt32.random(in: 0 ... .max))"
    return seen(named: name) { Task(name: name) {} } && seen(named: nil) { Task {} }
      && seen(named: name) { Task.detached(name: name) {} }
  }

  /// Whether the hook recorded the task `create` makes, named `name`, created by this module.
  private static func seen(named name: String?, _ create: () -> Task<Void, Never>) -> Bool {
    var saved = lockstep_run_context()
    lockstep_task_creation_probe_begin(&saved)
    let task = create()
    let address = unsafeBitCast(task, to: UnsafeRawPointer.self)
    if let name {
      return name.withCString { lockstep_task_creation_probe_end(&saved, address, $0, #dsohandle) }
    }
    return lockstep_task_creation_probe_end(&saved, address, nil, #dsohandle)
  }
}

extension DeterministicRun {
  /// The runtime created a task while this run's job ran on this thread. Drain thread only.
  fileprivate func noteCreated(_ created: lockstep_created_task) {
    guard let task = created.task else { return }
    let id = runtimeJobTaskID(unsafeBitCast(task, to: UnownedJob.self))
    let (first, second, third, fourth) = created.callers
    let creation = TaskCreation(
      name: created.name.map { String(cString: $0) },
      origin: TaskOrigin(first: first, second: second, third: third, fourth: fourth))
    let creator = taskRunningInJob()
    state.withLock { $0.noteCreated(taskID: id, creation, creator: creator) }
  }
}
