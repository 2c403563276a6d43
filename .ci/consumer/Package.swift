// swift-tools-version:6.2
// A package that uses Lockstep the way a user's package does: by dependency, from outside. CI
// builds and tests it (see .ci/run), so a public API that only works from inside Lockstep fails.
import Foundation
import PackageDescription

// A path dependency is identified by its folder's name, which differs between clones.
let lockstepFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("../..").standardizedFileURL
let lockstep = lockstepFolder.lastPathComponent.lowercased()

let package = Package(
  name: "LockstepConsumer",
  platforms: [.macOS(.v13), .iOS(.v16)],
  dependencies: [.package(path: lockstepFolder.path)],
  targets: [
    .target(name: "ConsumerApp", dependencies: [.product(name: "Lockstep", package: lockstep)]),
    .testTarget(
      name: "ConsumerTests",
      dependencies: ["ConsumerApp", .product(name: "LockstepTesting", package: lockstep)]),
  ],
  swiftLanguageModes: [.v6]
)
