// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "Lockstep",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Lockstep", targets: ["Lockstep"]),
    .library(name: "LockstepTesting", targets: ["LockstepTesting"]),
    .executable(name: "lockstep-demo", targets: ["lockstep-demo"]),
    .executable(name: "lockstep-bench", targets: ["lockstep-bench"]),
  ],
  targets: [
    .target(name: "Lockstep", swiftSettings: strict),
    .target(name: "LockstepTesting", dependencies: ["Lockstep"], swiftSettings: strict),
    .target(name: "LockstepExamples", dependencies: ["Lockstep"], swiftSettings: strict),
    .executableTarget(
      name: "lockstep-demo", dependencies: ["LockstepTesting", "LockstepExamples"], swiftSettings: strict),
    .executableTarget(
      name: "lockstep-bench", dependencies: ["LockstepTesting", "LockstepExamples"], swiftSettings: strict),
    .testTarget(name: "LockstepTests", dependencies: ["Lockstep", "LockstepTesting"], swiftSettings: strict),
    .testTarget(name: "LockstepTestingTests", dependencies: ["LockstepTesting"], swiftSettings: strict),
    .testTarget(
      name: "ScenarioTests", dependencies: ["LockstepTesting", "LockstepExamples"], swiftSettings: strict),
  ],
  swiftLanguageModes: [.v6]
)
