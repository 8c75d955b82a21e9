import Observant
import ObservantStore
import Testing

@MainActor
@Suite("Derived values over a store")
struct DerivedStoreTests {
  @Test("a derived value over a store's state recomputes per relevant action; its reader re-runs only when it changes")
  func doneRowIDs() {
    let store = Store(initialState: ListFeature.State(rows: 1...4), reducer: ListFeature.reduce)
    let doneIDs = Derived("doneIDs") { store.rows.filter { $0.count > 0 }.map(\.id) }
    var shown: [[Int]] = []
    let reader = Reaction("Done") { shown.append(doneIDs.value) }

    store.send(.row(id: 2, action: .increment))
    #expect(doneIDs.computationCount == 2)
    #expect(reader.runCount == 2)

    store.send(.row(id: 2, action: .increment))  // still [2]
    #expect(doneIDs.computationCount == 3)
    #expect(reader.runCount == 2)

    store.send(.add(5))  // a row that is not done
    #expect(doneIDs.computationCount == 4)
    #expect(reader.runCount == 2)

    store.send(.row(id: 3, action: .showChild))  // a field the computation never read
    #expect(doneIDs.computationCount == 4)

    store.send(.row(id: 4, action: .increment))
    #expect(reader.runCount == 3)
    #expect(shown == [[], [2], [2, 4]])
  }

  @Test("a derived row of the store's state: its reader reads the row as actions change it")
  func derivedRowState() {
    let store = Store(initialState: ListFeature.State(rows: 1...3), reducer: ListFeature.reduce)
    let first = Derived("first") { store.rows.first }
    let rowState = store.scope(state: \.rows, action: ListFeature.Action.row).store(id: 1)
    var shown: [Int] = []
    let reader = Reaction("First") { shown.append(first.value?.count ?? -1) }
    defer { reader.cancel() }
    store.send(.row(id: 1, action: .increment))
    store.send(.row(id: 2, action: .increment))  // another row: nothing to re-run
    store.send(.row(id: 1, action: .increment))
    #expect(shown == [0, 1, 2])
    #expect(rowState?.count == 2)
    store.send(.move(from: 0, to: 2))  // another row is first now
    #expect(shown == [0, 1, 2, 1])
  }

  @Test("a derived value over a row store reads only that row")
  func rowStore() {
    let store = Store(initialState: ListFeature.State(rows: 1...3), reducer: ListFeature.reduce)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let row = rows[0]
    let label = Derived("label") { "Count: \(row.count)" }
    let reader = Reaction("Label") { _ = label.value }
    store.send(.row(id: 2, action: .increment))
    #expect(label.computationCount == 1)
    store.send(.row(id: 1, action: .increment))
    #expect(label.computationCount == 2)
    #expect(reader.runCount == 2)
    #expect(label.value == "Count: 1")
  }
}
