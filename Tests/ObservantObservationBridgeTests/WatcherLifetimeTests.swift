import Observant
import ObservantTestSupport
import Synchronization
import Testing

/// The runtime's side of the bridge, driven by a stand-in for Apple's Observation whose
/// observers never let go of a keeper (as Apple keeps an observation of a scope that fired on one
/// thread while another installed it). Each test runs in a child process: it starts its own
/// external system for the whole process.
@Suite("Observation bridge: how long a watcher keeps its handle")
struct WatcherLifetimeTests {
  @Test(
    "a retired watcher reports to its handle while the external system holds its keeper, and lets go of the handle with its object"
  )
  func handleLivesWithKeeperAndObject() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let system = StickySystem()
      ExternalObservation.start(system, onlyInMarkedTasks: false)
      var report = CycleReport()
      do {
        let profile = Profile()
        _ = profile.state.child.count  // read outside any scope: a watcher of this state
        profile.state.child.count += 1  // reported (1); the watcher retires
        // `+=` reads the new state first (a second watcher); both report (2, 3): the first one's
        // keeper is still held.
        profile.state.child.count += 1
        report["changesWhileKept"] = system.counter.value.load(ordering: .relaxed)
        report["handlesAliveWithObject"] = StickyField.alive.load(ordering: .relaxed)
      }
      // The object is gone; the external system still holds every keeper it was given.
      report["handlesAliveAfterObject"] = StickyField.alive.load(ordering: .relaxed)
      report["keepersHeld"] = system.keepers.withLock { $0.count }
      report.print()
      // Let go of everything before the process exits (the keepers' weak-reference tables would
      // otherwise show as leaks under the address sanitizer).
      ExternalObservation.stop()
      system.keepers.withLock { $0.removeAll() }
    }
    let report = CycleReport(output: result?.standardOutputContent)
    #expect(report != nil)
    guard let report else { return }
    #expect(report["changesWhileKept"] == 3)
    #expect((report["handlesAliveWithObject"] ?? 0) >= 1)
    #expect(report["handlesAliveAfterObject"] == 0, "a handle outlived its object")
    #expect((report["keepersHeld"] ?? 0) >= 1)
  }
}

/// Keeps every keeper it hands out, for good.
private final class StickySystem: ExternalObservationSystem {
  let keepers = Mutex<[AnyObject]>([])
  let counter = ChangeCounter()

  func makeField() -> (field: any ExternalObservedField, keeper: any AnyObject & Sendable) {
    let keeper = StickyKeeper()
    keepers.withLock { $0.append(keeper) }
    let counter = self.counter
    return (StickyField(changes: { counter.value.add(1, ordering: .relaxed) }), keeper)
  }
}

private final class ChangeCounter: Sendable {
  let value = Atomic<Int>(0)
}

private final class StickyKeeper: Sendable {}

private final class StickyField: ExternalObservedField {
  static let alive = Atomic<Int>(0)
  let onChange: @Sendable () -> Void

  init(changes: @escaping @Sendable () -> Void) {
    onChange = changes
    Self.alive.add(1, ordering: .relaxed)
  }

  deinit { Self.alive.subtract(1, ordering: .relaxed) }

  func reportAccess() {}
  func reportChange() { onChange() }
}
