import Observant
import ObservantStore
import Testing

/// `TrackedValues` over stores: a row store's values follow its row, and the sequence ends when
/// the row goes away (its store becomes invalid), by the rule reactions follow.
@MainActor
@Suite("Tracked values over stores")
struct TrackedValuesStoreTests {
  private func listStore(_ rows: some Sequence<Int>) -> Store<ListFeature.State, ListFeature.Action> {
    Store(
      initialState: ListFeature.State(rows: rows), reducer: ListFeature.reduce,
      diagnostics: StoreDiagnostics(printing: false))
  }

  @Test(
    "a row store's values: its row's changes yield, other rows' do not; removing the row ends the sequence",
    .timeLimit(.minutes(10)))
  func rowRemovedEndsTheSequence() async {
    let store = listStore(1...3)
    let rowStore = store.scope(state: \.rows, action: ListFeature.Action.row).store(id: 2)!
    var values = TrackedValues { rowStore.count }.makeAsyncIterator()
    #expect(await values.next() == 0)
    store.send(.row(id: 1, action: .increment))  // another row
    store.send(.add(4))
    Task { store.send(.row(id: 2, action: .increment)) }
    #expect(await values.next() == 1)
    Task { store.send(.remove(2)) }
    #expect(await values.next() == nil)  // ends: everything it read was read through the removed row's store
    #expect(await values.next() == nil)
    #expect(!rowStore.isValid)
  }

  @Test("removing the row while the loop waits ends a for-await loop; its values were exact", .timeLimit(.minutes(10)))
  func forAwaitLoopEnds() async {
    let store = listStore(1...3)
    let rowStore = store.scope(state: \.rows, action: ListFeature.Action.row).store(id: 2)!
    let (started, started_) = AsyncStream.makeStream(of: Int.self)
    let loop = Task { @MainActor in
      var received: [Int] = []
      for await value in TrackedValues({ rowStore.count }) {
        received.append(value)
        started_.yield(value)
      }
      return received
    }
    var iterator = started.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    store.send(.row(id: 2, action: .increment))
    #expect(await iterator.next() == 1)
    store.send(.incrementThenRemove(2))  // changed and removed in one commit: no value, the end
    #expect(await loop.value == [0, 1])
  }

  @Test("a closure that also reads a valid store goes on after a row is removed", .timeLimit(.minutes(10)))
  func validPathKeepsItGoing() async {
    let store = listStore(1...3)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let rowTwo = rows.store(id: 2)!
    let rowThree = rows.store(id: 3)!
    var values = TrackedValues { rowTwo.count + rowThree.count }.makeAsyncIterator()
    #expect(await values.next() == 0)
    store.send(.row(id: 2, action: .increment))
    #expect(await values.next() == 1)
    store.send(.remove(2))  // what was read through row 2 stops mattering; row 3 still counts
    Task { store.send(.row(id: 3, action: .increment)) }
    #expect(await values.next() == 2)  // row 2's last value (1) and row 3's new one
  }
}
