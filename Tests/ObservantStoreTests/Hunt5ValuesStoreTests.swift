import Observant
import ObservantStore
import ObservantTestSupport
import Testing

// Hunt 5: TrackedValues and Derived values over row stores whose rows are replaced, copied and
// removed; one-shot observations nested in reactions. Written against the documentation only
// (SwiftUIAndUIKit.md "Awaiting changes", DerivedValues.md, StoreAndStaleStores.md,
// ReactionsAndTransactions.md "Tracking without a reaction").

@MainActor
@Suite("Hunt 5: tracked and derived values over row stores")
struct Hunt5ValuesStoreTests {
  @Test("TrackedValues over a row store goes on when the row is replaced by a new value with the same id")
  func trackedValuesFollowAReplacedRow() async {
    let store = h5Store()
    let row = h5RowStores(store).store(id: 2)!
    let iterator = TrackedValues { row.count }.makeAsyncIterator()
    #expect(await boundedNext(iterator) == .returned(2))
    // "a row changed or replaced by a new value with the same id is still its row"
    store.run { $0.rows[id: 2] = H5Row(id: 2, count: 20) }
    #expect(row.isValid)
    #expect(await boundedNext(iterator) == .returned(20))
    store.send(.row(2, H5Edit { $0.count = 21 }))
    #expect(await boundedNext(iterator) == .returned(21))
    store.run { $0.rows.remove(id: 2) }
    #expect(await boundedNext(iterator) == .returned(nil))  // removed: the sequence ends
  }

  @Test("TrackedValues over a row store after an undo that restores the row's older copy: the restored value")
  func trackedValuesAfterUndo() async {
    let store = h5Store()
    let row = h5RowStores(store).store(id: 1)!
    let saved = store.state
    let iterator = TrackedValues { "\(row.count)/\(row.title)" }.makeAsyncIterator()
    #expect(await boundedNext(iterator) == .returned("1/a"))
    store.send(.row(1, H5Edit { $0.title = "edited" }))
    #expect(await boundedNext(iterator) == .returned("1/edited"))
    store.run { $0 = saved }
    #expect(await boundedNext(iterator) == .returned("1/a"))
  }

  @Test("a derived value over a row store: stops driving its reader once the row is removed, showing the last value")
  func derivedOverARemovedRow() {
    let store = h5Store()
    let row = h5RowStores(store).store(id: 2)!
    let doubled = Derived("doubled") { row.count * 2 }
    var shown: [Int] = []
    let reader = Reaction("reader") { shown.append(doubled.value) }
    store.send(.row(2, H5Edit { $0.count = 3 }))
    #expect(shown == [4, 6])
    store.run { $0.rows.remove(id: 2) }
    #expect(!row.isValid)
    // The removed row's value lives on nowhere; whatever happens to other rows, nothing re-runs.
    store.send(.row(1, H5Edit { $0.count = 100 }))
    store.run { $0.rows.append(H5Row(id: 2, count: 50)) }
    #expect(shown == [4, 6])
    #expect(doubled.value == 6)
    reader.cancel()
  }

  @Test(
    "a derived copy of a row (a value that holds state) is read fresh: its reader sees every field change of the row")
  func derivedRowReadFresh() {
    let store = h5Store()
    let selected = Derived("selected") { store.rows[id: 1] }
    var shown: [String] = []
    let reader = Reaction("reader") { shown.append(selected.value.map { "\($0.count)/\($0.title)" } ?? "-") }
    store.send(.row(1, H5Edit { $0.count = 7 }))
    store.send(.row(2, H5Edit { $0.count = 7 }))  // another row: the reader does not re-run
    store.send(.row(1, H5Edit { $0.title = "z" }))
    #expect(shown == ["1/a", "7/a", "7/z"])
    store.run { $0.rows.remove(id: 1) }
    #expect(shown == ["1/a", "7/a", "7/z", "-"])
    reader.cancel()
  }

  @Test("withCancellableTracking propagating its reads into a reaction: cancelling it keeps the reaction's dependency")
  func cancellableTrackingPropagatedIntoAReaction() {
    let store = h5Store()
    var runs = 0
    var fired = 0
    nonisolated(unsafe) var observations: [TrackingObservation] = []
    let reader = Reaction("reader") {
      runs += 1
      let (_, observation) = withCancellableTracking(propagatingToOuterScope: true) {
        _ = store.rows[id: 1]?.count
      } onChange: {
        MainActor.assumeIsolated { fired += 1 }
      }
      observations.append(observation)
      observation.cancel()
    }
    #expect(observations.first?.isActive == false)
    store.send(.row(1, H5Edit { $0.count = 5 }))
    #expect(runs == 2)  // the reaction recorded the propagated read
    #expect(fired == 0)  // the cancelled one-shot observations never fire
    store.send(.row(2, H5Edit { $0.count = 5 }))
    #expect(runs == 2)
    reader.cancel()
  }

  @Test("withCancellableTracking inside a reaction, not propagated: the reaction does not depend on its reads")
  func cancellableTrackingKeptInside() {
    let store = h5Store()
    var runs = 0
    var fired = 0
    nonisolated(unsafe) var observation: TrackingObservation?
    let reader = Reaction("reader") {
      runs += 1
      if observation == nil {
        observation =
          withCancellableTracking {
            _ = store.rows[id: 1]?.count
          } onChange: {
            MainActor.assumeIsolated { fired += 1 }
          }.1
      }
    }
    store.send(.row(1, H5Edit { $0.count = 5 }))
    #expect(runs == 1)
    #expect(fired == 1)
    #expect(observation?.isActive == false)
    #expect(observation?.accesses.fields.contains("H5Row.count") == true)
    reader.cancel()
  }
}
