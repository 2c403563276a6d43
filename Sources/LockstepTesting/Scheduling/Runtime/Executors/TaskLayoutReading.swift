import Foundation

/// Whether Lockstep may read the runtime's task layout in this process (Linux): to name tasks as
/// they are created (``TaskCreationHook``) and to show where tasks wait (``SuspendedTaskStacks``).
/// `LOCKSTEP_NO_TASK_LAYOUT=1` turns both off, so that a Linux test process gets what Apple
/// platforms get: tasks named once they run Lockstep's code, reports without where tasks wait.
enum TaskLayoutReading {
  /// The variable that turns reading off.
  static let variable = "LOCKSTEP_NO_TASK_LAYOUT"

  /// Why reading is off, when the variable turns it off.
  static let turnedOff: String? =
    ProcessInfo.processInfo.environment[variable] == "1" ? "\(variable)=1 is set" : nil
}
