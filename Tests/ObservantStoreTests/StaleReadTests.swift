import Observant
import ObservantHarness
import ObservantStore
import Testing

/// Found by the differential fuzzer: reads through a store must stop driving their readers when
/// the store becomes invalid, even when the value behind it lives on or changed in the same action.
@MainActor
@Suite("Reads through invalid stores")
struct StaleReadTests {
  @Test("a reader of a store whose enum case switched does not re-run when the moved payload changes")
  func movedPayload() {
    let store = Store(initialState: DestinationFeature.State(), reducer: DestinationFeature.reduce)
    store.send(.showDetail)
    let detail = store.scope(state: \.destination?.detail, action: DestinationFeature.Action.detail)!
    let reader = Reaction { _ = detail.count }
    store.send(.moveToEdit)  // the same payload, now under .edit
    store.send(.edit(.increment))
    store.send(.edit(.increment))
    #expect(reader.runCount == 1)
    #expect(detail.count == 0)
  }

  @Test("a reader of a row changed and removed in the same action does not re-run")
  func changedThenRemoved() {
    let store = Store(initialState: ListFeature.State(rows: 1...3), reducer: ListFeature.reduce)
    let row = store.scope(state: \.rows, action: ListFeature.Action.row)[1]
    let reader = Reaction { _ = row.count }
    store.send(.incrementThenRemove(2))  // dirties the reader, then invalidates its store
    #expect(!row.isValid)
    #expect(reader.runCount == 1)
  }

  @Test("withState reads nested fields through the store")
  func withStateIsGuarded() {
    let store = Store(initialState: ListFeature.State(rows: [1]), reducer: ListFeature.reduce)
    let row = store.scope(state: \.rows, action: ListFeature.Action.row)[0]
    row.send(.showChild)
    let reader = Reaction { _ = row.withState { $0.child?.count } }
    row.send(.child(.increment))
    #expect(reader.runCount == 2)
    store.send(.remove(1))
    #expect(!row.isValid)
    #expect(reader.runCount == 2)
  }
}
