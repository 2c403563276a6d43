import Testing

@testable import LockstepTesting

/// `tasks` tasks of `jobs` jobs each, scheduled by `picker`: after each job the task is ready again
/// until it is done, like a task that yields. Returns the order in which the tasks ran.
func simulateTasks<Picker: SchedulePicker>(_ picker: inout Picker, tasks: Int, jobs: Int) -> [Int] {
  var remaining = Array(repeating: jobs, count: tasks)
  var previous = 0
  var order: [Int] = []
  while true {
    let ready = (1...tasks).filter { remaining[$0 - 1] > 0 }
    if ready.isEmpty { break }
    let index = ready.count > 1 ? picker.pick(among: ready, previous: previous, step: order.count) : 0
    guard ready.indices.contains(index) else {
      Issue.record("the picker chose \(index) among \(ready.count) ready tasks")
      break
    }
    let task = ready[index]
    remaining[task - 1] -= 1
    previous = task
    order.append(task)
  }
  return order
}

/// A picker that records what it was offered and picks by a rule.
struct ScriptedPicker: SchedulePicker {
  var offered: [(tasks: [Int], previous: Int)] = []
  var choose: (_ tasks: [Int], _ previous: Int) -> Int = { _, _ in 0 }
  private(set) var record = ScheduleRecord()

  mutating func pick(among tasks: [Int], previous: Int, step: Int) -> Int {
    offered.append((tasks, previous))
    let index = choose(tasks, previous)
    record.append(index, among: tasks, previous: previous, step: step)
    return index
  }
}
