// swift-tools-version:6.0
import PackageDescription

// Observant has no package dependencies by design: everything below is this package's own code
// or a module that ships with the Swift toolchain (Synchronization, Foundation, Observation, Testing).
let package = Package(
  name: "Observant",
  // `Synchronization` (Mutex, Atomic) sets the Apple floor; Linux has no floor.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Observant", targets: ["Observant"]),
    .library(name: "ObservantCollections", targets: ["ObservantCollections"]),
  ],
  targets: [
    .target(name: "ObservantCollections"),
    // Thread-local slots the tracking hot path reads with a single TLS load (no pthread call).
    .target(name: "_ObservantShims"),
    .target(name: "Observant", dependencies: ["ObservantCollections", "_ObservantShims"]),
    .testTarget(name: "ObservantCollectionsTests", dependencies: ["ObservantCollections"]),
    .testTarget(name: "ObservantTests", dependencies: ["Observant", "ObservantCollections"]),
  ],
  swiftLanguageModes: [.v6]
)
