import Observant
import ObservantStore
import Synchronization
import Observation

/// A class with tracked fields.
final class Profile: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var name = "Ada"
  @Tracked var count = 0
  @Tracked var state = Screen()
  @TrackedWeak var friend: Profile?
}

// swift-format-ignore
struct Counter: ObservableState, Identifiable, Equatable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

  init(id: Int = 0, count: Int = 0) {
    self.id = id
    _count = StateField(count)
  }
}

// swift-format-ignore
struct Screen: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _title = StateField("Screen")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
  private var _child = StateField(Counter())
  var child: Counter {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }
  private var _rows = StateField<IdentifiedArrayOf<Counter>>([])
  var rows: IdentifiedArrayOf<Counter> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }

  init(rows: some Sequence<Int> = []) {
    _rows = StateField(IdentifiedArray(uniqueElements: rows.map { Counter(id: $0) }))
  }
}

/// A feature for store tests: a title and rows of counters, each row with its own store.
enum ListFeature {
  typealias State = Screen

  enum RowAction: Equatable, Sendable {
    case increment
    case set(Int)
    case incrementAndBack
  }

  enum Action: Equatable, Sendable {
    case add(Int)
    case remove(Int)
    case replace(Int, count: Int)
    case title(String)
    case row(id: Int, action: RowAction)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .add(let id): state.rows.append(Counter(id: id))
    case .remove(let id): state.rows.remove(id: id)
    case .replace(let id, let count): state.rows[id: id] = Counter(id: id, count: count)
    case .title(let title): state.title = title
    case .row(let id, .increment): state.rows[id: id]?.count += 1
    case .row(let id, .set(let count)): state.rows[id: id]?.count = count
    case .row(let id, .incrementAndBack):
      state.rows[id: id]?.count += 1
      state.rows[id: id]?.count -= 1
    }
    return .none
  }
}

/// Counts the firings of Apple's `onChange` (which may run on any thread).
final class Firings: Sendable {
  private let count = Atomic<Int>(0)

  var value: Int { count.load(ordering: .acquiring) }

  /// An `onChange` closure that counts.
  var onChange: @Sendable () -> Void { { [self] in count.add(1, ordering: .acquiringAndReleasing) } }
}

/// Tells whether an Apple scope's `onChange` ran while `withObservationTracking` was still
/// installing that scope on its own thread: the one window in which Apple keeps a scope's
/// observations for good (see `ObservationBridge`, "A write racing with
/// `withObservationTracking`"). Tests that bound the bridge's entries use it to tell Apple's race
/// from a leak of the bridge's own.
final class InstallWindow: Sendable {
  private let installing = Atomic<Bool>(false)
  private let firedWhileInstalling = Atomic<Int>(0)

  /// How many times `onChange` ran inside the window.
  var raced: Int { firedWhileInstalling.load(ordering: .sequentiallyConsistent) }

  /// Runs `withObservationTracking` with the window open around it.
  func track(_ apply: () -> Void, onChange: @escaping @Sendable () -> Void) {
    installing.store(true, ordering: .sequentiallyConsistent)
    withObservationTracking(apply) { [self] in
      if installing.load(ordering: .sequentiallyConsistent) {
        firedWhileInstalling.add(1, ordering: .sequentiallyConsistent)
      }
      onChange()
    }
    installing.store(false, ordering: .sequentiallyConsistent)
  }
}
