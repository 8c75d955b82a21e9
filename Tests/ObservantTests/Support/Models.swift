import Observant
import Synchronization

/// A Trackable class with a few kinds of fields.
final class Profile: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var first = "Ada"
  @Tracked var last = "Lovelace"
  @Tracked var count = 0
  @Tracked var other = 0
  @Tracked var tags: [String] = []
  @Tracked var friend: Profile?
  @Tracked var ratio = 0.0
  /// Not tracked: reads and writes are invisible.
  var note = ""

  var fullName: String { "\(first) \(last)" }
}

/// A class whose references are compared with `===`.
final class Token: @unchecked Sendable {}

final class Holder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var token = Token()
  @Tracked var state = Parent()
  @Tracked var pair = Pair()
}

/// Not Equatable, not a class: every write notifies.
struct Opaque {
  var value: Int
}

struct Pair: Equatable {
  var left = 0
  var right = 0
}

struct Child: ObservableState, Equatable {
  let stateRegistrar = StateRegistrar()

  private var _count = 0
  var count: Int {
    get { read(\.count, _count) }
    set { write(\.count, &_count, newValue) }
  }

  private var _name = ""
  var name: String {
    get { read(\.name, _name) }
    set { write(\.name, &_name, newValue) }
  }

  init(count: Int = 0, name: String = "") {
    _count = count
    _name = name
  }

  mutating func reset() { self = Child() }
}

struct Row: ObservableState, Identifiable, Equatable {
  let stateRegistrar = StateRegistrar()
  let id: Int

  private var _count = 0
  var count: Int {
    get { read(\.count, _count) }
    set { write(\.count, &_count, newValue) }
  }

  init(id: Int, count: Int = 0) {
    self.id = id
    _count = count
  }
}

/// A plain (non-observable) row: its changes are reported only by the slot holding it.
struct PlainRow: Identifiable, Equatable {
  let id: Int
  var count = 0
}

struct Parent: ObservableState {
  let stateRegistrar = StateRegistrar()

  private var _title = "Parent"
  var title: String {
    get { read(\.title, _title) }
    set { write(\.title, &_title, newValue) }
  }

  private var _child = Child()
  var child: Child {
    get { read(\.child, _child) }
    set { write(\.child, &_child, newValue) }
    _modify { yield &self[tracking: \.child, storage: \._child] }
  }

  private var _sibling = Child()
  var sibling: Child {
    get { read(\.sibling, _sibling) }
    set { write(\.sibling, &_sibling, newValue) }
    _modify { yield &self[tracking: \.sibling, storage: \._sibling] }
  }

  private var _optional: Child? = nil
  var optional: Child? {
    get { read(\.optional, _optional) }
    set { write(\.optional, &_optional, newValue) }
    _modify { yield &self[tracking: \.optional, storage: \._optional] }
  }

  private var _rows: IdentifiedArrayOf<Row> = []
  var rows: IdentifiedArrayOf<Row> {
    get { read(\.rows, _rows) }
    set { write(\.rows, &_rows, newValue) }
    _modify { yield &self[tracking: \.rows, storage: \._rows] }
  }

  private var _plainRows: IdentifiedArrayOf<PlainRow> = []
  var plainRows: IdentifiedArrayOf<PlainRow> {
    get { read(\.plainRows, _plainRows) }
    set { write(\.plainRows, &_plainRows, newValue) }
    _modify { yield &self[tracking: \.plainRows, storage: \._plainRows] }
  }

  private var _numbers: [Int] = []
  var numbers: [Int] {
    get { read(\.numbers, _numbers) }
    set { write(\.numbers, &_numbers, newValue) }
    _modify { yield &self[tracking: \.numbers, storage: \._numbers] }
  }

  private var _score = 0
  var score: Int {
    get { read(\.score, _score) }
    set { write(\.score, &_score, newValue) }
    _modify { yield &self[tracking: \.score, storage: \._score] }
  }

  private var _opaque = Opaque(value: 0)
  var opaque: Opaque {
    get { read(\.opaque, _opaque) }
    set { write(\.opaque, &_opaque, newValue) }
  }

  init() {}

  mutating func reset() { self = Parent() }
}

/// Counts calls from any thread.
final class Counter: Sendable {
  private let count = Atomic<Int>(0)
  var value: Int { count.load(ordering: .relaxed) }
  func increment() { count.add(1, ordering: .relaxed) }
}

/// Tracks `body`'s reads and returns a counter of `onChange` calls.
@discardableResult
func observe(_ body: () -> Void) -> (Counter, TrackingObservation) {
  let counter = Counter()
  let (_, observation) = withCancellableTracking(body) { counter.increment() }
  return (counter, observation)
}
