import Observant
import ObservantStore
import Testing

@MainActor
@Suite("Store scopes: siblings and enum destinations")
struct ScopeCaseTests {
  @Test("siblings: incrementing one re-runs only its readers")
  func incrementOne() {
    let store = Store(initialState: SiblingsFeature.State(), reducer: SiblingsFeature.reduce)
    let first = store.scope(state: \.first, action: SiblingsFeature.Action.first)
    let second = store.scope(state: \.second, action: SiblingsFeature.Action.second)
    let firstLabel = Reaction { _ = first.count }
    let secondLabel = Reaction { _ = second.count }
    first.send(.increment)
    #expect((firstLabel.runCount, secondLabel.runCount) == (2, 1))
    #expect(store.diagnostics.storesExaminedInLastCommit == 0)
  }

  @Test("siblings: resetting both re-runs each reader once")
  func resetBoth() {
    let store = Store(initialState: SiblingsFeature.State(), reducer: SiblingsFeature.reduce)
    let first = store.scope(state: \.first, action: SiblingsFeature.Action.first)
    let second = store.scope(state: \.second, action: SiblingsFeature.Action.second)
    first.send(.increment)
    let firstLabel = Reaction { _ = first.count }
    let secondLabel = Reaction { _ = second.count }
    store.send(.resetBoth)
    #expect((firstLabel.runCount, secondLabel.runCount) == (2, 2))
    #expect((first.count, second.count) == (0, 0))
    first.send(.increment)  // the new child's field reaches the same store's readers
    #expect((firstLabel.runCount, secondLabel.runCount) == (3, 2))
  }

  @Test("siblings: swapping them re-runs both readers, and each store now shows the other value")
  func swap() {
    let store = Store(initialState: SiblingsFeature.State(), reducer: SiblingsFeature.reduce)
    let first = store.scope(state: \.first, action: SiblingsFeature.Action.first)
    let second = store.scope(state: \.second, action: SiblingsFeature.Action.second)
    first.send(.increment)
    let firstLabel = Reaction { _ = first.count }
    let secondLabel = Reaction { _ = second.count }
    store.send(.swap)
    #expect((firstLabel.runCount, secondLabel.runCount) == (2, 2))
    #expect((first.count, second.count) == (0, 1))
    second.send(.increment)  // `second` now holds what was first's state
    #expect((first.count, second.count) == (0, 2))
    #expect((firstLabel.runCount, secondLabel.runCount) == (2, 3))
  }

  @Test("siblings: replacing the whole parent state re-runs both readers once, and the stores follow the new state")
  func replaceAll() {
    let store = Store(initialState: SiblingsFeature.State(), reducer: SiblingsFeature.reduce)
    let first = store.scope(state: \.first, action: SiblingsFeature.Action.first)
    let second = store.scope(state: \.second, action: SiblingsFeature.Action.second)
    first.send(.increment)
    second.send(.increment)
    let firstLabel = Reaction { _ = first.count }
    let secondLabel = Reaction { _ = second.count }
    store.send(.replaceAll)
    #expect((firstLabel.runCount, secondLabel.runCount) == (2, 2))
    #expect((first.count, second.count) == (0, 0))
    first.send(.increment)
    #expect((firstLabel.runCount, secondLabel.runCount) == (3, 2))
    #expect(first.isValid && second.isValid)
  }

  @Test(
    "enum destination: switching to the same payload under another case invalidates the old case's store and makes a new one"
  )
  func enumDestination() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: DestinationFeature.State(), reducer: DestinationFeature.reduce, diagnostics: diagnostics)
    #expect(store.scope(state: \.destination?.detail, action: DestinationFeature.Action.detail) == nil)
    store.send(.showDetail)
    let detail = store.scope(state: \.destination?.detail, action: DestinationFeature.Action.detail)!
    let detailLabel = Reaction { _ = detail.count }
    detail.send(.increment)
    #expect(detailLabel.runCount == 2)
    #expect(store.diagnostics.storesExaminedInLastCommit == 0)  // same case, same payload: no slot change

    store.send(.moveToEdit)
    #expect(!detail.isValid)
    #expect(detailLabel.runCount == 2)
    #expect(store.scope(state: \.destination?.detail, action: DestinationFeature.Action.detail) == nil)
    let edit = store.scope(state: \.destination?.edit, action: DestinationFeature.Action.edit)!
    #expect(edit.count == 1)  // the same payload, now under .edit
    detail.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    edit.send(.increment)
    #expect(edit.count == 2)

    store.send(.dismiss)
    #expect(!edit.isValid)
    edit.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 2)

    store.send(.showDetail)  // a later detail gets a fresh store
    let newDetail = store.scope(state: \.destination?.detail, action: DestinationFeature.Action.detail)!
    #expect(newDetail !== detail)
    #expect(newDetail.count == 0)
  }

  @Test("a reader of the destination slot re-runs on case switches, not on the payload's field changes")
  func destinationSlotReader() {
    let store = Store(initialState: DestinationFeature.State(), reducer: DestinationFeature.reduce)
    let presenter = Reaction {
      _ = store.scope(state: \.destination?.detail, action: DestinationFeature.Action.detail) != nil
    }
    store.send(.showDetail)
    store.send(.detail(.increment))
    store.send(.detail(.increment))
    #expect(presenter.runCount == 2)
    store.send(.moveToEdit)
    #expect(presenter.runCount == 3)
  }
}
