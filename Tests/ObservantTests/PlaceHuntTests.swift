import Foundation
import Observant
import ObservantTestSupport
import Testing

// Copies of value-type state that live in several places at once within one transaction: a value
// changed in one place, copied to another, and written back / set back / restored on one of the
// copies. Every reader must show the current state after the transaction (stale = failure).
// Written against the documentation only (README, Observant.docc, ObservantStore.docc).

// swift-format-ignore
/// State nested in the model (and in the model's `nests` rows): a collection, a child, a plain
/// array and an optional of `AdvItem`.
struct HuntNest: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _rows = StateField<IdentifiedArrayOf<AdvItem>>([])
  var rows: IdentifiedArrayOf<AdvItem> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _child = StateField(AdvItem(id: 1))
  var child: AdvItem {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }
  private var _list = StateField<[AdvItem]>([])
  var list: [AdvItem] {
    get { registrar.read(_list) } set { registrar.write(&_list, newValue) }
    _modify { yield &self[tracking: \._list] }
  }
  private var _opt = StateField<AdvItem?>(nil)
  var opt: AdvItem? {
    get { registrar.read(_opt) } set { registrar.write(&_opt, newValue) }
    _modify { yield &self[tracking: \._opt] }
  }
  init(id: Int = 1) { self.id = id }
  mutating func restore(_ saved: HuntNest) { self = saved }
}

/// Enum state holding an `AdvItem` in two cases.
enum HuntMode: IdentityComparable {
  case edit(AdvItem)
  case view(AdvItem)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case let (.edit(l), .edit(r)), let (.view(l), .view(r)): Observant.isIdentityEqual(l, r)
    default: false
    }
  }
  var item: AdvItem {
    switch self {
    case .edit(let item), .view(let item): item
    }
  }
  func with(_ item: AdvItem) -> HuntMode {
    switch self {
    case .edit: .edit(item)
    case .view: .view(item)
    }
  }
}

/// Every kind of place a copy of an `AdvItem` can live in.
final class HuntModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var a: IdentifiedArrayOf<AdvItem> = [AdvItem(id: 1), AdvItem(id: 2), AdvItem(id: 3)]
  @Tracked var b: IdentifiedArrayOf<AdvItem> = []
  @Tracked var plain: [AdvItem] = []
  @Tracked var dict: [Int: AdvItem] = [:]
  @Tracked var slot = AdvItem(id: 1)
  @Tracked var maybe: AdvItem? = nil
  @Tracked var mode: HuntMode? = nil
  @Tracked var nest = HuntNest()
  @Tracked var nests: IdentifiedArrayOf<HuntNest> = [HuntNest(id: 1), HuntNest(id: 2)]
}

enum HuntPlace: Int, CaseIterable, CustomStringConvertible {
  case a, b, plain, dict, slot, maybe, mode, rows, child, list, opt
  var description: String {
    switch self {
    case .a: "a"
    case .b: "b"
    case .plain: "plain"
    case .dict: "dict"
    case .slot: "slot"
    case .maybe: "maybe"
    case .mode: "mode"
    case .rows: "rows"
    case .child: "child"
    case .list: "list"
    case .opt: "opt"
    }
  }
  var isInNest: Bool { rawValue >= HuntPlace.rows.rawValue }
}

/// A place: a kind, and for the kinds inside a nest, which nest (0: `nest`, 1 and 2: `nests[id:]`).
struct HuntLoc: CustomStringConvertible {
  var kind: HuntPlace
  var nest: Int
  init(_ kind: HuntPlace, _ nest: Int = 0) {
    self.kind = kind
    self.nest = kind.isInNest ? nest : 0
  }
  var description: String {
    guard kind.isInNest else { return "\(kind)" }
    return nest == 0 ? "nest.\(kind)" : "nests[id:\(nest)]!.\(kind)"
  }
  static var all: [HuntLoc] {
    HuntPlace.allCases.flatMap { kind in kind.isInNest ? (0...2).map { HuntLoc(kind, $0) } : [HuntLoc(kind)] }
  }
}

enum HuntField: Int, CaseIterable { case x, y, z }

/// One operation of a transaction, as data, so that a failing sequence can be replayed and shrunk.
enum HuntOp: CustomStringConvertible {
  /// `place[id:].field = value` (by position when `pos`).
  case write(HuntLoc, id: Int, pos: Bool, field: HuntField, value: Int)
  /// `to[id] = from[id]` (appended if absent).
  case copy(from: HuntLoc, to: HuntLoc, id: Int)
  /// `stash.append(place[id])`
  case save(HuntLoc, id: Int)
  /// `to[stash.id] = stash[i]` (appended if absent).
  case restore(stash: Int, to: HuntLoc)
  /// `to[stash.id]!.restore(stash[i])`: `self = saved` through inout.
  case restoreInout(stash: Int, to: HuntLoc)
  /// `to[stash.id]!.replace(with: stash[i])`
  case replaceWith(stash: Int, to: HuntLoc)
  /// `stash[i].field = value`: a write to a detached copy.
  case stashWrite(stash: Int, field: HuntField, value: Int)
  /// `var d = from[id]; d.field = value; to[id] = d`
  case draft(from: HuntLoc, to: HuntLoc, id: Int, field: HuntField, value: Int)
  /// `place.remove(id:)`
  case remove(HuntLoc, id: Int)
  /// move / swapAt in an array place.
  case move(HuntLoc, from: Int, to: Int)
  /// a snapshot of a whole collection place.
  case saveCollection(HuntLoc)
  /// a snapshot of a whole collection assigned to a collection place of the same kind.
  case restoreCollection(stash: Int, to: HuntLoc)
  /// a snapshot of an identified array restored through inout (`self = saved` in a mutating method).
  case restoreCollectionInout(stash: Int, to: HuntLoc)
  /// a snapshot of a whole nest (0: `nest`, 1, 2: `nests[id:]`).
  case saveNest(Int)
  /// a nest snapshot restored into a nest (same id, or into `nest`), by assignment or through inout.
  case restoreNest(stash: Int, to: Int, viaInout: Bool)
  /// `nests.move(...)`
  case moveNests
  /// `mode` switched to the other case, same payload.
  case flipMode
  /// `swap(&a, &b)`
  case swapAB
  /// `swap(&x.rows, &y.rows)` between two nests.
  case swapRows(Int, Int)
  /// `to[toID].inner = from[fromID].inner`: nested state copied into another element.
  case copyInner(from: HuntLoc, fromID: Int, to: HuntLoc, toID: Int)
  /// A reaction over reader `reader`, created here, in the middle of the transaction.
  case newReader(Int)

  var description: String {
    switch self {
    case let .write(p, id, pos, f, v): pos ? "\(p)[pos of \(id)].\(f)=\(v)" : "\(p)[id:\(id)].\(f)=\(v)"
    case let .copy(f, t, id): "\(t)[\(id)] = \(f)[\(id)]"
    case let .save(p, id): "stash += \(p)[\(id)]"
    case let .restore(s, t): "\(t)[..] = stash[\(s)]"
    case let .restoreInout(s, t): "\(t)[..].restore(stash[\(s)])"
    case let .replaceWith(s, t): "\(t)[..].replace(with: stash[\(s)])"
    case let .stashWrite(s, f, v): "stash[\(s)].\(f)=\(v)"
    case let .draft(f, t, id, fl, v): "var d = \(f)[\(id)]; d.\(fl)=\(v); \(t)[\(id)] = d"
    case let .remove(p, id): "\(p).remove(\(id))"
    case let .move(p, f, t): "\(p).move(\(f)->\(t))"
    case let .saveCollection(p): "collections += \(p)"
    case let .restoreCollection(s, t): "\(t) = collections[\(s)]"
    case let .restoreCollectionInout(s, t): "\(t).huntRestore(collections[\(s)])"
    case let .saveNest(n): "nests += nest#\(n)"
    case let .restoreNest(s, t, io): io ? "nest#\(t).restore(nests[\(s)])" : "nest#\(t) = nests[\(s)]"
    case .moveNests: "nests.move(0->2)"
    case .flipMode: "mode flipped"
    case .swapAB: "swap(&a, &b)"
    case let .swapRows(x, y): "swap(&nest#\(x).rows, &nest#\(y).rows)"
    case let .copyInner(f, fi, t, ti): "\(t)[\(ti)].inner = \(f)[\(fi)].inner"
    case let .newReader(r): "new reader #\(r)"
    }
  }
}

/// Stashes: copies kept outside the model (undo snapshots, drafts).
final class HuntStash {
  var items: [AdvItem] = []
  var identified: [IdentifiedArrayOf<AdvItem>] = []
  var lists: [[AdvItem]] = []
  var dicts: [[Int: AdvItem]] = []
  var nests: [HuntNest] = []
}

enum HuntAccess {
  static func nest(_ m: HuntModel, _ n: Int) -> HuntNest? {
    n == 0 ? m.nest : m.nests[id: n]
  }

  static func mutateNest(_ m: HuntModel, _ n: Int, _ f: (inout HuntNest) -> Void) {
    if n == 0 {
      f(&m.nest)
    } else if m.nests[id: n] != nil {
      f(&m.nests[id: n]!)
    }
  }

  static func get(_ m: HuntModel, _ p: HuntLoc, _ id: Int) -> AdvItem? {
    switch p.kind {
    case .a: return m.a[id: id]
    case .b: return m.b[id: id]
    case .plain: return m.plain.first { $0.id == id }
    case .dict: return m.dict[id]
    case .slot: return m.slot.id == id ? m.slot : nil
    case .maybe: return m.maybe?.id == id ? m.maybe : nil
    case .mode: return m.mode?.item.id == id ? m.mode?.item : nil
    default: break
    }
    guard let n = nest(m, p.nest) else { return nil }
    switch p.kind {
    case .rows: return n.rows[id: id]
    case .child: return n.child.id == id ? n.child : nil
    case .list: return n.list.first { $0.id == id }
    default: return n.opt?.id == id ? n.opt : nil
    }
  }

  static func count(_ m: HuntModel, _ p: HuntLoc) -> Int {
    switch p.kind {
    case .a: return m.a.count
    case .b: return m.b.count
    case .plain: return m.plain.count
    case .dict: return m.dict.count
    case .slot: return 1
    case .maybe: return m.maybe == nil ? 0 : 1
    case .mode:
      switch m.mode {
      case nil: return 0
      case .edit: return 1
      case .view: return 2
      }
    default: break
    }
    guard let n = nest(m, p.nest) else { return -1 }
    switch p.kind {
    case .rows: return n.rows.count
    case .child: return 1
    case .list: return n.list.count
    default: return n.opt == nil ? 0 : 1
    }
  }

  /// Runs `f` on the element with `id` in place `p`, in place (through the owners' accessors).
  static func mutate(_ m: HuntModel, _ p: HuntLoc, _ id: Int, pos: Bool = false, _ f: (inout AdvItem) -> Void) {
    switch p.kind {
    case .a:
      if pos { if let i = m.a.index(id: id) { f(&m.a[i]) } } else if m.a[id: id] != nil { f(&m.a[id: id]!) }
    case .b:
      if pos { if let i = m.b.index(id: id) { f(&m.b[i]) } } else if m.b[id: id] != nil { f(&m.b[id: id]!) }
    case .plain: if let i = m.plain.firstIndex(where: { $0.id == id }) { f(&m.plain[i]) }
    case .dict: if m.dict[id] != nil { f(&m.dict[id]!) }
    case .slot: if m.slot.id == id { f(&m.slot) }
    case .maybe: if m.maybe?.id == id { f(&m.maybe!) }
    case .mode:
      // An enum field: the payload is edited on a copy and written back.
      if let mode = m.mode, mode.item.id == id {
        var item = mode.item
        f(&item)
        m.mode = mode.with(item)
      }
    case .rows:
      mutateNest(m, p.nest) { n in
        if pos {
          if let i = n.rows.index(id: id) { f(&n.rows[i]) }
        } else if n.rows[id: id] != nil {
          f(&n.rows[id: id]!)
        }
      }
    case .child: mutateNest(m, p.nest) { n in if n.child.id == id { f(&n.child) } }
    case .list: mutateNest(m, p.nest) { n in if let i = n.list.firstIndex(where: { $0.id == id }) { f(&n.list[i]) } }
    case .opt: mutateNest(m, p.nest) { n in if n.opt?.id == id { f(&n.opt!) } }
    }
  }

  /// Stores `item` in place `p`: replaces the element with its id, or appends it.
  static func put(_ m: HuntModel, _ p: HuntLoc, _ item: AdvItem) {
    switch p.kind {
    case .a: if m.a[id: item.id] != nil { m.a[id: item.id] = item } else { m.a.append(item) }
    case .b: if m.b[id: item.id] != nil { m.b[id: item.id] = item } else { m.b.append(item) }
    case .plain:
      if let i = m.plain.firstIndex(where: { $0.id == item.id }) { m.plain[i] = item } else { m.plain.append(item) }
    case .dict: m.dict[item.id] = item
    case .slot: m.slot = item
    case .maybe: m.maybe = item
    case .mode: m.mode = m.mode?.with(item) ?? .edit(item)
    case .rows:
      mutateNest(m, p.nest) { n in
        if n.rows[id: item.id] != nil { n.rows[id: item.id] = item } else { n.rows.append(item) }
      }
    case .child: mutateNest(m, p.nest) { n in n.child = item }
    case .list:
      mutateNest(m, p.nest) { n in
        if let i = n.list.firstIndex(where: { $0.id == item.id }) { n.list[i] = item } else { n.list.append(item) }
      }
    case .opt: mutateNest(m, p.nest) { n in n.opt = item }
    }
  }

  static func remove(_ m: HuntModel, _ p: HuntLoc, _ id: Int) {
    switch p.kind {
    case .a: m.a.remove(id: id)
    case .b: m.b.remove(id: id)
    case .plain: if let i = m.plain.firstIndex(where: { $0.id == id }) { m.plain.remove(at: i) }
    case .dict: m.dict[id] = nil
    case .slot, .child: break
    case .maybe: if m.maybe?.id == id { m.maybe = nil }
    case .mode: if m.mode?.item.id == id { m.mode = nil }
    case .rows: mutateNest(m, p.nest) { n in n.rows.remove(id: id) }
    case .list:
      mutateNest(m, p.nest) { n in if let i = n.list.firstIndex(where: { $0.id == id }) { n.list.remove(at: i) } }
    case .opt: mutateNest(m, p.nest) { n in if n.opt?.id == id { n.opt = nil } }
    }
  }

  static func write(_ item: inout AdvItem, _ f: HuntField, _ v: Int) {
    switch f {
    case .x: item.x = v
    case .y: item.y = v
    case .z: item.inner.z = v
    }
  }

  static func apply(_ op: HuntOp, _ m: HuntModel, _ s: HuntStash, _ readers: HuntReaders) {
    switch op {
    case let .write(p, id, pos, f, v): mutate(m, p, id, pos: pos) { write(&$0, f, v) }
    case let .copy(from, to, id): if let item = get(m, from, id) { put(m, to, item) }
    case let .save(p, id): if let item = get(m, p, id) { s.items.append(item) }
    case let .restore(i, to): if !s.items.isEmpty { put(m, to, s.items[i % s.items.count]) }
    case let .restoreInout(i, to):
      if !s.items.isEmpty {
        let saved = s.items[i % s.items.count]
        mutate(m, to, saved.id) { $0.restore(saved) }
      }
    case let .replaceWith(i, to):
      if !s.items.isEmpty {
        let saved = s.items[i % s.items.count]
        mutate(m, to, saved.id) { $0.replace(with: saved) }
      }
    case let .stashWrite(i, f, v): if !s.items.isEmpty { write(&s.items[i % s.items.count], f, v) }
    case let .draft(from, to, id, f, v):
      if var d = get(m, from, id) {
        write(&d, f, v)
        put(m, to, d)
      }
    case let .remove(p, id): remove(m, p, id)
    case let .move(p, from, to):
      func moveIdentified(_ rows: inout IdentifiedArrayOf<AdvItem>) {
        if rows.count > 1 { rows.move(fromOffsets: [from % rows.count], toOffset: to % (rows.count + 1)) }
      }
      switch p.kind {
      case .a: moveIdentified(&m.a)
      case .b: moveIdentified(&m.b)
      case .rows: mutateNest(m, p.nest) { moveIdentified(&$0.rows) }
      case .plain: if m.plain.count > 1 { m.plain.swapAt(from % m.plain.count, to % m.plain.count) }
      case .list:
        mutateNest(m, p.nest) { n in
          if n.list.count > 1 { n.list.swapAt(from % n.list.count, to % n.list.count) }
        }
      default: break
      }
    case let .saveCollection(p):
      switch p.kind {
      case .a: s.identified.append(m.a)
      case .b: s.identified.append(m.b)
      case .rows: if let n = nest(m, p.nest) { s.identified.append(n.rows) }
      case .plain: s.lists.append(m.plain)
      case .list: if let n = nest(m, p.nest) { s.lists.append(n.list) }
      case .dict: s.dicts.append(m.dict)
      default: break
      }
    case let .restoreCollection(i, to):
      switch to.kind {
      case .a: if !s.identified.isEmpty { m.a = s.identified[i % s.identified.count] }
      case .b: if !s.identified.isEmpty { m.b = s.identified[i % s.identified.count] }
      case .rows:
        if !s.identified.isEmpty { mutateNest(m, to.nest) { $0.rows = s.identified[i % s.identified.count] } }
      case .plain: if !s.lists.isEmpty { m.plain = s.lists[i % s.lists.count] }
      case .list: if !s.lists.isEmpty { mutateNest(m, to.nest) { $0.list = s.lists[i % s.lists.count] } }
      case .dict: if !s.dicts.isEmpty { m.dict = s.dicts[i % s.dicts.count] }
      default: break
      }
    case let .restoreCollectionInout(i, to):
      guard !s.identified.isEmpty else { break }
      let saved = s.identified[i % s.identified.count]
      switch to.kind {
      case .a: m.a.huntRestore(saved)
      case .b: m.b.huntRestore(saved)
      case .rows: mutateNest(m, to.nest) { $0.rows.huntRestore(saved) }
      default: break
      }
    case let .saveNest(n): if let nest = nest(m, n) { s.nests.append(nest) }
    case let .restoreNest(i, to, io):
      if !s.nests.isEmpty {
        let saved = s.nests[i % s.nests.count]
        if to == 0 {
          if io { m.nest.restore(saved) } else { m.nest = saved }
        } else if saved.id == to, m.nests[id: to] != nil {
          if io { m.nests[id: to]!.restore(saved) } else { m.nests[id: to] = saved }
        } else if saved.id == to {
          m.nests.append(saved)
        }
      }
    case .moveNests: if m.nests.count > 1 { m.nests.move(fromOffsets: [0], toOffset: m.nests.count) }
    case .flipMode:
      switch m.mode {
      case .edit(let item): m.mode = .view(item)
      case .view(let item): m.mode = .edit(item)
      case nil: break
      }
    case .swapAB: swap(&m.a, &m.b)
    case let .swapRows(x, y):
      switch (x, y) {
      case (0, let n) where n != 0 && m.nests[id: n] != nil: swap(&m.nest.rows, &m.nests[id: n]!.rows)
      default: break
      }
    case let .copyInner(from, fi, to, ti):
      if let inner = get(m, from, fi)?.inner { mutate(m, to, ti) { $0.inner = inner } }
    case let .newReader(r): readers.add(r % readers.reads.count)
    }
  }
}

/// The readers of the model: for each, a reaction that keeps what it read, and a one-shot
/// `withTracking` scope re-armed after every transaction; plus reactions created midway.
final class HuntReaders {
  let names: [String]
  let reads: [() -> Int]
  var views: [AdvView] = []
  /// Which reader each view runs.
  var readerOf: [Int] = []
  /// withTracking scopes: what each read, and whether its onChange fired since.
  var tracked: [(value: Int, fired: AdvBox<Bool>)] = []

  init(_ m: HuntModel) {
    var names: [String] = []
    var reads: [() -> Int] = []
    func reader(_ name: String, _ read: @escaping () -> Int) {
      names.append(name)
      reads.append(read)
    }
    for p in HuntLoc.all {
      for id in 1...3 {
        reader("\(p)[\(id)].x") { HuntAccess.get(m, p, id)?.x ?? -1 }
        if id == 1 { reader("\(p)[\(id)].y") { HuntAccess.get(m, p, id)?.y ?? -1 } }
        reader("\(p)[\(id)].inner.z") { HuntAccess.get(m, p, id)?.inner.z ?? -1 }
      }
      reader("\(p).count") { HuntAccess.count(m, p) }
    }
    reader("slot.id") { m.slot.id }
    reader("nest.child.id") { m.nest.child.id }
    reader("a.first.x") { m.a.first?.x ?? -1 }
    reader("plain.first.x") { m.plain.first?.x ?? -1 }
    reader("nest.rows.first.z") { m.nest.rows.first?.inner.z ?? -1 }
    reader("nests.first.rows.first.x") { m.nests.first?.rows.first?.x ?? -1 }
    reader("sum a.x") { m.a.reduce(0) { $0 + $1.x } }
    reader("sum nest.list.x") { m.nest.list.reduce(0) { $0 + $1.x } }
    reader("sum nests.rows.x") { m.nests.reduce(0) { $0 + $1.rows.reduce(0) { $0 + $1.x } } }
    self.names = names
    self.reads = reads
    for i in reads.indices { add(i) }
    arm()
  }

  func add(_ i: Int) {
    views.append(AdvView(names[i], reads[i]))
    readerOf.append(i)
  }

  func arm() {
    tracked = reads.map { read in
      let fired = AdvBox(false)
      let value = withTracking {
        read()
      } onChange: {
        fired.set(true)
      }
      return (value, fired)
    }
  }

  /// Stale readers (priority) and readers that ran more than once.
  func check(runsBefore: [Int]) -> (stale: [String], multi: [String]) {
    var stale: [String] = []
    var multi: [String] = []
    let now = reads.map { read in withoutTracking { read() } }
    for (v, view) in views.enumerated() {
      let r = readerOf[v]
      let midway = v >= reads.count ? " (created midway)" : ""
      if view.shown.value != now[r] {
        stale.append("Reaction \(names[r])\(midway) shows \(view.shown.value), state \(now[r])")
      }
      // A reaction created in the transaction runs once at creation, once more after it.
      if v < runsBefore.count, view.runs - runsBefore[v] > 1 {
        multi.append("\(names[r]) ran \(view.runs - runsBefore[v]) times")
      }
    }
    for i in reads.indices where !tracked[i].fired.value && tracked[i].value != now[i] {
      stale.append("withTracking \(names[i]) read \(tracked[i].value), state \(now[i]), onChange did not fire")
    }
    arm()
    return (stale, multi)
  }

  func cancel() { views.forEach { $0.reaction.cancel() } }
}

struct HuntOptions {
  var swaps = false
  var midwayReaders = false
  /// Few places, one id, values 0 and 1: set-backs on copies are frequent.
  var focused = false
}

enum HuntRun {
  /// Replays transactions on a fresh model; the first failure: (transaction index, messages).
  static func replay(_ txns: [[HuntOp]], multiRuns: Bool) -> (Int, [String])? {
    let m = HuntModel()
    let s = HuntStash()
    let readers = HuntReaders(m)
    defer { readers.cancel() }
    for (t, ops) in txns.enumerated() {
      let before = readers.views.map(\.runs)
      transaction { for op in ops { HuntAccess.apply(op, m, s, readers) } }
      let (stale, multi) = readers.check(runsBefore: before)
      let bad = multiRuns ? multi : stale
      if !bad.isEmpty { return (t, bad) }
    }
    return nil
  }

  /// Shrinks a failing sequence: drops transactions, then operations, while it still fails.
  static func shrink(_ txns: [[HuntOp]], multiRuns: Bool) -> [[HuntOp]] {
    var current = txns
    if let (t, _) = replay(current, multiRuns: multiRuns) { current = Array(current.prefix(t + 1)) }
    var changed = true
    while changed {
      changed = false
      // pairs of transactions first (a swap and the swap back), then single ones
      for width in [2, 1] {
        var t = 0
        while t + width <= current.count {
          var candidate = current
          candidate.removeSubrange(t..<(t + width))
          if replay(candidate, multiRuns: multiRuns) != nil {
            current = candidate
            changed = true
          } else {
            t += 1
          }
        }
      }
      for t in current.indices {
        var o = 0
        while o < current[t].count {
          var candidate = current
          candidate[t].remove(at: o)
          if replay(candidate, multiRuns: multiRuns) != nil {
            current = candidate
            changed = true
          } else {
            o += 1
          }
        }
      }
      // merge neighbouring transactions
      var t = 0
      while t + 1 < current.count {
        var candidate = current
        candidate[t] += candidate.remove(at: t + 1)
        if replay(candidate, multiRuns: multiRuns) != nil {
          current = candidate
          changed = true
        } else {
          t += 1
        }
      }
      current.removeAll { $0.isEmpty }
    }
    return current
  }

  static func describe(_ txns: [[HuntOp]]) -> String {
    txns.map { "transaction { " + $0.map(\.description).joined(separator: "; ") + " }" }.joined(separator: "\n")
  }

  static func randomOp(_ rng: inout AdvRNG, _ options: HuntOptions) -> HuntOp {
    if options.swaps && rng.next(2) == 0 {
      // focused on the identified arrays: snapshots, edits, swaps, restores
      let collections = [HuntLoc(.a), HuntLoc(.b), HuntLoc(.rows, 0), HuntLoc(.rows, 1)]
      let c = collections[rng.next(collections.count)]
      switch rng.next(8) {
      case 0: return .saveCollection(c)
      case 1, 2:
        return .write(
          c, id: 1 + rng.next(2), pos: rng.next(2) == 0, field: rng.next(2) == 0 ? .x : .z, value: rng.next(3))
      case 3: return .swapAB
      case 4: return .swapRows(0, 1)
      case 5: return .restoreCollection(stash: rng.next(4), to: c)
      default: return .restoreCollectionInout(stash: rng.next(4), to: c)
      }
    }
    let places =
      options.focused
      ? [
        HuntLoc(.a), HuntLoc(.b), HuntLoc(.slot), HuntLoc(.maybe), HuntLoc(.mode), HuntLoc(.plain), HuntLoc(.child, 0),
        HuntLoc(.rows, 1),
      ]
      : HuntLoc.all
    func place() -> HuntLoc {
      // top-level places and `nest` more often than the nests' rows
      let p = places[rng.next(places.count)]
      return rng.next(2) == 0 || options.focused ? HuntLoc(p.kind, options.focused ? p.nest : 0) : p
    }
    func id() -> Int { options.focused ? 1 : (rng.next(4) == 0 ? 2 + rng.next(2) : 1) }
    func field() -> HuntField {
      options.focused
        ? (rng.next(2) == 0 ? .x : .z) : HuntField(rawValue: rng.next(5) == 0 ? 1 : (rng.next(2) == 0 ? 0 : 2))!
    }
    func value() -> Int { options.focused ? rng.next(2) : rng.next(3) }
    switch rng.next(26) {
    case 0..<5: return .write(place(), id: id(), pos: rng.next(2) == 0, field: field(), value: value())
    case 5..<8: return .copy(from: place(), to: place(), id: id())
    case 8, 9: return .save(place(), id: id())
    case 10, 11: return .restore(stash: rng.next(8), to: place())
    case 12: return .restoreInout(stash: rng.next(8), to: place())
    case 13: return .replaceWith(stash: rng.next(8), to: place())
    case 14: return .stashWrite(stash: rng.next(8), field: field(), value: value())
    case 15: return .draft(from: place(), to: place(), id: id(), field: field(), value: value())
    case 16: return .remove(place(), id: id())
    case 17: return .move(place(), from: rng.next(4), to: rng.next(4))
    case 18: return rng.next(2) == 0 ? .saveCollection(place()) : .restoreCollection(stash: rng.next(4), to: place())
    case 19:
      return rng.next(2) == 0
        ? .saveNest(rng.next(3)) : .restoreNest(stash: rng.next(4), to: rng.next(3), viaInout: rng.next(2) == 0)
    case 20:
      guard options.swaps else { return .copy(from: place(), to: place(), id: id()) }
      switch rng.next(3) {
      case 0: return .swapAB
      case 1: return .swapRows(0, 1 + rng.next(2))
      default: return .restoreCollectionInout(stash: rng.next(4), to: place())
      }
    case 21: return rng.next(2) == 0 ? .flipMode : .moveNests
    case 22, 23:
      guard options.midwayReaders else { return .write(place(), id: id(), pos: false, field: field(), value: value()) }
      return .newReader(rng.next(1000))
    default: return .copyInner(from: place(), fromID: id(), to: place(), toID: id())
    }
  }

  static func randomSequence(seed: UInt64, transactions: Int, _ options: HuntOptions) -> [[HuntOp]] {
    var rng = AdvRNG(seed: seed)
    return (0..<transactions).map { _ in (0...rng.next(6)).map { _ in randomOp(&rng, options) } }
  }

  /// Runs `count` random sequences per seed; the first few failures, shrunk.
  static func hunt(seeds: [UInt64], count: Int, transactions: Int, _ options: HuntOptions, multiRuns: Bool) -> [String]
  {
    let count =
      ProcessInfo.processInfo.environment["OBSERVANT_HUNT_COUNT"].flatMap { Int($0) } ?? RandomTestBudget.scaled(count)
    var failures: [String] = []
    for seed in seeds {
      for k in 0..<count {
        let txns = randomSequence(seed: seed &* 1_000_003 &+ UInt64(k), transactions: transactions, options)
        if let (t, messages) = replay(txns, multiRuns: multiRuns) {
          let shrunk = shrink(Array(txns.prefix(t + 1)), multiRuns: multiRuns)
          let (_, minimal) = replay(shrunk, multiRuns: multiRuns) ?? (0, messages)
          failures.append("seed \(seed) k \(k): \(minimal.prefix(4))\n\(describe(shrunk))")
          if failures.count >= 3 { return failures }
        }
      }
    }
    return failures
  }
}

@Suite("Place hunt")
struct PlaceHuntTests {
  // MARK: Randomized

  static let seeds: [UInt64] = [1, 2, 3, 0xDEAD_BEEF, 0x1234_5678_9ABC, 42, 777, 31337]

  @Test("random sequences of copies across places: no reader is stale after any transaction")
  func randomStale() {
    let failures = HuntRun.hunt(seeds: Self.seeds, count: 8, transactions: 20, HuntOptions(), multiRuns: false)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n---\n"))")
  }

  // Found stale before the fix (7ad7007 for identified arrays replaced through inout, the next commit for values arriving): identified arrays swapped (swap(&a, &b)) or restored through inout (self = saved)
  // leave the readers of their elements' fields stale (see the targeted tests).
  @Test("random sequences with swaps of identified arrays and inout restores: no reader is stale after any transaction")
  func randomStaleSwaps() {
    let failures = HuntRun.hunt(
      seeds: Self.seeds, count: 8, transactions: 20, HuntOptions(swaps: true), multiRuns: false)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n---\n"))")
  }

  @Test("random focused sequences (few places, one id, values 0 and 1, midway readers): no reader is stale")
  func randomStaleFocused() {
    let failures = HuntRun.hunt(
      seeds: Self.seeds, count: 8, transactions: 20, HuntOptions(midwayReaders: true, focused: true), multiRuns: false)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n---\n"))")
  }

  @Test("random sequences with reactions created midway in transactions: no reader is stale")
  func randomStaleMidwayReaders() {
    let failures = HuntRun.hunt(
      seeds: Self.seeds, count: 8, transactions: 20, HuntOptions(midwayReaders: true), multiRuns: false)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n---\n"))")
  }

  @Test("random sequences of copies across places: no reaction runs twice in one transaction")
  func randomRunsOnce() {
    let failures = HuntRun.hunt(seeds: Self.seeds, count: 8, transactions: 20, HuntOptions(), multiRuns: true)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n---\n"))")
  }
}

// MARK: - Targeted cases

extension IdentifiedArray {
  /// `self = other` through inout, as a `mutating` undo helper would do it.
  mutating func huntRestore(_ other: Self) { self = other }
}

extension Array {
  mutating func huntRestore(_ other: Self) { self = other }
}

/// A reader over a closure, and the closure, to compare what it shows with the state.
struct HuntProbe {
  let name: String
  let read: () -> Int
  let view: AdvView
  init(_ name: String, _ read: @escaping () -> Int) {
    self.name = name
    self.read = read
    view = AdvView(name, read)
  }
  var current: Int { withoutTracking { read() } }
}

/// Every probe shows the current state.
func expectCurrent(_ probes: [HuntProbe], sourceLocation: SourceLocation = #_sourceLocation) {
  for p in probes {
    #expect(p.view.shown.value == p.current, "\(p.name) is stale", sourceLocation: sourceLocation)
  }
}

/// A variable nobody owns.
final class HuntBox: @unchecked Sendable {
  var item: AdvItem
  init(_ item: AdvItem) { self.item = item }
}

@Suite("Place hunt: targeted")
struct PlaceHuntTargetedTests {
  // MARK: identified arrays replaced through inout

  // Found stale before the fix (7ad7007 for identified arrays replaced through inout, the next commit for values arriving): swap(&a, &b) of two identified arrays that are copies of one array (same structure)
  // whose element 1 differs in y: neither a[1].y's nor b[1].y's readers re-run.
  @Test("swap(&a, &b) of two copies of one identified array whose element differs: both sides' readers show their side")
  func swapIdentifiedCopies() {
    let m = HuntModel()
    let ay = HuntProbe("a[1].y") { m.a[id: 1]?.y ?? -1 }
    let by = HuntProbe("b[1].y") { m.b[id: 1]?.y ?? -1 }
    transaction {
      m.b = m.a
      m.a[id: 1]!.y = 1
    }
    expectCurrent([ay, by])
    transaction { swap(&m.a, &m.b) }
    #expect(m.a[id: 1]!.y == 0 && m.b[id: 1]!.y == 1)
    expectCurrent([ay, by])
  }

  // Found stale before the fix (7ad7007 for identified arrays replaced through inout, the next commit for values arriving): `a.huntRestore(saved)` (self = saved in a mutating method of the identified array)
  // after an in-place edit of a[1].y: a[1].y's readers keep showing the edit.
  @Test(
    "an identified array restored from a snapshot through inout (self = saved): the element's readers show the snapshot"
  )
  func identifiedRestoredThroughInout() {
    let m = HuntModel()
    let ay = HuntProbe("a[1].y") { m.a[id: 1]?.y ?? -1 }
    let az = HuntProbe("a[1].inner.z") { m.a[id: 1]?.inner.z ?? -1 }
    let saved = m.a
    transaction {
      m.a[id: 1]!.y = 1
      m.a[id: 1]!.inner.z = 1
    }
    expectCurrent([ay, az])
    transaction { m.a.huntRestore(saved) }
    #expect(m.a[id: 1]!.y == 0)
    expectCurrent([ay, az])
  }

  // Found stale before the fix (7ad7007 for identified arrays replaced through inout, the next commit for values arriving): nest.rows (an identified array in a field of state) edited in one transaction and
  // restored through inout (self = saved) in the next: nest.rows[1].x's reader keeps showing 1.
  // (Edit and restore in the same transaction pass.)
  @Test(
    "nest.rows edited, then restored through inout, in the same and in the next transaction: readers show the restored value"
  )
  func nestedIdentifiedRestoredThroughInoutSameTransaction() {
    let m = HuntModel()
    m.nest.rows = [AdvItem(id: 1)]
    let x = HuntProbe("nest.rows[1].x") { m.nest.rows[id: 1]?.x ?? -1 }
    transaction { m.nest.rows[id: 1]!.x = 2 }
    let saved = m.nest.rows
    transaction {
      m.nest.rows[id: 1]!.x = 1
      m.nest.rows.huntRestore(saved)
    }
    #expect(m.nest.rows[id: 1]!.x == 2)
    expectCurrent([x])
    transaction {
      m.nest.rows[id: 1]!.x = 1
    }
    expectCurrent([x])
    transaction { m.nest.rows.huntRestore(saved) }
    expectCurrent([x])
  }

  // Found stale before the fix (7ad7007 for identified arrays replaced through inout, the next commit for values arriving): swap(&m.nest.rows, &m.nests[id: 1]!.rows), copies of one array whose row 1 differs in x:
  // neither side's row-1 reader re-runs.
  @Test("swap of nest.rows with a nest row's rows, copies of one array: both sides' readers show their side")
  func swapNestedIdentifiedCopies() {
    let m = HuntModel()
    m.nest.rows = [AdvItem(id: 1)]
    m.nests[id: 1]!.rows = m.nest.rows
    let p = HuntProbe("nest.rows[1].x") { m.nest.rows[id: 1]?.x ?? -1 }
    let q = HuntProbe("nests[1].rows[1].x") { m.nests[id: 1]?.rows[id: 1]?.x ?? -1 }
    m.nest.rows[id: 1]!.x = 3
    expectCurrent([p, q])
    transaction { swap(&m.nest.rows, &m.nests[id: 1]!.rows) }
    expectCurrent([p, q])
  }

  @Test("plain arrays and children swapped or restored through inout: readers show their side (control)")
  func inoutControlCases() {
    let m = HuntModel()
    m.plain = [AdvItem(id: 1)]
    m.nest.list = m.plain
    m.maybe = AdvItem(id: 1)
    m.nest.opt = m.maybe
    m.nest.child = m.slot
    let probes = [
      HuntProbe("plain[0].y") { m.plain.first?.y ?? -1 }, HuntProbe("list[0].y") { m.nest.list.first?.y ?? -1 },
      HuntProbe("slot.y") { m.slot.y }, HuntProbe("child.y") { m.nest.child.y },
      HuntProbe("maybe.y") { m.maybe?.y ?? -1 }, HuntProbe("opt.y") { m.nest.opt?.y ?? -1 },
    ]
    transaction {
      m.plain[0].y = 1
      m.slot.y = 1
      m.maybe!.y = 1
    }
    expectCurrent(probes)
    transaction {
      swap(&m.plain, &m.nest.list)
      swap(&m.slot, &m.nest.child)
      swap(&m.maybe, &m.nest.opt)
    }
    expectCurrent(probes)
    let saved = m.plain
    m.plain[0].y = 2
    transaction { m.plain.huntRestore(saved) }
    expectCurrent(probes)
  }

  // MARK: write orders across two places holding one lineage

  /// Two places, `p` and `q`, both holding copies of one value before the transaction.
  struct Pair {
    let name: String
    let setUp: (HuntModel) -> Void
    let p: (HuntModel) -> AdvItem?
    let q: (HuntModel) -> AdvItem?
    let writeP: (HuntModel, Int) -> Void
    let writeQ: (HuntModel, Int) -> Void
    let copyPToQ: (HuntModel) -> Void
  }

  nonisolated(unsafe) static let pairs: [Pair] = [
    Pair(
      name: "slot / nest.child", setUp: { $0.nest.child = $0.slot }, p: { $0.slot }, q: { $0.nest.child },
      writeP: { $0.slot.x = $1 }, writeQ: { $0.nest.child.x = $1 }, copyPToQ: { $0.nest.child = $0.slot }),
    Pair(
      name: "a[id: 1] / b[id: 1]", setUp: { $0.b = [$0.a[id: 1]!] }, p: { $0.a[id: 1] }, q: { $0.b[id: 1] },
      writeP: { $0.a[id: 1]!.x = $1 }, writeQ: { $0.b[id: 1]!.x = $1 }, copyPToQ: { $0.b[id: 1] = $0.a[id: 1]! }),
    Pair(
      name: "a[0] / b[0] (by position)", setUp: { $0.b = $0.a }, p: { $0.a.first }, q: { $0.b.first },
      writeP: { $0.a[0].x = $1 }, writeQ: { $0.b[0].x = $1 }, copyPToQ: { $0.b[0] = $0.a[0] }),
    Pair(
      name: "plain[0] / nest.list[0]",
      setUp: {
        $0.plain = [$0.a[id: 1]!]; $0.nest.list = $0.plain
      },
      p: { $0.plain.first }, q: { $0.nest.list.first },
      writeP: { $0.plain[0].x = $1 }, writeQ: { $0.nest.list[0].x = $1 }, copyPToQ: { $0.nest.list[0] = $0.plain[0] }),
    Pair(
      name: "plain[0] / plain[1]", setUp: { $0.plain = [$0.slot, $0.slot] },
      p: { $0.plain.first }, q: { $0.plain.last },
      writeP: { $0.plain[0].x = $1 }, writeQ: { $0.plain[1].x = $1 }, copyPToQ: { $0.plain[1] = $0.plain[0] }),
    Pair(
      name: "dict[1] / maybe",
      setUp: {
        $0.dict = [1: $0.slot]; $0.maybe = $0.slot
      },
      p: { $0.dict[1] }, q: { $0.maybe },
      writeP: { $0.dict[1]!.x = $1 }, writeQ: { $0.maybe!.x = $1 }, copyPToQ: { $0.maybe = $0.dict[1] }),
    Pair(
      name: "mode payload / slot", setUp: { $0.mode = .edit($0.slot) },
      p: { $0.mode?.item }, q: { $0.slot },
      writeP: { m, v in
        var item = m.mode!.item
        item.x = v
        m.mode = .edit(item)
      },
      writeQ: { $0.slot.x = $1 }, copyPToQ: { $0.slot = $0.mode!.item }),
    Pair(
      name: "nests[id: 1].rows[id: 1] / nest.rows[id: 1] (nest is a copy of nests[id: 1])",
      setUp: { m in
        m.nests[id: 1]!.rows = [AdvItem(id: 1)]
        m.nest = m.nests[id: 1]!
      },
      p: { $0.nests[id: 1]?.rows[id: 1] }, q: { $0.nest.rows[id: 1] },
      writeP: { $0.nests[id: 1]!.rows[id: 1]!.x = $1 }, writeQ: { $0.nest.rows[id: 1]!.x = $1 },
      copyPToQ: { $0.nest.rows[id: 1] = $0.nests[id: 1]!.rows[id: 1]! }),
    Pair(
      name: "nests[id: 1].child / nest.child (nest is a copy of nests[id: 1])",
      setUp: { m in m.nest = m.nests[id: 1]! },
      p: { $0.nests[id: 1]?.child }, q: { $0.nest.child },
      writeP: { $0.nests[id: 1]!.child.x = $1 }, writeQ: { $0.nest.child.x = $1 },
      copyPToQ: { $0.nest.child = $0.nests[id: 1]!.child }),
    Pair(
      name: "slot.inner / other element's inner (a[id: 2].inner = slot.inner)",
      setUp: { $0.a[id: 2]!.inner = $0.slot.inner },
      p: { $0.slot }, q: { $0.a[id: 2] },
      writeP: { $0.slot.inner.z = $1 }, writeQ: { $0.a[id: 2]!.inner.z = $1 },
      copyPToQ: { $0.a[id: 2]!.inner = $0.slot.inner }),
  ]

  /// The write orders: each ends with `p` at 5 and `q` at whatever it was given last.
  nonisolated(unsafe) static let orders: [(String, (Pair, HuntModel) -> Void)] = [
    (
      "p=5; q=p; q=0",
      {
        $0.writeP($1, 5); $0.copyPToQ($1); $0.writeQ($1, 0)
      }
    ),
    (
      "q=5; p=5; q=0",
      {
        $0.writeQ($1, 5); $0.writeP($1, 5); $0.writeQ($1, 0)
      }
    ),
    (
      "p=5; q=5; q=0",
      {
        $0.writeP($1, 5); $0.writeQ($1, 5); $0.writeQ($1, 0)
      }
    ),
    (
      "p=5; q=7; q=0",
      {
        $0.writeP($1, 5); $0.writeQ($1, 7); $0.writeQ($1, 0)
      }
    ),
    (
      "p=5; q=p; p=6; q=0; p=5",
      {
        $0.writeP($1, 5); $0.copyPToQ($1); $0.writeP($1, 6); $0.writeQ($1, 0); $0.writeP($1, 5)
      }
    ),
    (
      "q=5; q=p (p at 0); p=5",
      {
        $0.writeQ($1, 5); $0.copyPToQ($1); $0.writeP($1, 5)
      }
    ),
    (
      "p=5; q=p; q=0; q=p",
      {
        $0.writeP($1, 5); $0.copyPToQ($1); $0.writeQ($1, 0); $0.copyPToQ($1)
      }
    ),
    (
      "p=5; q=p; p=0; p=5; q=0",
      {
        $0.writeP($1, 5); $0.copyPToQ($1); $0.writeP($1, 0); $0.writeP($1, 5); $0.writeQ($1, 0)
      }
    ),
  ]

  @Test(
    "one lineage in two places, written in several orders in one transaction: p's and q's readers show their place",
    arguments: 0..<pairs.count)
  func writeOrders(pair index: Int) {
    let pair = Self.pairs[index]
    for (orderName, order) in Self.orders {
      let m = HuntModel()
      pair.setUp(m)
      let pv = HuntProbe("p x") { pair.p(m)?.x ?? -1 }
      let qv = HuntProbe("q x") { pair.q(m)?.x ?? -1 }
      let pz = HuntProbe("p z") { pair.p(m)?.inner.z ?? -1 }
      let qz = HuntProbe("q z") { pair.q(m)?.inner.z ?? -1 }
      transaction { order(pair, m) }
      for probe in [pv, qv, pz, qz] {
        #expect(probe.view.shown.value == probe.current, "\(pair.name), \(orderName): \(probe.name) is stale")
      }
      // and the same order on `z` where the pair writes `inner.z`: covered by the inner pair.
    }
  }

  // MARK: a local draft or an unowned variable as the second place

  @Test("p changed, copied into a local draft, the draft set back in the same transaction: p's readers show p")
  func localDraftSetBack() {
    let m = HuntModel()
    m.b = [AdvItem(id: 1)]
    let probes = [
      HuntProbe("slot.x") { m.slot.x }, HuntProbe("a[1].x") { m.a[id: 1]!.x },
      HuntProbe("a[1].inner.z") { m.a[id: 1]!.inner.z }, HuntProbe("nest.child.x") { m.nest.child.x },
    ]
    transaction {
      m.slot.x = 5
      var d = m.slot
      d.x = 0
    }
    expectCurrent(probes)
    transaction {
      m.a[id: 1]!.x = 5
      var arr = m.a
      arr[id: 1]!.x = 0
      m.a[id: 1]!.inner.z = 5
      var d = m.a[id: 1]!
      d.inner.z = 0
    }
    expectCurrent(probes)
    transaction {
      var d = m.nest.child
      d.x = 5
      m.nest.child = d
      d.x = 0
    }
    expectCurrent(probes)
    #expect(m.slot.x == 5 && m.a[id: 1]!.x == 5 && m.a[id: 1]!.inner.z == 5 && m.nest.child.x == 5)
  }

  @Test("p changed, copied into an unowned variable with replace(with:), set back there: both readers show their value")
  func unownedReplaceWithSetBack() {
    let m = HuntModel()
    let box = HuntBox(m.slot)
    let slot = HuntProbe("slot.x") { m.slot.x }
    let boxed = HuntProbe("box.item.x") { box.item.x }
    transaction {
      m.slot.x = 5
      box.item.replace(with: m.slot)
      box.item.x = 0
    }
    expectCurrent([slot, boxed])
    transaction {
      box.item.x = 7
      m.slot.replace(with: box.item)
      m.slot.x = 5
      box.item.x = 5
    }
    expectCurrent([slot, boxed])
    transaction {
      m.a[id: 1]!.x = 3
      box.item.replace(with: m.a[id: 1]!)
      box.item.x = 0
      m.slot.replace(with: box.item)
    }
    let row = HuntProbe("a[1].x") { m.a[id: 1]!.x }
    expectCurrent([slot, boxed, row])
    #expect(m.slot.x == 0 && box.item.x == 0 && m.a[id: 1]!.x == 3)
  }

  // MARK: two copies written the same number of times, then one assigned over the other

  @Test("two copies each written once with different values, one assigned back over the other: readers show it")
  func sameWriteCountOnTwoCopies() {
    let m = HuntModel()
    m.b = m.a
    let probes = [
      HuntProbe("slot.x") { m.slot.x }, HuntProbe("a[1].x") { m.a[id: 1]!.x },
      HuntProbe("b[1].x") { m.b[id: 1]!.x }, HuntProbe("nest.child.x") { m.nest.child.x },
    ]
    // through the setter
    var d = m.slot
    m.slot.x = 5
    d.x = 7
    transaction { m.slot = d }
    expectCurrent(probes)
    // through inout (self = saved)
    var e = m.slot
    m.slot.x = 1
    e.x = 2
    transaction { m.slot.restore(e) }
    expectCurrent(probes)
    // an element of an identified array, through the setter and through inout
    var f = m.a[id: 1]!
    m.a[id: 1]!.x = 5
    f.x = 7
    transaction { m.a[id: 1] = f }
    expectCurrent(probes)
    var g = m.a[id: 1]!
    m.a[id: 1]!.x = 1
    g.x = 2
    transaction { m.a[id: 1]!.restore(g) }
    expectCurrent(probes)
    // the two arrays (copies of one array), each element written once, one assigned over the other
    m.b = m.a
    m.a[id: 1]!.x = 8
    m.b[id: 1]!.x = 9
    transaction { m.a = m.b }
    expectCurrent(probes)
    // a child, the value written in the same transaction as the assignment
    var h = m.nest.child
    transaction {
      m.nest.child.x = 4
      h.x = 6
      m.nest.child = h
    }
    expectCurrent(probes)
    #expect(m.slot.x == 2 && m.a[id: 1]!.x == 9 && m.nest.child.x == 6)
  }

  // MARK: reactions created midway

  @Test(
    "a reaction created midway reads the changed value; the value is set back before the end: it shows the set-back value"
  )
  func midwayReaderSetBack() {
    let m = HuntModel()
    m.b = [AdvItem(id: 1)]
    var probes: [HuntProbe] = []
    transaction {
      m.slot.x = 5
      probes.append(HuntProbe("slot.x (midway)") { m.slot.x })
      m.slot.x = 0
    }
    expectCurrent(probes)
    transaction {
      m.a[id: 1]!.x = 5
      m.b[id: 1] = m.a[id: 1]!
      probes.append(HuntProbe("b[1].x (midway)") { m.b[id: 1]!.x })
      m.b[id: 1]!.x = 0
    }
    expectCurrent(probes)
    let saved = m.nest
    transaction {
      m.nest.child.x = 5
      probes.append(HuntProbe("nest.child.x (midway)") { m.nest.child.x })
      m.nest = saved
    }
    expectCurrent(probes)
    transaction {
      m.nest.child.x = 5
      probes.append(HuntProbe("nest.child.x (midway, inout)") { m.nest.child.x })
      m.nest.restore(saved)
    }
    expectCurrent(probes)
    let savedRows = m.a
    transaction {
      m.a[id: 2]!.x = 5
      probes.append(HuntProbe("a[2].x (midway)") { m.a[id: 2]!.x })
      m.a = savedRows
    }
    expectCurrent(probes)
  }

  // MARK: whole-state undo through inout with nested collections

  @Test(
    "nest restored through inout (self = saved) after its rows' element was edited: the element's readers show the snapshot"
  )
  func nestRestoredThroughInout() {
    let m = HuntModel()
    m.nest.rows = [AdvItem(id: 1), AdvItem(id: 2)]
    m.nest.list = [AdvItem(id: 1)]
    let probes = [
      HuntProbe("nest.rows[1].x") { m.nest.rows[id: 1]?.x ?? -1 },
      HuntProbe("nest.rows[2].inner.z") { m.nest.rows[id: 2]?.inner.z ?? -1 },
      HuntProbe("nest.list[0].x") { m.nest.list.first?.x ?? -1 },
      HuntProbe("nest.child.x") { m.nest.child.x },
      HuntProbe("nest.rows.count") { m.nest.rows.count },
    ]
    let saved = m.nest
    m.nest.rows[id: 1]!.x = 1
    m.nest.rows[id: 2]!.inner.z = 1
    m.nest.list[0].x = 1
    m.nest.child.x = 1
    expectCurrent(probes)
    transaction { m.nest.restore(saved) }
    expectCurrent(probes)
    // rows restructured and an element edited, then the whole nest restored through inout
    m.nest.rows[id: 1]!.x = 2
    m.nest.rows.append(AdvItem(id: 3))
    expectCurrent(probes)
    transaction { m.nest.restore(saved) }
    expectCurrent(probes)
    // the nest row of `nests` restored through inout
    m.nests[id: 1]!.rows = [AdvItem(id: 1)]
    let savedRow = m.nests[id: 1]!
    let nested = HuntProbe("nests[1].rows[1].x") { m.nests[id: 1]?.rows[id: 1]?.x ?? -1 }
    m.nests[id: 1]!.rows[id: 1]!.x = 4
    expectCurrent([nested])
    transaction { m.nests[id: 1]!.restore(savedRow) }
    expectCurrent([nested])
  }
}
