import Observant
import ObservantHarness
import ObservantStore
import Testing

// What the caller of `scope(state:action:)` over an identified array depends on (the ids, in
// order, and nothing else), however the array is written; and what an old `StoreCollection`
// snapshot hands out once its rows were removed, for rows of both kinds.

/// A list whose rows are rebuilt wholesale by some actions.
enum RebuiltListFeature {
  /// A plain row: `Identifiable`, not `ObservableState`.
  struct PlainRow: Identifiable, Equatable {
    let id: Int
    var count = 0
  }

  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows = StateField<IdentifiedArrayOf<RowFeature.State>>([])
    var rows: IdentifiedArrayOf<RowFeature.State> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _plainRows = StateField<IdentifiedArrayOf<PlainRow>>([])
    var plainRows: IdentifiedArrayOf<PlainRow> {
      get { registrar.read(_plainRows) } set { registrar.write(&_plainRows, newValue) }
      _modify { yield &self[tracking: \._plainRows] }
    }
    init(rows: [Int], count: Int = 0) {
      _rows = StateField(IdentifiedArray(uniqueElements: rows.map { RowFeature.State(id: $0, count: count) }))
      _plainRows = StateField(IdentifiedArray(uniqueElements: rows.map { PlainRow(id: $0, count: count) }))
    }
  }

  enum Action: Equatable, Sendable {
    /// `state.rows` (and `plainRows`) rebuilt from `ids`, every row a new value with `count`.
    case setRows([Int], count: Int)
    /// The whole state replaced by a new one with rows `ids`, every row a new value with `count`.
    case replaceState([Int], count: Int)
    case add(Int)
    case remove(Int)
    /// Removes `id` and inserts a new row with `id` where it was, in one action.
    case removeAndReinsert(Int)
    /// Moves the first row to the end and back, in one action.
    case moveAndMoveBack
    case row(id: Int, action: RowFeature.Action)
    case plainRow(id: Int, action: PlainRowAction)
  }

  enum PlainRowAction: Equatable, Sendable {
    case increment
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .setRows(let ids, let count):
      state.rows = IdentifiedArray(uniqueElements: ids.map { RowFeature.State(id: $0, count: count) })
      state.plainRows = IdentifiedArray(uniqueElements: ids.map { PlainRow(id: $0, count: count) })
    case .replaceState(let ids, let count):
      state = State(rows: ids, count: count)
    case .add(let id):
      state.rows.append(RowFeature.State(id: id))
      state.plainRows.append(PlainRow(id: id))
    case .remove(let id):
      state.rows.remove(id: id)
      state.plainRows.remove(id: id)
    case .removeAndReinsert(let id):
      guard let index = state.rows.index(id: id) else { return .none }
      state.rows.remove(id: id)
      state.rows.insert(RowFeature.State(id: id, count: 50), at: index)
      state.plainRows.remove(id: id)
      state.plainRows.insert(PlainRow(id: id, count: 50), at: index)
    case .moveAndMoveBack:
      let last = state.rows.count - 1
      state.rows.move(from: 0, to: last)
      state.rows.move(from: last, to: 0)
      state.plainRows.move(from: 0, to: last)
      state.plainRows.move(from: last, to: 0)
    case .row(let id, let action):
      guard state.rows[id: id] != nil else { return .none }
      return RowFeature.reduce(&state.rows[id: id]!, action).map { .row(id: id, action: $0) }
    case .plainRow(let id, .increment):
      state.plainRows[id: id]?.count += 1
    }
    return .none
  }
}

@MainActor
@Suite("Collection scopes: what the caller depends on, and old snapshots")
struct CollectionScopeTests {
  typealias ListStore = Store<RebuiltListFeature.State, RebuiltListFeature.Action>

  private func makeStore(_ ids: [Int] = [1, 2, 3]) -> (ListStore, StoreDiagnostics) {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: RebuiltListFeature.State(rows: ids), reducer: RebuiltListFeature.reduce, diagnostics: diagnostics)
    return (store, diagnostics)
  }

  /// A list body over the observable rows (a keyed ForEach over the collection, one body per row
  /// store), and one over the plain rows.
  private func renderLists(_ store: ListStore) -> RenderTree {
    RenderTree("Screen") { screen in
      screen.child("List") { list in
        let rows = store.scope(state: \.rows, action: RebuiltListFeature.Action.row)
        list.forEach(rows, name: { "Row[\($0.id)]" }) { row, context in context.text("\(row.count)") }
      }
      screen.child("PlainList") { list in
        let rows = store.scope(state: \.plainRows, action: RebuiltListFeature.Action.plainRow)
        list.forEach(rows, name: { "PlainRow[\($0.id)]" }) { row, context in context.text("\(row.count)") }
      }
    }
  }

  private func outputs(_ tree: RenderTree, _ prefix: String, _ ids: [Int]) -> [String?] {
    ids.map { tree.output(of: "\(prefix)[\($0)]") }
  }

  // MARK: The caller depends on the ids

  @Test("rows rebuilt wholesale with the same ids in the same order: the rows re-run, the list does not")
  func rebuiltWithSameIDs() {
    let (store, _) = makeStore()
    let list = Reaction("List") { _ = store.scope(state: \.rows, action: RebuiltListFeature.Action.row).count }
    let tree = renderLists(store)
    let step = tree.step { store.send(.setRows([1, 2, 3], count: 7)) }
    #expect(list.runCount == 1)
    #expect(step.runs.sorted() == ["PlainRow[1]", "PlainRow[2]", "PlainRow[3]", "Row[1]", "Row[2]", "Row[3]"])
    #expect(outputs(tree, "Row", [1, 2, 3]) == ["7", "7", "7"])
    #expect(outputs(tree, "PlainRow", [1, 2, 3]) == ["7", "7", "7"])
    // The rows' stores follow the new rows.
    let rowStep = tree.step { store.send(.row(id: 2, action: .increment)) }
    #expect(rowStep.runs == ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "8")
    let plainStep = tree.step { store.send(.plainRow(id: 3, action: .increment)) }
    #expect(plainStep.runs == ["PlainRow[3]"])
    #expect(tree.output(of: "PlainRow[3]") == "8")
  }

  @Test("rows rebuilt wholesale with other ids, or the same ids in another order: the lists re-run")
  func rebuiltWithOtherIDs() {
    let (store, _) = makeStore()
    let tree = renderLists(store)
    for ids in [[3, 2, 1], [3, 2], [3, 2, 4]] {
      let runs = tree.step { store.send(.setRows(ids, count: 0)) }.runs
      #expect(runs.contains("List") && runs.contains("PlainList"), "\(ids): \(runs)")
    }
    // The same ids again: only the rows.
    let same = tree.step { store.send(.setRows([3, 2, 4], count: 1)) }
    #expect(same.runs.sorted() == ["PlainRow[2]", "PlainRow[3]", "PlainRow[4]", "Row[2]", "Row[3]", "Row[4]"])
  }

  @Test("rows rebuilt after an in-place append, with the same ids: the list re-runs for the append only")
  func rebuiltAfterAppend() {
    let (store, _) = makeStore()
    let tree = renderLists(store)
    #expect(tree.step { store.send(.add(4)) }.runs.sorted() == ["List", "PlainList", "PlainRow[4]", "Row[4]"])
    let step = tree.step { store.send(.setRows([1, 2, 3, 4], count: 2)) }
    #expect(!step.runs.contains("List") && !step.runs.contains("PlainList"))
    #expect(outputs(tree, "Row", [1, 2, 3, 4]) == ["2", "2", "2", "2"])
  }

  @Test("ids changed and changed back in one action (in place): the list does not re-run")
  func idsChangedAndBack() {
    let (store, _) = makeStore()
    let tree = renderLists(store)
    #expect(tree.step { store.send(.moveAndMoveBack) }.runs.isEmpty)
    // A row removed and a new one inserted under its id, where it was: that row's store follows it.
    let step = tree.step { store.send(.removeAndReinsert(2)) }
    #expect(step.runs.sorted() == ["PlainRow[2]", "Row[2]"])
    #expect((tree.output(of: "Row[2]"), tree.output(of: "PlainRow[2]")) == ("50", "50"))
  }

  @Test("the whole state replaced by one whose rows have the same ids: the rows re-run, the lists do not")
  func stateReplacedWithSameIDs() {
    let (store, _) = makeStore()
    let tree = renderLists(store)
    let step = tree.step { store.send(.replaceState([1, 2, 3], count: 5)) }
    #expect(step.runs.sorted() == ["PlainRow[1]", "PlainRow[2]", "PlainRow[3]", "Row[1]", "Row[2]", "Row[3]"])
    #expect(outputs(tree, "PlainRow", [1, 2, 3]) == ["5", "5", "5"])
    let fewer = tree.step { store.send(.replaceState([1, 2], count: 5)) }.runs
    #expect(fewer.contains("List") && fewer.contains("PlainList"))
    #expect(tree.step { store.send(.row(id: 1, action: .increment)) }.runs == ["Row[1]"])
    #expect(tree.output(of: "Row[1]") == "6")
  }

  @Test("rows rebuilt wholesale examine every cached row store, as documented, whatever the ids")
  func rebuiltExaminesCachedStores() {
    let (store, diagnostics) = makeStore()
    let rows = store.scope(state: \.rows, action: RebuiltListFeature.Action.row).map { $0 }
    store.send(.setRows([1, 2, 3], count: 1))
    // The collection scope and its three cached row stores.
    #expect(diagnostics.storesExaminedInLastCommit == 1 + 3)
    #expect(rows.allSatisfy { $0.isValid })
    #expect(rows.map { $0.count } == [1, 1, 1])
  }

  // MARK: Old snapshots

  @Test("an old snapshot of rows rebuilt with the same ids hands out valid stores that follow the new rows")
  func snapshotAcrossSameIDsRebuild() {
    let (store, _) = makeStore()
    let rows = store.scope(state: \.rows, action: RebuiltListFeature.Action.row)
    let plainRows = store.scope(state: \.plainRows, action: RebuiltListFeature.Action.plainRow)
    let cached = rows[0]
    store.send(.setRows([1, 2, 3], count: 4))
    // A row store made before and after the rebuild, and one made from the old snapshot only now.
    #expect(rows[0] === cached && cached.isValid && cached.count == 4)
    #expect(rows[2].isValid && rows[2].count == 4)
    #expect(plainRows[1].isValid && plainRows[1].count == 4)
  }

  @Test("plain rows: an old snapshot position whose row went in a wholesale assignment and came back is invalid")
  func plainSnapshotAfterWholesaleRemoval() {
    let (store, diagnostics) = makeStore()
    let snapshot = store.scope(state: \.plainRows, action: RebuiltListFeature.Action.plainRow)
    store.send(.plainRow(id: 2, action: .increment))
    store.send(.setRows([1, 3], count: 0))
    store.send(.add(2))  // a new row 2, count 0
    let old = snapshot[1]
    #expect(!old.isValid)
    #expect(old.state == RebuiltListFeature.PlainRow(id: 2, count: 0))  // the row as the snapshot has it
    old.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(store.plainRows[id: 2]?.count == 0)
    // The snapshot's other rows were replaced by new values with the same ids: still the rows.
    #expect(snapshot[0].isValid && snapshot[2].isValid)
    #expect(snapshot[0] === store.scope(state: \.plainRows, action: RebuiltListFeature.Action.plainRow)[0])
    // Observable rows, the same way.
    let observable = store.scope(state: \.rows, action: RebuiltListFeature.Action.row)
    store.send(.setRows([1, 3], count: 0))
    store.send(.add(2))
    #expect(!observable[2].isValid && observable[0].isValid)
  }

  @Test(
    "plain rows: an old snapshot older than the removal log's window is conservative: every position is invalid")
  func plainSnapshotOlderThanTheLog() {
    let (store, diagnostics) = makeStore()
    let snapshot = store.scope(state: \.plainRows, action: RebuiltListFeature.Action.plainRow)
    store.send(.remove(2))
    store.send(.add(2))  // a new row 2
    // More commits that remove rows than the log keeps (64).
    for id in 100..<165 {
      store.send(.add(id))
      store.send(.remove(id))
    }
    let old = snapshot[1]
    #expect(!old.isValid)
    #expect(old.state.id == 2)
    old.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    // Row 1 stayed, but nothing can tell a plain row from a new value any more: invalid too.
    #expect(!snapshot[0].isValid)
    // A new snapshot hands out valid stores.
    let current = store.scope(state: \.plainRows, action: RebuiltListFeature.Action.plainRow)
    #expect(current[0].isValid && current[1].isValid)
    #expect(current[1] !== old)
  }

  @Test("observable rows: an old snapshot older than the removal log's window tells rows apart by instance")
  func observableSnapshotOlderThanTheLog() {
    let (store, _) = makeStore()
    let snapshot = store.scope(state: \.rows, action: RebuiltListFeature.Action.row)
    store.send(.remove(2))
    store.send(.add(2))
    for id in 100..<165 {
      store.send(.add(id))
      store.send(.remove(id))
    }
    #expect(!snapshot[1].isValid)
    #expect(snapshot[0].isValid)
  }

  @Test("an old snapshot answers a removed row's position with the store it handed out, showing what it showed last")
  func snapshotHandsOutTheRemovedRowsStore() {
    let (store, diagnostics) = makeStore()
    let snapshot = store.scope(state: \.rows, action: RebuiltListFeature.Action.row)
    let handed = snapshot[1]
    store.send(.row(id: 2, action: .increment))
    #expect(handed.count == 1)
    store.send(.remove(2))
    #expect(!handed.isValid)
    #expect(snapshot[1] === handed)
    #expect(snapshot[1].count == 1)  // not the snapshot's older copy (0)
    // The id comes back: the snapshot's position is still the removed row.
    store.send(.add(2))
    #expect(snapshot[1] === handed && !handed.isValid)
    handed.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(store.rows[id: 2]?.count == 0)
    // A new collection hands out the new row's store.
    let current = store.scope(state: \.rows, action: RebuiltListFeature.Action.row)
    #expect(current[2] !== handed && current[2].isValid)
    // The new row removed too: each snapshot gets the store of the row it showed.
    let second = current[2]
    store.send(.row(id: 2, action: .increment))
    #expect(second.count == 1)
    store.send(.remove(2))
    #expect(snapshot[1] === handed)
    #expect(current[2] === second && !second.isValid)
  }

  @Test("a removed row's store nobody holds any more: an old snapshot shows the row as it saw it")
  func snapshotAfterTheRemovedStoreWentAway() {
    let (store, _) = makeStore()
    let snapshot = store.scope(state: \.rows, action: RebuiltListFeature.Action.row)
    do {
      let handed = snapshot[1]
      store.send(.row(id: 2, action: .increment))
      #expect(handed.count == 1)
    }
    store.send(.remove(2))
    let old = snapshot[1]
    #expect(!old.isValid)
    #expect(old.count == 0)
  }
}
