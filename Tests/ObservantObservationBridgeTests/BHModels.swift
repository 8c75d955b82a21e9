// swift-format-ignore-file
import Observant
import ObservantStore
import Synchronization

// Models of the bridge hunt (BH): copies of value-type state read by readers that are not
// Observant reactions (Apple's withObservationTracking through the bridge, Derived, TrackedValues).

struct BHLeaf: ObservableState, Sendable {
  var registrar = StateRegistrar<Self>()
  private var _value = StateField(0)
  var value: Int { get { registrar.read(_value) } set { registrar.write(&_value, newValue) } }
  init(value: Int = 0) { _value = StateField(value) }
}

struct BHMid: ObservableState, Sendable {
  var registrar = StateRegistrar<Self>()
  private var _leaf = StateField(BHLeaf())
  var leaf: BHLeaf {
    get { registrar.read(_leaf) } set { registrar.write(&_leaf, newValue) }
    _modify { yield &self[tracking: \._leaf] }
  }
  private var _name = StateField("mid")
  var name: String { get { registrar.read(_name) } set { registrar.write(&_name, newValue) } }
  init() {}
}

struct BHRow: ObservableState, Identifiable, Sendable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
  private var _child = StateField(BHLeaf())
  var child: BHLeaf {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }
  init(id: Int, count: Int = 0, title: String = "") {
    self.id = id
    _count = StateField(count)
    _title = StateField(title)
  }
}

enum BHMode: IdentityComparable, Sendable {
  case none
  case editing(BHRow)
  case other(Int)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.none, .none): true
    case let (.editing(lhs), .editing(rhs)): Observant.isIdentityEqual(lhs, rhs)
    case let (.other(lhs), .other(rhs)): lhs == rhs
    default: false
    }
  }

  var editing: BHRow? {
    get { if case .editing(let row) = self { row } else { nil } }
  }
}

struct BHState: ObservableState, Sendable {
  var registrar = StateRegistrar<Self>()

  private var _rows = StateField<IdentifiedArrayOf<BHRow>>([])
  var rows: IdentifiedArrayOf<BHRow> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }

  private var _draft = StateField<BHRow?>(nil)
  var draft: BHRow? {
    get { registrar.read(_draft) } set { registrar.write(&_draft, newValue) }
    _modify { yield &self[tracking: \._draft] }
  }

  private var _plain = StateField<[BHRow]>([])
  var plain: [BHRow] {
    get { registrar.read(_plain) } set { registrar.write(&_plain, newValue) }
    _modify { yield &self[tracking: \._plain] }
  }

  private var _dict = StateField<[Int: BHRow]>([:])
  var dict: [Int: BHRow] {
    get { registrar.read(_dict) } set { registrar.write(&_dict, newValue) }
    _modify { yield &self[tracking: \._dict] }
  }

  private var _mode = StateField(BHMode.none)
  var mode: BHMode { get { registrar.read(_mode) } set { registrar.write(&_mode, newValue) } }

  private var _nested = StateField(BHMid())
  var nested: BHMid {
    get { registrar.read(_nested) } set { registrar.write(&_nested, newValue) }
    _modify { yield &self[tracking: \._nested] }
  }

  private var _flag = StateField(0)
  var flag: Int { get { registrar.read(_flag) } set { registrar.write(&_flag, newValue) } }

  init(rows: [BHRow] = [BHRow(id: 1), BHRow(id: 2), BHRow(id: 3)]) {
    _rows = StateField(IdentifiedArray(uniqueElements: rows))
  }
}

final class BHModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state = BHState()
  init(_ state: BHState = BHState()) { self.state = state }
}

enum BHAction: Sendable {
  case apply(@Sendable (inout BHState) -> Void)
  case row(id: Int, action: BHRowAction)
  case draft(BHRowAction)
  case editing(BHRowAction)
}

enum BHRowAction: Sendable {
  case apply(@Sendable (inout BHRow) -> Void)
}

enum BHFeature {
  static func reduce(_ state: inout BHState, _ action: BHAction) -> Effect<BHAction> {
    switch action {
    case .apply(let body): body(&state)
    case .row(let id, .apply(let body)):
      if state.rows[id: id] != nil { body(&state.rows[id: id]!) }
    case .draft(.apply(let body)):
      if state.draft != nil { body(&state.draft!) }
    case .editing(.apply(let body)):
      if case .editing(var row) = state.mode {
        body(&row)
        state.mode = .editing(row)
      }
    }
    return .none
  }
}

/// A counter that an Apple `onChange` (a `@Sendable` closure) can bump.
final class BHCounter: Sendable {
  private let storage = Mutex(0)
  func bump() { storage.withLock { $0 += 1 } }
  var value: Int { storage.withLock { $0 } }
}
