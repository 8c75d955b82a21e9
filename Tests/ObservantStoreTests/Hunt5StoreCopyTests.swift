import Observant
import ObservantStore
import Testing

// Hunt 5: copies of value-type state inside and between stores (drafts saved later, undo snapshots
// restored by `state = saved` and `state.rows = snapshot.rows`, copy-mutate-assign of children and
// rows, a value moved between two stores, one value in two places, enum payloads). After every
// step, every reader must show the current state, and re-run exactly as the docs promise.
// Written against the documentation only (README "Identity rules", IdentityRules.md,
// StoreAndStaleStores.md).

// swift-format-ignore
struct H5Leaf: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _value = StateField(0)
  var value: Int { get { registrar.read(_value) } set { registrar.write(&_value, newValue) } }
  init(value: Int = 0) { _value = StateField(value) }
}

// swift-format-ignore
struct H5Row: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
  private var _leaf = StateField(H5Leaf())
  var leaf: H5Leaf {
    get { registrar.read(_leaf) } set { registrar.write(&_leaf, newValue) }
    _modify { yield &self[tracking: \._leaf] }
  }
  init(id: Int, count: Int = 0, title: String = "") {
    self.id = id
    _count = StateField(count)
    _title = StateField(title)
  }
}

enum H5Mode: IdentityComparable {
  case idle
  case editing(H5Row)
  case viewing(H5Row)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.idle, .idle): true
    case let (.editing(l), .editing(r)): Observant.isIdentityEqual(l, r)
    case let (.viewing(l), .viewing(r)): Observant.isIdentityEqual(l, r)
    default: false
    }
  }

  var editing: H5Row? {
    if case .editing(let row) = self { row } else { nil }
  }
}

// swift-format-ignore
struct H5Root: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField<IdentifiedArrayOf<H5Row>>([])
  var rows: IdentifiedArrayOf<H5Row> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _child = StateField(H5Row(id: 100))
  var child: H5Row {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }
  private var _sibling = StateField(H5Row(id: 101))
  var sibling: H5Row {
    get { registrar.read(_sibling) } set { registrar.write(&_sibling, newValue) }
    _modify { yield &self[tracking: \._sibling] }
  }
  private var _optional = StateField<H5Row?>(nil)
  var optional: H5Row? {
    get { registrar.read(_optional) } set { registrar.write(&_optional, newValue) }
    _modify { yield &self[tracking: \._optional] }
  }
  private var _mode = StateField<H5Mode?>(nil)
  var mode: H5Mode? {
    get { registrar.read(_mode) } set { registrar.write(&_mode, newValue) }
    _modify { yield &self[tracking: \._mode] }
  }
  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
  init(rows: [H5Row] = []) { _rows = StateField(IdentifiedArray(uniqueElements: rows)) }
}

/// An action that runs a closure on the state: a reducer written inline in the test.
struct H5Edit<S> {
  let body: (inout S) -> Void
  init(_ body: @escaping (inout S) -> Void) { self.body = body }
}

enum H5Action {
  case edit(H5Edit<H5Root>)
  case row(Int, H5Edit<H5Row>)
  case child(H5Edit<H5Row>)
  case sibling(H5Edit<H5Row>)
  case optional(H5Edit<H5Row>)
  case editing(H5Edit<H5Row>)
  case leaf(H5Edit<H5Leaf>)

  static func reduce(_ state: inout H5Root, _ action: H5Action) -> Effect<H5Action> {
    switch action {
    case .edit(let edit): edit.body(&state)
    case .row(let id, let edit):
      if state.rows[id: id] != nil { edit.body(&state.rows[id: id]!) }
    case .child(let edit): edit.body(&state.child)
    case .sibling(let edit): edit.body(&state.sibling)
    case .optional(let edit):
      if state.optional != nil { edit.body(&state.optional!) }
    case .editing(let edit):
      guard case .editing(var draft) = state.mode else { return .none }
      edit.body(&draft)
      state.mode = .editing(draft)
    case .leaf(let edit): edit.body(&state.child.leaf)
    }
    return .none
  }
}

typealias H5Store = Store<H5Root, H5Action>

extension H5Store {
  @MainActor func run(_ body: @escaping (inout H5Root) -> Void) { send(.edit(H5Edit(body))) }
}

/// A reader: a reaction that shows a string computed through stores, and the truth it must match.
@MainActor
final class H5Probe {
  let name: String
  private(set) var shown = ""
  var reaction: Reaction!
  let truth: () -> String
  init(_ name: String, show: @escaping () -> String, truth: @escaping () -> String) {
    self.name = name
    self.truth = truth
    reaction = Reaction(name, ownedByParent: false) { [unowned self] in shown = show() }
  }
  var runs: Int { reaction.runCount }
}

@MainActor
final class H5Screen {
  let store: H5Store
  var probes: [H5Probe] = []
  private var baseline: [String: Int] = [:]

  init(_ store: H5Store) { self.store = store }

  @discardableResult
  func probe(_ name: String, show: @escaping () -> String, truth: @escaping () -> String) -> H5Probe {
    let p = H5Probe(name, show: show, truth: truth)
    probes.append(p)
    baseline[name] = p.runs
    return p
  }

  /// Runs `step`, then checks every probe against its truth and returns the re-runs of each.
  func step(
    _ label: String, sourceLocation: SourceLocation = #_sourceLocation, _ step: () -> Void
  ) -> [String: Int] {
    step()
    var deltas: [String: Int] = [:]
    for p in probes {
      let truth = withoutTracking { p.truth() }
      #expect(
        p.shown == truth, "\(label): \(p.name) shows \(p.shown), state holds \(truth)", sourceLocation: sourceLocation)
      let d = p.runs - (baseline[p.name] ?? 0)
      if d != 0 { deltas[p.name] = d }
      baseline[p.name] = p.runs
    }
    return deltas
  }

  func cancel() {
    for p in probes { p.reaction.cancel() }
  }
}

@MainActor
func h5Store(_ rows: [H5Row] = [H5Row(id: 1, count: 1, title: "a"), H5Row(id: 2, count: 2, title: "b")]) -> H5Store {
  Store(initialState: H5Root(rows: rows), reducer: H5Action.reduce, diagnostics: StoreDiagnostics(printing: false))
}

@MainActor
func h5RowStores(_ store: H5Store) -> StoreCollection<Int, H5Row, H5Edit<H5Row>> {
  store.scope(state: \.rows, action: { id, edit in H5Action.row(id, edit) })
}

@MainActor
@Suite("Hunt 5: copies of store state")
struct Hunt5StoreCopyTests {
  /// A screen with a list, one reader per row (through its row store), and the child's readers.
  func screen(_ store: H5Store) -> H5Screen {
    let s = H5Screen(store)
    s.probe("list", show: { h5RowStores(store).ids.map(String.init).joined(separator: ",") }) {
      store.state.rows.ids.map(String.init).joined(separator: ",")
    }
    for id in store.state.rows.ids {
      let row = h5RowStores(store).store(id: id)!
      s.probe("row\(id).count", show: { "\(row.count)" }) {
        row.isValid ? "\(store.state.rows[id: id]!.count)" : "\(row.state.count)"
      }
      s.probe("row\(id).title", show: { row.title }) {
        row.isValid ? store.state.rows[id: id]!.title : row.state.title
      }
    }
    let child = store.scope(state: \.child, action: H5Action.child)
    s.probe("child.count", show: { "\(child.count)" }) { "\(store.state.child.count)" }
    s.probe("child.leaf", show: { "\(child.leaf.value)" }) { "\(store.state.child.leaf.value)" }
    let sibling = store.scope(state: \.sibling, action: H5Action.sibling)
    s.probe("sibling.count", show: { "\(sibling.count)" }) { "\(store.state.sibling.count)" }
    s.probe("root.rows[1].count", show: { "\(store.rows[id: 1]?.count ?? -1)" }) {
      "\(store.state.rows[id: 1]?.count ?? -1)"
    }
    return s
  }

  @Test("undo in the reducer: state = saved restores rows, fields and children; each changed reader once")
  func undoWholeState() {
    let store = h5Store()
    let s = screen(store)
    nonisolated(unsafe) var saved: H5Root?
    store.run { saved = $0 }
    #expect(s.step("nothing") {}.isEmpty)
    #expect(
      s.step("edit row 1") { store.send(.row(1, H5Edit { $0.count = 10 })) } == [
        "row1.count": 1, "root.rows[1].count": 1,
      ])
    #expect(s.step("edit child") { store.send(.child(H5Edit { $0.count = 5 })) } == ["child.count": 1])
    #expect(s.step("edit leaf") { store.send(.leaf(H5Edit { $0.value = 9 })) } == ["child.leaf": 1])
    // "root.rows[1].count" read `store.rows`, the slot: structural changes re-run it.
    #expect(
      s.step("add row 3") { store.run { $0.rows.append(H5Row(id: 3)) } } == ["list": 1, "root.rows[1].count": 1])
    #expect(
      s.step("undo") { store.run { $0 = saved! } } == [
        "list": 1, "row1.count": 1, "root.rows[1].count": 1, "child.count": 1, "child.leaf": 1,
      ])
    #expect(store.state.rows[id: 1]?.count == 1)
    #expect(s.step("undo again: nothing differs") { store.run { $0 = saved! } }.isEmpty)
    s.cancel()
  }

  @Test("undo of the rows only: state.rows = snapshot.rows after an edit, a removal and an append")
  func undoRows() {
    let store = h5Store([H5Row(id: 1, count: 1), H5Row(id: 2, count: 2), H5Row(id: 3, count: 3)])
    let s = screen(store)
    nonisolated(unsafe) var snapshot: H5Root?
    store.run { snapshot = $0 }
    #expect(s.step("edit 2") { store.send(.row(2, H5Edit { $0.count = 20 })) } == ["row2.count": 1])
    #expect(s.step("remove 3") { store.run { $0.rows.remove(id: 3) } } == ["list": 1, "root.rows[1].count": 1])
    #expect(
      s.step("append 4") { store.run { $0.rows.append(H5Row(id: 4)) } } == ["list": 1, "root.rows[1].count": 1])
    #expect(
      s.step("restore rows") { store.run { $0.rows = snapshot!.rows } } == [
        "list": 1, "row2.count": 1, "root.rows[1].count": 1,
      ])
    // Row 3 came back: its old store is invalid (it was removed); a new store for id 3 shows it.
    let row3 = h5RowStores(store).store(id: 3)!
    #expect(row3.isValid)
    #expect(row3.count == 3)
    s.cancel()
  }

  @Test("copy-mutate-assign of a row inside the reducer: only that row's changed field's readers, once")
  func copyMutateAssignRow() {
    let store = h5Store()
    let s = screen(store)
    #expect(
      s.step("copy-mutate-assign") {
        store.run { state in
          var row = state.rows[id: 2]!
          row.title = "B"
          row.count += 1
          state.rows[id: 2] = row
        }
      } == ["row2.count": 1, "row2.title": 1])
    #expect(
      s.step("copy assigned back unchanged") {
        store.run { state in
          let row = state.rows[id: 2]!
          state.rows[id: 2] = row
        }
      }.isEmpty)
    #expect(
      s.step("copy-mutate-assign of a nested child") {
        store.run { state in
          var child = state.child
          child.leaf.value = 3
          state.child = child
        }
      } == ["child.leaf": 1])
    s.cancel()
  }

  @Test("a draft edited in an enum payload and saved: the row's readers show the saved value")
  func draftInEnumSaved() {
    let store = h5Store()
    let s = screen(store)
    let modeProbe = s.probe("mode", show: { store.mode?.editing?.title ?? "-" }) {
      store.state.mode?.editing?.title ?? "-"
    }
    _ = modeProbe
    #expect(s.step("edit 1") { store.run { $0.mode = .editing($0.rows[id: 1]!) } } == ["mode": 1])
    let editor = store.scope(state: \.mode?.editing, action: H5Action.editing)!
    let editorProbe = s.probe("editor.title", show: { editor.title }) {
      editor.isValid ? store.state.mode!.editing!.title : editor.state.title
    }
    _ = editorProbe
    let d1 = s.step("rename draft") { editor.send(H5Edit { $0.title = "draft1" }) }
    // The row's title readers run at most once for this copy (the first write of the field).
    #expect((d1["row1.title"] ?? 0) <= 1)
    #expect(d1["editor.title"] == 1)
    let d2 = s.step("rename draft again") { editor.send(H5Edit { $0.title = "draft2" }) }
    #expect(d2["row1.title"] == nil)
    #expect(d2["editor.title"] == 1)
    #expect(d2["row1.count"] == nil)
    let d3 = s.step("save") {
      store.run { state in
        guard case .editing(let draft) = state.mode else { return }
        state.rows[id: draft.id] = draft
        state.mode = nil
      }
    }
    #expect(d3["row1.title"] == 1)
    #expect(d3["row1.count"] == nil)
    #expect(d3["list"] == nil)
    #expect(!editor.isValid)
    #expect(store.state.rows[id: 1]?.title == "draft2")
    s.cancel()
  }

  @Test("one value in two slots: the child assigned to the sibling, then each edited; both sets of readers stay right")
  func sameValueInTwoSlots() {
    let store = h5Store()
    let s = screen(store)
    #expect(s.step("sibling = child") { store.run { $0.sibling = $0.child } } == ["sibling.count": 1])
    let d1 = s.step("child.count = 1") { store.send(.child(H5Edit { $0.count = 1 })) }
    #expect(d1["child.count"] == 1)
    #expect((d1["sibling.count"] ?? 0) <= 1)
    let d2 = s.step("child.count = 2") { store.send(.child(H5Edit { $0.count = 2 })) }
    #expect(d2["child.count"] == 1)
    #expect(d2["sibling.count"] == nil)
    let d3 = s.step("sibling.count = 7") { store.send(.sibling(H5Edit { $0.count = 7 })) }
    #expect(d3["sibling.count"] == 1)
    #expect((d3["child.count"] ?? 0) <= 1)
    let d4 = s.step("sibling.count = 8") { store.send(.sibling(H5Edit { $0.count = 8 })) }
    #expect(d4["sibling.count"] == 1)
    #expect(d4["child.count"] == nil)
    s.cancel()
  }

  @Test("a row moved from one store into another, edited there: the first store's readers are disturbed at most once")
  func valueMovedBetweenStores() {
    let a = h5Store()
    let b = h5Store([])
    let sa = screen(a)
    let row = a.state.rows[id: 1]!
    b.run { $0.rows.append(row) }
    let bRow = h5RowStores(b).store(id: 1)!
    let sb = H5Screen(b)
    sb.probe("b.row1.count", show: { "\(bRow.count)" }) { "\(b.state.rows[id: 1]!.count)" }
    let d1 = sa.step("b edits its copy") { b.send(.row(1, H5Edit { $0.count = 50 })) }
    #expect((d1["row1.count"] ?? 0) <= 1)
    #expect((d1["root.rows[1].count"] ?? 0) <= 1)
    #expect(d1.keys.allSatisfy { ["row1.count", "root.rows[1].count"].contains($0) })
    #expect(sb.step("b") {} == ["b.row1.count": 1])
    let d2 = sa.step("b edits its copy again") { b.send(.row(1, H5Edit { $0.count = 51 })) }
    #expect(d2.isEmpty)
    let d3 = sa.step("a edits its row") { a.send(.row(1, H5Edit { $0.count = 2 })) }
    #expect(d3["row1.count"] == 1)
    let e3 = sb.step("b after a's edit") {}
    #expect(e3.isEmpty || e3 == ["b.row1.count": 1])
    // Moved back: a's row 1 takes b's value.
    let d4 = sa.step("b's row assigned into a") {
      let moved = b.state.rows[id: 1]!
      a.run { $0.rows[id: 1] = moved }
    }
    #expect(d4["row1.count"] == 1)
    #expect(d4["list"] == nil)
    #expect(a.state.rows[id: 1]?.count == 51)
    sa.cancel()
    sb.cancel()
  }

  @Test("undo snapshot of an optional child: dismissed, presented anew, then restored")
  func optionalRestored() {
    let store = h5Store()
    store.run { $0.optional = H5Row(id: 7, count: 7) }
    let s = screen(store)
    let slot = s.probe(
      "optional.slot", show: { store.scope(state: \.optional, action: H5Action.optional) == nil ? "nil" : "some" }
    ) {
      store.state.optional == nil ? "nil" : "some"
    }
    _ = slot
    let opt = store.scope(state: \.optional, action: H5Action.optional)!
    s.probe("optional.count", show: { "\(opt.count)" }) {
      opt.isValid ? "\(store.state.optional!.count)" : "\(opt.state.count)"
    }
    nonisolated(unsafe) var saved: H5Row?
    store.run { saved = $0.optional }
    #expect(s.step("edit") { store.send(.optional(H5Edit { $0.count = 8 })) } == ["optional.count": 1])
    #expect(s.step("dismiss") { store.run { $0.optional = nil } } == ["optional.slot": 1])
    #expect(!opt.isValid)
    #expect(s.step("present new") { store.run { $0.optional = H5Row(id: 7, count: 0) } } == ["optional.slot": 1])
    let opt2 = store.scope(state: \.optional, action: H5Action.optional)!
    s.probe("optional2.count", show: { "\(opt2.count)" }) {
      opt2.isValid ? "\(store.state.optional!.count)" : "\(opt2.state.count)"
    }
    let d = s.step("restore saved") { store.run { $0.optional = saved } }
    #expect(d["optional.slot"] == 1)
    #expect(d["optional.count"] == nil)  // invalid store: its reader never re-runs
    // opt2's store: replaced by another value: it is either invalid (showing its last) or follows.
    #expect(store.state.optional?.count == 7)
    s.cancel()
  }
}
