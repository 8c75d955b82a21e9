// swift-format-ignore-file
import Foundation
import Observant
import ObservantStore
import ObservantTestSupport
import Testing

// Place hunt 2 (store): row stores, nested row stores (items of a row), child and optional child
// stores, derived values and withState readers when rows move between two identified arrays, are
// removed and re-inserted from older copies, when the whole state is restored from a snapshot after
// structural changes, and with several sends in one `transaction {}`. Documentation only.

enum H2 {
  struct Item: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _v = StateField(0)
    var v: Int { get { registrar.read(_v) } set { registrar.write(&_v, newValue) } }
    init(id: Int) { self.id = id }
  }

  struct Row: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _x = StateField(0)
    var x: Int { get { registrar.read(_x) } set { registrar.write(&_x, newValue) } }
    private var _items = StateField<IdentifiedArrayOf<Item>>([Item(id: 1), Item(id: 2)])
    var items: IdentifiedArrayOf<Item> {
      get { registrar.read(_items) } set { registrar.write(&_items, newValue) }
      _modify { yield &self[tracking: \._items] }
    }
    init(id: Int) { self.id = id }
    mutating func become(_ other: Row) { self = other }
  }

  enum ItemAction: Sendable { case setV(Int) }
  enum RowAction: Sendable {
    case setX(Int)
    case item(id: Int, action: ItemAction)
  }

  static func reduceRow(_ row: inout Row, _ action: RowAction) -> Effect<RowAction> {
    switch action {
    case .setX(let v): row.x = v
    case let .item(id, .setV(v)): if row.items[id: id] != nil { row.items[id: id]!.v = v }
    }
    return .none
  }

  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows = StateField<IdentifiedArrayOf<Row>>([Row(id: 1), Row(id: 2), Row(id: 3)])
    var rows: IdentifiedArrayOf<Row> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _other = StateField<IdentifiedArrayOf<Row>>([])
    var other: IdentifiedArrayOf<Row> {
      get { registrar.read(_other) } set { registrar.write(&_other, newValue) }
      _modify { yield &self[tracking: \._other] }
    }
    private var _child = StateField(Row(id: 1))
    var child: Row {
      get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
      _modify { yield &self[tracking: \._child] }
    }
    private var _opt = StateField<Row?>(nil)
    var opt: Row? {
      get { registrar.read(_opt) } set { registrar.write(&_opt, newValue) }
      _modify { yield &self[tracking: \._opt] }
    }
    init() {}
    mutating func become(_ other: State) { self = other }
  }

  enum Op: Sendable, CustomStringConvertible {
    case write(Int, id: Int, item: Int?, value: Int)   // place 0 rows, 1 other, 2 child, 3 opt
    case moveToOther(id: Int)                          // rows -> other (removed from rows)
    case moveToRows(id: Int, at: Int?)                 // other -> rows (append or insert at)
    case save(Int, id: Int)
    case restore(stash: Int, to: Int, at: Int?)        // remove + append/insert the older copy
    case removeRow(Int, id: Int)
    case saveState
    case restoreState(Int, viaInout: Bool)
    case optNil
    case optFromRows(id: Int)
    case moveItem(from: Int, to: Int, item: Int)       // item of rows[id: from] into rows[id: to]
    case becomeFresh(Int, id: Int)                     // self = Row(id:) in place
    var description: String {
      let names = ["rows", "other", "child", "opt"]
      switch self {
      case let .write(p, id, item, v): return item.map { "\(names[p])[\(id)].items[\($0)].v=\(v)" } ?? "\(names[p])[\(id)].x=\(v)"
      case let .moveToOther(id): return "other.append(rows.remove(id: \(id)))"
      case let .moveToRows(id, at): return "rows.\(at.map { "insert(at: \($0))" } ?? "append")(other.remove(id: \(id)))"
      case let .save(p, id): return "stash += \(names[p])[\(id)]"
      case let .restore(s, p, at): return "\(names[p]): remove + \(at.map { "insert(at: \($0))" } ?? "append") stash[\(s)]"
      case let .removeRow(p, id): return "\(names[p]).remove(\(id))"
      case .saveState: return "states += state"
      case let .restoreState(s, io): return io ? "state.become(states[\(s)])" : "state = states[\(s)]"
      case .optNil: return "opt = nil"
      case let .optFromRows(id): return "opt = rows[\(id)]"
      case let .moveItem(f, t, i): return "rows[\(t)].items.append(rows[\(f)].items.remove(\(i)))"
      case let .becomeFresh(p, id): return "\(names[p])[\(id)].become(Row(id: \(id)))"
      }
    }
  }

  enum Action {
    case ops([Op])
    case row(id: Int, action: RowAction)
    case otherRow(id: Int, action: RowAction)
    case child(RowAction)
    case opt(RowAction)
  }

  final class Stash: @unchecked Sendable {
    var rows: [Row] = []
    var states: [State] = []
  }

  static func get(_ s: State, _ p: Int, _ id: Int) -> Row? {
    switch p {
    case 0: s.rows[id: id]
    case 1: s.other[id: id]
    case 2: s.child.id == id ? s.child : nil
    default: s.opt?.id == id ? s.opt : nil
    }
  }

  static func mutate(_ s: inout State, _ p: Int, _ id: Int, _ f: (inout Row) -> Void) {
    switch p {
    case 0: if s.rows[id: id] != nil { f(&s.rows[id: id]!) }
    case 1: if s.other[id: id] != nil { f(&s.other[id: id]!) }
    case 2: if s.child.id == id { f(&s.child) }
    default: if s.opt?.id == id { f(&s.opt!) }
    }
  }

  static func insert(_ a: inout IdentifiedArrayOf<Row>, _ row: Row, at: Int?) {
    a.remove(id: row.id)
    if let at { a.insert(row, at: min(at, a.count)) } else { a.append(row) }
  }

  static func apply(_ op: Op, _ s: inout State, _ st: Stash) {
    switch op {
    case let .write(p, id, item, v):
      mutate(&s, p, id) { row in
        if let item { if row.items[id: item] != nil { row.items[id: item]!.v = v } } else { row.x = v }
      }
    case let .moveToOther(id): if let r = s.rows.remove(id: id) { insert(&s.other, r, at: nil) }
    case let .moveToRows(id, at): if let r = s.other.remove(id: id) { insert(&s.rows, r, at: at) }
    case let .save(p, id): if let r = get(s, p, id) { st.rows.append(r) }
    case let .restore(k, p, at):
      guard !st.rows.isEmpty else { return }
      let r = st.rows[k % st.rows.count]
      switch p {
      case 0: insert(&s.rows, r, at: at)
      case 1: insert(&s.other, r, at: at)
      case 2: s.child = r
      default: s.opt = r
      }
    case let .removeRow(p, id):
      switch p {
      case 0: s.rows.remove(id: id)
      case 1: s.other.remove(id: id)
      case 3: if s.opt?.id == id { s.opt = nil }
      default: break
      }
    case .saveState: st.states.append(s)
    case let .restoreState(k, io):
      guard !st.states.isEmpty else { return }
      let saved = st.states[k % st.states.count]
      if io { s.become(saved) } else { s = saved }
    case .optNil: s.opt = nil
    case let .optFromRows(id): if let r = s.rows[id: id] { s.opt = r }
    case let .moveItem(f, t, i):
      guard f != t, s.rows[id: f]?.items[id: i] != nil, s.rows[id: t] != nil else { return }
      let item = s.rows[id: f]!.items.remove(id: i)!
      s.rows[id: t]!.items.remove(id: i)
      s.rows[id: t]!.items.append(item)
    case let .becomeFresh(p, id): mutate(&s, p, id) { $0.become(Row(id: id)) }
    }
  }

  static func reducer(_ st: Stash) -> (inout State, Action) -> Effect<Action> {
    { state, action in
      switch action {
      case .ops(let ops):
        for op in ops { apply(op, &state, st) }
        return .none
      case let .row(id, a):
        guard state.rows[id: id] != nil else { return .none }
        return reduceRow(&state.rows[id: id]!, a).map { .row(id: id, action: $0) }
      case let .otherRow(id, a):
        guard state.other[id: id] != nil else { return .none }
        return reduceRow(&state.other[id: id]!, a).map { .otherRow(id: id, action: $0) }
      case .child(let a): return reduceRow(&state.child, a).map(Action.child)
      case .opt(let a):
        guard state.opt != nil else { return .none }
        return reduceRow(&state.opt!, a).map(Action.opt)
      }
    }
  }
}

@MainActor
final class H2Reader {
  let name: String
  var shown = Int.min
  var reaction: Reaction!
  let truth: @MainActor () -> Int?
  init(_ name: String, read: @escaping @MainActor () -> Int, truth: @escaping @MainActor () -> Int?) {
    self.name = name
    self.truth = truth
    reaction = Reaction(name) { [unowned self] in self.shown = read() }
  }
  var stale: String? {
    guard let t = truth(), t != shown else { return nil }
    return "\(name) shows \(shown), state \(t)"
  }
}

@MainActor
final class H2Readers {
  typealias S = Store<H2.State, H2.Action>
  var readers: [H2Reader] = []
  var deriveds: [(String, Derived<Int>, @MainActor () -> Int)] = []
  let store: S
  init(_ store: S) {
    self.store = store
    addCells()
    let child = store.scope(state: \.child, action: H2.Action.child)
    add("child store x", { child.x }) { $0.child.x }
    add("child store items[1].v", { child.items[id: 1]?.v ?? -1 }) { $0.child.items[id: 1]?.v ?? -1 }
    add("store.opt?.x", { store.opt?.x ?? -1 }) { $0.opt?.x ?? -1 }
    add("scoped opt store x", { store.scope(state: \.opt, action: H2.Action.opt)?.x ?? -1 }) { $0.opt?.x ?? -1 }
    for id in 1...3 {
      add("scoped rows[\(id)].x", {
        store.scope(state: \.rows, action: H2.Action.row).first { $0.id == id }?.x ?? -1
      }) { $0.rows[id: id]?.x ?? -1 }
      add("scoped rows[\(id)].items[1].v", {
        guard let row = store.scope(state: \.rows, action: H2.Action.row).first(where: { $0.id == id }) else { return -1 }
        return row.scope(state: \.items, action: H2.RowAction.item).first { $0.id == 1 }?.v ?? -1
      }) { $0.rows[id: id]?.items[id: 1]?.v ?? -1 }
      add("withState other[\(id)].x", { store.withState { $0.other[id: id]?.x ?? -1 } }) { $0.other[id: id]?.x ?? -1 }
      add("store.other[\(id)].items[2].v", { store.other[id: id]?.items[id: 2]?.v ?? -1 }) { $0.other[id: id]?.items[id: 2]?.v ?? -1 }
      let d = Derived("derived rows[\(id)].x+items") {
        store.rows[id: id].map { $0.x * 100 + $0.items.reduce(0) { $0 + $1.v } } ?? -1
      }
      let truth: @MainActor () -> Int = { withoutTracking { store.state.rows[id: id].map { $0.x * 100 + $0.items.reduce(0) { $0 + $1.v } } ?? -1 } }
      deriveds.append(("derived rows[\(id)]", d, truth))
      readers.append(H2Reader("reader of derived rows[\(id)]", read: { d.value }, truth: truth))
    }
    add("rows.count", { store.rows.count }) { $0.rows.count }
    add("other ids", { store.other.reduce(0) { $0 * 10 + $1.id } }) { $0.other.reduce(0) { $0 * 10 + $1.id } }
  }

  func add(_ name: String, _ read: @escaping @MainActor () -> Int, _ truth: @escaping (H2.State) -> Int) {
    let store = self.store
    readers.append(H2Reader(name, read: read, truth: { withoutTracking { truth(store.state) } }))
  }

  /// Cells: row stores held, and item stores of each held row store.
  func addCells() {
    let store = self.store
    for (label, kp, isRows) in [("rows", \H2.State.rows, true), ("other", \H2.State.other, false)] {
      let coll = isRows ? store.scope(state: kp, action: H2.Action.row) : store.scope(state: kp, action: H2.Action.otherRow)
      for cell in coll {
        let id = cell.id
        let get: @MainActor () -> H2.Row? = { withoutTracking { isRows ? store.state.rows[id: id] : store.state.other[id: id] } }
        readers.append(H2Reader("cell \(label)[\(id)].x", read: { cell.x }, truth: { cell.isValid ? get()?.x : nil }))
        for item in cell.scope(state: \.items, action: H2.RowAction.item) {
          let iid = item.id
          readers.append(H2Reader("cell \(label)[\(id)].items[\(iid)] store .v", read: { item.v }, truth: {
            item.isValid ? get()?.items[id: iid]?.v : nil
          }))
        }
      }
    }
    if let opt = store.scope(state: \.opt, action: H2.Action.opt) {
      readers.append(H2Reader("held opt store x", read: { opt.x }, truth: { opt.isValid ? withoutTracking { store.state.opt?.x } : nil }))
      readers.append(H2Reader("held opt store items[1].v", read: { opt.items[id: 1]?.v ?? -1 }, truth: {
        opt.isValid ? withoutTracking { store.state.opt.map { $0.items[id: 1]?.v ?? -1 } } : nil
      }))
    }
  }

  var stale: [String] {
    readers.compactMap(\.stale) + deriveds.compactMap { name, d, truth in
      let v = withoutTracking { d.value }
      return v == truth() ? nil : "\(name).value is \(v), state \(truth())"
    }
  }
  func runs() -> [Int] { readers.map(\.reaction.runCount) }
  func multi(since before: [Int]) -> [String] {
    zip(readers, before).compactMap { r, b in r.reaction.runCount - b > 1 ? "\(r.name) ran \(r.reaction.runCount - b) times" : nil }
  }
  func cancel() { readers.forEach { $0.reaction.cancel() } }
}

@MainActor
enum H2Run {
  enum Step: CustomStringConvertible {
    case send([H2.Op])
    case sends([[H2.Op]])       // several sends in one transaction {}
    case rowSend(Int, H2.RowAction)
    case otherSend(Int, H2.RowAction)
    case optSend(H2.RowAction)
    case addCells
    var description: String {
      switch self {
      case .send(let ops): "send(" + ops.map(\.description).joined(separator: "; ") + ")"
      case .sends(let b): "transaction { " + b.map { "send(" + $0.map(\.description).joined(separator: "; ") + ")" }.joined(separator: " ") + " }"
      case let .rowSend(id, a): "rows cell \(id).send(\(a))"
      case let .otherSend(id, a): "other cell \(id).send(\(a))"
      case .optSend(let a): "opt store.send(\(a))"
      case .addCells: "new cells"
      }
    }
  }

  static func run(_ step: Step, _ store: Store<H2.State, H2.Action>, _ r: H2Readers) {
    switch step {
    case .send(let ops): store.send(.ops(ops))
    case .sends(let b): transaction { for ops in b { store.send(.ops(ops)) } }
    case let .rowSend(id, a): store.scope(state: \.rows, action: H2.Action.row).first { $0.id == id }?.send(a)
    case let .otherSend(id, a): store.scope(state: \.other, action: H2.Action.otherRow).first { $0.id == id }?.send(a)
    case .optSend(let a): store.scope(state: \.opt, action: H2.Action.opt)?.send(a)
    case .addCells: r.addCells()
    }
  }

  static func replay(_ steps: [Step], multi: Bool) -> (Int, [String])? {
    let store = Store(initialState: H2.State(), reducer: H2.reducer(H2.Stash()))
    let r = H2Readers(store)
    defer { r.cancel() }
    for (i, step) in steps.enumerated() {
      let before = r.runs()
      run(step, store, r)
      let bad = multi ? r.multi(since: before) : r.stale
      if !bad.isEmpty { return (i, bad) }
    }
    return nil
  }

  static func shrink(_ steps: [Step], multi: Bool) -> [Step] {
    var cur = steps
    if let (t, _) = replay(cur, multi: multi) { cur = Array(cur.prefix(t + 1)) }
    var changed = true
    while changed {
      changed = false
      var t = 0
      while t < cur.count {
        var c = cur; c.remove(at: t)
        if replay(c, multi: multi) != nil { cur = c; changed = true } else { t += 1 }
      }
      for t in cur.indices {
        if case .send(var ops) = cur[t] {
          var o = 0
          while o < ops.count {
            var f = ops; f.remove(at: o)
            var c = cur; c[t] = .send(f)
            if replay(c, multi: multi) != nil { ops = f; cur = c; changed = true } else { o += 1 }
          }
        }
        if case .sends(var b) = cur[t] {
          var k = 0
          while k < b.count {
            var f = b; f.remove(at: k)
            var c = cur; c[t] = .sends(f)
            if replay(c, multi: multi) != nil { b = f; cur = c; changed = true; continue }
            var o = 0
            while o < b[k].count {
              var g = b; g[k].remove(at: o)
              var c2 = cur; c2[t] = .sends(g)
              if replay(c2, multi: multi) != nil { b = g; cur = c2; changed = true } else { o += 1 }
            }
            k += 1
          }
        }
      }
    }
    return cur
  }

  static func randomOp(_ g: inout HuntStoreRNG) -> H2.Op {
    let p = g.next(4)
    let id = 1 + g.next(3)
    let at: Int? = g.next(2) == 0 ? nil : g.next(3)
    switch g.next(15) {
    case 0..<3: return .write(p, id: id, item: g.next(2) == 0 ? nil : 1 + g.next(2), value: g.next(3))
    case 3: return .moveToOther(id: id)
    case 4: return .moveToRows(id: id, at: at)
    case 5, 6: return .save(p, id: id)
    case 7: return .restore(stash: g.next(5), to: p, at: at)
    case 8: return .removeRow(p, id: id)
    case 9: return .saveState
    case 10: return .restoreState(g.next(3), viaInout: g.next(2) == 0)
    case 11: return g.next(2) == 0 ? .optNil : .optFromRows(id: id)
    case 12: return .moveItem(from: id, to: 1 + g.next(3), item: 1 + g.next(2))
    default: return .becomeFresh(p, id: id)
    }
  }

  static func randomSteps(_ seed: UInt64, count: Int) -> [Step] {
    var g = HuntStoreRNG(seed: seed)
    func rowAction() -> H2.RowAction { g.next(2) == 0 ? .setX(g.next(3)) : .item(id: 1 + g.next(2), action: .setV(g.next(3))) }
    return (0..<count).map { _ in
      switch g.next(10) {
      case 0: return .rowSend(1 + g.next(3), rowAction())
      case 1: return .otherSend(1 + g.next(3), rowAction())
      case 2: return .optSend(rowAction())
      case 3: return .addCells
      case 4, 5: return .sends((0...g.next(3)).map { _ in (0...g.next(3)).map { _ in randomOp(&g) } })
      default: return .send((0...g.next(4)).map { _ in randomOp(&g) })
      }
    }
  }

  static func hunt(multi: Bool) -> [String] {
    var failures: [String] = []
    let seeds: [UInt64] = (1...30).map(UInt64.init) + [42, 777, 0xDEAD_BEEF]
    for seed in seeds.prefix(RandomTestBudget.scaled(seeds.count)) {
      let steps = randomSteps(seed &* 1_000_003, count: 25)
      if replay(steps, multi: multi) != nil {
        let shrunk = shrink(steps, multi: multi)
        let msg = replay(shrunk, multi: multi)?.1 ?? []
        failures.append("seed \(seed): \(msg.prefix(4))\n" + shrunk.map(\.description).joined(separator: "\n"))
        if failures.count >= 3 { break }
      }
    }
    return failures
  }
}

@MainActor
@Suite("Place hunt 2: store")
struct PlaceHunt2StoreTests {
  private func make() -> (Store<H2.State, H2.Action>, H2Readers) {
    let store = Store(initialState: H2.State(), reducer: H2.reducer(H2.Stash()))
    return (store, H2Readers(store))
  }
  private func check(_ r: H2Readers, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let s = r.stale
    #expect(s.isEmpty, "\(what): \(s)", sourceLocation: sourceLocation)
  }

  @Test("rows moved to other and back, edited in between, an older copy re-inserted: every store reader current")
  func moveBetweenArrays() {
    let (store, r) = make()
    store.send(.ops([.save(0, id: 1), .write(0, id: 1, item: 1, value: 2)]))
    check(r, "row 1 item edited")
    store.send(.ops([.moveToOther(id: 1)]))
    r.addCells()
    check(r, "row 1 moved to other")
    store.scope(state: \.other, action: H2.Action.otherRow).first { $0.id == 1 }?.send(.item(id: 1, action: .setV(5)))
    check(r, "edited in other through its cell")
    store.send(.ops([.moveToRows(id: 1, at: 0)]))
    check(r, "moved back to rows at 0")
    store.send(.ops([.restore(stash: 0, to: 0, at: 2)]))
    check(r, "older copy re-inserted at 2")
    store.send(.ops([.restore(stash: 0, to: 1, at: nil), .write(1, id: 1, item: nil, value: 2)]))
    check(r, "older copy into other too, edited there")
    r.cancel()
  }

  @Test("state = saved after rows moved, removed, items moved between rows: every store reader current")
  func stateRestoredAfterStructure() {
    for io in [false, true] {
      let (store, r) = make()
      store.send(.ops([.saveState]))
      store.send(.ops([.moveToOther(id: 2), .moveItem(from: 1, to: 3, item: 1), .write(0, id: 3, item: 1, value: 2),
                       .optFromRows(id: 3), .write(2, id: 1, item: 2, value: 1)]))
      r.addCells()
      check(r, "structure changed (inout: \(io))")
      store.send(.ops([.restoreState(0, viaInout: io)]))
      check(r, "state restored (inout: \(io))")
      r.addCells()
      store.send(.ops([.optFromRows(id: 1), .removeRow(0, id: 1), .restoreState(0, viaInout: io), .write(0, id: 1, item: 1, value: 1)]))
      check(r, "opt, remove, restore, write (inout: \(io))")
      r.cancel()
    }
  }

  @Test("several sends in one transaction: remove, re-insert older copy, edit through the cell, restore: readers current")
  func severalSendsInOneTransaction() {
    let (store, r) = make()
    store.send(.ops([.save(0, id: 1), .saveState]))
    let cell = store.scope(state: \.rows, action: H2.Action.row)[0]
    transaction {
      cell.send(.item(id: 1, action: .setV(2)))
      store.send(.ops([.removeRow(0, id: 1)]))
      store.send(.ops([.restore(stash: 0, to: 0, at: nil)]))
      cell.send(.setX(1))
    }
    check(r, "transaction: cell edit, remove, re-insert older copy, cell send")
    transaction {
      store.send(.ops([.moveToOther(id: 2)]))
      store.send(.otherRow(id: 2, action: .setX(2)))
      store.send(.ops([.restoreState(0, viaInout: false)]))
    }
    check(r, "transaction: move to other, edit, restore state")
    r.cancel()
  }

  @Test("optional child: nil, then an older copy back; a row copy; through its held store: readers current")
  func optionalChildOlderCopy() {
    let (store, r) = make()
    store.send(.ops([.optFromRows(id: 1), .save(3, id: 1)]))
    r.addCells()
    store.scope(state: \.opt, action: H2.Action.opt)!.send(.setX(2))
    check(r, "opt edited")
    store.send(.ops([.optNil, .restore(stash: 0, to: 3, at: nil)]))
    check(r, "opt = nil; opt = saved in one send")
    r.addCells()
    store.scope(state: \.opt, action: H2.Action.opt)!.send(.item(id: 1, action: .setV(2)))
    store.send(.ops([.optNil]))
    store.send(.ops([.restore(stash: 0, to: 3, at: nil)]))
    check(r, "opt = nil; opt = saved in two sends")
    r.cancel()
  }

  @Test("self = Row(id:) in place (another identity), then an older copy back: readers current")
  func becomeFreshThenBack() {
    let (store, r) = make()
    store.send(.ops([.write(0, id: 2, item: 2, value: 1), .save(0, id: 2), .save(2, id: 1)]))
    store.send(.ops([.becomeFresh(0, id: 2), .becomeFresh(2, id: 1)]))
    check(r, "became new rows")
    store.send(.ops([.restore(stash: 0, to: 0, at: nil), .restore(stash: 1, to: 2, at: nil)]))
    check(r, "older copies back")
    store.send(.ops([.becomeFresh(0, id: 2), .restore(stash: 0, to: 0, at: 1)]))
    check(r, "became new, older copy back, in one send")
    r.cancel()
  }

  @Test("random sends (moves between arrays, re-inserted copies, state restores, transactions of sends): no reader stale")
  func randomStale() {
    let f = H2Run.hunt(multi: false)
    #expect(f.isEmpty, "\(f.joined(separator: "\n---\n"))")
  }

  @Test("random sends: no reader runs more than once per send or transaction")
  func randomRunsOnce() {
    let f = H2Run.hunt(multi: true)
    #expect(f.isEmpty, "\(f.joined(separator: "\n---\n"))")
  }
}
