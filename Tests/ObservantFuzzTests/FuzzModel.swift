import Observant

// The state the fuzzer generates: one recursive observable type covers every shape the identity
// rules care about — nested children, optional children (an enum slot and an Optional), enum state
// with observable and Equatable payloads, identified arrays of observable rows and of plain structs.

// swift-format-ignore
/// A leaf feature: observable state without children.
struct Leaf: ObservableState, Equatable {
  var registrar = StateRegistrar<Self>()
  private var _value: StateField<Int>
  var value: Int { get { registrar.read(_value) } set { registrar.write(&_value, newValue) } }
  init(value: Int = 0) { _value = StateField(value) }
  mutating func reset() { self = Leaf() }
}

/// A plain (non-observable) row: its changes reach readers only through the array's slot.
struct Plain: Identifiable, Equatable, CustomStringConvertible {
  let id: Int
  var number: Int
  var description: String { "\(id):\(number)" }
}

/// An optional child as an enum (recursion needs indirection).
indirect enum Slot: IdentityComparable {
  case empty
  case present(Node)

  static func isIdentityEqual(_ lhs: Slot, _ rhs: Slot) -> Bool {
    switch (lhs, rhs) {
    case (.empty, .empty): true
    case let (.present(lhs), .present(rhs)): Observant.isIdentityEqual(lhs, rhs)
    default: false
    }
  }

  var node: Node? {
    if case .present(let node) = self { node } else { nil }
  }
}

/// Enum state: two cases with an observable payload, one with an Equatable payload.
indirect enum Choice: IdentityComparable {
  case plain(Int)
  case left(Node)
  case right(Node)

  static func isIdentityEqual(_ lhs: Choice, _ rhs: Choice) -> Bool {
    switch (lhs, rhs) {
    case let (.plain(lhs), .plain(rhs)): lhs == rhs
    case let (.left(lhs), .left(rhs)), let (.right(lhs), .right(rhs)): Observant.isIdentityEqual(lhs, rhs)
    default: false
    }
  }

  var left: Node? {
    if case .left(let node) = self { node } else { nil }
  }
  var right: Node? {
    if case .right(let node) = self { node } else { nil }
  }
}

// swift-format-ignore
struct Node: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int

  private var _value: StateField<Int>
  var value: Int { get { registrar.read(_value) } set { registrar.write(&_value, newValue) } }

  private var _label: StateField<String>
  var label: String { get { registrar.read(_label) } set { registrar.write(&_label, newValue) } }

  private var _rows: StateField<IdentifiedArrayOf<Node>>
  var rows: IdentifiedArrayOf<Node> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }

  private var _plains: StateField<IdentifiedArrayOf<Plain>>
  var plains: IdentifiedArrayOf<Plain> {
    get { registrar.read(_plains) } set { registrar.write(&_plains, newValue) }
    _modify { yield &self[tracking: \._plains] }
  }

  private var _slot: StateField<Slot>
  var slot: Slot { get { registrar.read(_slot) } set { registrar.write(&_slot, newValue) } }

  private var _choice: StateField<Choice>
  var choice: Choice { get { registrar.read(_choice) } set { registrar.write(&_choice, newValue) } }

  private var _pinned: StateField<Leaf>
  var pinned: Leaf {
    get { registrar.read(_pinned) } set { registrar.write(&_pinned, newValue) }
    _modify { yield &self[tracking: \._pinned] }
  }

  private var _spare: StateField<Leaf>
  var spare: Leaf {
    get { registrar.read(_spare) } set { registrar.write(&_spare, newValue) }
    _modify { yield &self[tracking: \._spare] }
  }

  private var _leaf: StateField<Leaf?>
  var leaf: Leaf? {
    get { registrar.read(_leaf) } set { registrar.write(&_leaf, newValue) }
    _modify { yield &self[tracking: \._leaf] }
  }

  /// A plain array of observable state (identity by `ObservableStateID`, compared in O(n)).
  private var _items = StateField<[Leaf]>([])
  var items: [Leaf] {
    get { registrar.read(_items) } set { registrar.write(&_items, newValue) }
    _modify { yield &self[tracking: \._items] }
  }

  /// A dictionary of observable state.
  private var _table = StateField<[Int: Leaf]>([:])
  var table: [Int: Leaf] {
    get { registrar.read(_table) } set { registrar.write(&_table, newValue) }
    _modify { yield &self[tracking: \._table] }
  }

  init(
    id: Int, value: Int = 0, label: String = "", rows: [Node] = [], plains: [Plain] = [],
    slot: Slot = .empty, choice: Choice = .plain(0), leaf: Leaf? = nil, items: [Leaf] = [], table: [Int: Leaf] = [:]
  ) {
    self.id = id
    _value = StateField(value)
    _label = StateField(label)
    _rows = StateField(IdentifiedArray(uniqueElements: rows))
    _plains = StateField(IdentifiedArray(uniqueElements: plains))
    _slot = StateField(slot)
    _choice = StateField(choice)
    _pinned = StateField(Leaf())
    _spare = StateField(Leaf())
    _leaf = StateField(leaf)
    _items = StateField(items)
    _table = StateField(table)
  }

  /// Replaces this value by a fresh one with the same id (a new identity).
  mutating func renew() { self = Node(id: id, value: value, label: label) }

  /// Replaces this value wholesale by `saved` (an undo, through `inout self`).
  mutating func restore(_ saved: Node) { self = saved }
}

/// The holder of the plain (store-less) mode: value state in a `@Tracked` property.
final class Holder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var root: Node
  init(root: Node) { self.root = root }
}
