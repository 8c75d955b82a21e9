import Observant
import ObservantHarness
import ObservantStore
import Testing

// Harness tests that need stores (the harness test target has no ObservantStore dependency):
// written from the documentation only.

enum HHFeed {
  // swift-format-ignore
  struct Item: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _count = StateField(0)
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
    init(id: Int, count: Int = 0) {
      self.id = id
      _count = StateField(count)
    }
  }

  enum ItemAction: Sendable { case bump }

  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows: StateField<IdentifiedArrayOf<Item>>
    var rows: IdentifiedArrayOf<Item> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _parked = StateField<[Int: Item]>([:])
    var parked: [Int: Item] {
      get { registrar.read(_parked) } set { registrar.write(&_parked, newValue) }
      _modify { yield &self[tracking: \._parked] }
    }
    private var _saved = StateField<IdentifiedArrayOf<Item>>([])
    var saved: IdentifiedArrayOf<Item> {
      get { registrar.read(_saved) } set { registrar.write(&_saved, newValue) }
      _modify { yield &self[tracking: \._saved] }
    }
    init(ids: ClosedRange<Int>) { _rows = StateField(IdentifiedArrayOf(uniqueElements: ids.map { Item(id: $0) })) }
  }

  enum Action: Sendable {
    case item(id: Int, action: ItemAction)
    case park(id: Int)
    case bumpParked(id: Int)
    case unpark(id: Int)
    case parkAndBack(id: Int)
    case snapshot
    case restore
    case replaceNew(id: Int)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .item(let id, .bump): state.rows[id: id]?.count += 1
    case .park(let id): state.parked[id] = state.rows.remove(id: id)
    case .bumpParked(let id): state.parked[id]?.count += 1
    case .unpark(let id):
      if let item = state.parked.removeValue(forKey: id) { state.rows.append(item) }
    case .parkAndBack(let id):
      if var item = state.rows.remove(id: id) {
        item.count += 10
        state.rows.append(item)
      }
    case .snapshot: state.saved = state.rows
    case .restore: state.rows = state.saved
    case .replaceNew(let id): state.rows[id: id] = Item(id: id, count: state.rows[id: id]?.count ?? 0)
    }
    return .none
  }
}

@MainActor
@Suite("HH harness with stores")
struct HHStoreHarnessTests {
  private func makeTree(_ store: Store<HHFeed.State, HHFeed.Action>) -> RenderTree {
    RenderTree("Feed") { feed in
      let rows = store.scope(state: \.rows, action: HHFeed.Action.item)
      feed.forEach(rows, name: { "Item[\($0.id)]" }) { item, row in
        row.text("\(item.id): \(item.count)")
      }
    }
  }

  @Test("a row parked in a dictionary and coming back: a new node showing its current count")
  func parkedRow() {
    let store = Store(initialState: HHFeed.State(ids: 1...3), reducer: HHFeed.reduce)
    let tree = makeTree(store)
    tree.step { store.send(.item(id: 2, action: .bump)) }
    #expect(tree.step("park") { store.send(.park(id: 2)) }.runs == ["Feed"])
    #expect(tree.liveNodeNames == ["Feed", "Item[1]", "Item[3]"])
    #expect(tree.step("bump parked") { store.send(.bumpParked(id: 2)) }.runs == [])
    let back = tree.step("unpark") { store.send(.unpark(id: 2)) }
    #expect(back.runs == ["Feed", "Item[2]"])
    #expect(tree.output(of: "Item[2]") == "2: 2")
    #expect(tree.step { store.send(.item(id: 2, action: .bump)) }.runs == ["Item[2]"])
    #expect(tree.output(of: "Item[2]") == "2: 3")
  }

  @Test("a row removed and appended back, edited, within one action: its node shows the edit")
  func parkAndBackInOneAction() {
    let store = Store(initialState: HHFeed.State(ids: 1...3), reducer: HHFeed.reduce)
    let tree = makeTree(store)
    let step = tree.step { store.send(.parkAndBack(id: 1)) }
    #expect(step.count(of: "Item[1]") == 1)
    #expect(step.count(of: "Item[2]") == 0)
    #expect(tree.output(of: "Item[1]") == "1: 10")
    #expect(tree.liveNodeNames == ["Feed", "Item[2]", "Item[3]", "Item[1]"])
    #expect(tree.step { store.send(.item(id: 1, action: .bump)) }.runs == ["Item[1]"])
    #expect(tree.output(of: "Item[1]") == "1: 11")
  }

  @Test("undo through the store: restored rows show their restored values, exactly once")
  func undo() {
    let store = Store(initialState: HHFeed.State(ids: 1...3), reducer: HHFeed.reduce)
    let tree = makeTree(store)
    store.send(.snapshot)
    tree.step { store.send(.item(id: 3, action: .bump)) }
    tree.step { store.send(.park(id: 1)) }
    let undo = tree.step("undo") { store.send(.restore) }
    #expect(undo.count(of: "Item[3]") == 1)
    #expect(undo.count(of: "Item[2]") == 0)
    #expect(undo.count(of: "Item[1]") == 1)
    #expect(tree.output(of: "Item[3]") == "3: 0")
    #expect(tree.output(of: "Item[1]") == "1: 0")
    #expect(tree.step { store.send(.item(id: 3, action: .bump)) }.runs == ["Item[3]"])
    #expect(tree.output(of: "Item[3]") == "3: 1")
  }

  @Test("a row replaced by a new value with the same id re-runs its node once, which follows the new row")
  func replacedRow() {
    let store = Store(initialState: HHFeed.State(ids: 1...3), reducer: HHFeed.reduce)
    let tree = makeTree(store)
    let step = tree.step { store.send(.replaceNew(id: 2)) }
    #expect(step.count(of: "Item[2]") == 1)
    #expect(step.count(of: "Item[1]") == 0)
    #expect(tree.step { store.send(.item(id: 2, action: .bump)) }.runs == ["Item[2]"])
    #expect(tree.output(of: "Item[2]") == "2: 1")
  }

  @Test("cells bound to row stores: a parked row's cell stays as it was, a new binding shows the row again")
  func parkedRowCells() {
    let store = Store(initialState: HHFeed.State(ids: 1...3), reducer: HHFeed.reduce)
    let pool = CellPool("Cell")
    let rows = store.scope(state: \.rows, action: HHFeed.Action.item)
    let cells = rows.map { item in pool.dequeue(for: item.id) { "\(item.id): \(item.count)" } }
    store.send(.item(id: 2, action: .bump))
    store.send(.park(id: 2))
    store.send(.bumpParked(id: 2))
    rows[1].send(.bump)  // a late tap on the parked row's cell: dropped
    store.send(.unpark(id: 2))
    store.send(.item(id: 2, action: .bump))
    #expect(cells[1].history == ["2: 0", "2: 1"])
    pool.enqueue(cells[1])
    let fresh = store.scope(state: \.rows, action: HHFeed.Action.item).store(id: 2)!
    let reused = pool.dequeue(for: 2) { "\(fresh.id): \(fresh.count)" }
    #expect(reused === cells[1])
    #expect(reused.content == "2: 3")
    store.send(.item(id: 2, action: .bump))
    #expect(reused.content == "2: 4")
    #expect(cells.map(\.renderCount) == [1, 4, 1])
  }
}
