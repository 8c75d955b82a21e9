import Dispatch
import Observant
import ObservantObservationBridge
import ObservantTestSupport
import Observation
import Synchronization
import Testing

/// The bridge as an app turns it on: for the whole process. Each test runs in a child process
/// (an exit test), so the tests that share this process see no bridge.
@Suite("Observation bridge: enabled for the process")
struct ProcessWideTests {
  @Test("ObservationBridge.isEnabled reports reads on every thread; turned off, new reads are not reported")
  func enabledEverywhere() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      var report = CycleReport()
      report["offByDefault"] = ObservationBridge.isEnabled ? 0 : 1
      ObservationBridge.isEnabled = true
      report["enabled"] = ObservationBridge.isEnabled ? 1 : 0
      let profile = Profile()
      let onThreads = Firings()
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        withObservationTracking {
          _ = profile.name
        } onChange: {
          onThreads.onChange()
        }
      }
      profile.name = "Grace"
      report["firedOnThreads"] = onThreads.value
      ObservationBridge.isEnabled = false
      let off = Firings()
      withObservationTracking {
        _ = profile.count
      } onChange: {
        off.onChange()
      }
      profile.count += 1
      report["firedWhileOff"] = off.value
      report["classEntries"] = profile.trackingRegistrar.observerEntryCount
      report.print()
    }
    let report = CycleReport(output: result?.standardOutputContent)
    #expect(report != nil)
    guard let report else { return }
    #expect(report["offByDefault"] == 1, "off by default")
    #expect(report["enabled"] == 1)
    #expect(report["firedOnThreads"] == 2, "each thread's scope fires once")
    #expect(report["firedWhileOff"] == 0, "a read made while the bridge is off was reported")
    // The name's watcher stays with its object.
    #expect(report["classEntries"] == 1)
  }

  /// Heap growth allowed over 100,000 cycles (as for the runtime's own leak tests): 0.2 byte per
  /// cycle. Leaking a watcher, a handle or a key path (tens of bytes each) once per 100 cycles
  /// would exceed it.
  static let heapGrowthBound = 20_000

  @Test(
    "no leaks after 100,000 Apple scopes over Observant fields (6,250 under a sanitizer), installed and fired: heap flat, bounded entries"
  )
  func observeFireCycles() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      ObservationBridge.isEnabled = true
      let profile = Profile()
      func cycle(_ step: Int) {
        withObservationTracking {
          _ = profile.name
          _ = profile.state.child.count
        } onChange: {
        }
        if step % 2 == 0 { profile.state.child.count += 1 } else { profile.name = "\(step % 7)" }
      }
      for step in 0..<2_000 { cycle(step) }
      let heapBefore = heapBytesInUse()
      for step in 0..<RandomTestBudget.leakCycles { cycle(step) }
      let heapAfter = heapBytesInUse()
      var report = CycleReport()
      report["cycles"] = RandomTestBudget.leakCycles
      report["classEntries"] = profile.trackingRegistrar.observerEntryCount
      report["stateEntries"] = profile.state.registrar.observerEntryCount
      if let heapBefore, let heapAfter { report["heapGrowth"] = heapAfter - heapBefore }
      report.print()
    }
    let report = CycleReport(output: result?.standardOutputContent)
    #expect(report != nil)
    guard let report else { return }
    #expect(report["cycles"] == RandomTestBudget.leakCycles)
    // `name` and the slot `state` on the class; the child slot's current state (read again by
    // the report itself, after the last cycle's write).
    #expect(report["classEntries"] == 2)
    #expect(report["stateEntries"] == 1)
    if let growth = report["heapGrowth"] { #expect(growth < Self.heapGrowthBound, "heap grew by \(growth) bytes") }
  }
}
