import Observant
import ObservantObservationBridge
import ObservantStore
import ObservantTestSupport
import Observation
import Synchronization
import Testing

// Memory-growth hunt for the observation bridge: Apple's withObservationTracking over Observant
// fields, many times, on long-lived objects and on rows that come and go. Each test runs in an
// exit test's child process (the bridge is turned on for the whole process there).

struct MGBRow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int {
    get { registrar.read(_count) }
    set { registrar.write(&_count, newValue) }
  }
  init(id: Int) { self.id = id }
}

struct MGBState: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField(IdentifiedArrayOf<MGBRow>())
  var rows: IdentifiedArrayOf<MGBRow> {
    get { registrar.read(_rows) }
    set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _count = StateField(0)
  var count: Int {
    get { registrar.read(_count) }
    set { registrar.write(&_count, newValue) }
  }
  init() {}
}

final class MGBModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var title = ""
  @Tracked var state = MGBState()
  @Tracked var messages: [Int: String] = [:]
}

final class MGBFlag: @unchecked Sendable {
  var fired = 0
}

/// Runs `cycle` for a warm-up, then twice `cycles` times; reports each phase's heap growth.
func mgBridgeMeasure(warmup: Int = 1_000, cycles: Int = 20_000, _ cycle: (Int) -> Void) -> CycleReport {
  measureHeapGrowth(warmup: warmup, cycles: cycles, cycle)
}

/// Checks a child's report: both phases flat (4 bytes a cycle, as the core's memory hunt allows),
/// and `expected` fields as expected.
func mgBridgeCheck(
  _ output: [UInt8]?, expecting expected: [String: Int] = [:], sourceLocation: SourceLocation = #_sourceLocation
) {
  for problem in heapGrowthProblems(output: output, bytesPerCycle: 4, expecting: expected) {
    Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
  }
}

@Suite("MG hunt: observation bridge memory stays flat")
struct MGHuntBridgeTests {
  @Test("withObservationTracking over class and value fields of a long-lived model, each scope firing")
  func trackingLongLivedModel() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      ObservationBridge.isEnabled = true
      let model = MGBModel()
      for id in 0..<10 { model.state.rows.append(MGBRow(id: id)) }
      let flag = MGBFlag()
      var report = mgBridgeMeasure { step in
        withObservationTracking {
          _ = model.title
          _ = model.state.count
          _ = model.state.rows[id: step % 10]?.count
          _ = model.messages[step]
        } onChange: {
          flag.fired += 1
        }
        switch step % 4 {
        case 0: model.title = String(step)
        case 1: model.state.count += 1
        case 2: model.state.rows[id: step % 10]?.count += 1
        default: model.messages[step] = "m"
        }
        model.messages[step] = nil
      }
      report["firedAll"] = flag.fired >= 2 * 20_000 ? 1 : 0
      report["entries"] = model.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgBridgeCheck(result?.standardOutputContent, expecting: ["firedAll": 1])
  }

  @Test("withObservationTracking that never fires, over rows with ever-new ids that come and go")
  func trackingRowsThatGo() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      ObservationBridge.isEnabled = true
      let model = MGBModel()
      let report = mgBridgeMeasure { step in
        model.state.rows.append(MGBRow(id: step))
        withObservationTracking {
          _ = model.state.rows[id: step]?.count
        } onChange: {
        }
        model.state.rows[id: step]?.count += 1
        withObservationTracking {
          _ = model.state.rows[id: step]?.count
        } onChange: {
        }
        model.state.rows.remove(id: step)
      }
      report.print()
    }
    mgBridgeCheck(result?.standardOutputContent)
  }

  @Test("reads outside any tracking while the bridge is on (background code), with writes")
  func untrackedReadsWithBridge() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      ObservationBridge.isEnabled = true
      let model = MGBModel()
      for id in 0..<10 { model.state.rows.append(MGBRow(id: id)) }
      let report = mgBridgeMeasure { step in
        _ = model.title
        _ = model.state.count
        _ = model.state.rows[id: step % 10]?.count
        _ = model.messages[step % 5]
        model.state.count += 1
        model.state.rows[id: step % 10]?.count += 1
        model.title = String(step)
        var copy = model.state
        copy.count = step
        _ = copy.count
      }
      report.print()
    }
    mgBridgeCheck(result?.standardOutputContent)
  }

  @Test("derived values read through the bridge, created and dropped")
  func derivedThroughBridge() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      ObservationBridge.isEnabled = true
      let model = MGBModel()
      let longLived = Derived("long") { model.state.count * 2 }
      let report = mgBridgeMeasure { step in
        let derived = Derived("d") { model.title.count + step }
        withObservationTracking {
          _ = derived.value
          _ = longLived.value
        } onChange: {
        }
        model.title = String(step)
        model.state.count += 1
      }
      withExtendedLifetime(longLived) {}
      report.print()
    }
    mgBridgeCheck(result?.standardOutputContent)
  }
}
