import Observant
import ObservantObservationBridge
import ObservantStore
import Observation
import Synchronization
import Testing

// Hunt 5 finding (fixed), seen through the bridge (as SwiftUI would): a view of row 2 through its
// row store fired when a draft store over a copy of row 2 was handed a copy of row 1. Docs
// (SwiftUIAndUIKit.md, "What Apple's tracking sees through the bridge"): "The fields read, by
// Observant's rules. A view that read `store.isDone` re-renders when that row's `isDone` changes:
// not for other rows, not for the list around it". See Hunt5StaleCopyStoreTests for reactions.

private final class H5BSCount: Sendable {
  private let storage = Atomic(0)
  func fire() { storage.add(1, ordering: .sequentiallyConsistent) }
  var value: Int { storage.load(ordering: .sequentiallyConsistent) }
}

@MainActor
@Suite("Hunt 5: bridge, a store over a copy of a row handed another row")
struct Hunt5BridgeStaleCopyTests {
  @Test("a view of row 2 does not fire when the draft store over row 2's copy is handed row 1's copy")
  func rowViewUndisturbed() {
    ObservationBridge.withBridgeForTesting {
      let store = Store(
        initialState: H5BRoot(rows: [H5BRow(id: 1, count: 1, title: "a"), H5BRow(id: 2, count: 2, title: "b")]),
        reducer: H5BAction.reduce, diagnostics: StoreDiagnostics(printing: false))
      let row2 = store.scope(state: \.rows, action: H5BAction.row).store(id: 2)!
      let rowFired = H5BSCount()
      let shown = withObservationTracking {
        "\(row2.count)/\(row2.title)"
      } onChange: {
        rowFired.fire()
      }
      #expect(shown == "2/b")
      store.send(.edit(H5BEdit { $0.draft = $0.rows[id: 2] }))
      let draftFired = H5BSCount()
      let draftShown = withObservationTracking {
        store.scope(state: \.draft, action: H5BAction.draft).map { "\($0.count)/\($0.title)" } ?? "-"
      } onChange: {
        draftFired.fire()
      }
      #expect(draftShown == "2/b")
      store.send(.edit(H5BEdit { $0.draft = $0.rows[id: 1] }))
      #expect(draftFired.value == 1)
      #expect(rowFired.value == 0)
    }
  }
}
