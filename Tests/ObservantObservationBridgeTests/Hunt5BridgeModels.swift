import Observant
import ObservantStore

// Hunt 5: the bridge suites' state (a row with a nested leaf, rows, a child, an optional draft) and
// an action that runs a closure on the state: a reducer written inline in the test.

// swift-format-ignore
struct H5BLeaf: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _value = StateField(0)
  var value: Int { get { registrar.read(_value) } set { registrar.write(&_value, newValue) } }
}

// swift-format-ignore
struct H5BRow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
  private var _leaf = StateField(H5BLeaf())
  var leaf: H5BLeaf {
    get { registrar.read(_leaf) } set { registrar.write(&_leaf, newValue) }
    _modify { yield &self[tracking: \._leaf] }
  }
  init(id: Int, count: Int, title: String) {
    self.id = id
    _count = StateField(count)
    _title = StateField(title)
  }
}

// swift-format-ignore
struct H5BRoot: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField<IdentifiedArrayOf<H5BRow>>([])
  var rows: IdentifiedArrayOf<H5BRow> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _child = StateField(H5BRow(id: 100, count: 1, title: "c"))
  var child: H5BRow {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }
  private var _draft = StateField<H5BRow?>(nil)
  var draft: H5BRow? {
    get { registrar.read(_draft) } set { registrar.write(&_draft, newValue) }
    _modify { yield &self[tracking: \._draft] }
  }
  init(rows: [H5BRow]) { _rows = StateField(IdentifiedArray(uniqueElements: rows)) }
}

struct H5BEdit<S> {
  let body: (inout S) -> Void
  init(_ body: @escaping (inout S) -> Void) { self.body = body }
}

enum H5BAction {
  case edit(H5BEdit<H5BRoot>)
  case row(Int, H5BEdit<H5BRow>)
  case child(H5BEdit<H5BRow>)
  case draft(H5BEdit<H5BRow>)

  static func reduce(_ state: inout H5BRoot, _ action: H5BAction) -> Effect<H5BAction> {
    switch action {
    case .edit(let edit): edit.body(&state)
    case .row(let id, let edit): if state.rows[id: id] != nil { edit.body(&state.rows[id: id]!) }
    case .child(let edit): edit.body(&state.child)
    case .draft(let edit): if state.draft != nil { edit.body(&state.draft!) }
    }
    return .none
  }
}
