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

// swift-format-ignore
struct Child: ObservableState, Equatable {
  var registrar = StateRegistrar<Self>()

  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }

  private var _name = StateField("")
  var name: String { get { registrar.read(_name) } set { registrar.write(&_name, newValue) } }

  init(count: Int = 0, name: String = "") {
    _count = StateField(count)
    _name = StateField(name)
  }

  mutating func reset() { self = Child() }
}

// swift-format-ignore
struct Row: ObservableState, Identifiable, Equatable {
  var registrar = StateRegistrar<Self>()
  let id: Int

  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }

  init(id: Int, count: Int = 0) {
    self.id = id
    _count = StateField(count)
  }
}

/// A plain (non-observable) row: its changes are reported only by the slot holding it.
struct PlainRow: Identifiable, Equatable {
  let id: Int
  var count = 0
}

// swift-format-ignore
struct Parent: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _title = StateField("Parent")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

  private var _child = StateField(Child())
  var child: Child {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }

  private var _sibling = StateField(Child())
  var sibling: Child {
    get { registrar.read(_sibling) } set { registrar.write(&_sibling, newValue) }
    _modify { yield &self[tracking: \._sibling] }
  }

  private var _optional = StateField<Child?>(nil)
  var optional: Child? {
    get { registrar.read(_optional) } set { registrar.write(&_optional, newValue) }
    _modify { yield &self[tracking: \._optional] }
  }

  private var _rows = StateField<IdentifiedArrayOf<Row>>([])
  var rows: IdentifiedArrayOf<Row> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }

  private var _plainRows = StateField<IdentifiedArrayOf<PlainRow>>([])
  var plainRows: IdentifiedArrayOf<PlainRow> {
    get { registrar.read(_plainRows) } set { registrar.write(&_plainRows, newValue) }
    _modify { yield &self[tracking: \._plainRows] }
  }

  private var _numbers = StateField<[Int]>([])
  var numbers: [Int] {
    get { registrar.read(_numbers) } set { registrar.write(&_numbers, newValue) }
    _modify { yield &self[tracking: \._numbers] }
  }

  private var _score = StateField(0)
  var score: Int {
    get { registrar.read(_score) } set { registrar.write(&_score, newValue) }
    _modify { yield &self[tracking: \._score] }
  }

  private var _opaque = StateField(Opaque(value: 0))
  var opaque: Opaque { get { registrar.read(_opaque) } set { registrar.write(&_opaque, newValue) } }

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
