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
    .library(name: "ObservantHarness", targets: ["ObservantHarness"]),
    .library(name: "ObservantStore", targets: ["ObservantStore"]),
    .library(name: "ObservantTesting", targets: ["ObservantTesting"]),
    .library(name: "ObservantObservationBridge", targets: ["ObservantObservationBridge"]),
    .executable(name: "observant-bench", targets: ["ObservantBenchmarks"]),
  ],
  targets: [
    .target(name: "ObservantCollections"),
    // Thread-local slots the tracking hot path reads with a single TLS load (no pthread call).
    .target(name: "_ObservantShims"),
    .target(name: "Observant", dependencies: ["ObservantCollections", "_ObservantShims"]),
    .target(name: "ObservantHarness", dependencies: ["Observant"]),
    .target(name: "ObservantStore", dependencies: ["Observant"]),
    // Test helpers for users' test targets (TrackingAudit); no dependency on a test framework.
    .target(name: "ObservantTesting", dependencies: ["Observant"]),
    // Reports Observant's fields to Apple's Observation (SwiftUI, withObservationTracking), opt in.
    .target(name: "ObservantObservationBridge", dependencies: ["Observant"]),
    // Compares with Apple's Observation module, which ships with the toolchain (not a package).
    .executableTarget(
      name: "ObservantBenchmarks",
      dependencies: [
        "Observant", "ObservantStore", "ObservantHarness", "ObservantObservationBridge", "_BenchmarkShims",
      ],
      path: "Benchmarks/ObservantBenchmarks"
    ),
    // Heap statistics for the memory benchmarks (glibc's mallinfo2 is not visible from Swift).
    .target(name: "_BenchmarkShims", path: "Benchmarks/BenchmarkShims"),
    // What the leak tests of several test targets share (cycle reports, heap statistics).
    .target(name: "_TestSupportShims", path: "Tests/TestSupportShims"),
    .target(
      name: "ObservantTestSupport", dependencies: ["_TestSupportShims", "Observant"], path: "Tests/ObservantTestSupport"
    ),
    .testTarget(name: "ObservantCollectionsTests", dependencies: ["ObservantCollections"]),
    .testTarget(name: "ObservantTests", dependencies: ["Observant", "ObservantCollections", "ObservantTestSupport"]),
    .testTarget(
      name: "ObservantHarnessTests", dependencies: ["ObservantHarness", "Observant", "ObservantTestSupport"]),
    .testTarget(name: "ObservantFuzzTests", dependencies: ["ObservantStore", "Observant", "ObservantTestSupport"]),
    .testTarget(name: "ObservantTestingTests", dependencies: ["ObservantTesting", "Observant"]),
    .testTarget(
      name: "ObservantStoreTests",
      dependencies: ["ObservantStore", "ObservantHarness", "Observant", "ObservantTestSupport"]),
    .testTarget(
      name: "ObservantObservationBridgeTests",
      dependencies: [
        "ObservantObservationBridge", "ObservantStore", "ObservantHarness", "Observant", "ObservantTestSupport",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
