import Observant
import ObservantStore
import Testing

// A scoped store reads its state from its parent's after every action: a row store takes its row
// from the array where it is (looked for first where it was found last), and a scope of the root
// reads from the root's state in place. Whatever the rows did in between (moved, removed around
// it, replaced), a store shows its own row, or once its row is gone, the last state it read.

/// A list kept in a child of the root: its row stores navigate through a scope that is not the
/// root.
enum NestedListFeature {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _list = StateField(ListFeature.State())
    var list: ListFeature.State {
      get { registrar.read(_list) } set { registrar.write(&_list, newValue) }
      _modify { yield &self[tracking: \._list] }
    }
    init(rows: some Sequence<Int>) { _list = StateField(ListFeature.State(rows: rows)) }
  }

  enum Action: Equatable, Sendable {
    case list(ListFeature.Action)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .list(let action): return ListFeature.reduce(&state.list, action).map(Action.list)
    }
  }
}

@MainActor
@Suite("Store navigation: scoped stores read their own state from where it is")
struct StoreNavigationTests {
  /// Checks that every row store whose row is in `rows` shows that row.
  private func checkRows(
    _ stores: [Int: Store<RowFeature.State, RowFeature.Action>], in rows: IdentifiedArrayOf<RowFeature.State>,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for (id, store) in stores.sorted(by: { $0.key < $1.key }) {
      guard let row = rows[id: id] else { continue }
      #expect(store.isValid, "row \(id)", sourceLocation: sourceLocation)
      #expect(store.id == id, sourceLocation: sourceLocation)
      #expect(store.count == row.count, "row \(id)", sourceLocation: sourceLocation)
      #expect(store.state.id == id, sourceLocation: sourceLocation)
    }
  }

  @Test("row stores under the root show their own row after moves, removals around them and replacements")
  func rowsUnderTheRoot() throws {
    let store = Store(initialState: ListFeature.State(rows: [1, 2, 3, 4]), reducer: ListFeature.reduce)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    var stores: [Int: Store<RowFeature.State, RowFeature.Action>] = [:]
    for id in [1, 2, 3, 4] {
      let row = try #require(rows.store(id: id))
      stores[id] = row
    }
    checkRows(stores, in: store.rows)

    let script: [ListFeature.Action] = [
      .row(id: 3, action: .increment), .move(from: 2, to: 0), .row(id: 3, action: .increment),
      .row(id: 1, action: .increment), .remove(1), .add(5), .move(from: 0, to: 3), .replace(4),
      .row(id: 3, action: .increment), .move(from: 3, to: 0),
    ]
    for action in script {
      store.send(action)
      checkRows(stores, in: store.rows)
    }
    #expect(stores[3]?.count == 3)
    #expect(stores[4]?.count == 100)
    // The removed row's store is invalid and shows the last state it read.
    #expect(stores[1]?.isValid == false)
    #expect(stores[1]?.count == 1)

    store.send(.remove(3))
    #expect(stores[3]?.isValid == false)
    #expect(stores[3]?.count == 3)
    checkRows(stores, in: store.rows)
    #expect(store.rows.ids.elementsEqual([2, 4, 5]))
  }

  @Test("row stores below a child of the root, and the child's store, show the current state")
  func rowsBelowAChild() throws {
    let store = Store(initialState: NestedListFeature.State(rows: [1, 2, 3]), reducer: NestedListFeature.reduce)
    let list = store.scope(state: \.list, action: NestedListFeature.Action.list)
    let rows = list.scope(state: \.rows, action: ListFeature.Action.row)
    var stores: [Int: Store<RowFeature.State, RowFeature.Action>] = [:]
    for id in [1, 2, 3] {
      let row = try #require(rows.store(id: id))
      stores[id] = row
    }

    let script: [ListFeature.Action] = [
      .row(id: 2, action: .increment), .move(from: 1, to: 2), .row(id: 2, action: .increment), .remove(1),
      .add(7), .move(from: 2, to: 0), .replace(3), .row(id: 2, action: .increment),
    ]
    for action in script {
      list.send(action)
      // The child store of the root reads the list where it is in the root's state.
      #expect(list.rows.ids.elementsEqual(store.list.rows.ids))
      #expect(list.rows.map(\.count) == store.list.rows.map(\.count))
      checkRows(stores, in: store.list.rows)
    }
    #expect(stores[2]?.count == 3)
    #expect(stores[3]?.count == 100)
    #expect(stores[1]?.isValid == false)
    #expect(store.list.rows.ids.elementsEqual([7, 3, 2]))
  }

  @Test("a store below a row (the row's optional child) shows the child of its own row after the rows move")
  func childOfARowAfterMoves() throws {
    let store = Store(initialState: ListFeature.State(rows: [1, 2, 3]), reducer: ListFeature.reduce)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    store.send(.row(id: 2, action: .showChild))
    let row = try #require(rows.store(id: 2))
    let child = try #require(row.scope(state: \.child, action: RowFeature.Action.child))
    child.send(.increment)
    #expect(child.count == 1)
    store.send(.move(from: 1, to: 0))
    store.send(.row(id: 1, action: .showChild))
    child.send(.increment)
    #expect(child.count == 2)
    #expect(store.rows[id: 2]?.child?.count == 2)
    #expect(store.rows[id: 1]?.child?.count == 0)
    store.send(.move(from: 0, to: 2))
    child.send(.increment)
    #expect(child.count == 3)
    #expect(child.isValid)
  }

  @Test("a reader of a row store re-runs once per change of its row, and not for moves")
  func readerOfAMovedRow() throws {
    let store = Store(initialState: ListFeature.State(rows: [1, 2, 3]), reducer: ListFeature.reduce)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let row = try #require(rows.store(id: 3))
    var seen: [Int] = []
    let reaction = Reaction { seen.append(row.count) }
    defer { reaction.cancel() }
    #expect(seen == [0])
    store.send(.move(from: 2, to: 0))
    store.send(.row(id: 1, action: .increment))
    #expect(seen == [0])
    store.send(.row(id: 3, action: .increment))
    store.send(.move(from: 0, to: 1))
    store.send(.row(id: 3, action: .increment))
    #expect(seen == [0, 1, 2])
  }
}

/// Dismisses and presents again a child in one action.
private enum RepresentAction: Equatable, Sendable {
  case present(count: Int)
  case dismissAndPresent(count: Int)
  case child(CounterFeature.Action)
}

private func reduceRepresent(_ state: inout RowFeature.State, _ action: RepresentAction) -> Effect<RepresentAction> {
  switch action {
  case .present(let count): state.child = CounterFeature.State(count: count)
  case .dismissAndPresent(let count):
    state.child = nil
    state.child = CounterFeature.State(count: count)
  case .child(let action):
    guard state.child != nil else { return .none }
    return CounterFeature.reduce(&state.child!, action).map(RepresentAction.child)
  }
  return .none
}

@MainActor
@Suite("Store navigation: an optional child dismissed and presented again before a commit")
struct RepresentedChildTests {
  @Test("the store stays valid, shows the new child, and its readers hear it replaced")
  func represented() throws {
    let store = Store(initialState: RowFeature.State(id: 1), reducer: reduceRepresent)
    store.send(.present(count: 1))
    let child = try #require(store.scope(state: \.child, action: RepresentAction.child))
    var shown: [Int] = []
    let reader = Reaction { shown.append(child.count) }
    defer { reader.cancel() }
    store.send(.dismissAndPresent(count: 5))
    #expect(child.isValid)
    #expect(child.count == 5)
    #expect(shown == [1, 5])
    child.send(.increment)
    #expect(shown == [1, 5, 6])
  }
}
