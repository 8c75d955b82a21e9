// swift-format-ignore-file
import Observant
import ObservantTesting
import Testing

// TrackingAudit over state that holds copies of state: children of one type in two fields,
// optional children, identified arrays, plain arrays and dictionaries of state, enum payloads,
// nested state two levels deep. Correct wiring must report nothing; each miswiring must be
// reported, naming its field.

struct BHALeaf: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _value = StateField(0)
  var value: Int { get { registrar.read(_value) } set { registrar.write(&_value, newValue) } }
}

struct BHAMid: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _leaf = StateField(BHALeaf())
  var leaf: BHALeaf {
    get { registrar.read(_leaf) } set { registrar.write(&_leaf, newValue) }
    _modify { yield &self[tracking: \._leaf] }
  }
}

struct BHARow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  init(id: Int) { self.id = id }
}

enum BHAMode: IdentityComparable {
  case none
  case editing(BHARow)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.none, .none): true
    case let (.editing(lhs), .editing(rhs)): Observant.isIdentityEqual(lhs, rhs)
    default: false
    }
  }
}

/// Wired right, every kind of field.
struct BHAScreen: ObservableState {
  var registrar = StateRegistrar<Self>()
  let id = 1
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  private var _total = StateField(0)
  var total: Int { get { registrar.read(_total) } set { registrar.write(&_total, newValue) } }
  private var _leafA = StateField(BHALeaf())
  var leafA: BHALeaf {
    get { registrar.read(_leafA) } set { registrar.write(&_leafA, newValue) }
    _modify { yield &self[tracking: \._leafA] }
  }
  private var _leafB = StateField(BHALeaf())
  var leafB: BHALeaf {
    get { registrar.read(_leafB) } set { registrar.write(&_leafB, newValue) }
    _modify { yield &self[tracking: \._leafB] }
  }
  private var _mid = StateField(BHAMid())
  var mid: BHAMid {
    get { registrar.read(_mid) } set { registrar.write(&_mid, newValue) }
    _modify { yield &self[tracking: \._mid] }
  }
  private var _alert = StateField<BHALeaf?>(nil)
  var alert: BHALeaf? {
    get { registrar.read(_alert) } set { registrar.write(&_alert, newValue) }
    _modify { yield &self[tracking: \._alert] }
  }
  private var _rows = StateField<IdentifiedArrayOf<BHARow>>([])
  var rows: IdentifiedArrayOf<BHARow> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _plain = StateField<[BHARow]>([])
  var plain: [BHARow] {
    get { registrar.read(_plain) } set { registrar.write(&_plain, newValue) }
    _modify { yield &self[tracking: \._plain] }
  }
  private var _dict = StateField<[Int: BHARow]>([:])
  var dict: [Int: BHARow] {
    get { registrar.read(_dict) } set { registrar.write(&_dict, newValue) }
    _modify { yield &self[tracking: \._dict] }
  }
  private var _tags = StateField<Set<String>>(["a", "b", "c", "d", "e", "f", "g", "h"])
  var tags: Set<String> {
    get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
    _modify { yield &self[tracking: \._tags] }
  }
  private var _note = StateField<String?>(nil)
  var note: String? {
    get { registrar.read(_note) } set { registrar.write(&_note, newValue) }
    _modify { yield &self[tracking: \._note] }
  }
  private var _mode = StateField(BHAMode.none)
  var mode: BHAMode { get { registrar.read(_mode) } set { registrar.write(&_mode, newValue) } }
}

extension AuditedField where State == BHAScreen {
  static var allScreenFields: [AuditedField<BHAScreen>] {
    [
      .field(\.count, sample: 1),
      .field(\.total, sample: 2),
      .child(\.leafA, sample: BHALeaf(), inPlace: { $0.leafA.value += 1 }),
      .child(\.leafB, sample: BHALeaf(), inPlace: { $0.leafB.value += 1 }),
      .child(\.mid, sample: BHAMid(), inPlace: { $0.mid.leaf.value += 1 }),
      .child(\.alert, sample: BHALeaf(), inPlace: { $0.alert?.value = 3 }),
      .collection(\.rows, sample: [BHARow(id: 1)], inPlace: { $0.rows[id: 1]?.count += 1 }),
      .collection(\.plain, sample: [BHARow(id: 1)], inPlace: { $0.plain[0].count += 1 }),
      .collection(\.dict, sample: [1: BHARow(id: 1)], inPlace: { $0.dict[1]?.count += 1 }),
      .collection(\.tags, sample: ["x", "y", "z", "w", "v", "u", "t", "s", "r"], inPlace: { $0.tags.insert("q") }),
      .collection(\.note, sample: "draft", inPlace: { $0.note?.append("!") }),
      .field(\.mode, sample: .editing(BHARow(id: 1))),
    ]
  }
}

@Suite("BH tracking audit")
struct BHAuditHuntTests {
  @Test func everyKindOfFieldWiredRightReportsNothing() {
    #expect(TrackingAudit.problems(in: BHAScreen(), fields: AuditedField.allScreenFields, untracked: ["id"]) == [])
  }

  @Test func structuralInPlaceMutationsWiredRightReportNothing() {
    #expect(TrackingAudit.problems(in: BHAScreen(), fields: [
      .field(\.count, sample: 1),
      .field(\.total, sample: 2),
      .child(\.leafA, sample: BHALeaf(), inPlace: { $0.leafA = BHALeaf() }),
      .child(\.leafB, sample: BHALeaf(), inPlace: { $0.leafB.value = 9 }),
      .child(\.mid, sample: BHAMid(), inPlace: { $0.mid.leaf = BHALeaf() }),
      .child(\.alert, sample: BHALeaf(), inPlace: { $0.alert = nil }),
      .collection(\.rows, sample: [BHARow(id: 1)], inPlace: { $0.rows.append(BHARow(id: 2)) }),
      .collection(\.plain, sample: [BHARow(id: 1)], inPlace: { $0.plain.removeAll() }),
      .collection(\.dict, sample: [1: BHARow(id: 1)], inPlace: { $0.dict[2] = BHARow(id: 2) }),
      .collection(\.tags, sample: ["x"], inPlace: { $0.tags.remove("x") }),
      .collection(\.note, sample: "draft", inPlace: { $0.note?.removeAll() }),
      .field(\.mode, sample: .editing(BHARow(id: 1))),
    ], untracked: ["id"]) == [])
  }

  @Test func auditIsRepeatable() {
    let first = TrackingAudit.problems(in: BHAScreen(), fields: AuditedField.allScreenFields, untracked: ["id"])
    for _ in 0..<20 {
      #expect(TrackingAudit.problems(in: BHAScreen(), fields: AuditedField.allScreenFields, untracked: ["id"]) == first)
    }
  }

  @Test func childModifyYieldingTheSiblingOfTheSameType() {
    let problems = TrackingAudit.problems(in: BHAWrongChildModify(), fields: [
      .child(\.leafA, sample: BHALeaf(), inPlace: { $0.leafA.value += 1 }),
      .child(\.leafB, sample: BHALeaf(), inPlace: { $0.leafB.value += 1 }),
    ])
    #expect(problems.count == 1)
    #expect(problems.first?.hasPrefix("leafB:") == true, "\(problems)")
  }

  @Test func childGetterReadingTheSiblingOfTheSameType() {
    let problems = TrackingAudit.problems(in: BHAWrongChildGetter(), fields: [
      .child(\.leafA, sample: BHALeaf(), inPlace: { $0.leafA.value += 1 }),
      .child(\.leafB, sample: BHALeaf(), inPlace: { $0.leafB.value += 1 }),
    ])
    #expect(problems.contains { $0.hasPrefix("leafB:") }, "\(problems)")
    #expect(!problems.contains { $0.hasPrefix("leafA:") }, "\(problems)")
  }

  @Test func collectionModifyThroughGetterAndSetter() {
    let problems = TrackingAudit.problems(in: BHACopyingModify(), fields: [
      .collection(\.rows, sample: [BHARow(id: 1)], inPlace: { $0.rows[id: 1]?.count += 1 }),
    ])
    #expect(problems.count == 1)
    #expect(problems.first?.hasPrefix("rows:") == true, "\(problems)")
  }

  @Test func collectionWithoutModify() {
    let problems = TrackingAudit.problems(in: BHANoModify(), fields: [
      .collection(\.dict, sample: [1: BHARow(id: 1)], inPlace: { $0.dict[1]?.count += 1 }),
      .child(\.mid, sample: BHAMid(), inPlace: { $0.mid.leaf.value += 1 }),
    ])
    #expect(problems.count == 2, "\(problems)")
    #expect(problems.contains { $0.hasPrefix("dict:") }, "\(problems)")
    #expect(problems.contains { $0.hasPrefix("mid:") }, "\(problems)")
  }

  @Test func getterRecordingNothingAndSetterNotNotifying() {
    let problems = TrackingAudit.problems(in: BHAUntracked(), fields: [
      .collection(\.plain, sample: [BHARow(id: 1)], inPlace: { $0.plain[0].count += 1 }),
      .field(\.mode, sample: .editing(BHARow(id: 1))),
    ])
    #expect(problems.contains { $0.hasPrefix("plain:") }, "\(problems)")
    #expect(problems.contains { $0.hasPrefix("mode:") }, "\(problems)")
    #expect(problems.count == 2, "\(problems)")
  }

  @Test func enumFieldSetterWritingTheNeighbour() {
    let problems = TrackingAudit.problems(in: BHAWrongEnumSetter(), fields: [
      .field(\.first, sample: .editing(BHARow(id: 1))),
      .field(\.second, sample: .editing(BHARow(id: 2))),
    ])
    #expect(problems.contains { $0.hasPrefix("second:") }, "\(problems)")
    #expect(!problems.contains { $0.hasPrefix("first:") }, "\(problems)")
  }

  @Test func modifyThatBypassesTheRegistrar() {
    let problems = TrackingAudit.problems(in: BHASilentModify(), fields: [
      .collection(\.rows, sample: [BHARow(id: 1)], inPlace: { $0.rows.append(BHARow(id: 2)) }),
    ])
    #expect(problems.count == 1)
    #expect(problems.first?.hasPrefix("rows:") == true, "\(problems)")
  }

  @Test func unlistedStorageAndUntrackedProperty() {
    let problems = TrackingAudit.problems(in: BHAUnlisted(), fields: [.field(\.count, sample: 1)])
    #expect(problems.count == 2, "\(problems)")
    #expect(problems.contains { $0.contains("cache") }, "\(problems)")
    #expect(problems.contains { $0.contains("hidden") }, "\(problems)")
  }
}

struct BHAWrongChildModify: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _leafA = StateField(BHALeaf())
  var leafA: BHALeaf {
    get { registrar.read(_leafA) } set { registrar.write(&_leafA, newValue) }
    _modify { yield &self[tracking: \._leafA] }
  }
  private var _leafB = StateField(BHALeaf())
  var leafB: BHALeaf {
    get { registrar.read(_leafB) } set { registrar.write(&_leafB, newValue) }
    _modify { yield &self[tracking: \._leafA] }  // copied from leafA
  }
}

struct BHAWrongChildGetter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _leafA = StateField(BHALeaf())
  var leafA: BHALeaf {
    get { registrar.read(_leafA) } set { registrar.write(&_leafA, newValue) }
    _modify { yield &self[tracking: \._leafA] }
  }
  private var _leafB = StateField(BHALeaf())
  var leafB: BHALeaf {
    get { registrar.read(_leafA) } set { registrar.write(&_leafB, newValue) }  // reads leafA's storage
    _modify { yield &self[tracking: \._leafB] }
  }
}

struct BHACopyingModify: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField<IdentifiedArrayOf<BHARow>>([])
  var rows: IdentifiedArrayOf<BHARow> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify {  // through the getter and the setter: copies the array on every change
      var rows = registrar.read(_rows)
      yield &rows
      registrar.write(&_rows, rows)
    }
  }
}

struct BHANoModify: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _dict = StateField<[Int: BHARow]>([:])
  var dict: [Int: BHARow] { get { registrar.read(_dict) } set { registrar.write(&_dict, newValue) } }
  private var _mid = StateField(BHAMid())
  var mid: BHAMid { get { registrar.read(_mid) } set { registrar.write(&_mid, newValue) } }
}

struct BHAUntracked: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _plain = StateField<[BHARow]>([])
  var plain: [BHARow] {
    get { _plain.value }  // records nothing
    set { registrar.write(&_plain, newValue) }
    _modify { yield &self[tracking: \._plain] }
  }
  private var _mode = StateField(BHAMode.none)
  var mode: BHAMode { get { registrar.read(_mode) } set { _mode.value = newValue } }  // notifies nobody
}

struct BHAWrongEnumSetter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _first = StateField(BHAMode.none)
  var first: BHAMode { get { registrar.read(_first) } set { registrar.write(&_first, newValue) } }
  private var _second = StateField(BHAMode.none)
  var second: BHAMode { get { registrar.read(_second) } set { registrar.write(&_first, newValue) } }
}

struct BHAUnlisted: ObservableState {
  var registrar = StateRegistrar<Self>()
  var cache = 0
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  private var _hidden = StateField(0)
  var hidden: Int { get { registrar.read(_hidden) } set { registrar.write(&_hidden, newValue) } }
}

struct BHASilentModify: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField<IdentifiedArrayOf<BHARow>>([])
  var rows: IdentifiedArrayOf<BHARow> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &_rows.value }  // in place, but tells nobody
  }
}

