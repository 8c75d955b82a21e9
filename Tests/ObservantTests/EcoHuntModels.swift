// swift-format-ignore-file
import Observant

// Fixtures for the ecosystem hunt (Derived, withTracking, TrackedValues, scheduled reactions, run
// causes) over value-type state whose copies come and go. Written against the documentation only.

struct EHDeep: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _w = StateField(0)
  var w: Int { get { registrar.read(_w) } set { registrar.write(&_w, newValue) } }
}

struct EHInner: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _z = StateField(0)
  var z: Int { get { registrar.read(_z) } set { registrar.write(&_z, newValue) } }
  private var _deep = StateField(EHDeep())
  var deep: EHDeep {
    get { registrar.read(_deep) } set { registrar.write(&_deep, newValue) }
    _modify { yield &self[tracking: \._deep] }
  }
}

struct EHRow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _x = StateField(0)
  var x: Int { get { registrar.read(_x) } set { registrar.write(&_x, newValue) } }
  private var _inner = StateField(EHInner())
  var inner: EHInner {
    get { registrar.read(_inner) } set { registrar.write(&_inner, newValue) }
    _modify { yield &self[tracking: \._inner] }
  }
  init(id: Int, x: Int = 0) {
    self.id = id
    _x = StateField(x)
  }
  /// field 0: x, 1: inner.z, 2: inner.deep.w
  mutating func ehSet(_ field: Int, _ value: Int) {
    switch field {
    case 0: x = value
    case 1: inner.z = value
    default: inner.deep.w = value
    }
  }
  func ehGet(_ field: Int) -> Int {
    switch field {
    case 0: x
    case 1: inner.z
    default: inner.deep.w
    }
  }
  mutating func ehRestore(_ saved: EHRow) { self = saved }
}

enum EHDest: IdentityComparable {
  case none
  case row(EHRow)
  case alt(EHRow)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.none, .none): true
    case let (.row(l), .row(r)): Observant.isIdentityEqual(l, r)
    case let (.alt(l), .alt(r)): Observant.isIdentityEqual(l, r)
    default: false
    }
  }
  var row: EHRow? { if case .row(let r) = self { r } else { nil } }
  var alt: EHRow? { if case .alt(let r) = self { r } else { nil } }
}

struct EHHolder: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField<IdentifiedArrayOf<EHRow>>([EHRow(id: 1), EHRow(id: 2)])
  var rows: IdentifiedArrayOf<EHRow> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _pick = StateField<EHRow?>(EHRow(id: 1))
  var pick: EHRow? {
    get { registrar.read(_pick) } set { registrar.write(&_pick, newValue) }
    _modify { yield &self[tracking: \._pick] }
  }
  private var _mode = StateField(EHDest.row(EHRow(id: 1)))
  var mode: EHDest { get { registrar.read(_mode) } set { registrar.write(&_mode, newValue) } }
  mutating func ehRestore(_ saved: EHHolder) { self = saved }
}

final class EHModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var rows: IdentifiedArrayOf<EHRow> = [EHRow(id: 1), EHRow(id: 2)]
  @Tracked var plain: [EHRow] = [EHRow(id: 1), EHRow(id: 2)]
  @Tracked var table: [Int: EHRow] = [1: EHRow(id: 1), 2: EHRow(id: 2)]
  @Tracked var maybe: EHRow? = EHRow(id: 1)
  @Tracked var slot = EHRow(id: 1)
  @Tracked var dest: EHDest = .row(EHRow(id: 1))
  @Tracked var holder = EHHolder()
  @Tracked var tick = 0
}

extension IdentifiedArray {
  mutating func ehRestore(_ saved: Self) { self = saved }
}

extension Optional {
  mutating func ehRestore(_ saved: Self) { self = saved }
}

extension Array {
  mutating func ehRestore(_ saved: Self) { self = saved }
}

extension Dictionary {
  mutating func ehRestore(_ saved: Self) { self = saved }
}

/// Places a row can be in. Places 3...6, 8, 9 hold one row whatever the id.
enum EHPlace: Int, CaseIterable, CustomStringConvertible {
  case rows, plain, table, maybe, slot, destRow, destAlt, holderRows, holderPick, holderMode

  var description: String {
    switch self {
    case .rows: "rows"
    case .plain: "plain"
    case .table: "table"
    case .maybe: "maybe"
    case .slot: "slot"
    case .destRow: "dest.row"
    case .destAlt: "dest.alt"
    case .holderRows: "holder.rows"
    case .holderPick: "holder.pick"
    case .holderMode: "holder.mode.row"
    }
  }
  var keyed: Bool { self == .rows || self == .plain || self == .table || self == .holderRows }

  func get(_ m: EHModel, _ id: Int) -> EHRow? {
    switch self {
    case .rows: m.rows[id: id]
    case .plain: m.plain.first { $0.id == id }
    case .table: m.table[id]
    case .maybe: m.maybe
    case .slot: m.slot
    case .destRow: m.dest.row
    case .destAlt: m.dest.alt
    case .holderRows: m.holder.rows[id: id]
    case .holderPick: m.holder.pick
    case .holderMode: m.holder.mode.row
    }
  }

  /// Stores `row` (or removes the row with `id` when nil).
  func set(_ m: EHModel, _ id: Int, _ row: EHRow?) {
    switch self {
    case .rows:
      if let row { if m.rows[id: row.id] != nil { m.rows[id: row.id] = row } else { m.rows.append(row) } }
      else { m.rows.remove(id: id) }
    case .plain:
      if let row {
        if let i = m.plain.firstIndex(where: { $0.id == row.id }) { m.plain[i] = row } else { m.plain.append(row) }
      } else { m.plain.removeAll { $0.id == id } }
    case .table: m.table[row?.id ?? id] = row
    case .maybe: m.maybe = row
    case .slot: if let row { m.slot = row }
    case .destRow: m.dest = row.map(EHDest.row) ?? .none
    case .destAlt: m.dest = row.map(EHDest.alt) ?? .none
    case .holderRows:
      if let row {
        if m.holder.rows[id: row.id] != nil { m.holder.rows[id: row.id] = row } else { m.holder.rows.append(row) }
      } else { m.holder.rows.remove(id: id) }
    case .holderPick: m.holder.pick = row
    case .holderMode: m.holder.mode = row.map(EHDest.row) ?? .none
    }
  }

  /// Writes one field in place (through the owner), where the place allows it.
  func write(_ m: EHModel, _ id: Int, _ field: Int, _ value: Int) {
    switch self {
    case .rows: m.rows[id: id]?.ehSet(field, value)
    case .plain: if let i = m.plain.firstIndex(where: { $0.id == id }) { m.plain[i].ehSet(field, value) }
    case .table: m.table[id]?.ehSet(field, value)
    case .maybe: m.maybe?.ehSet(field, value)
    case .slot: m.slot.ehSet(field, value)
    case .destRow: if case .row(var r) = m.dest { r.ehSet(field, value); m.dest = .row(r) }
    case .destAlt: if case .alt(var r) = m.dest { r.ehSet(field, value); m.dest = .alt(r) }
    case .holderRows: m.holder.rows[id: id]?.ehSet(field, value)
    case .holderPick: m.holder.pick?.ehSet(field, value)
    case .holderMode: if case .row(var r) = m.holder.mode { r.ehSet(field, value); m.holder.mode = .row(r) }
    }
  }

  /// Replaces the row through inout (`self = saved` in a mutating method), where the place allows it.
  func restoreInout(_ m: EHModel, _ row: EHRow) {
    switch self {
    case .rows: m.rows[id: row.id]?.ehRestore(row)
    case .plain: if let i = m.plain.firstIndex(where: { $0.id == row.id }) { m.plain[i].ehRestore(row) }
    case .table: m.table[row.id]?.ehRestore(row)
    case .maybe: m.maybe.ehRestore(row)
    case .slot: m.slot.ehRestore(row)
    case .holderRows: m.holder.rows[id: row.id]?.ehRestore(row)
    case .holderPick: m.holder.pick.ehRestore(row)
    case .destRow, .destAlt, .holderMode: set(m, row.id, row)
    }
  }
}

/// A path a reader reads: a place, an id (for keyed places) and a field.
struct EHPath: CustomStringConvertible {
  let place: EHPlace
  let id: Int
  let field: Int
  var description: String {
    let f = ["x", "inner.z", "inner.deep.w"][field]
    return place.keyed ? "\(place)[\(id)].\(f)" : "\(place).\(f)"
  }
  func read(_ m: EHModel) -> Int { place.get(m, id)?.ehGet(field) ?? -1 }

  static var all: [EHPath] {
    var paths: [EHPath] = []
    for place in EHPlace.allCases {
      for id in place.keyed ? [1, 2] : [1] {
        for field in 0..<3 { paths.append(EHPath(place: place, id: id, field: field)) }
      }
    }
    return paths
  }
}

/// Containers saved and restored whole.
enum EHContainer: Int, CaseIterable, CustomStringConvertible {
  case rows, plain, table, holder, holderRows, dest
  var description: String { ["rows", "plain", "table", "holder", "holder.rows", "dest"][rawValue] }
}

enum EHSaved {
  case rows(IdentifiedArrayOf<EHRow>)
  case plain([EHRow])
  case table([Int: EHRow])
  case holder(EHHolder)
  case holderRows(IdentifiedArrayOf<EHRow>)
  case dest(EHDest)
}

/// One step of a random run. Pool indices are taken modulo the pool's size, so that a shrunk
/// sequence stays replayable.
indirect enum EHOp: CustomStringConvertible {
  case write(EHPlace, id: Int, field: Int, value: Int)
  case saveRow(EHPlace, id: Int)
  case putRow(EHPlace, pool: Int)
  case putRowInout(EHPlace, pool: Int)
  case putNew(EHPlace, id: Int, x: Int)
  case remove(EHPlace, id: Int)
  case draft(EHPlace, id: Int, field: Int, value: Int)
  case copyMutateAssign(EHPlace, id: Int, field: Int, value: Int)
  case move(from: EHPlace, to: EHPlace, id: Int)
  case saveContainer(EHContainer)
  case restoreContainer(EHContainer, pool: Int, viaInout: Bool)
  case swapCase
  case txn([EHOp])

  var description: String {
    switch self {
    case let .write(p, id, f, v): return "write \(EHPath(place: p, id: id, field: f)) = \(v)"
    case let .saveRow(p, id): return "saveRow \(p)[\(id)]"
    case let .putRow(p, i): return "putRow savedRows[\(i)] -> \(p)"
    case let .putRowInout(p, i): return "putRowInout savedRows[\(i)] -> \(p) (self = saved)"
    case let .putNew(p, id, x): return "putNew \(p) = EHRow(id: \(id), x: \(x))"
    case let .remove(p, id): return "remove \(p)[\(id)]"
    case let .draft(p, id, f, v): return "draft copy of \(p)[\(id)], copy.\(EHPath(place: p, id: id, field: f)) = \(v), kept in savedRows"
    case let .copyMutateAssign(p, id, f, v): return "copy-mutate-assign \(EHPath(place: p, id: id, field: f)) = \(v)"
    case let .move(from, to, id): return "move row \(id) from \(from) to \(to)"
    case let .saveContainer(c): return "saveContainer \(c)"
    case let .restoreContainer(c, i, io): return "restoreContainer \(c) from saved[\(i)]\(io ? " (inout)" : "")"
    case .swapCase: return "swap dest case .row <-> .alt"
    case let .txn(ops): return "transaction { " + ops.map(\.description).joined(separator: "; ") + " }"
    }
  }
}

final class EHWorld {
  let m = EHModel()
  var savedRows: [EHRow] = []
  var savedContainers: [EHContainer: [EHSaved]] = [:]

  func apply(_ op: EHOp) {
    switch op {
    case let .write(p, id, f, v): p.write(m, id, f, v)
    case let .saveRow(p, id): if let r = p.get(m, id) { savedRows.append(r) }
    case let .putRow(p, i):
      guard !savedRows.isEmpty else { return }
      let r = savedRows[i % savedRows.count]
      p.set(m, r.id, r)
    case let .putRowInout(p, i):
      guard !savedRows.isEmpty else { return }
      p.restoreInout(m, savedRows[i % savedRows.count])
    case let .putNew(p, id, x): p.set(m, id, EHRow(id: id, x: x))
    case let .remove(p, id): p.set(m, id, nil)
    case let .draft(p, id, f, v):
      guard var copy = p.get(m, id) else { return }
      copy.ehSet(f, v)
      savedRows.append(copy)
    case let .copyMutateAssign(p, id, f, v):
      guard var copy = p.get(m, id) else { return }
      copy.ehSet(f, v)
      p.set(m, id, copy)
    case let .move(from, to, id):
      guard let r = from.get(m, id) else { return }
      from.set(m, id, nil)
      to.set(m, r.id, r)
    case let .saveContainer(c):
      let s: EHSaved =
        switch c {
        case .rows: .rows(m.rows)
        case .plain: .plain(m.plain)
        case .table: .table(m.table)
        case .holder: .holder(m.holder)
        case .holderRows: .holderRows(m.holder.rows)
        case .dest: .dest(m.dest)
        }
      savedContainers[c, default: []].append(s)
    case let .restoreContainer(c, i, io):
      guard let pool = savedContainers[c], !pool.isEmpty else { return }
      switch pool[i % pool.count] {
      case .rows(let v): if io { m.rows.ehRestore(v) } else { m.rows = v }
      case .plain(let v): if io { m.plain.ehRestore(v) } else { m.plain = v }
      case .table(let v): if io { m.table.ehRestore(v) } else { m.table = v }
      case .holder(let v): if io { m.holder.ehRestore(v) } else { m.holder = v }
      case .holderRows(let v): if io { m.holder.rows.ehRestore(v) } else { m.holder.rows = v }
      case .dest(let v): m.dest = v
      }
    case .swapCase:
      switch m.dest {
      case .row(let r): m.dest = .alt(r)
      case .alt(let r): m.dest = .row(r)
      case .none: break
      }
    case .txn(let ops): transaction { for o in ops { apply(o) } }
    }
  }
}

struct EHRandom {
  var state: UInt64
  init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
  mutating func place() -> EHPlace { EHPlace.allCases[int(EHPlace.allCases.count)] }

  mutating func op(depth: Int = 0) -> EHOp {
    let roll = int(10)
    let id = roll < 6 ? 1 : (roll < 9 ? 2 : 3)
    switch int(depth == 0 ? 20 : 19) {
    case 0, 1, 2, 3, 4: return .write(place(), id: id, field: int(3), value: 1 + int(3))
    case 5, 6: return .saveRow(place(), id: id)
    case 7, 8: return .putRow(place(), pool: int(8))
    case 9: return .putRowInout(place(), pool: int(8))
    case 10: return .putNew(place(), id: id, x: int(3))
    case 11: return .remove(place(), id: id)
    case 12: return .draft(place(), id: id, field: int(3), value: 1 + int(3))
    case 13: return .copyMutateAssign(place(), id: id, field: int(3), value: 1 + int(3))
    case 14: return .move(from: place(), to: place(), id: id)
    case 15: return .saveContainer(EHContainer.allCases[int(6)])
    case 16: return .restoreContainer(EHContainer.allCases[int(6)], pool: int(4), viaInout: int(2) == 0)
    case 17: return .swapCase
    case 18: return .write(place(), id: id, field: int(3), value: 0)
    default: return .txn((0..<(2 + int(3))).map { _ in op(depth: 1) })
    }
  }
}

/// Shrinks a failing sequence: drops steps (and steps inside transactions) while it still fails.
func ehShrink(_ ops: [EHOp], fails: ([EHOp]) -> String?) -> [EHOp] {
  var current = ops
  var changed = true
  while changed {
    changed = false
    var i = 0
    while i < current.count {
      var candidate = current
      candidate.remove(at: i)
      if fails(candidate) != nil {
        current = candidate
        changed = true
        continue
      }
      if case .txn(let inner) = current[i] {
        // Try unwrapping the transaction, then dropping steps inside it.
        var unwrapped = current
        unwrapped.replaceSubrange(i...i, with: inner)
        if fails(unwrapped) != nil {
          current = unwrapped
          changed = true
          continue
        }
        var j = 0
        var innerOps = inner
        while j < innerOps.count {
          var smaller = innerOps
          smaller.remove(at: j)
          var cand = current
          cand[i] = .txn(smaller)
          if fails(cand) != nil {
            innerOps = smaller
            current = cand
            changed = true
          } else {
            j += 1
          }
        }
      }
      i += 1
    }
  }
  return current
}
