import Observant

// The state the fuzzer generates: one recursive observable type covers every shape the identity
// rules care about — nested children, optional children (an enum slot and an Optional), enum state
// with observable and Equatable payloads, identified arrays of observable rows and of plain structs.

/// A leaf feature: observable state without children.
struct Leaf: ObservableState, Equatable {
  let stateRegistrar = StateRegistrar()
  private var _value: Int
  var value: Int {
    get { read(\.value, _value) }
    set { write(\.value, &_value, newValue) }
  }
  init(value: Int = 0) { _value = value }
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

struct Node: ObservableState, Identifiable {
  let stateRegistrar = StateRegistrar()
  let id: Int

  private var _value: Int
  var value: Int {
    get { read(\.value, _value) }
    set { write(\.value, &_value, newValue) }
  }

  private var _label: String
  var label: String {
    get { read(\.label, _label) }
    set { write(\.label, &_label, newValue) }
  }

  private var _rows: IdentifiedArrayOf<Node>
  var rows: IdentifiedArrayOf<Node> {
    get { read(\.rows, _rows) }
    set { write(\.rows, &_rows, newValue) }
    _modify { yield &self[tracking: \.rows, storage: \._rows] }
  }

  private var _plains: IdentifiedArrayOf<Plain>
  var plains: IdentifiedArrayOf<Plain> {
    get { read(\.plains, _plains) }
    set { write(\.plains, &_plains, newValue) }
    _modify { yield &self[tracking: \.plains, storage: \._plains] }
  }

  private var _slot: Slot
  var slot: Slot {
    get { read(\.slot, _slot) }
    set { write(\.slot, &_slot, newValue) }
  }

  private var _choice: Choice
  var choice: Choice {
    get { read(\.choice, _choice) }
    set { write(\.choice, &_choice, newValue) }
  }

  private var _pinned: Leaf
  var pinned: Leaf {
    get { read(\.pinned, _pinned) }
    set { write(\.pinned, &_pinned, newValue) }
    _modify { yield &self[tracking: \.pinned, storage: \._pinned] }
  }

  private var _spare: Leaf
  var spare: Leaf {
    get { read(\.spare, _spare) }
    set { write(\.spare, &_spare, newValue) }
    _modify { yield &self[tracking: \.spare, storage: \._spare] }
  }

  private var _leaf: Leaf?
  var leaf: Leaf? {
    get { read(\.leaf, _leaf) }
    set { write(\.leaf, &_leaf, newValue) }
    _modify { yield &self[tracking: \.leaf, storage: \._leaf] }
  }

  init(
    id: Int, value: Int = 0, label: String = "", rows: [Node] = [], plains: [Plain] = [],
    slot: Slot = .empty, choice: Choice = .plain(0), leaf: Leaf? = nil
  ) {
    self.id = id
    _value = value
    _label = label
    _rows = IdentifiedArray(uniqueElements: rows)
    _plains = IdentifiedArray(uniqueElements: plains)
    _slot = slot
    _choice = choice
    _pinned = Leaf()
    _spare = Leaf()
    _leaf = leaf
  }

  /// Replaces this value by a fresh one with the same id (a new identity).
  mutating func renew() { self = Node(id: id, value: value, label: label) }
}

/// The holder of the plain (store-less) mode: value state in a `@Tracked` property.
final class Holder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var root: Node
  init(root: Node) { self.root = root }
}
