import Observant
import ObservantStore
import ObservantTestSupport
import Testing

@MainActor
@Suite("Commit cost")
struct CommitCostTests {
  /// Live row stores: the largest size is 10,000 under a sanitizer (building 100,000 stores there
  /// takes most of a minute, and the count it checks does not depend on the size).
  nonisolated static let sizes = [10, 1_000, RandomTestBudget.underSanitizer(100_000, dividedBy: 10)]

  /// A list with `count` rows and a cached store for every row.
  private func liveRows(_ count: Int) -> (
    Store<ListFeature.State, ListFeature.Action>, [Store<RowFeature.State, RowFeature.Action>]
  ) {
    let store = Store(initialState: ListFeature.State(rows: 0..<count), reducer: ListFeature.reduce)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    return (store, rows.map { $0 })
  }

  @Test(
    "a row mutation examines no store, whether 10, 1,000 or 100,000 row stores are live",
    arguments: sizes)
  func rowMutation(liveStores: Int) {
    let (store, rows) = liveRows(liveStores)
    store.send(.row(id: liveStores / 2, action: .increment))
    #expect(store.diagnostics.storesExaminedInLastCommit == 0)
    #expect(rows[liveStores / 2].count == 1)
  }

  @Test("appending a row examines only the collection scope", arguments: sizes)
  func append(liveStores: Int) {
    let (store, rows) = liveRows(liveStores)
    store.send(.add(-1))
    #expect(store.diagnostics.storesExaminedInLastCommit == 1)
    #expect(rows.allSatisfy { $0.isValid })
  }

  @Test("removing a row examines the collection scope and that row's store only", arguments: sizes)
  func remove(liveStores: Int) {
    let (store, rows) = liveRows(liveStores)
    store.send(.remove(3))
    #expect(store.diagnostics.storesExaminedInLastCommit == 2)
    #expect(!rows[3].isValid)
    #expect(rows[4].isValid)
  }

  @Test("replacing the whole array examines every cached row store (there is no cheaper answer)")
  func replaceAll() {
    let (store, rows) = liveRows(100)
    store.send(.reset)
    #expect(rows.allSatisfy { !$0.isValid })
  }
}
