import Foundation
import LockstepTesting

func taskDrainCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "TestTaskFactory.waitUntilIdle") { [] }
}
