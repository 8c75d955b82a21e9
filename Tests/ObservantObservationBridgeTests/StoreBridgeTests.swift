import Observant
import ObservantObservationBridge
import ObservantStore
import Observation
import Testing

/// Store reads through the bridge: a row view reading its row store depends on that row only.
@MainActor
@Suite("Observation bridge: stores")
struct StoreBridgeTests {
  private func makeStore() -> Store<ListFeature.State, ListFeature.Action> {
    Store(initialState: Screen(rows: 1...3), reducer: ListFeature.reduce)
  }

  private func observe<Value>(_ read: () -> Value) -> Firings {
    let firings = Firings()
    _ = withObservationTracking(read, onChange: firings.onChange)
    return firings
  }

  @Test("a row store's reader fires for its row only")
  func rowStoreReader() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
      let rowOne = rows.store(id: 1)!
      var firings = observe { rowOne.count }
      store.send(.row(id: 2, action: .increment))
      store.send(.add(4))
      store.send(.remove(3))
      store.send(.title("Other"))
      store.send(.row(id: 1, action: .set(0)))  // equal
      store.send(.row(id: 1, action: .incrementAndBack))  // set back within one send
      #expect(firings.value == 0)
      store.send(.row(id: 1, action: .increment))
      #expect(firings.value == 1)
      firings = observe { rowOne.count }
      store.send(.replace(1, count: 1))  // a new value with the same id, same count
      #expect(firings.value == 1)  // its readers hear the replacement, as Observant's do
      firings = observe { rowOne.count }
      store.send(.replace(1, count: 9))
      #expect(firings.value == 1)
      #expect(rowOne.count == 9)
    }
  }

  @Test("the list's reader fires for the rows it shows, not for their fields")
  func listReader() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let ids = observe { store.scope(state: \.rows, action: ListFeature.Action.row).ids }
      let title = observe { store.title }
      store.send(.row(id: 2, action: .increment))
      #expect(ids.value == 0 && title.value == 0)
      store.send(.add(4))
      #expect(ids.value == 1 && title.value == 0)
      store.send(.title("Other"))
      #expect(title.value == 1)
    }
  }

  @Test("removing a row fires the list's reader, not the row's; the removed row's store records nothing after")
  func removedRow() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
      let rowTwo = rows.store(id: 2)!
      let list = observe { store.scope(state: \.rows, action: ListFeature.Action.row).ids }
      let row = observe { rowTwo.count }
      store.send(.remove(2))
      #expect(list.value == 1 && row.value == 0)
      #expect(rowTwo.isValid == false)
      let again = observe { rowTwo.count }  // an invalid store records nothing
      store.send(.add(2))
      store.send(.row(id: 2, action: .increment))
      #expect(again.value == 0 && row.value == 0)
    }
  }
}
