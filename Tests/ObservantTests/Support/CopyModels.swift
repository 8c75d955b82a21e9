import Observant

// swift-format-ignore
/// An item with two fields, so that a change of one can be told from a change of the other.
struct Item: ObservableState, Identifiable, Equatable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
  init(id: Int, count: Int = 0, title: String = "") {
    self.id = id
    _count = StateField(count)
    _title = StateField(title)
  }
}

/// Enum state with an observable payload.
enum Mode: IdentityComparable {
  case idle
  case editing(Item)

  static func isIdentityEqual(_ lhs: Mode, _ rhs: Mode) -> Bool {
    switch (lhs, rhs) {
    case (.idle, .idle): true
    case let (.editing(lhs), .editing(rhs)): Observant.isIdentityEqual(lhs, rhs)
    default: false
    }
  }

  var item: Item? {
    if case .editing(let item) = self { item } else { nil }
  }
}

// swift-format-ignore
/// State holding items in every kind of slot the identity rules know.
struct Editor: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _rows = StateField<IdentifiedArrayOf<Item>>([Item(id: 1), Item(id: 2)])
  var rows: IdentifiedArrayOf<Item> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }

  private var _list = StateField<[Item]>([Item(id: 1), Item(id: 2)])
  var list: [Item] {
    get { registrar.read(_list) } set { registrar.write(&_list, newValue) }
    _modify { yield &self[tracking: \._list] }
  }

  /// The same kind of field without `_modify`: every element change goes through the setter.
  private var _plainList = StateField<[Item]>([Item(id: 1), Item(id: 2)])
  var plainList: [Item] { get { registrar.read(_plainList) } set { registrar.write(&_plainList, newValue) } }

  private var _table = StateField<[Int: Item]>([1: Item(id: 1), 2: Item(id: 2)])
  var table: [Int: Item] {
    get { registrar.read(_table) } set { registrar.write(&_table, newValue) }
    _modify { yield &self[tracking: \._table] }
  }

  private var _child = StateField(Item(id: 10))
  var child: Item {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }

  private var _sibling = StateField(Item(id: 11))
  var sibling: Item {
    get { registrar.read(_sibling) } set { registrar.write(&_sibling, newValue) }
    _modify { yield &self[tracking: \._sibling] }
  }

  private var _optional = StateField<Item?>(Item(id: 20))
  var optional: Item? {
    get { registrar.read(_optional) } set { registrar.write(&_optional, newValue) }
    _modify { yield &self[tracking: \._optional] }
  }

  private var _mode = StateField(Mode.editing(Item(id: 30)))
  var mode: Mode { get { registrar.read(_mode) } set { registrar.write(&_mode, newValue) } }

  private var _draft = StateField<Item?>(nil)
  var draft: Item? {
    get { registrar.read(_draft) } set { registrar.write(&_draft, newValue) }
    _modify { yield &self[tracking: \._draft] }
  }

  init() {}
}

extension Item {
  /// Replaces the value wholesale through `inout self` (an undo the accessors do not see).
  mutating func restore(_ saved: Item) { self = saved }
}

extension Editor {
  /// Replaces the value wholesale through `inout self`.
  mutating func restore(_ saved: Editor) { self = saved }
}

/// The owner of an `Editor`: value state in a `@Tracked` property, mutated in place.
final class EditorModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state = Editor()
}

/// A reaction that records what it showed at every run.
final class Shown<Value: Sendable>: @unchecked Sendable {
  private(set) var values: [Value] = []
  private(set) var reaction: Reaction!

  init(_ read: @escaping () -> Value) {
    reaction = Reaction { [unowned self] in self.values.append(read()) }
  }

  var runs: Int { reaction.runCount }
  var last: Value? { values.last }
}
