import Observant
import ObservantObservationBridge
import ObservantStore
import Observation
import Testing

// A Store read through Apple's withObservationTracking with the bridge on (what SwiftUI sees),
// under copies of value-type state sent through the reducer.

@MainActor
@Suite("BH bridge: store copies through withObservationTracking")
struct BHBridgeStoreTests {
  func makeStore() -> Store<BHState, BHAction> {
    Store(initialState: BHState(), reducer: BHFeature.reduce)
  }

  @Test func rowReplacedByNewValueThenOlderCopyRestored() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let rows = store.scope(state: \.rows, action: BHAction.row)
      let row1 = rows.store(id: 1)!
      let screen = BHScreen()
      let count = screen.add("row1.count") { row1.count }
      let child = screen.add("row1.child") { row1.child.value }
      let title = screen.add("row1.title") { row1.title }
      let ids = screen.add("ids") { Array(store.scope(state: \.rows, action: BHAction.row).ids) }

      let saved = store.rows[id: 1]!
      store.send(.row(id: 1, action: .apply { $0.count = 3 }))
      var step = screen.step()
      #expect(step.stale == [])
      #expect(step.rerendered == ["row1.count"])
      store.send(.apply { $0.rows[id: 1] = BHRow(id: 1, count: 5, title: "new") })
      step = screen.step()
      #expect(step.stale == [])
      #expect(count.shown == 5 && title.shown == "new")
      store.send(.apply { $0.rows[id: 1] = saved })
      step = screen.step()
      #expect(step.stale == [])
      #expect(count.shown == 0 && title.shown == "" && child.shown == 0)
      #expect(ids.renders == 1)  // same ids in the same order
      store.send(.row(id: 1, action: .apply { $0.child.value = 2 }))
      step = screen.step()
      #expect(step.stale == [])
      #expect(step.rerendered == ["row1.child"])
    }
  }

  @Test func rootUndoSnapshotRestoredByReducer() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let rows = store.scope(state: \.rows, action: BHAction.row)
      let row1 = rows.store(id: 1)!
      let screen = BHScreen()
      let count = screen.add("row1.count") { row1.count }
      let child = screen.add("row1.child") { row1.child.value }
      let row2 = screen.add("row2.count") {
        store.scope(state: \.rows, action: BHAction.row).store(id: 2)?.count
      }
      let leaf = screen.add("leaf") { store.nested.leaf.value }
      let flag = screen.add("flag") { store.flag }

      let saved = store.state
      store.send(
        .row(
          id: 1,
          action: .apply {
            $0.count = 3; $0.child.value = 4
          }))
      store.send(.row(id: 2, action: .apply { $0.count = 5 }))
      store.send(
        .apply {
          $0.nested.leaf.value = 6; $0.flag = 7
        })
      #expect(screen.step().stale == [])
      store.send(.apply { $0.rows.remove(id: 2) })
      #expect(screen.step().stale == [])
      #expect(row2.shown == nil)
      store.send(.apply { $0 = saved })
      #expect(screen.step().stale == [])
      #expect(count.shown == 0 && child.shown == 0 && row2.shown == 0 && leaf.shown == 0 && flag.shown == 0)
      store.send(.row(id: 1, action: .apply { $0.count = 1 }))
      store.send(.row(id: 2, action: .apply { $0.count = 1 }))
      #expect(screen.step().stale == [])
      #expect(count.shown == 1 && row2.shown == 1)
    }
  }

  @Test func draftThroughOptionalScopeSavedBack() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let row1 = store.scope(state: \.rows, action: BHAction.row).store(id: 1)!
      let screen = BHScreen()
      let count = screen.add("row1.count") { row1.count }
      let title = screen.add("row1.title") { row1.title }
      let draft = screen.add("draft.count") {
        store.scope(state: \.draft, action: BHAction.draft)?.count
      }

      store.send(.apply { $0.draft = $0.rows[id: 1] })
      #expect(screen.step().stale == [])
      let draftStore = store.scope(state: \.draft, action: BHAction.draft)!
      draftStore.send(.apply { $0.count = 5 })
      #expect(screen.step().stale == [])
      draftStore.send(.apply { $0.count = 6 })
      var step = screen.step()
      #expect(step.stale == [])
      #expect(step.rerendered == ["draft.count"])
      #expect(draft.shown == 6 && count.shown == 0)
      store.send(
        .apply {
          $0.rows[id: 1] = $0.draft!; $0.draft = nil
        })
      step = screen.step()
      #expect(step.stale == [])
      #expect(count.shown == 6 && draft.shown == nil)
      #expect(!step.rerendered.contains("row1.title"))
      #expect(count.renders <= 3)
      #expect(title.renders <= 2)
      #expect(!draftStore.isValid)
    }
  }

  @Test func enumCaseScopeSwitchedAwayAndBack() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let screen = BHScreen()
      let editing = screen.add("editing.count") {
        store.scope(state: \.mode.editing, action: BHAction.editing)?.count
      }
      let editingChild = screen.add("editing.child") {
        store.scope(state: \.mode.editing, action: BHAction.editing)?.child.value
      }

      store.send(.apply { $0.mode = .editing($0.rows[id: 1]!) })
      #expect(screen.step().stale == [])
      store.send(
        .editing(
          .apply {
            $0.count = 4; $0.child.value = 5
          }))
      #expect(screen.step().stale == [])
      #expect(editing.shown == 4 && editingChild.shown == 5)
      let saved = store.mode
      store.send(.editing(.apply { $0.count = 8 }))
      #expect(screen.step().stale == [])
      #expect(editing.shown == 8)
      store.send(.apply { $0.mode = .other(3) })
      #expect(screen.step().stale == [])
      #expect(editing.shown == nil)
      store.send(.apply { $0.mode = saved })
      #expect(screen.step().stale == [])
      #expect(editing.shown == 4 && editingChild.shown == 5)
      store.send(.editing(.apply { $0.child.value = 9 }))
      #expect(screen.step().stale == [])
      #expect(editingChild.shown == 9)
    }
  }

  @Test func setAndSetBackInOneSendReportsNothing() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let row1 = store.scope(state: \.rows, action: BHAction.row).store(id: 1)!
      let screen = BHScreen()
      _ = screen.add("row1.count") { row1.count }
      _ = screen.add("row1.child") { row1.child.value }
      _ = screen.add("ids") { Array(store.scope(state: \.rows, action: BHAction.row).ids) }
      _ = screen.add("leaf") { store.nested.leaf.value }
      _ = screen.add("flag") { store.flag }

      let sends: [(String, BHAction)] = [
        (
          "row field",
          .row(
            id: 1,
            action: .apply {
              $0.count = 9; $0.count = 0
            })
        ),
        (
          "row grandchild",
          .row(
            id: 1,
            action: .apply {
              $0.child.value = 9; $0.child.value = 0
            })
        ),
        (
          "nested",
          .apply {
            $0.nested.leaf.value = 2; $0.nested.leaf.value = 0
          }
        ),
        (
          "flag",
          .apply {
            $0.flag = 2; $0.flag = 0
          }
        ),
        (
          "rows snapshot",
          .apply {
            let saved = $0.rows
            $0.rows[id: 1]?.count = 3
            $0.rows = saved
          }
        ),
        (
          "nested snapshot",
          .apply {
            let saved = $0.nested
            $0.nested.leaf.value = 3
            $0.nested = saved
          }
        ),
        (
          "root snapshot, inline fields",
          .apply {
            let saved = $0
            $0.flag = 3
            $0.nested.leaf.value = 3
            $0 = saved
          }
        ),
      ]
      for (name, action) in sends {
        store.send(action)
        let step = screen.step()
        #expect(step.stale == [], "\(name)")
        #expect(step.rerendered == [], "\(name)")
      }
    }
  }
}
