// swift-format-ignore-file
import Observant
import ObservantStore
import ObservantTestSupport
import Testing

// Stores scoped from a row store (or a child store) to the row's nested state read only the
// nested state's fields. The reducer replaces the outer value (through inout, from a whole-state
// snapshot, by a new value of its id, by an older copy), at one, two and three levels, in one send
// or several. Written against the documentation only.

enum NHS {
  // The rows of the other store hunts.
  typealias Inner = HuntStore.Inner
  typealias Row = HuntStore.Row

  struct Group: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _rows = StateField<IdentifiedArrayOf<Row>>([Row(id: 1), Row(id: 2)])
    var rows: IdentifiedArrayOf<Row> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _lead = StateField(Row(id: 9))
    var lead: Row {
      get { registrar.read(_lead) } set { registrar.write(&_lead, newValue) }
      _modify { yield &self[tracking: \._lead] }
    }
    init(id: Int) { self.id = id }
    mutating func restore(_ saved: Group) { self = saved }
  }

  enum Dest: IdentityComparable {
    case editor(Row)
    case other(Row)
    static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
      switch (lhs, rhs) {
      case let (.editor(l), .editor(r)): Observant.isIdentityEqual(l, r)
      case let (.other(l), .other(r)): Observant.isIdentityEqual(l, r)
      default: false
      }
    }
    var editor: Row? { if case .editor(let r) = self { r } else { nil } }
  }

  /// Not IdentityComparable: every write to it notifies.
  enum PlainDest {
    case editor(Row)
    case other(Row)
    var editor: Row? { if case .editor(let r) = self { r } else { nil } }
  }

  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _plainDest = StateField<PlainDest?>(.editor(Row(id: 1)))
    var plainDest: PlainDest? {
      get { registrar.read(_plainDest) } set { registrar.write(&_plainDest, newValue) }
    }
    private var _rows = StateField<IdentifiedArrayOf<Row>>([Row(id: 1), Row(id: 2)])
    var rows: IdentifiedArrayOf<Row> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _groups = StateField<IdentifiedArrayOf<Group>>([Group(id: 1), Group(id: 2)])
    var groups: IdentifiedArrayOf<Group> {
      get { registrar.read(_groups) } set { registrar.write(&_groups, newValue) }
      _modify { yield &self[tracking: \._groups] }
    }
    private var _child = StateField(Row(id: 1))
    var child: Row {
      get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
      _modify { yield &self[tracking: \._child] }
    }
    private var _maybe = StateField<Row?>(Row(id: 1))
    var maybe: Row? {
      get { registrar.read(_maybe) } set { registrar.write(&_maybe, newValue) }
      _modify { yield &self[tracking: \._maybe] }
    }
    private var _dest = StateField<Dest?>(.editor(Row(id: 1)))
    var dest: Dest? {
      get { registrar.read(_dest) } set { registrar.write(&_dest, newValue) }
    }
    init() {}
    mutating func restore(_ saved: State) { self = saved }
  }

  enum RowAction {
    case setX(Int)
    case setZ(Int)
  }

  enum GroupAction {
    case row(id: Int, action: RowAction)
    case lead(RowAction)
  }

  struct Block { let f: (inout State) -> Void }

  enum Action {
    case apply(Block)
    /// Several blocks, each sent by a `.send` effect: one send, one transaction.
    case batch([Block])
    case row(id: Int, action: RowAction)
    case group(id: Int, action: GroupAction)
    case child(RowAction)
    case maybe(RowAction)
    case editor(RowAction)
    case plainEditor(RowAction)
  }

  static func reduceRow(_ row: inout Row, _ action: RowAction) {
    switch action {
    case .setX(let v): row.x = v
    case .setZ(let v): row.inner.z = v
    }
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .apply(let block): block.f(&state)
    case .batch(let blocks): return .merge(blocks.map { .send(.apply($0)) })
    case .row(let id, let a): if state.rows[id: id] != nil { reduceRow(&state.rows[id: id]!, a) }
    case .group(let gid, .row(let id, let a)):
      if state.groups[id: gid]?.rows[id: id] != nil { reduceRow(&state.groups[id: gid]!.rows[id: id]!, a) }
    case .group(let gid, .lead(let a)):
      if state.groups[id: gid] != nil { reduceRow(&state.groups[id: gid]!.lead, a) }
    case .child(let a): reduceRow(&state.child, a)
    case .maybe(let a): if state.maybe != nil { reduceRow(&state.maybe!, a) }
    case .plainEditor(let a):
      if case .editor(var d) = state.plainDest {
        reduceRow(&d, a)
        state.plainDest = .editor(d)
      }
    case .editor(let a):
      if case .editor(var d) = state.dest {
        reduceRow(&d, a)
        state.dest = .editor(d)
      }
    }
    return .none
  }
}

extension IdentifiedArray {
  mutating func nhsRestore(_ saved: Self) { self = saved }
}

/// A store reader that keeps what it showed (see `HuntStoreReader`).
typealias NHSReader = HuntStoreReader

@MainActor
@Suite("Nested hunt: stores of a nested state")
struct NestedHuntStoreTests {
  typealias S = Store<NHS.State, NHS.Action>

  private func make() -> (S, StoreDiagnostics) {
    let diagnostics = StoreDiagnostics(printing: false)
    return (Store(initialState: NHS.State(), reducer: NHS.reduce, diagnostics: diagnostics), diagnostics)
  }

  private func apply(_ store: S, _ f: @escaping (inout NHS.State) -> Void) {
    store.send(.apply(NHS.Block(f: f)))
  }

  private func batch(_ store: S, _ fs: [(inout NHS.State) -> Void]) {
    store.send(.batch(fs.map { NHS.Block(f: $0) }))
  }

  private func truth(_ store: S, _ f: @escaping (NHS.State) -> Int?) -> @MainActor () -> Int? {
    { withoutTracking { f(store.state) } }
  }

  /// rows[1]'s cell, its inner store, and a reader of the inner store's `z`.
  private func rowInner(_ store: S) -> (Store<NHS.Row, NHS.RowAction>, Store<NHS.Inner, Int>, NHSReader) {
    let cell = store.scope(state: \.rows, action: NHS.Action.row)[0]
    let inner = cell.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let reader = NHSReader("rows[1] inner store .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.rows[id: 1]?.inner.z } : nil
    })
    return (cell, inner, reader)
  }

  /// groups[1].rows[1]'s inner store (three levels of scopes), and a reader of its `z`.
  private func groupRowInner(_ store: S) -> (Store<NHS.Inner, Int>, NHSReader) {
    let group = store.scope(state: \.groups, action: NHS.Action.group)[0]
    let row = group.scope(state: \.rows, action: NHS.GroupAction.row)[0]
    let inner = row.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let reader = NHSReader("groups[1].rows[1] inner store .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.groups[id: 1]?.rows[id: 1]?.inner.z } : nil
    })
    return (inner, reader)
  }

  private func groupLeadInner(_ store: S) -> (Store<NHS.Inner, Int>, NHSReader) {
    let group = store.scope(state: \.groups, action: NHS.Action.group)[0]
    let lead = group.scope(state: \.lead, action: NHS.GroupAction.lead)
    let inner = lead.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let reader = NHSReader("groups[1].lead inner store .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.groups[id: 1]?.lead.inner.z } : nil
    })
    return (inner, reader)
  }

  // MARK: one level: a row's inner store

  @Test("row inner store: the whole state restored from a snapshot (state = saved)")
  func rowStateSnapshot() {
    let (store, _) = make()
    let saved = store.state
    let (cell, inner, r) = rowInner(store)
    inner.send(2)
    #expect(r.shown == 2)
    apply(store) { $0 = saved }
    #expect(cell.isValid)
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: the whole state replaced through a mutating method (self = saved)")
  func rowStateInout() {
    let (store, _) = make()
    let saved = store.state
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) { $0.restore(saved) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: the row replaced through inout by an older copy")
  func rowInout() {
    let (store, _) = make()
    let saved = store.state.rows[id: 1]!
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) { $0.rows[id: 1]!.restore(saved) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: the rows replaced through inout by an older copy")
  func rowsInout() {
    let (store, _) = make()
    let saved = store.state.rows
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) { $0.rows.nhsRestore(saved) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: the rows swapped with an older copy through inout")
  func rowsSwap() {
    let (store, _) = make()
    let saved = store.state.rows
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) {
      var local = saved
      swap(&$0.rows, &local)
    }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: the row replaced by a new value of its id (its child is replaced by a new value)")
  func rowFresh() {
    let (store, _) = make()
    let (cell, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) { $0.rows[id: 1] = NHS.Row(id: 1, z: 5) }
    #expect(cell.isValid)
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: the row's inner replaced by a new value")
  func innerFresh() {
    let (store, _) = make()
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) { $0.rows[id: 1]!.inner = NHS.Inner(z: 5) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: the row replaced through inout by a new value of its id")
  func rowInoutFresh() {
    let (store, _) = make()
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) { $0.rows[id: 1]!.restore(NHS.Row(id: 1, z: 5)) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: a new value of the row, then the older copy, through inout (one send)")
  func rowInoutFreshThenOlder() {
    let (store, _) = make()
    let saved = store.state.rows[id: 1]!
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) {
      $0.rows[id: 1]!.restore(NHS.Row(id: 1, z: 5))
      $0.rows[id: 1]!.restore(saved)
    }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: replace(with:) an older copy")
  func rowReplaceWith() {
    let (store, _) = make()
    let saved = store.state.rows[id: 1]!
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) { $0.rows[id: 1]!.replace(with: saved) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: removal and an older copy appended, spread over effects of one send")
  func rowBatchRemoveAppend() {
    let (store, _) = make()
    let saved = store.state.rows[id: 1]!
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    batch(store, [{ $0.rows.remove(id: 1) }, { $0.rows.insert(saved, at: 0) }])
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: a snapshot taken, state changed by a new row value, then the snapshot restored in a later send")
  func rowFreshThenSnapshotLater() {
    let (store, _) = make()
    let saved = store.state
    let (cell, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) { $0.rows[id: 1] = NHS.Row(id: 1, z: 5) }
    #expect(r.stale == nil)
    apply(store) { $0 = saved }
    #expect(cell.isValid)
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("row inner store: rows moved into the child and back within one send, older copy last")
  func rowThroughChild() {
    let (store, _) = make()
    let saved = store.state.rows[id: 1]!
    let (_, inner, r) = rowInner(store)
    inner.send(2)
    apply(store) {
      $0.child = $0.rows.remove(id: 1)!
      $0.child.inner.z = 8
      $0.maybe = $0.child
      $0.dest = .other($0.maybe!)
      $0.rows.append(saved)
    }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  // MARK: inline child, optional, enum

  @Test("child inner store: the child replaced through inout by an older copy")
  func childInout() {
    let (store, _) = make()
    let saved = store.state.child
    let child = store.scope(state: \.child, action: NHS.Action.child)
    let inner = child.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let r = NHSReader("child inner .z", read: { inner.z }, truth: truth(store) { $0.child.inner.z })
    inner.send(2)
    apply(store) { $0.child.restore(saved) }
    #expect(r.stale == nil)
    inner.send(3)
    apply(store) { $0.child = NHS.Row(id: 1, z: 6) }
    #expect(r.stale == nil)
    apply(store) { $0.child.restore(saved) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("optional child inner store: nil and back as an older copy within one send")
  func optionalNilThenOlder() {
    let (store, _) = make()
    let saved = store.state.maybe!
    let maybe = store.scope(state: \.maybe, action: NHS.Action.maybe)!
    let inner = maybe.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let r = NHSReader("maybe inner .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.maybe?.inner.z } : nil
    })
    inner.send(2)
    apply(store) {
      $0.maybe = nil
      $0.maybe = saved
    }
    #expect(r.stale == nil)
    apply(store) { $0.maybe!.inner.z = 3 }
    #expect(r.stale == nil)
    apply(store) { $0.maybe = saved }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("enum-case inner store: the payload written back as an older copy")
  func enumOlderPayload() {
    let (store, _) = make()
    let saved = store.state.dest!.editor!
    let editor = store.scope(state: \.dest?.editor, action: NHS.Action.editor)!
    let inner = editor.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let r = NHSReader("editor inner .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.dest?.editor?.inner.z } : nil
    })
    inner.send(2)
    #expect(r.shown == 2)
    apply(store) { $0.dest = .editor(saved) }
    #expect(editor.isValid)
    #expect(r.stale == nil)
    inner.send(4)
    apply(store) {
      $0.dest = .other(saved)
      $0.dest = .editor(saved)
    }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("enum-case store: its own field, the case moved to another case and back as an older copy (one send)")
  func enumStoreOwnField() {
    let (store, _) = make()
    let saved = store.state.dest!.editor!
    let editor = store.scope(state: \.dest?.editor, action: NHS.Action.editor)!
    let r = NHSReader("editor .x", read: { editor.x }, truth: {
      editor.isValid ? withoutTracking { store.state.dest?.editor?.x } : nil
    })
    let n = NHSReader("editor .inner.z", read: { editor.inner.z }, truth: {
      editor.isValid ? withoutTracking { store.state.dest?.editor?.inner.z } : nil
    })
    editor.send(.setX(4))
    editor.send(.setZ(4))
    #expect(r.shown == 4)
    #expect(n.shown == 4)
    apply(store) {
      $0.dest = .other(saved)
      $0.dest = .editor(saved)
    }
    #expect(r.stale == nil)
    #expect(n.stale == nil)
    r.reaction.cancel()
    n.reaction.cancel()
  }

  @Test("enum-case inner store: a new value of the id in the same case, then the older copy (one send)")
  func enumStoreFreshThenOlder() {
    let (store, _) = make()
    let saved = store.state.dest!.editor!
    let editor = store.scope(state: \.dest?.editor, action: NHS.Action.editor)!
    let inner = editor.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let r = NHSReader("editor inner .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.dest?.editor?.inner.z } : nil
    })
    inner.send(4)
    apply(store) {
      $0.dest = .editor(NHS.Row(id: 1, z: 7))
      $0.dest = .editor(saved)
    }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("enum-case inner store: the payload replaced by a new value of its id (child replaced by a new value)")
  func enumStoreFresh() {
    let (store, _) = make()
    let editor = store.scope(state: \.dest?.editor, action: NHS.Action.editor)!
    let inner = editor.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let r = NHSReader("editor inner .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.dest?.editor?.inner.z } : nil
    })
    inner.send(4)
    apply(store) { $0.dest = .editor(NHS.Row(id: 1, z: 7)) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("enum-case inner store: the whole state restored from a snapshot")
  func enumStoreSnapshot() {
    let (store, _) = make()
    let snapshot = store.state
    let editor = store.scope(state: \.dest?.editor, action: NHS.Action.editor)!
    let inner = editor.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let r = NHSReader("editor inner .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.dest?.editor?.inner.z } : nil
    })
    inner.send(4)
    apply(store) { $0 = snapshot }
    #expect(r.stale == nil)
    inner.send(5)
    apply(store) {
      $0.dest = nil
      $0 = snapshot
    }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("enum-case store of an enum that is not IdentityComparable: another case, then the older copy (one send)")
  func plainEnumStoreOtherThenOlder() {
    let (store, _) = make()
    let saved = store.state.plainDest!.editor!
    let editor = store.scope(state: \.plainDest?.editor, action: NHS.Action.plainEditor)!
    let inner = editor.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let r = NHSReader("plain editor .x", read: { editor.x }, truth: {
      editor.isValid ? withoutTracking { store.state.plainDest?.editor?.x } : nil
    })
    let n = NHSReader("plain editor inner .z", read: { inner.z }, truth: {
      inner.isValid ? withoutTracking { store.state.plainDest?.editor?.inner.z } : nil
    })
    editor.send(.setX(4))
    inner.send(4)
    apply(store) {
      $0.plainDest = .other(saved)
      $0.plainDest = .editor(saved)
    }
    #expect(r.stale == nil)
    #expect(n.stale == nil)
    r.reaction.cancel()
    n.reaction.cancel()
  }

  // MARK: three levels

  @Test("three levels: group store -> row store -> inner store, state restored from a snapshot")
  func threeLevelsSnapshot() {
    let (store, _) = make()
    let saved = store.state
    let (inner, r) = groupRowInner(store)
    inner.send(2)
    #expect(r.shown == 2)
    apply(store) { $0 = saved }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("three levels: the group replaced through inout by an older copy")
  func threeLevelsGroupInout() {
    let (store, _) = make()
    let saved = store.state.groups[id: 1]!
    let (inner, r) = groupRowInner(store)
    let (leadInner, l) = groupLeadInner(store)
    inner.send(2)
    leadInner.send(3)
    apply(store) { $0.groups[id: 1]!.restore(saved) }
    #expect(r.stale == nil)
    #expect(l.stale == nil)
    r.reaction.cancel()
    l.reaction.cancel()
  }

  @Test("three levels: the group removed and an older copy appended (one send)")
  func threeLevelsGroupBack() {
    let (store, _) = make()
    let saved = store.state.groups[id: 1]!
    let (inner, r) = groupRowInner(store)
    let (leadInner, l) = groupLeadInner(store)
    inner.send(2)
    leadInner.send(3)
    apply(store) {
      $0.groups.remove(id: 1)
      $0.groups.append(saved)
    }
    #expect(r.stale == nil)
    #expect(l.stale == nil)
    r.reaction.cancel()
    l.reaction.cancel()
  }

  @Test("three levels: the group replaced by a new value of its id, then an older copy (one send)")
  func threeLevelsGroupFreshThenOlder() {
    let (store, _) = make()
    let saved = store.state.groups[id: 1]!
    let (inner, r) = groupRowInner(store)
    let (leadInner, l) = groupLeadInner(store)
    inner.send(2)
    leadInner.send(3)
    apply(store) {
      $0.groups[id: 1] = NHS.Group(id: 1)
      $0.groups[id: 1] = saved
    }
    #expect(r.stale == nil)
    #expect(l.stale == nil)
    r.reaction.cancel()
    l.reaction.cancel()
  }

  @Test("three levels: the group replaced by a new value of its id (row store stays, inner replaced)")
  func threeLevelsGroupFresh() {
    let (store, _) = make()
    let (inner, r) = groupRowInner(store)
    let (leadInner, l) = groupLeadInner(store)
    inner.send(2)
    leadInner.send(3)
    apply(store) { $0.groups[id: 1] = NHS.Group(id: 1) }
    #expect(r.stale == nil)
    #expect(l.stale == nil)
    r.reaction.cancel()
    l.reaction.cancel()
  }

  @Test("three levels: the group's rows replaced through inout by an older copy")
  func threeLevelsRowsInout() {
    let (store, _) = make()
    let saved = store.state.groups[id: 1]!.rows
    let (inner, r) = groupRowInner(store)
    inner.send(2)
    apply(store) { $0.groups[id: 1]!.rows.nhsRestore(saved) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("three levels: the groups swapped through inout with a snapshot, over two sends")
  func threeLevelsGroupsSwap() {
    let (store, _) = make()
    var saved = store.state.groups
    let (inner, r) = groupRowInner(store)
    inner.send(2)
    let before = store.state.groups
    apply(store) { swap(&$0.groups, &saved) }
    #expect(r.stale == nil)
    var again = before
    apply(store) { swap(&$0.groups, &again) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  // MARK: Derived, TrackedValues

  @Test("a Derived value over a row's inner store: state restored from a snapshot")
  func derivedOverInnerStore() {
    let (store, _) = make()
    let saved = store.state
    let (_, inner, _r) = rowInner(store)
    _r.reaction.cancel()
    let derived = Derived("z") { inner.z }
    let r = NHSReader("derived", read: { derived.value }, truth: truth(store) { $0.rows[id: 1]?.inner.z })
    inner.send(2)
    #expect(r.shown == 2)
    apply(store) { $0 = saved }
    #expect(r.stale == nil)
    inner.send(2)
    apply(store) { $0.rows[id: 1]!.restore(saved.rows[id: 1]!) }
    #expect(r.stale == nil)
    r.reaction.cancel()
  }

  @Test("TrackedValues over a three-level inner store: yields the restored value")
  func trackedValuesOverNestedStore() async {
    let (store, _) = make()
    let saved = store.state
    let (inner, r) = groupRowInner(store)
    r.reaction.cancel()
    inner.send(2)
    var values = TrackedValues { inner.z }.makeAsyncIterator()
    #expect(await values.next() == 2)
    apply(store) { $0 = saved }
    #expect(await boundedNext(values) == .returned(0))
  }

  // MARK: set back within one send: re-runs nothing (documented)

  @Test("set back in one send: a row's nested field set and set back")
  func setBackRowNested() {
    let (store, _) = make()
    let (_, _, r) = rowInner(store)
    let (_, g) = groupRowInner(store)
    apply(store) {
      $0.rows[id: 1]!.inner.z = 5
      $0.rows[id: 1]!.inner.z = 0
      $0.groups[id: 1]!.rows[id: 1]!.inner.z = 5
      $0.groups[id: 1]!.rows[id: 1]!.inner.z = 0
    }
    #expect(r.runs == 1)
    #expect(g.runs == 1)
    r.reaction.cancel()
    g.reaction.cancel()
  }

  @Test("set back in one send, spread over effects: a row's nested field set and set back")
  func setBackBatch() {
    let (store, _) = make()
    let (_, _, r) = rowInner(store)
    batch(store, [{ $0.rows[id: 1]!.inner.z = 5 }, { $0.rows[id: 1]!.inner.z = 0 }])
    #expect(r.runs == 1)
    r.reaction.cancel()
  }

  @Test("set back in one send: a row's nested field edited in place, rows = saved")
  func setBackRowsRestored() {
    let (store, _) = make()
    let (_, _, r) = rowInner(store)
    let (_, g) = groupRowInner(store)
    apply(store) {
      let saved = $0.rows
      $0.rows[id: 1]!.inner.z = 5
      $0.rows = saved
      let savedGroups = $0.groups
      $0.groups[id: 1]!.rows[id: 1]!.inner.z = 5
      $0.groups = savedGroups
    }
    #expect(r.runs == 1)
    #expect(g.runs == 1)
    r.reaction.cancel()
    g.reaction.cancel()
  }

  @Test("set back in one send: the child's nested field changed and the state replaced by its snapshot")
  func setBackChildStateRestored() {
    let (store, _) = make()
    let child = store.scope(state: \.child, action: NHS.Action.child)
    let inner = child.scope(state: \.inner, action: { (z: Int) in NHS.RowAction.setZ(z) })
    let r = NHSReader("child inner .z", read: { inner.z }, truth: truth(store) { $0.child.inner.z })
    apply(store) {
      let saved = $0
      $0.child.inner.z = 5
      $0 = saved
    }
    #expect(r.runs == 1)
    apply(store) {
      let saved = $0.child
      $0.child.inner.z = 5
      $0.child = saved
    }
    #expect(r.runs == 1)
    apply(store) {
      let saved = $0.child
      $0.child.inner.z = 5
      $0.child.restore(saved)
    }
    #expect(r.runs == 1)
    r.reaction.cancel()
  }
}
