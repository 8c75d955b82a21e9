import Observant
import ObservantHarness
import Synchronization

// swift-format-ignore
/// A row with its own registrar: readers of `count` hear about it from the row, not from the
/// array holding it.
struct Row: ObservableState, Identifiable, Equatable {
  var registrar = StateRegistrar<Self>()
  let id: Int

  private var _count: StateField<Int>
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }

  init(id: Int, count: Int = 0) {
    self.id = id
    _count = StateField(count)
  }
}

// swift-format-ignore
/// A list screen's state: a title, the rows, and a separately tracked row count that only the
/// helpers below maintain (so moving rows, which does not change it, notifies nobody reading it).
struct ListState: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _title = StateField("Rows")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

  private var _rows = StateField<IdentifiedArrayOf<Row>>([])
  var rows: IdentifiedArrayOf<Row> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }

  private var _rowCount = StateField(0)
  var rowCount: Int { get { registrar.read(_rowCount) } set { registrar.write(&_rowCount, newValue) } }

  init(rows: some Sequence<Row> = []) {
    _rows = StateField(IdentifiedArrayOf(uniqueElements: rows))
    _rowCount = StateField(_rows.value.count)
  }

  mutating func appendRow(_ row: Row) {
    rows.append(row)
    rowCount = rows.count
  }

  @discardableResult
  mutating func removeRow(id: Int) -> Row? {
    defer { rowCount = rows.count }
    return rows.remove(id: id)
  }
}

/// The model a screen observes: value-type state held by a Trackable class, mutated in place.
final class ListModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state: ListState

  init(rowIDs: some Sequence<Int> = []) {
    state = ListState(rows: rowIDs.map { Row(id: $0) })
  }

  /// The current value of row `id`, looked up without reading `rows` in any tracking scope: a
  /// per-row source. Reading a field of the result records only that row's field.
  func row(_ id: Int) -> Row? {
    withoutTracking { state.rows[id: id] }
  }

  /// A list whose rows are children keyed by id, each reading only its own row's count (through
  /// `row(_:)`), with the row value as the child's input.
  func makeListTree(_ name: String = "List") -> RenderTree {
    RenderTree(name) { list in
      list.forEach(self.state.rows, name: { "Row[\($0.id)]" }) { row, context in
        context.text("Row \(row.id): \(self.row(row.id)?.count ?? -1)")
      }
    }
  }
}

/// A Trackable class with a few independent fields.
final class Panel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var title = "Inbox"
  @Tracked var count = 0
  @Tracked var detail = "none"
  @Tracked var showsDetail = true
  @Tracked var flag = false
}

/// An input whose `==` reads a tracked field: comparing it must not subscribe anyone.
struct PanelProbe: Equatable {
  let panel: Panel
  let value: Int

  static func == (lhs: Self, rhs: Self) -> Bool {
    _ = lhs.panel.flag  // a tracked read, as a careless `==` might make
    return lhs.value == rhs.value
  }
}

/// A plain (non-observable) item: its changes reach a child only as a changed input.
struct Item: Identifiable, Equatable {
  let id: Int
  var label: String
}

/// Collects diagnostics from any thread.
final class DiagnosticSink: Sendable {
  private let received = Mutex<[RenderDiagnostic]>([])
  var all: [RenderDiagnostic] { received.withLock { $0 } }
  func append(_ diagnostic: RenderDiagnostic) { received.withLock { $0.append(diagnostic) } }
}

/// Plain items in a plain array: no per-item registrar, so an edited item reaches its child only
/// as a changed input (`==`). An array, not an identified one, so tests can repeat an id.
final class Catalog: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var items: [Item]

  init(_ items: [Item]) {
    self.items = items
  }

  init(ids: some Sequence<Int>) {
    items = ids.map { Item(id: $0, label: "item \($0)") }
  }
}

/// A message with its own registrar that is not `Equatable`: a `forEach` over messages passes
/// its children no input, and a child showing `title` re-runs through the message's registrar.
// swift-format-ignore
struct Message: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int

  private var _title: StateField<String>
  var title: String {
    get { registrar.read(_title) }
    set { registrar.write(&_title, newValue) }
  }

  init(id: Int, title: String) {
    self.id = id
    _title = StateField(title)
  }
}

/// Messages held by a Trackable class, mutated in place: an in-place edit of a message's title
/// notifies only the message's readers, not the readers of `messages`.
final class Inbox: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var messages: IdentifiedArrayOf<Message>

  init(ids: some Sequence<Int>) {
    messages = IdentifiedArrayOf(uniqueElements: ids.map { Message(id: $0, title: "r\($0)") })
  }
}
