import Observant

// swift-format-ignore
/// Declared right: a plain field, a collection, and an `id` that is deliberately untracked.
struct Row: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int

  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }

  private var _tags = StateField<[String]>([])
  var tags: [String] {
    get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
    _modify { yield &self[tracking: \._tags] }
  }

  init(id: Int, count: Int = 0) {
    self.id = id
    _count = StateField(count)
  }
}

// swift-format-ignore
struct Child: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
}

// swift-format-ignore
/// Declared right, with nested state: a child, an optional child, a row collection, an optional
/// string and a dictionary.
struct Parent: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

  private var _child = StateField(Child())
  var child: Child {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
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

  private var _note = StateField<String?>(nil)
  var note: String? {
    get { registrar.read(_note) } set { registrar.write(&_note, newValue) }
    _modify { yield &self[tracking: \._note] }
  }

  private var _scores = StateField<[String: Int]>([:])
  var scores: [String: Int] {
    get { registrar.read(_scores) } set { registrar.write(&_scores, newValue) }
    _modify { yield &self[tracking: \._scores] }
  }
}
