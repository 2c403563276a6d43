/// The buffers one schedule of an exploration leaves to the next, emptied: its trace's and its
/// record's. Each run then starts with room for what the one before recorded, and no run frees
/// them at its end.
struct ScheduleStorage {
  /// The trace the next run records in.
  var trace: SchedulerTrace?
  /// The record the next schedule's picker records its choices in.
  var record: ScheduleRecord?

  /// Keeps the buffers of `outcome`, a schedule the explorer is done with.
  mutating func keep(_ outcome: inout ScheduleOutcome) {
    trace = outcome.trace.moveBuffersToNewTrace()
    record = outcome.record.moveBuffersToNewRecord()
  }

  /// Takes the buffers kept, leaving none.
  mutating func take() -> ScheduleStorage {
    defer { self = ScheduleStorage() }
    return self
  }
}
