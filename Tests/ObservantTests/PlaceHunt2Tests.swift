// swift-format-ignore-file
import Foundation
import Observant
import ObservantTestSupport
import Testing

// Place hunt 2: derived values, TrackedValues and withTracking over copied / restored state;
// optionals set to nil and given back an older copy; enum payloads; dictionaries holding copies of
// one state under several keys; two levels of identified arrays with copies moved between levels;
// `self = other` (another identity) in mutating methods, then back. Every reader must show the
// current state after each transaction. Written against the documentation only.

/// A derived value read by a reaction: both what the reaction shows and the derived value itself
/// must be current.
final class Hunt2Derived {
  let name: String
  let read: () -> Int
  let derived: Derived<Int>
  let view: AdvView
  init(_ name: String, _ read: @escaping () -> Int) {
    self.name = name
    self.read = read
    let d = Derived(name) { read() }
    derived = d
    view = AdvView("reader of \(name)") { d.value }
  }
  var current: Int { withoutTracking { read() } }
}

/// A withTracking scope: what it read, and whether onChange fired.
final class Hunt2Tracking {
  let name: String
  let read: () -> Int
  var value = 0
  var fired = AdvBox(false)
  init(_ name: String, _ read: @escaping () -> Int) {
    self.name = name
    self.read = read
    arm()
  }
  func arm() {
    let f = AdvBox(false)
    fired = f
    value = withTracking { read() } onChange: { f.set(true) }
  }
  var current: Int { withoutTracking { read() } }
}

/// Every reader kind over one list of closures.
final class Hunt2Readers {
  var probes: [HuntProbe] = []
  var deriveds: [Hunt2Derived] = []
  var trackings: [Hunt2Tracking] = []
  init(_ reads: [(String, () -> Int)]) {
    for (name, read) in reads {
      probes.append(HuntProbe(name, read))
      deriveds.append(Hunt2Derived(name, read))
      trackings.append(Hunt2Tracking(name, read))
    }
  }
  /// Stale readers, then re-arms the tracking scopes.
  func stale() -> [String] {
    var out: [String] = []
    for p in probes where p.view.shown.value != p.current {
      out.append("Reaction \(p.name) shows \(p.view.shown.value), state \(p.current)")
    }
    for d in deriveds {
      if d.view.shown.value != d.current {
        out.append("reader of Derived \(d.name) shows \(d.view.shown.value), state \(d.current)")
      }
      let v = withoutTracking { d.derived.value }
      if v != d.current { out.append("Derived \(d.name).value is \(v), state \(d.current)") }
    }
    for t in trackings {
      if !t.fired.value && t.value != t.current {
        out.append("withTracking \(t.name) read \(t.value), state \(t.current), onChange did not fire")
      }
      t.arm()
    }
    return out
  }
  func runs() -> [Int] { probes.map(\.view.runs) + deriveds.map(\.view.runs) }
  func multi(since before: [Int]) -> [String] {
    let now = runs()
    let names = probes.map(\.name) + deriveds.map { "reader of Derived \($0.name)" }
    return zip(names, zip(before, now)).compactMap { n, r in r.1 - r.0 > 1 ? "\(n) ran \(r.1 - r.0) times" : nil }
  }
  func cancel() {
    probes.forEach { $0.view.reaction.cancel() }
    deriveds.forEach { $0.view.reaction.cancel() }
  }
}

/// The readers of a `HuntModel` used by this file.
func hunt2Reads(_ m: HuntModel) -> [(String, () -> Int)] {
  var r: [(String, () -> Int)] = [
    ("slot.x", { m.slot.x }), ("slot.inner.z", { m.slot.inner.z }), ("slot.id", { m.slot.id }),
    ("maybe?.x", { m.maybe?.x ?? -1 }), ("maybe?.inner.z", { m.maybe?.inner.z ?? -1 }),
    ("mode item.x", { m.mode?.item.x ?? -1 }), ("mode is edit", { if case .edit = m.mode { 1 } else { 0 } }),
    ("nest.child.x", { m.nest.child.x }), ("nest.opt?.x", { m.nest.opt?.x ?? -1 }),
    ("nest.rows.count", { m.nest.rows.count }),
    ("nests.count", { m.nests.count }),
    ("sum nests.rows.x", { m.nests.reduce(0) { $0 + $1.rows.reduce(0) { $0 + $1.x } } }),
    ("sum a.x", { m.a.reduce(0) { $0 + $1.x } }),
  ]
  for k in 1...3 {
    r.append(("dict[\(k)]?.x", { m.dict[k]?.x ?? -1 }))
    r.append(("dict[\(k)]?.inner.z", { m.dict[k]?.inner.z ?? -1 }))
    r.append(("a[\(k)]?.x", { m.a[id: k]?.x ?? -1 }))
    r.append(("a[\(k)]?.inner.z", { m.a[id: k]?.inner.z ?? -1 }))
    r.append(("nest.rows[\(k)]?.x", { m.nest.rows[id: k]?.x ?? -1 }))
    for n in 1...2 {
      r.append(("nests[\(n)]?.rows[\(k)]?.x", { m.nests[id: n]?.rows[id: k]?.x ?? -1 }))
      r.append(("nests[\(n)]?.rows[\(k)]?.inner.z", { m.nests[id: n]?.rows[id: k]?.inner.z ?? -1 }))
    }
  }
  for n in 1...2 {
    r.append(("nests[\(n)]?.child.x", { m.nests[id: n]?.child.x ?? -1 }))
    r.append(("nests[\(n)]?.rows.count", { m.nests[id: n]?.rows.count ?? -1 }))
  }
  return r
}

extension HuntNest {
  mutating func become(_ other: HuntNest) { self = other }
}
extension AdvItem {
  mutating func become(_ other: AdvItem) { self = other }
}
extension Optional {
  mutating func hunt2Restore(_ other: Self) { self = other }
}

@Suite("Place hunt 2")
struct PlaceHunt2Tests {
  private func check(_ r: Hunt2Readers, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let s = r.stale()
    #expect(s.isEmpty, "\(what): \(s)", sourceLocation: sourceLocation)
  }

  @Test("maybe = nil, then an older copy back: every reader (reaction, derived, withTracking) current")
  func optionalNilThenOlderCopy() {
    let m = HuntModel()
    m.maybe = AdvItem(id: 1)
    let r = Hunt2Readers(hunt2Reads(m))
    let saved = m.maybe
    m.maybe!.x = 3
    m.maybe!.inner.z = 3
    check(r, "maybe edited")
    m.maybe = nil
    check(r, "maybe = nil")
    m.maybe = saved
    check(r, "maybe = saved (older copy, separate transaction)")
    m.maybe!.x = 4
    check(r, "edited again")
    transaction {
      m.maybe = nil
      m.maybe = saved
    }
    check(r, "nil then saved in one transaction")
    m.maybe!.inner.z = 4
    transaction { m.maybe.hunt2Restore(nil); m.maybe.hunt2Restore(saved) }
    check(r, "nil then saved through inout")
    m.maybe!.x = 7
    transaction { m.maybe = AdvItem(id: 1); m.maybe = saved }
    check(r, "new value then saved")
    r.cancel()
  }

  @Test("enum payload: mode changed case and payload, then an older payload copy back: readers current")
  func enumPayloadOlderCopy() {
    let m = HuntModel()
    m.mode = .edit(AdvItem(id: 1))
    let r = Hunt2Readers(hunt2Reads(m))
    let saved = m.mode!.item
    var item = saved
    item.x = 5
    m.mode = .edit(item)
    check(r, "payload edited")
    m.mode = .view(item)
    check(r, "case flipped")
    m.mode = .edit(saved)
    check(r, "older payload back in edit")
    transaction {
      var i = m.mode!.item
      i.x = 9
      m.mode = .view(i)
      m.mode = nil
      m.mode = .edit(saved)
    }
    check(r, "one transaction: view(edited), nil, edit(saved)")
    transaction {
      m.mode = .edit(AdvItem(id: 1, x: 3))
      m.slot = m.mode!.item
      m.mode = .edit(saved)
    }
    check(r, "payload new value, copied into slot, older back")
    r.cancel()
  }

  @Test("dictionary with copies of one state under several keys: each key's readers show that key")
  func dictionarySeveralKeys() {
    let m = HuntModel()
    m.dict = [1: m.slot, 2: m.slot, 3: m.slot]
    let r = Hunt2Readers(hunt2Reads(m))
    m.dict[1]!.x = 5
    check(r, "dict[1].x = 5")
    m.dict[2] = m.dict[1]
    check(r, "dict[2] = dict[1]")
    transaction {
      m.dict[3]!.x = 5
      m.dict[3]!.x = 0
      m.dict[1]!.inner.z = 2
    }
    check(r, "dict[3] set and set back; dict[1].z = 2")
    transaction {
      let saved = m.dict
      m.dict[1]!.x = 1
      m.dict[2]!.x = 1
      m.dict = saved
      m.dict[2]!.x = 7
    }
    check(r, "saved dict restored, then key 2 written")
    transaction {
      m.dict[1] = nil
      m.slot.x = 8
      m.dict[1] = m.slot
      m.dict[3] = m.slot
    }
    check(r, "key removed, slot copy under two keys")
    transaction { m.slot.x = 0 }
    check(r, "slot written")
    transaction {
      let one = m.dict[1]!
      m.dict[1] = m.dict[2]
      m.dict[2] = one
    }
    check(r, "keys 1 and 2 exchanged")
    r.cancel()
  }

  @Test("two levels: a row moved from nests[1].rows to nest.rows, to a and back, an older copy re-inserted: readers current")
  func twoLevelMoves() {
    let m = HuntModel()
    m.nests[id: 1]!.rows = [AdvItem(id: 1), AdvItem(id: 2)]
    m.nests[id: 2]!.rows = [AdvItem(id: 3)]
    m.nest.rows = []
    let r = Hunt2Readers(hunt2Reads(m))
    let savedRow = m.nests[id: 1]!.rows[id: 1]!
    m.nests[id: 1]!.rows[id: 1]!.x = 4
    check(r, "nested row edited")
    transaction {
      let row = m.nests[id: 1]!.rows.remove(id: 1)!
      m.nests[id: 2]!.rows.append(row)
    }
    check(r, "row 1 moved from nests[1] to nests[2]")
    transaction {
      m.nests[id: 2]!.rows[id: 1]!.x = 6
      m.nest.rows.append(m.nests[id: 2]!.rows[id: 1]!)
      m.nests[id: 2]!.rows.remove(id: 1)
    }
    check(r, "edited, moved up to nest.rows")
    transaction {
      m.nests[id: 1]!.rows.insert(savedRow, at: 0)
    }
    check(r, "older copy inserted back into nests[1]")
    transaction {
      m.a.remove(id: 1)
      m.a.append(m.nest.rows[id: 1]!)
      m.nest.rows.remove(id: 1)
      m.a[id: 1]!.inner.z = 2
    }
    check(r, "moved to a (top level), edited")
    transaction {
      m.nests[id: 1]!.rows[id: 1] = m.a[id: 1]!
      m.a[id: 1] = savedRow
    }
    check(r, "a's row copied into nests[1], older copy into a")
    let savedNests = m.nests
    transaction {
      m.nests[id: 1]!.rows[id: 2]!.x = 3
      m.nests.move(fromOffsets: [0], toOffset: 2)
      m.nests[id: 2]!.rows.append(m.nests[id: 1]!.rows[id: 2]!)
    }
    check(r, "nests moved, row 2 copied across nests")
    transaction { m.nests = savedNests }
    check(r, "nests restored from snapshot")
    transaction { swap(&m.nests[id: 1]!.rows, &m.nest.rows) }
    check(r, "swap nests[1].rows with nest.rows")
    r.cancel()
  }

  @Test("self = other (another identity) in a mutating method, then back: readers current")
  func selfBecomesOtherAndBack() {
    let m = HuntModel()
    m.nests[id: 1]!.rows = [AdvItem(id: 1)]
    m.maybe = AdvItem(id: 1)
    let r = Hunt2Readers(hunt2Reads(m))
    let savedSlot = m.slot
    let savedRow = m.a[id: 1]!
    let savedNest = m.nests[id: 1]!
    let savedMaybe = m.maybe!
    transaction {
      m.slot.become(AdvItem(id: 1, x: 5))
      m.a[id: 1]!.become(AdvItem(id: 1, x: 5))
      m.nests[id: 1]!.become(HuntNest(id: 1))
      m.maybe!.become(AdvItem(id: 1, x: 5))
    }
    check(r, "became new values")
    transaction {
      m.slot.become(savedSlot)
      m.a[id: 1]!.become(savedRow)
      m.nests[id: 1]!.become(savedNest)
      m.maybe!.become(savedMaybe)
    }
    check(r, "became the saved values")
    transaction {
      m.slot.x = 2
      m.slot.become(AdvItem(id: 1, x: 2))
      m.slot.become(savedSlot)
    }
    check(r, "edited, new, saved in one transaction")
    transaction {
      m.nests[id: 1]!.rows[id: 1]!.x = 9
      m.nests[id: 1]!.become(HuntNest(id: 1))
      m.nests[id: 1]!.rows = [AdvItem(id: 1, x: 9)]
      m.nests[id: 1]!.become(savedNest)
    }
    check(r, "nest edited, new, rebuilt, saved in one transaction")
    transaction {
      m.slot.become(m.a[id: 2]!)
      m.slot.x = 3
    }
    check(r, "slot became another row's copy (id 2), edited")
    transaction { m.slot.become(savedSlot) }
    check(r, "slot back")
    r.cancel()
  }

  @Test("a derived value over a row restored from a snapshot after a structural change: readers current")
  func derivedOverRestoredRows() {
    let m = HuntModel()
    let r = Hunt2Readers(hunt2Reads(m))
    let saved = m.a
    transaction {
      m.a[id: 1]!.x = 2
      m.a.remove(id: 3)
    }
    check(r, "edited and removed")
    m.a = saved
    check(r, "restored")
    transaction {
      m.a[id: 2]!.x = 1
      _ = withoutTracking { r.deriveds.map { $0.derived.value } }  // read midway
      m.a = saved
      m.a[id: 2]!.x = 1
    }
    check(r, "edit, read derived midway, restore, edit again")
    transaction {
      m.a.remove(id: 2)
      m.a.append(saved[id: 2]!)
      m.a[id: 2]!.inner.z = 1
    }
    check(r, "removed, older copy appended, edited")
    r.cancel()
  }

  @Test("harness sanity: a plain assignment to an unowned variable (documented as unseen) is reported stale")
  func harnessSanity() {
    let box = HuntBox(AdvItem(id: 1))
    let r = Hunt2Readers([("box.item.x", { box.item.x })])
    transaction { box.item = AdvItem(id: 1, x: 5) }
    let s = r.stale()
    #expect(s.contains { $0.hasPrefix("Reaction") } && s.contains { $0.hasPrefix("withTracking") })
    r.cancel()
  }

  // MARK: randomized

  enum Op: CustomStringConvertible {
    case write(Int, Int, Int)              // place, id, value  (x, or z when value is odd... see apply)
    case save(Int, Int)
    case restore(Int, Int)                 // stash, place
    case become(Int, Int)                  // stash, place (self = saved)
    case fresh(Int, Int)                   // place, id: a new value
    case remove(Int, Int)
    case nilMaybe
    case flipMode
    case saveWhole
    case restoreWhole(Int)
    case moveNests
    case becomeNest(Int)                   // nest id: self = HuntNest(id:) or a saved nest
    case readDerived                       // every derived value read midway, outside tracking
    case swapLevels                        // swap(&nest.rows, &nests[1].rows)
    var description: String {
      switch self {
      case let .write(p, id, v): "write \(Self.placeName(p))[\(id)] \(v % 2 == 0 ? "x" : "z")=\(v)"
      case let .save(p, id): "stash += \(Self.placeName(p))[\(id)]"
      case let .restore(s, p): "\(Self.placeName(p))[..] = stash[\(s)]"
      case let .become(s, p): "\(Self.placeName(p))[..].become(stash[\(s)])"
      case let .fresh(p, id): "\(Self.placeName(p))[\(id)] = AdvItem(id: \(id))"
      case let .remove(p, id): "remove \(Self.placeName(p))[\(id)]"
      case .nilMaybe: "maybe = nil"
      case .flipMode: "mode flipped"
      case .saveWhole: "wholes += (a, nests, dict, maybe)"
      case let .restoreWhole(s): "(a, nests, dict, maybe) = wholes[\(s)]"
      case .moveNests: "nests.move(0 -> end)"
      case .readDerived: "derived values read midway"
      case .swapLevels: "swap(&nest.rows, &nests[1].rows)"
      case let .becomeNest(n): "nests[\(n)].become(new, or the nest saved by the previous become)"
      }
    }
    static func placeName(_ p: Int) -> String {
      ["slot", "maybe", "mode", "dict", "a", "nest.rows", "nests[1].rows", "nests[2].rows"][p]
    }
  }

  final class Stash {
    var items: [AdvItem] = []
    var nests: [Int: HuntNest] = [:]
    var wholes: [(IdentifiedArrayOf<AdvItem>, IdentifiedArrayOf<HuntNest>, [Int: AdvItem], AdvItem?)] = []
  }

  static func get(_ m: HuntModel, _ p: Int, _ id: Int) -> AdvItem? {
    switch p {
    case 0: m.slot.id == id ? m.slot : nil
    case 1: m.maybe?.id == id ? m.maybe : nil
    case 2: m.mode?.item.id == id ? m.mode?.item : nil
    case 3: m.dict[id]
    case 4: m.a[id: id]
    case 5: m.nest.rows[id: id]
    default: m.nests[id: p - 5]?.rows[id: id]
    }
  }

  static func mutate(_ m: HuntModel, _ p: Int, _ id: Int, _ f: (inout AdvItem) -> Void) {
    switch p {
    case 0: if m.slot.id == id { f(&m.slot) }
    case 1: if m.maybe?.id == id { f(&m.maybe!) }
    case 2:
      if let mode = m.mode, mode.item.id == id {
        var i = mode.item
        f(&i)
        m.mode = mode.with(i)
      }
    case 3: if m.dict[id] != nil { f(&m.dict[id]!) }
    case 4: if m.a[id: id] != nil { f(&m.a[id: id]!) }
    case 5: if m.nest.rows[id: id] != nil { f(&m.nest.rows[id: id]!) }
    default: if m.nests[id: p - 5]?.rows[id: id] != nil { f(&m.nests[id: p - 5]!.rows[id: id]!) }
    }
  }

  static func put(_ m: HuntModel, _ p: Int, _ item: AdvItem) {
    switch p {
    case 0: m.slot = item
    case 1: m.maybe = item
    case 2: m.mode = (m.mode ?? .edit(item)).with(item)
    case 3: m.dict[item.id] = item
    case 4: if m.a[id: item.id] != nil { m.a[id: item.id] = item } else { m.a.append(item) }
    case 5: if m.nest.rows[id: item.id] != nil { m.nest.rows[id: item.id] = item } else { m.nest.rows.append(item) }
    default:
      guard m.nests[id: p - 5] != nil else { return }
      if m.nests[id: p - 5]!.rows[id: item.id] != nil { m.nests[id: p - 5]!.rows[id: item.id] = item } else { m.nests[id: p - 5]!.rows.insert(item, at: 0) }
    }
  }

  static func apply(_ op: Op, _ m: HuntModel, _ s: Stash, _ r: Hunt2Readers) {
    switch op {
    case .readDerived: _ = withoutTracking { r.deriveds.map { $0.derived.value } }
    case .swapLevels: if m.nests[id: 1] != nil { swap(&m.nest.rows, &m.nests[id: 1]!.rows) }
    case let .write(p, id, v): mutate(m, p, id) { if v % 2 == 0 { $0.x = v } else { $0.inner.z = v } }
    case let .save(p, id): if let i = get(m, p, id) { s.items.append(i) }
    case let .restore(k, p): if !s.items.isEmpty { put(m, p, s.items[k % s.items.count]) }
    case let .become(k, p):
      if !s.items.isEmpty {
        let saved = s.items[k % s.items.count]
        // self = saved, in the element of the same id if there is one, else in slot
        if get(m, p, saved.id) != nil { mutate(m, p, saved.id) { $0.become(saved) } } else { m.slot.become(saved) }
      }
    case let .fresh(p, id): put(m, p, AdvItem(id: id))
    case let .remove(p, id):
      switch p {
      case 1: if m.maybe?.id == id { m.maybe = nil }
      case 2: m.mode = nil
      case 3: m.dict[id] = nil
      case 4: m.a.remove(id: id)
      case 5: m.nest.rows.remove(id: id)
      case 6, 7: if m.nests[id: p - 5] != nil { m.nests[id: p - 5]!.rows.remove(id: id) }
      default: break
      }
    case .nilMaybe: m.maybe = nil
    case .flipMode:
      if let mode = m.mode { m.mode = if case .edit(let i) = mode { .view(i) } else { .edit(mode.item) } }
    case .saveWhole: s.wholes.append((m.a, m.nests, m.dict, m.maybe))
    case let .restoreWhole(k):
      if !s.wholes.isEmpty {
        let w = s.wholes[k % s.wholes.count]
        m.a = w.0; m.nests = w.1; m.dict = w.2; m.maybe = w.3
      }
    case .moveNests: if m.nests.count > 1 { m.nests.move(fromOffsets: [0], toOffset: m.nests.count) }
    case let .becomeNest(n):
      if m.nests[id: n] != nil {
        // alternately: save the nest and become a new one; become the saved one
        if let saved = s.nests[n] {
          s.nests[n] = nil
          m.nests[id: n]!.become(saved)
        } else {
          s.nests[n] = m.nests[id: n]!
          m.nests[id: n]!.become(HuntNest(id: n))
        }
      }
    }
  }

  struct RNG {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
      state ^= state << 13; state ^= state >> 7; state ^= state << 17
      return Int(state % UInt64(bound))
    }
  }

  static func randomOp(_ g: inout RNG) -> Op {
    let p = g.next(8)
    let id = g.next(3) == 0 ? 2 : 1
    switch g.next(18) {
    case 16: return .readDerived
    case 17: return .swapLevels
    case 0..<4: return .write(p, id, g.next(4))
    case 4, 5: return .save(p, id)
    case 6, 7: return .restore(g.next(6), p)
    case 8: return .become(g.next(6), p)
    case 9: return .fresh(p, id)
    case 10: return .remove(p, id)
    case 11: return .nilMaybe
    case 12: return .flipMode
    case 13: return g.next(2) == 0 ? .saveWhole : .restoreWhole(g.next(3))
    case 14: return .moveNests
    default: return .becomeNest(1 + g.next(2))
    }
  }

  static func replay(_ txns: [[Op]], multi: Bool) -> (Int, [String])? {
    let m = HuntModel()
    m.nests[id: 1]!.rows = [AdvItem(id: 1), AdvItem(id: 2)]
    m.dict = [1: m.slot, 2: m.a[id: 2]!]
    m.maybe = m.slot
    m.mode = .edit(m.slot)
    let s = Stash()
    let r = Hunt2Readers(hunt2Reads(m))
    defer { r.cancel() }
    for (t, ops) in txns.enumerated() {
      let before = r.runs()
      transaction { for op in ops { apply(op, m, s, r) } }
      let bad = multi ? r.multi(since: before) : r.stale()
      if !multi { _ = 0 } else { r.trackings.forEach { $0.arm() } }
      if !bad.isEmpty { return (t, bad) }
    }
    return nil
  }

  static func shrink(_ txns: [[Op]], multi: Bool) -> [[Op]] {
    var cur = txns
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
        var o = 0
        while o < cur[t].count {
          var c = cur; c[t].remove(at: o)
          if replay(c, multi: multi) != nil { cur = c; changed = true } else { o += 1 }
        }
      }
    }
    return cur
  }

  static func hunt(multi: Bool) -> [String] {
    var failures: [String] = []
    let seeds: [UInt64] = (1...40).map(UInt64.init) + [42, 777, 0xBEEF, 0xDEAD]
    for seed in seeds.prefix(RandomTestBudget.scaled(seeds.count)) {
      var g = RNG(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
      let txns = (0..<30).map { _ in (0...g.next(5)).map { _ in randomOp(&g) } }
      if replay(txns, multi: multi) != nil {
        let shrunk = shrink(txns, multi: multi)
        let msg = replay(shrunk, multi: multi)?.1 ?? []
        failures.append("seed \(seed): \(msg.prefix(4))\n" + shrunk.map { "txn { " + $0.map(\.description).joined(separator: "; ") + " }" }.joined(separator: "\n"))
        if failures.count >= 3 { break }
      }
    }
    return failures
  }

  @Test("random transactions over optionals, enum payloads, dictionaries, two-level arrays, self = other: no reader stale")
  func randomStale() {
    let f = Self.hunt(multi: false)
    #expect(f.isEmpty, "\(f.joined(separator: "\n---\n"))")
  }

  @Test("random transactions over optionals, enum payloads, dictionaries, two-level arrays, self = other: no reader runs twice")
  func randomRunsOnce() {
    let f = Self.hunt(multi: true)
    #expect(f.isEmpty, "\(f.joined(separator: "\n---\n"))")
  }

  // MARK: TrackedValues

  @Test("TrackedValues over a restored row yields the current value")
  func trackedValuesRestored() async {
    let m = HuntModel()
    m.maybe = AdvItem(id: 1)
    var values = TrackedValues { m.a[id: 1]!.x * 100 + (m.maybe?.x ?? -1) }.makeAsyncIterator()
    #expect(await values.next() == 0)
    let savedA = m.a
    let savedMaybe = m.maybe
    m.a[id: 1]!.x = 2
    m.maybe!.x = 3
    #expect(await values.next() == 203)
    Task {
      transaction {
        m.a.remove(id: 1)
        m.a = savedA
        m.maybe = nil
        m.maybe = savedMaybe
      }
    }
    #expect(await values.next() == 0)
    Task {
      transaction {
        m.a[id: 1]!.become(AdvItem(id: 1, x: 4))
        m.maybe!.become(AdvItem(id: 1, x: 5))
      }
    }
    #expect(await values.next() == 405)
    Task { transaction { m.a[id: 1]!.become(savedA[id: 1]!); m.maybe!.become(savedMaybe!) } }
    #expect(await values.next() == 0)
  }
}
