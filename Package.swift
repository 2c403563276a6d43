// swift-tools-version:6.2
import PackageDescription

/// Apple platform releases, named once: `@available(LockstepTaskNames, *)` and
/// `#available(LockstepCustomExecutors, *)` in the sources.
let availability = [
  // `Task(name:)` and `Task.name`.
  "LockstepTaskNames:macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0",
  // The custom executor factory and `SchedulingExecutor` the deterministic scheduler installs.
  "LockstepCustomExecutors:macOS 26.4, iOS 26.4, tvOS 26.4, watchOS 26.4, visionOS 26.4",
]

let strict: [SwiftSetting] =
  [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
  ] + availability.map { .enableExperimentalFeature("AvailabilityMacro=\($0)") }

let package = Package(
  name: "Lockstep",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Lockstep", targets: ["Lockstep"]),
    .library(name: "LockstepTesting", targets: ["LockstepTesting"]),
    .executable(name: "lockstep-demo", targets: ["lockstep-demo"]),
    .executable(name: "lockstep-bench", targets: ["lockstep-bench"]),
    .executable(name: "lockstep-report", targets: ["lockstep-report"]),
    .executable(name: "lockstep-explore", targets: ["lockstep-explore"]),
  ],
  targets: [
    .target(name: "Lockstep", swiftSettings: strict),
    // Linux: the clock reads a deterministic run makes virtual, and deterministic hashing.
    .target(name: "LockstepInterposition"),
    // Symbolication with the toolchain's `Runtime` module, behind `Symbolication.h`: LockstepTesting
    // links it but never imports it, so that `Runtime` never reaches a client.
    .target(name: "LockstepSymbolication", dependencies: ["LockstepInterposition"], swiftSettings: strict),
    // The exploration summaries LOCKSTEP_REPORTS holds, and their merge over a CI matrix.
    .target(name: "LockstepReports", swiftSettings: strict),
    .target(
      name: "LockstepTesting",
      dependencies: ["Lockstep", "LockstepInterposition", "LockstepReports", "LockstepSymbolication"],
      swiftSettings: strict),
    .target(name: "LockstepExamples", dependencies: ["Lockstep"], swiftSettings: strict),
    .executableTarget(
      name: "lockstep-demo", dependencies: ["LockstepTesting", "LockstepExamples"], swiftSettings: strict),
    .executableTarget(
      name: "lockstep-bench", dependencies: ["LockstepTesting", "LockstepExamples", "LockstepInterposition"],
      swiftSettings: strict),
    .executableTarget(name: "lockstep-report", dependencies: ["LockstepReports"], swiftSettings: strict),
    // The test executable run once a core, a shard each, and one verdict over their summaries.
    .executableTarget(name: "lockstep-explore", dependencies: ["LockstepReports"], swiftSettings: strict),
    // What the test targets share: checks of Lockstep's own reports.
    .target(
      name: "LockstepTestSupport", dependencies: ["LockstepTesting"], path: "Tests/LockstepTestSupport",
      swiftSettings: strict),
    .testTarget(name: "LockstepTests", dependencies: ["Lockstep", "LockstepTesting"], swiftSettings: strict),
    .testTarget(
      name: "LockstepTestingTests",
      dependencies: ["LockstepTesting", "LockstepTestSupport", "LockstepReports"],
      swiftSettings: strict),
    .testTarget(name: "LockstepReportsTests", dependencies: ["LockstepReports"], swiftSettings: strict),
    // A legacy library's synchronous XCTest suite, as it is (no Lockstep): `scripts/wrap-xctests.sh`
    // runs it with each body wrapped.
    .testTarget(name: "LegacyXCTestSuite", swiftSettings: [.swiftLanguageMode(.v5)]),
    // Synchronous XCTests in Swift 5 mode, as an existing suite has them, each body wrapped unchanged.
    .testTarget(
      name: "WrappedXCTestSuiteTests", dependencies: ["LockstepTesting"],
      swiftSettings: [.swiftLanguageMode(.v5)]),
    .testTarget(
      name: "ScenarioTests", dependencies: ["LockstepTesting", "LockstepExamples", "LockstepTestSupport"],
      swiftSettings: strict),
  ],
  swiftLanguageModes: [.v6]
)
