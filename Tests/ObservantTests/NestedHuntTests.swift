// swift-format-ignore-file
import Observant
import ObservantTestSupport
import Synchronization
import Testing

// Readers of a state nested inside another state only (they reach the outer value with tracking
// suspended), while the outer value is replaced through inout, moved between containers, comes
// back as an older copy, at one, two and three levels. Written against the documentation only.

final class NHModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var items: IdentifiedArrayOf<NHRow> = [NHRow(id: 1), NHRow(id: 2)]
  @Tracked var other: IdentifiedArrayOf<NHRow> = []
  @Tracked var plain: [NHRow] = [NHRow(id: 1), NHRow(id: 2)]
  @Tracked var table: [Int: NHRow] = [1: NHRow(id: 1), 2: NHRow(id: 2)]
  @Tracked var maybe: NHRow? = NHRow(id: 1)
  @Tracked var slot = NHRow(id: 1)
  @Tracked var spare = NHRow(id: 2)
  @Tracked var dest: NHDest = .row(NHRow(id: 1))
  @Tracked var groups: IdentifiedArrayOf<NHGroup> = [NHGroup(id: 1), NHGroup(id: 2)]
}

// swift-format-ignore
struct NHDeep: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _w = StateField(0)
  var w: Int { get { registrar.read(_w) } set { registrar.write(&_w, newValue) } }
}

// swift-format-ignore
struct NHInner: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _z = StateField(0)
  var z: Int { get { registrar.read(_z) } set { registrar.write(&_z, newValue) } }
  private var _deep = StateField(NHDeep())
  var deep: NHDeep {
    get { registrar.read(_deep) } set { registrar.write(&_deep, newValue) }
    _modify { yield &self[tracking: \._deep] }
  }
  mutating func restore(_ saved: NHInner) { self = saved }
}

// swift-format-ignore
struct NHRow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _x = StateField(0)
  var x: Int { get { registrar.read(_x) } set { registrar.write(&_x, newValue) } }
  private var _inner = StateField(NHInner())
  var inner: NHInner {
    get { registrar.read(_inner) } set { registrar.write(&_inner, newValue) }
    _modify { yield &self[tracking: \._inner] }
  }
  init(id: Int) { self.id = id }
  mutating func restore(_ saved: NHRow) { self = saved }
}

// swift-format-ignore
struct NHGroup: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _rows = StateField<IdentifiedArrayOf<NHRow>>([NHRow(id: 1), NHRow(id: 2)])
  var rows: IdentifiedArrayOf<NHRow> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _lead = StateField(NHRow(id: 9))
  var lead: NHRow {
    get { registrar.read(_lead) } set { registrar.write(&_lead, newValue) }
    _modify { yield &self[tracking: \._lead] }
  }
  private var _mode = StateField(NHDest.row(NHRow(id: 1)))
  var mode: NHDest { get { registrar.read(_mode) } set { registrar.write(&_mode, newValue) } }
  init(id: Int) { self.id = id }
  mutating func restore(_ saved: NHGroup) { self = saved }
}

enum NHDest: IdentityComparable {
  case none
  case row(NHRow)
  case alt(NHRow)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.none, .none): true
    case let (.row(l), .row(r)): Observant.isIdentityEqual(l, r)
    case let (.alt(l), .alt(r)): Observant.isIdentityEqual(l, r)
    default: false
    }
  }

  var row: NHRow? { if case .row(let r) = self { r } else { nil } }
}

extension IdentifiedArray {
  mutating func nhRestore(_ saved: Self) { self = saved }
}

extension Optional {
  mutating func nhRestore(_ saved: Self) { self = saved }
}

final class NHBox: Sendable {
  private let m = Mutex(Int.min)
  var value: Int { m.withLock { $0 } }
  func set(_ v: Int) { m.withLock { $0 = v } }
  func add(_ v: Int) { m.withLock { $0 += v } }
}

/// A reaction that keeps what it showed, and the truth to compare with.
final class NHView: @unchecked Sendable {
  let name: String
  let shownBox = NHBox()
  var reaction: Reaction!
  let truth: () -> Int
  init(_ name: String, read: @escaping () -> Int, truth: @escaping () -> Int) {
    self.name = name
    self.truth = truth
    reaction = Reaction(name) { [shownBox] in
      let v = read()
      shownBox.set(v)
    }
  }
  var shown: Int { shownBox.value }
  var runs: Int { reaction.runCount }
  /// nil when it shows the current state.
  var stale: String? {
    let t = withoutTracking { truth() }
    return t == shown ? nil : "\(name) shows \(shown), state holds \(t)"
  }
}

// MARK: - Directed cases

@Suite("Nested hunt: readers of a nested state only")
struct NestedHuntTests {
  private func inner(_ name: String, _ get: @escaping () -> NHInner?) -> NHView {
    NHView(name, read: { withoutTracking { get() }?.z ?? -1 }, truth: { get()?.z ?? -1 })
  }
  private func deep(_ name: String, _ get: @escaping () -> NHDeep?) -> NHView {
    NHView(name, read: { withoutTracking { get() }?.w ?? -1 }, truth: { get()?.w ?? -1 })
  }

  // MARK: inout replacement

  @Test("a @Tracked state slot replaced through inout (self = saved) by an older copy")
  func slotInoutOlderCopy() {
    let m = NHModel()
    let saved = m.slot
    let r = inner("slot.inner.z") { m.slot.inner }
    m.slot.inner.z = 2
    #expect(r.shown == 2)
    m.slot.restore(saved)
    #expect(r.stale == nil)
  }

  @Test("a @Tracked state slot replaced through inout by another state, then by an older copy (one transaction)")
  func slotInoutOtherThenOlderCopy() {
    let m = NHModel()
    let saved = m.slot
    let r = inner("slot.inner.z") { m.slot.inner }
    m.slot.inner.z = 2
    transaction {
      m.slot.restore(m.spare)
      m.slot.restore(saved)
    }
    #expect(r.stale == nil)
  }

  @Test("an element of an identified array replaced through inout (self = saved) by an older copy")
  func elementInoutOlderCopy() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    #expect(r.shown == 2)
    m.items[id: 1]!.restore(saved)
    #expect(m.items[id: 1]!.inner.z == 0)
    #expect(r.stale == nil)
  }

  @Test("an element replaced through inout by a new value of its id, then by an older copy (one transaction)")
  func elementInoutFreshThenOlderCopy() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    transaction {
      m.items[id: 1]!.restore(NHRow(id: 1))
      m.items[id: 1]!.restore(saved)
    }
    #expect(r.stale == nil)
  }

  @Test("an element replaced through inout by a new value of its id, then by an older copy (two transactions)")
  func elementInoutFreshThenOlderCopyTwoTransactions() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    var fresh = NHRow(id: 1)
    fresh.inner.z = 5
    m.items[id: 1]!.restore(fresh)
    // A new identity under the id: the reader does not read the slot, so it is not promised to
    // hear it (only the slot's readers are). The older copy coming back is promised.
    m.items[id: 1]!.restore(saved)
    #expect(r.stale == nil)
  }

  @Test("an identified array replaced through inout (self = saved) by an older copy")
  func arrayInoutOlderCopy() {
    let m = NHModel()
    let saved = m.items
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    m.items.nhRestore(saved)
    #expect(r.stale == nil)
  }

  @Test("an identified array swapped with a local copy through inout")
  func arraySwap() {
    let m = NHModel()
    var saved = m.items
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    swap(&m.items, &saved)
    #expect(m.items[id: 1]!.inner.z == 0)
    #expect(r.stale == nil)
  }

  @Test("an identified array: element removed, then the array replaced through inout by an older copy (one transaction)")
  func arrayRemoveThenInout() {
    let m = NHModel()
    let saved = m.items
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    transaction {
      m.items.remove(id: 1)
      m.items.nhRestore(saved)
    }
    #expect(r.stale == nil)
  }

  @Test("an optional replaced through inout by nil and then an older copy (one transaction)")
  func optionalInout() {
    let m = NHModel()
    let saved = m.maybe
    let r = inner("maybe.inner.z") { m.maybe?.inner }
    m.maybe!.inner.z = 2
    transaction {
      m.maybe.nhRestore(nil)
      m.maybe.nhRestore(saved)
    }
    #expect(r.stale == nil)
  }

  @Test("the nested state itself replaced through inout by an older copy")
  func innerInoutOlderCopy() {
    let m = NHModel()
    let saved = m.items[id: 1]!.inner
    let r = deep("items[1].inner.deep.w") { m.items[id: 1]?.inner.deep }
    m.items[id: 1]!.inner.deep.w = 2
    m.items[id: 1]!.inner.restore(saved)
    #expect(r.stale == nil)
  }

  @Test("two @Tracked slots swapped through inout, and back")
  func slotsSwapped() {
    let m = NHModel()
    let r1 = inner("slot.inner.z") { m.slot.inner }
    let r2 = inner("spare.inner.z") { m.spare.inner }
    m.slot.inner.z = 2
    m.spare.inner.z = 3
    var a = m.slot
    swap(&m.spare, &a)  // spare <- slot's value, a <- spare's
    m.slot = a
    // Each slot now holds the other identity: readers that do not read the slot are not promised
    // to hear that (they read the fields of a state that lives on, unchanged, in the other slot).
    var b = m.slot
    swap(&m.spare, &b)
    m.slot = b
    #expect(r1.stale == nil)
    #expect(r2.stale == nil)
  }

  // MARK: older copies through other collection APIs

  @Test("identified array: an older copy stored by position")
  func positionalOlderCopy() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    m.items[0] = saved
    #expect(r.stale == nil)
  }

  @Test("identified array: an older copy stored by id over the newer state")
  func byIdOlderCopy() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    m.items[id: 1] = saved
    #expect(r.stale == nil)
  }

  @Test("identified array: updateOrAppend with an older copy")
  func updateOrAppendOlderCopy() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    _ = m.items.updateOrAppend(saved)
    #expect(r.stale == nil)
  }

  @Test("identified array: rebuilt from an older copy and the other rows")
  func rebuiltWithOlderCopy() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    m.items = IdentifiedArray(uniqueElements: [saved, m.items[id: 2]!])
    #expect(r.stale == nil)
  }

  @Test("identified array: removeAll, then append(contentsOf:) older copies (one transaction)")
  func removeAllAppendContents() {
    let m = NHModel()
    let saved = Array(m.items)
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    transaction {
      m.items.removeAll()
      m.items.append(contentsOf: saved)
    }
    #expect(r.stale == nil)
  }

  @Test("identified array: removeAll(where:), sorted, then the older copy inserted")
  func removeWhereInsert() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    transaction {
      m.items.removeAll { $0.id == 1 }
      m.items.insert(saved, at: 1)
      m.items.sort { $0.id < $1.id }
    }
    #expect(r.stale == nil)
  }

  @Test("plain array: an older copy stored by index over the newer state")
  func plainIndexOlderCopy() {
    let m = NHModel()
    let saved = m.plain[0]
    let r = inner("plain[id 1].inner.z") { m.plain.first { $0.id == 1 }?.inner }
    m.plain[0].inner.z = 2
    m.plain[0] = saved
    #expect(r.stale == nil)
  }

  @Test("plain array: assigned a whole array holding an older copy")
  func plainWholeOlderCopy() {
    let m = NHModel()
    let saved = m.plain
    let r = inner("plain[id 1].inner.z") { m.plain.first { $0.id == 1 }?.inner }
    m.plain[0].inner.z = 2
    m.plain = saved
    #expect(r.stale == nil)
  }

  @Test("plain array: reversed holding an older copy (same ids, other order)")
  func plainReversedOlderCopy() {
    let m = NHModel()
    let saved = m.plain
    let r = inner("plain[id 1].inner.z") { m.plain.first { $0.id == 1 }?.inner }
    m.plain[0].inner.z = 2
    m.plain = saved.reversed()
    #expect(r.stale == nil)
  }

  @Test("dictionary: an older copy stored over the newer state")
  func dictionaryOlderCopy() {
    let m = NHModel()
    let saved = m.table[1]!
    let r = inner("table[1].inner.z") { m.table[1]?.inner }
    m.table[1]!.inner.z = 2
    m.table[1] = saved
    #expect(r.stale == nil)
  }

  @Test("dictionary: assigned a whole dictionary holding an older copy")
  func dictionaryWholeOlderCopy() {
    let m = NHModel()
    let saved = m.table
    let r = inner("table[1].inner.z") { m.table[1]?.inner }
    m.table[1]!.inner.z = 2
    m.table = saved
    #expect(r.stale == nil)
  }

  @Test("dictionary: a new value of the key, then an older copy (one transaction)")
  func dictionaryFreshThenOlder() {
    let m = NHModel()
    let saved = m.table[1]!
    let r = inner("table[1].inner.z") { m.table[1]?.inner }
    m.table[1]!.inner.z = 2
    transaction {
      m.table[1] = NHRow(id: 1)
      m.table[1] = saved
    }
    #expect(r.stale == nil)
  }

  @Test("optional: an older copy stored over the newer state")
  func optionalOlderCopy() {
    let m = NHModel()
    let saved = m.maybe
    let r = inner("maybe.inner.z") { m.maybe?.inner }
    m.maybe!.inner.z = 2
    m.maybe = saved
    #expect(r.stale == nil)
  }

  @Test("enum payload: an older copy of the payload written back")
  func enumOlderCopy() {
    let m = NHModel()
    let saved = m.dest
    let r = inner("dest.row.inner.z") { m.dest.row?.inner }
    var edited = m.dest.row!
    edited.inner.z = 2
    m.dest = .row(edited)
    #expect(r.shown == 2)
    m.dest = saved
    #expect(r.stale == nil)
  }

  @Test("enum payload: moved to another case and back as an older copy (one transaction)")
  func enumOtherCaseThenOlderCopy() {
    let m = NHModel()
    let savedRow = m.dest.row!
    let r = inner("dest.row.inner.z") { m.dest.row?.inner }
    var edited = savedRow
    edited.inner.z = 2
    m.dest = .row(edited)
    transaction {
      m.dest = .alt(edited)
      m.dest = .row(savedRow)
    }
    #expect(r.stale == nil)
  }

  @Test("enum payload: .none then an older copy (one transaction)")
  func enumNoneThenOlderCopy() {
    let m = NHModel()
    let savedRow = m.dest.row!
    let r = inner("dest.row.inner.z") { m.dest.row?.inner }
    var edited = savedRow
    edited.inner.z = 2
    m.dest = .row(edited)
    transaction {
      m.dest = .none
      m.dest = .row(savedRow)
    }
    #expect(r.stale == nil)
  }

  @Test("enum payload, direct field: moved to another case and back as an older copy (one transaction)")
  func enumOtherCaseThenOlderCopyDirectField() {
    let m = NHModel()
    let savedRow = m.dest.row!
    let r = NHView("dest.row.x", read: { withoutTracking { m.dest.row }?.x ?? -1 }, truth: { m.dest.row?.x ?? -1 })
    var edited = savedRow
    edited.x = 2
    m.dest = .row(edited)
    #expect(r.shown == 2)
    transaction {
      m.dest = .alt(edited)
      m.dest = .row(savedRow)
    }
    #expect(r.stale == nil)
  }

  @Test("enum payload, tracked reader: moved to another case and back as an older copy (one transaction)")
  func enumOtherCaseThenOlderCopyTracked() {
    let m = NHModel()
    let savedRow = m.dest.row!
    let r = NHView("dest.row.inner.z (tracked)", read: { m.dest.row?.inner.z ?? -1 }, truth: { m.dest.row?.inner.z ?? -1 })
    var edited = savedRow
    edited.inner.z = 2
    m.dest = .row(edited)
    #expect(r.shown == 2)
    transaction {
      m.dest = .alt(edited)
      m.dest = .row(savedRow)
    }
    #expect(r.stale == nil)
  }

  @Test("enum payload: .none, then an older copy in a later transaction")
  func enumNoneThenOlderCopyLater() {
    let m = NHModel()
    let savedRow = m.dest.row!
    let r = inner("dest.row.inner.z") { m.dest.row?.inner }
    var edited = savedRow
    edited.inner.z = 2
    m.dest = .row(edited)
    m.dest = .none
    m.dest = .row(savedRow)
    #expect(r.stale == nil)
  }

  @Test("enum payload: a new value of the id in the same case, then an older copy (one transaction)")
  func enumFreshThenOlderCopy() {
    let m = NHModel()
    let savedRow = m.dest.row!
    let r = inner("dest.row.inner.z") { m.dest.row?.inner }
    var edited = savedRow
    edited.inner.z = 2
    m.dest = .row(edited)
    transaction {
      m.dest = .row(NHRow(id: 1))
      m.dest = .row(savedRow)
    }
    #expect(r.stale == nil)
  }

  @Test("an optional: another state, then an older copy (one transaction)")
  func optionalOtherThenOlder() {
    let m = NHModel()
    let saved = m.maybe!
    let r = inner("maybe.inner.z") { m.maybe?.inner }
    m.maybe!.inner.z = 2
    transaction {
      m.maybe = m.spare
      m.maybe = saved
    }
    #expect(r.stale == nil)
  }

  @Test("enum field of a state in an identified array: the payload replaced by another case, then an older copy (one transaction)")
  func enumFieldOfStateOlderCopy() {
    let m = NHModel()
    let savedRow = m.groups[id: 1]!.mode.row!
    let r = inner("groups[1].mode.row.inner.z") { m.groups[id: 1]?.mode.row?.inner }
    var edited = savedRow
    edited.inner.z = 2
    m.groups[id: 1]!.mode = .row(edited)
    #expect(r.shown == 2)
    transaction {
      m.groups[id: 1]!.mode = .none
      m.groups[id: 1]!.mode = .row(savedRow)
    }
    #expect(r.stale == nil)
  }

  @Test("enum field of a state: the group restored from a snapshot after the payload changed case")
  func enumFieldOfStateSnapshot() {
    let m = NHModel()
    let snapshot = m.groups
    let r = inner("groups[1].mode.row.inner.z") { m.groups[id: 1]?.mode.row?.inner }
    var edited = m.groups[id: 1]!.mode.row!
    edited.inner.z = 2
    m.groups[id: 1]!.mode = .row(edited)
    #expect(r.shown == 2)
    transaction {
      m.groups[id: 1]!.mode = .alt(edited)
      m.groups = snapshot
    }
    #expect(r.stale == nil)
  }

  @Test("enum payload: a snapshot of the whole enum value restored after another case")
  func enumSnapshotAfterOtherCase() {
    let m = NHModel()
    let saved = m.dest
    let r = inner("dest.row.inner.z") { m.dest.row?.inner }
    var edited = m.dest.row!
    edited.inner.z = 2
    m.dest = .row(edited)
    m.dest = .alt(edited)
    m.dest = saved
    #expect(r.stale == nil)
  }

  // MARK: moves between containers, within one transaction

  @Test("moved out of the identified array into a plain array, changed there, and moved back")
  func moveThroughPlain() {
    let m = NHModel()
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    transaction {
      m.plain = [m.items.remove(id: 1)!]
      m.plain[0].inner.z = 7
      m.items.append(m.plain.removeLast())
    }
    #expect(m.items[id: 1]!.inner.z == 7)
    #expect(r.stale == nil)
  }

  @Test("moved through an optional, a dictionary and an enum payload, and back as an older copy")
  func moveThroughEverything() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    transaction {
      m.maybe = m.items.remove(id: 1)
      m.table[1] = m.maybe
      m.maybe = nil
      m.dest = .row(m.table[1]!)
      m.dest = .row(saved)
      m.items.insert(m.dest.row!, at: 0)
    }
    #expect(r.stale == nil)
  }

  @Test("moved into another identified array, changed there, and moved back (two transactions)")
  func moveToOtherArrayAndBack() {
    let m = NHModel()
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    let ro = inner("other[1].inner.z") { m.other[id: 1]?.inner }
    m.items[id: 1]!.inner.z = 2
    transaction {
      m.other.append(m.items.remove(id: 1)!)
      m.other[id: 1]!.inner.z = 4
      m.items.append(m.other.remove(id: 1)!)
    }
    #expect(r.stale == nil)
    #expect(ro.stale == nil)
  }

  @Test("a slot: stored into another slot, replaced by it, and the older copy put back")
  func slotThroughSpare() {
    let m = NHModel()
    let saved = m.slot
    let r = inner("slot.inner.z") { m.slot.inner }
    m.slot.inner.z = 2
    transaction {
      m.spare = m.slot
      m.spare.inner.z = 5
      m.slot = m.spare
    }
    #expect(r.stale == nil)
    transaction {
      m.slot = NHRow(id: 1)
      m.slot = saved
    }
    #expect(r.stale == nil)
  }

  // MARK: depth

  @Test("three levels: a group removed and an older copy appended")
  func threeLevelsGroupBack() {
    let m = NHModel()
    let saved = m.groups[id: 1]!
    let r = inner("groups[1].rows[1].inner.z") { m.groups[id: 1]?.rows[id: 1]?.inner }
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    m.groups[id: 1]!.rows[id: 1]!.inner.z = 2
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    #expect(r.shown == 2)
    #expect(d.shown == 3)
    transaction {
      m.groups.remove(id: 1)
      m.groups.append(saved)
    }
    #expect(r.stale == nil)
    #expect(d.stale == nil)
  }

  @Test("three levels: a group replaced through inout by an older copy")
  func threeLevelsGroupInout() {
    let m = NHModel()
    let saved = m.groups[id: 1]!
    let r = inner("groups[1].rows[1].inner.z") { m.groups[id: 1]?.rows[id: 1]?.inner }
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    let l = inner("groups[1].lead.inner.z") { m.groups[id: 1]?.lead.inner }
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    m.groups[id: 1]!.lead.inner.z = 4
    m.groups[id: 1]!.restore(saved)
    #expect(r.stale == nil)
    #expect(d.stale == nil)
    #expect(l.stale == nil)
  }

  @Test("three levels: the groups restored from a snapshot after a row of a group was removed")
  func threeLevelsSnapshot() {
    let m = NHModel()
    let snapshot = m.groups
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    transaction {
      m.groups[id: 1]!.rows.remove(id: 1)
      m.groups = snapshot
    }
    #expect(d.stale == nil)
  }

  @Test("three levels: the groups array replaced through inout by a snapshot")
  func threeLevelsSnapshotInout() {
    let m = NHModel()
    let snapshot = m.groups
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    m.groups.nhRestore(snapshot)
    #expect(d.stale == nil)
  }

  @Test("three levels: a group replaced by a new value of its id, then an older copy (one transaction)")
  func threeLevelsFreshThenOlder() {
    let m = NHModel()
    let saved = m.groups[id: 1]!
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    transaction {
      m.groups[id: 1] = NHGroup(id: 1)
      m.groups[id: 1] = saved
    }
    #expect(d.stale == nil)
  }

  @Test("three levels: the inner row removed, then an older copy of the group's rows stored")
  func threeLevelsRowsOlder() {
    let m = NHModel()
    let savedRows = m.groups[id: 1]!.rows
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    transaction {
      m.groups[id: 1]!.rows.remove(id: 1)
      m.groups[id: 1]!.rows = savedRows
    }
    #expect(d.stale == nil)
  }

  @Test("three levels: an older copy of the inner row stored, spread over transactions")
  func threeLevelsSpread() {
    let m = NHModel()
    let savedRow = m.groups[id: 1]!.rows[id: 1]!
    let savedGroup = m.groups[id: 1]!
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    m.groups[id: 1]!.rows[id: 1] = savedRow
    #expect(d.stale == nil)
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 4
    m.groups[id: 1] = savedGroup
    #expect(d.stale == nil)
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 5
    m.groups[id: 1]!.rows[id: 1]!.inner = savedRow.inner
    #expect(d.stale == nil)
  }

  // MARK: Derived, withTracking

  @Test("a Derived value over a nested state: removed and an older copy appended")
  func derivedNested() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    let derived = Derived("z") { withoutTracking { m.items[id: 1]?.inner }?.z ?? -1 }
    let r = NHView("derived", read: { derived.value }, truth: { m.items[id: 1]?.inner.z ?? -1 })
    m.items[id: 1]!.inner.z = 2
    #expect(r.shown == 2)
    transaction {
      m.items.remove(id: 1)
      m.items.append(saved)
    }
    #expect(r.stale == nil)
    m.items[id: 1]!.inner.z = 2
    m.items[id: 1]!.restore(saved)
    #expect(r.stale == nil)
    #expect(derived.value == 0)
  }

  @Test("a Derived value over a three-level nested state, group replaced through inout")
  func derivedThreeLevels() {
    let m = NHModel()
    let saved = m.groups[id: 1]!
    let derived = Derived("w") { withoutTracking { m.groups[id: 1]?.rows[id: 1]?.inner.deep }?.w ?? -1 }
    let r = NHView("derived", read: { derived.value }, truth: { m.groups[id: 1]?.rows[id: 1]?.inner.deep.w ?? -1 })
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    #expect(r.shown == 3)
    m.groups[id: 1]!.restore(saved)
    #expect(r.stale == nil)
  }

  @Test("withTracking over a nested state only: onChange fires when an older copy comes back")
  func withTrackingNested() {
    let m = NHModel()
    let saved = m.items[id: 1]!
    m.items[id: 1]!.inner.z = 2
    let fired = NHBox(); fired.set(0)
    let seen = withTracking { withoutTracking { m.items[id: 1]?.inner }?.z ?? -1 } onChange: {
      fired.add(1)
    }
    #expect(seen == 2)
    transaction {
      m.items.remove(id: 1)
      m.items.append(saved)
    }
    #expect(fired.value == 1)
  }

  @Test("withTracking over a nested state only: onChange fires on an inout restore")
  func withTrackingNestedInout() {
    let m = NHModel()
    let saved = m.slot
    m.slot.inner.z = 2
    let fired = NHBox(); fired.set(0)
    _ = withTracking { withoutTracking { m.slot.inner }.z } onChange: { fired.add(1) }
    m.slot.restore(saved)
    #expect(fired.value == 1)
  }

  @Test("withTracking over a three-level nested state: onChange fires when the groups are restored")
  func withTrackingThreeLevels() {
    let m = NHModel()
    let snapshot = m.groups
    m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 3
    let fired = NHBox(); fired.set(0)
    _ = withTracking { withoutTracking { m.groups[id: 1]?.rows[id: 1]?.inner.deep }?.w ?? -1 } onChange: {
      fired.add(1)
    }
    m.groups = snapshot
    #expect(fired.value == 1)
  }

  // MARK: set back within a transaction: re-runs nothing (documented)

  @Test("set back: a nested field of an identified array's element set and set back")
  func setBackNestedElement() {
    let m = NHModel()
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    transaction {
      m.items[id: 1]!.inner.z = 5
      m.items[id: 1]!.inner.z = 0
      m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 5
      m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 0
    }
    #expect(r.runs == 1)
    #expect(d.runs == 1)
  }

  @Test("set back: an element edited in place (nested) and the array restored with rows = saved")
  func setBackArrayRestored() {
    let m = NHModel()
    let r = inner("items[1].inner.z") { m.items[id: 1]?.inner }
    transaction {
      let saved = m.items
      m.items[id: 1]!.inner.z = 5
      m.items = saved
    }
    #expect(r.runs == 1)
    #expect(r.stale == nil)
  }

  @Test("set back: three levels edited in place and the groups restored with groups = saved")
  func setBackGroupsRestored() {
    let m = NHModel()
    let d = deep("groups[1].rows[1].inner.deep.w") { m.groups[id: 1]?.rows[id: 1]?.inner.deep }
    let l = inner("groups[1].lead.inner.z") { m.groups[id: 1]?.lead.inner }
    transaction {
      let saved = m.groups
      m.groups[id: 1]!.rows[id: 1]!.inner.deep.w = 5
      m.groups[id: 1]!.lead.inner.z = 5
      m.groups = saved
    }
    #expect(d.runs == 1)
    #expect(l.runs == 1)
  }

  @Test("set back: a slot's nested field changed and the slot restored (slot = saved)")
  func setBackSlotAssigned() {
    let m = NHModel()
    let r = inner("slot.inner.z") { m.slot.inner }
    let d = deep("slot.inner.deep.w") { m.slot.inner.deep }
    transaction {
      let saved = m.slot
      m.slot.inner.z = 5
      m.slot.inner.deep.w = 5
      m.slot = saved
    }
    #expect(r.runs == 1)
    #expect(d.runs == 1)
  }

  @Test("set back: a slot restored then its nested field set back (slot = saved; slot.inner.z = 0)")
  func setBackSlotAssignedThenWrite() {
    let m = NHModel()
    m.slot.inner.z = 3
    let r = inner("slot.inner.z") { m.slot.inner }
    transaction {
      let saved = m.slot
      m.slot.inner.z = 5
      m.slot = saved
      m.slot.inner.z = 7
      m.slot.inner.z = 3
    }
    #expect(r.runs == 1)
  }

  @Test("set back: a slot's nested field changed and the slot replaced through inout by the saved copy")
  func setBackSlotInout() {
    let m = NHModel()
    let r = inner("slot.inner.z") { m.slot.inner }
    let d = deep("slot.inner.deep.w") { m.slot.inner.deep }
    transaction {
      let saved = m.slot
      m.slot.inner.z = 5
      m.slot.inner.deep.w = 5
      m.slot.restore(saved)
    }
    #expect(r.runs == 1)
    #expect(d.runs == 1)
  }

  @Test("set back: an optional's nested field set and set back")
  func setBackOptional() {
    let m = NHModel()
    let r = inner("maybe.inner.z") { m.maybe?.inner }
    transaction {
      m.maybe!.inner.z = 5
      m.maybe!.inner.z = 0
    }
    #expect(r.runs == 1)
  }

  @Test("set back: a group's lead (inline in an element) nested field set and set back")
  func setBackLead() {
    let m = NHModel()
    let l = inner("groups[1].lead.inner.z") { m.groups[id: 1]?.lead.inner }
    transaction {
      m.groups[id: 1]!.lead.inner.z = 5
      m.groups[id: 1]!.lead.inner.z = 0
    }
    #expect(l.runs == 1)
  }
}

// MARK: - Randomized search

/// Places that keep one identity per id for the whole run: every value stored back is a copy of
/// the value that was there (older or newer), so every reader of a nested state must show the
/// current state after every transaction (no place ends a transaction holding another identity).
enum NHPlace: Int, CaseIterable, CustomStringConvertible {
  case items, plain, table, maybe, slot, groupRows, groupLead, group
  var description: String {
    ["items", "plain", "table", "maybe", "slot", "groups[1].rows", "groups[1].lead", "groups"][rawValue]
  }
}

enum NHOp: CustomStringConvertible {
  case writeZ(NHPlace, id: Int, Int)
  case writeW(NHPlace, id: Int, Int)
  case save(NHPlace, id: Int)
  /// 0 assign, 1 inout (self = saved), 2 remove then put back, 3 fresh then saved, 4 replace(with:)
  case restore(NHPlace, stash: Int, mode: Int)
  case saveAll(NHPlace)
  /// 0 assign, 1 inout, 2 swap, 3 remove first element then assign
  case restoreAll(NHPlace, stash: Int, mode: Int)

  var description: String {
    switch self {
    case let .writeZ(p, id, v): "\(p)[\(id)].inner.z = \(v)"
    case let .writeW(p, id, v): "\(p)[\(id)].inner.deep.w = \(v)"
    case let .save(p, id): "stash += \(p)[\(id)]"
    case let .restore(p, s, m): "\(p)[..] = stash[\(s)] (\(["assign", "inout", "remove+put", "fresh+put", "replace(with:)"][m]))"
    case let .saveAll(p): "snapshots += \(p)"
    case let .restoreAll(p, s, m): "\(p) = snapshot[\(s)] (\(["assign", "inout", "swap", "remove first+assign"][m]))"
    }
  }
}

final class NHRunner {
  let m = NHModel()
  var stash: [(NHPlace, NHRow)] = []
  var groupStash: [NHGroup] = []
  var snapshots: [(NHPlace, Any)] = []

  func mutate(_ p: NHPlace, _ id: Int, _ f: (inout NHRow) -> Void) {
    switch p {
    case .items: if m.items[id: id] != nil { f(&m.items[id: id]!) }
    case .plain: if let i = m.plain.firstIndex(where: { $0.id == id }) { f(&m.plain[i]) }
    case .table: if m.table[id] != nil { f(&m.table[id]!) }
    case .maybe: if m.maybe?.id == id { f(&m.maybe!) }
    case .slot: if m.slot.id == id { f(&m.slot) }
    case .groupRows: if m.groups[id: 1]?.rows[id: id] != nil { f(&m.groups[id: 1]!.rows[id: id]!) }
    case .groupLead: if m.groups[id: 1] != nil { f(&m.groups[id: 1]!.lead) }
    case .group: if m.groups[id: id] != nil { f(&m.groups[id: id]!.rows[id: 1]!) }
    }
  }

  func get(_ p: NHPlace, _ id: Int) -> NHRow? {
    switch p {
    case .items: m.items[id: id]
    case .plain: m.plain.first { $0.id == id }
    case .table: m.table[id]
    case .maybe: m.maybe?.id == id ? m.maybe : nil
    case .slot: m.slot.id == id ? m.slot : nil
    case .groupRows: m.groups[id: 1]?.rows[id: id]
    case .groupLead: m.groups[id: 1]?.lead
    case .group: nil
    }
  }

  func put(_ p: NHPlace, _ row: NHRow, mode: Int) {
    let id = row.id
    switch (p, mode) {
    case (_, 4): mutate(p, id) { $0.replace(with: row) }
    case (_, 1): mutate(p, id) { $0.restore(row) }
    case (.items, 2): if let i = m.items.index(id: id) { m.items.remove(at: i); m.items.insert(row, at: i) }
    case (.items, 3): if m.items[id: id] != nil { m.items[id: id] = NHRow(id: id); m.items[id: id] = row }
    case (.items, _): if m.items[id: id] != nil { m.items[id: id] = row }
    case (.plain, 2): if let i = m.plain.firstIndex(where: { $0.id == id }) { m.plain.remove(at: i); m.plain.insert(row, at: i) }
    case (.plain, 3): if let i = m.plain.firstIndex(where: { $0.id == id }) { m.plain[i] = NHRow(id: id); m.plain[i] = row }
    case (.plain, _): if let i = m.plain.firstIndex(where: { $0.id == id }) { m.plain[i] = row }
    case (.table, 2): if m.table[id] != nil { m.table[id] = nil; m.table[id] = row }
    case (.table, 3): if m.table[id] != nil { m.table[id] = NHRow(id: id); m.table[id] = row }
    case (.table, _): if m.table[id] != nil { m.table[id] = row }
    case (.maybe, 2): m.maybe = nil; m.maybe = row
    case (.maybe, 3): m.maybe = NHRow(id: id); m.maybe = row
    case (.maybe, _): m.maybe = row
    case (.slot, 2), (.slot, 3): m.slot = NHRow(id: id); m.slot = row
    case (.slot, _): m.slot = row
    case (.groupRows, 2):
      if let i = m.groups[id: 1]?.rows.index(id: id) { m.groups[id: 1]!.rows.remove(at: i); m.groups[id: 1]!.rows.insert(row, at: i) }
    case (.groupRows, 3):
      if m.groups[id: 1]?.rows[id: id] != nil { m.groups[id: 1]!.rows[id: id] = NHRow(id: id); m.groups[id: 1]!.rows[id: id] = row }
    case (.groupRows, _): if m.groups[id: 1]?.rows[id: id] != nil { m.groups[id: 1]!.rows[id: id] = row }
    case (.groupLead, 2), (.groupLead, 3): if m.groups[id: 1] != nil { m.groups[id: 1]!.lead = NHRow(id: 9); m.groups[id: 1]!.lead = row }
    case (.groupLead, _): if m.groups[id: 1] != nil { m.groups[id: 1]!.lead = row }
    case (.group, _): break
    }
  }

  func apply(_ op: NHOp) {
    switch op {
    case let .writeZ(p, id, v): mutate(p, id) { $0.inner.z = v }
    case let .writeW(p, id, v): mutate(p, id) { $0.inner.deep.w = v }
    case let .save(p, id):
      if p == .group { if let g = m.groups[id: id] { groupStash.append(g) } } else if let r = get(p, id) { stash.append((p, r)) }
    case let .restore(p, s, mode):
      if p == .group {
        guard !groupStash.isEmpty else { return }
        let g = groupStash[s % groupStash.count]
        switch mode {
        case 1: m.groups[id: g.id]!.restore(g)
        case 2: if let i = m.groups.index(id: g.id) { m.groups.remove(at: i); m.groups.insert(g, at: i) }
        case 3: m.groups[id: g.id] = NHGroup(id: g.id); m.groups[id: g.id] = g
        case 4: m.groups[id: g.id]!.replace(with: g)
        default: m.groups[id: g.id] = g
        }
      } else {
        let mine = stash.filter { $0.0 == p }
        guard !mine.isEmpty else { return }
        put(p, mine[s % mine.count].1, mode: mode)
      }
    case let .saveAll(p):
      switch p {
      case .items: snapshots.append((p, m.items))
      case .plain: snapshots.append((p, m.plain))
      case .table: snapshots.append((p, m.table))
      case .group, .groupRows, .groupLead: snapshots.append((.group, m.groups))
      case .maybe, .slot: break
      }
    case let .restoreAll(p, s, mode):
      let q: NHPlace = [.group, .groupRows, .groupLead].contains(p) ? .group : p
      let mine = snapshots.filter { $0.0 == q }
      guard !mine.isEmpty else { return }
      let snap = mine[s % mine.count].1
      switch q {
      case .items:
        var a = snap as! IdentifiedArrayOf<NHRow>
        switch mode {
        case 1: m.items.nhRestore(a)
        case 2: swap(&m.items, &a)
        case 3: if !m.items.isEmpty { m.items.remove(at: 0) }; m.items = a
        default: m.items = a
        }
      case .plain:
        var a = snap as! [NHRow]
        if mode == 2 { swap(&m.plain, &a) } else { if mode == 3, !m.plain.isEmpty { m.plain.remove(at: 0) }; m.plain = a }
      case .table:
        var a = snap as! [Int: NHRow]
        if mode == 2 { swap(&m.table, &a) } else { if mode == 3 { m.table[1] = nil }; m.table = a }
      case .group:
        var a = snap as! IdentifiedArrayOf<NHGroup>
        switch mode {
        case 1: m.groups.nhRestore(a)
        case 2: swap(&m.groups, &a)
        case 3: if !m.groups.isEmpty { m.groups.remove(at: 0) }; m.groups = a
        default: m.groups = a
        }
      default: break
      }
    }
  }
}

/// The hunt's generator (see `SplitMix64`).
typealias NHRandom = SplitMix64

/// Readers for the random search: nested-only readers of places that keep their identity.
func nhSearchReaders(_ m: NHModel) -> [NHView] {
  func v(_ name: String, _ inner: @escaping () -> NHInner?) -> NHView {
    NHView(name, read: { withoutTracking { inner() }?.z ?? -1 }, truth: { inner()?.z ?? -1 })
  }
  func w(_ name: String, _ deep: @escaping () -> NHDeep?) -> NHView {
    NHView(name, read: { withoutTracking { deep() }?.w ?? -1 }, truth: { deep()?.w ?? -1 })
  }
  return [
    v("items[1].inner.z") { m.items[id: 1]?.inner },
    w("items[2].inner.deep.w") { m.items[id: 2]?.inner.deep },
    v("plain[id 1].inner.z") { m.plain.first { $0.id == 1 }?.inner },
    v("table[2].inner.z") { m.table[2]?.inner },
    v("maybe.inner.z") { m.maybe?.inner },
    w("slot.inner.deep.w") { m.slot.inner.deep },
    v("groups[1].rows[1].inner.z") { m.groups[id: 1]?.rows[id: 1]?.inner },
    w("groups[1].rows[2].inner.deep.w") { m.groups[id: 1]?.rows[id: 2]?.inner.deep },
    v("groups[1].lead.inner.z") { m.groups[id: 1]?.lead.inner },
    v("groups[2].rows[1].inner.z") { m.groups[id: 2]?.rows[id: 1]?.inner },
  ]
}

func nhRun(_ transactions: [[NHOp]]) -> String? {
  let runner = NHRunner()
  let readers = nhSearchReaders(runner.m)
  defer { readers.forEach { $0.reaction.cancel() } }
  for (t, ops) in transactions.enumerated() {
    transaction { for op in ops { runner.apply(op) } }
    if let s = readers.lazy.compactMap(\.stale).first { return "after transaction \(t): \(s)" }
  }
  return nil
}

func nhRandomOp(_ r: inout NHRandom) -> NHOp {
  let p = NHPlace.allCases[r.int(NHPlace.allCases.count)]
  let id = p == .groupLead ? 9 : 1 + r.int(2)
  switch r.int(10) {
  case 0, 1, 2: return .writeZ(p, id: id, 1 + r.int(3))
  case 3: return .writeW(p, id: id, 1 + r.int(3))
  case 4, 5: return .save(p, id: id)
  case 6, 7: return .restore(p, stash: r.int(4), mode: r.int(5))
  case 8: return .saveAll(p)
  default: return .restoreAll(p, stash: r.int(3), mode: r.int(4))
  }
}

@Suite("Nested hunt: randomized")
struct NestedHuntRandomTests {
  @Test("random copies, inout replacements and restores keep nested-only readers current")
  func randomSearch() {
    var found: [String] = []
    let seeds = RandomTestBudget.scaled(12_000)
    for seed in 0..<seeds where found.isEmpty {
      var rng = NHRandom(state: UInt64(seed) &* 7919 &+ 1)
      var txs: [[NHOp]] = (0..<(4 + rng.int(8))).map { _ in (0..<(1 + rng.int(4))).map { _ in nhRandomOp(&rng) } }
      guard nhRun(txs) != nil else { continue }
      // Shrink: drop transactions, then ops, while it still fails.
      var changed = true
      while changed {
        changed = false
        for i in txs.indices.reversed() where txs.count > 1 {
          var t = txs; t.remove(at: i)
          if nhRun(t) != nil { txs = t; changed = true }
        }
        for i in txs.indices {
          for j in txs[i].indices.reversed() where txs[i].count > 1 {
            var t = txs; t[i].remove(at: j)
            if nhRun(t) != nil { txs = t; changed = true; break }
          }
        }
      }
      let seq = txs.enumerated().map { "tx\($0.offset): " + $0.element.map(\.description).joined(separator: "; ") }
      found.append("seed \(seed): \(nhRun(txs)!)\n" + seq.joined(separator: "\n"))
    }
    #expect(found.isEmpty, "\(found.joined(separator: "\n\n"))")
  }
}
