import Observant
import ObservantObservationBridge
import ObservantStore
import Observation
import Testing

// When Apple's onChange is called for a field whose state was replaced by a new value.
//
// The docs: "Apple's `@Observable` reports a change before the value changes (`willSet`); the
// bridge reports it when the writing transaction ends, once, after the value changed (a
// `store.send` is one transaction)." (SwiftUIAndUIKit.md) and "once per transaction, when it
// ends, on the writing thread" (ObservationBridge). A reader that looks at the state when told
// (a UIKit-style observer re-reading in onChange) relies on this.
//
// Replacing a state that a scope read by a new value (a new draft, a row replaced by a new value
// with the same id, a dictionary value replaced) releases the old state's last copy. The bridge
// reported that at once, from the old registrar's deinit: in the middle of the transaction, of the
// reducer of a send, of a dictionary's setter, before the new value was stored (a reader that
// read the state when told crashed). It now waits for the transaction's end.

@MainActor
@Suite("BH bridge: onChange timing when a read state is replaced")
struct BHBridgeTimingTests {
  @Test func replacedDraftIsReportedWhenTheTransactionEnds() {
    ObservationBridge.withBridgeForTesting {
      let model = BHModel()
      model.state.draft = BHRow(id: 1)
      let view = BHAppleView("draft.count", readsAtFire: true) { model.state.draft?.count }
      BHWrite.transaction {
        model.state.draft = BHRow(id: 1, count: 2)
        model.state.draft?.count = 3
      }
      #expect(view.fires == 1)
      #expect(view.firesInsideWrite == 0)
      #expect(view.valuesAtFire == [3])
      view.settle()
      #expect(view.shown == 3)
    }
  }

  @Test func replacedDraftIsReportedAfterTheValueChanged() {
    ObservationBridge.withBridgeForTesting {
      let model = BHModel()
      model.state.draft = BHRow(id: 1)
      let view = BHAppleView("draft.count", readsAtFire: true) { model.state.draft?.count }
      model.state.draft = BHRow(id: 1, count: 2)  // a transaction of its own
      #expect(view.fires == 1)
      #expect(view.valuesAtFire == [2])
    }
  }

  @Test func rowReplacedByNewValueIsReportedWhenTheTransactionEnds() {
    ObservationBridge.withBridgeForTesting {
      let model = BHModel()
      let view = BHAppleView("row1.count", readsAtFire: true) { model.state.rows[id: 1]?.count }
      BHWrite.transaction {
        model.state.rows[id: 1] = BHRow(id: 1, count: 2)
        model.state.rows[id: 1]?.count = 3
      }
      #expect(view.firesInsideWrite == 0)
      #expect(view.valuesAtFire == [3])
    }
  }

  @Test func dictionaryValueReplacedIsReportedWhenTheTransactionEnds() {
    ObservationBridge.withBridgeForTesting {
      let model = BHModel()
      model.state.dict[1] = BHRow(id: 1)
      // No read at fire here: reading the state then runs inside Dictionary's setter and crashes
      // (see `readingInOnChangeDuringDictionaryReplacementDoesNotCrash`).
      let view = BHAppleView("dict1.count") { model.state.dict[1]?.count }
      BHWrite.transaction { model.state.dict[1] = BHRow(id: 1, count: 2) }
      #expect(view.fires == 1)
      #expect(view.firesInsideWrite == 0)
    }
  }

  @Test func rowReplacedInAReducerIsReportedAfterTheSend() {
    ObservationBridge.withBridgeForTesting {
      let store = Store(initialState: BHState(), reducer: BHFeature.reduce)
      // No read at fire here: reading the store then is a read during the reducer, which stops the
      // program (see `readingAStoreInOnChangeAfterARowReplacementDoesNotCrash`).
      let view = BHAppleView("row1.count") { store.rows[id: 1]?.count }
      store.send(
        .apply {
          MainActor.assumeIsolated { BHWrite.inside = true }
          $0.rows[id: 1] = BHRow(id: 1, count: 2)
          $0.flag = 1
          MainActor.assumeIsolated { BHWrite.inside = false }
        })
      #expect(view.fires == 1)
      #expect(view.firesInsideWrite == 0)
      view.settle()
      #expect(view.shown == 2)
    }
  }

  // The consequences for a reader that reads the state when told, in a child process.

  @Test func readingInOnChangeDuringDictionaryReplacementDoesNotCrash() async {
    await #expect(processExitsWith: .success) {
      await MainActor.run {
        ObservationBridge.withBridgeForTesting {
          let model = BHModel()
          model.state.dict[1] = BHRow(id: 1)
          let view = BHAppleView("dict1.count", readsAtFire: true) { model.state.dict[1]?.count }
          model.state.dict[1] = BHRow(id: 1, count: 2)
          _ = view.fires
        }
      }
    }
  }

  @Test func readingAStoreInOnChangeAfterARowReplacementDoesNotCrash() async {
    await #expect(processExitsWith: .success) {
      await MainActor.run {
        ObservationBridge.withBridgeForTesting {
          let store = Store(initialState: BHState(), reducer: BHFeature.reduce)
          let view = BHAppleView("row1.count", readsAtFire: true) { store.rows[id: 1]?.count }

          store.send(.apply { $0.rows[id: 1] = BHRow(id: 1, count: 2) })
          _ = view.fires
        }
      }
    }
  }
}
