import Observant
import ObservantStore
import Testing

// The code of the Observant article "Derived values" (DerivedValues.md), verbatim
// (`ArticleCodeTests` checks it), over a store of checklist rows.

enum Checklist {
  // swift-format-ignore
  struct Row: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int

    private var _name = StateField("")
    var name: String { get { registrar.read(_name) } set { registrar.write(&_name, newValue) } }

    private var _isDone = StateField(false)
    var isDone: Bool { get { registrar.read(_isDone) } set { registrar.write(&_isDone, newValue) } }

    init(id: Int) { self.id = id }
  }

  enum RowAction: Sendable {
    case toggle
    case rename(String)
  }

  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _rows: StateField<IdentifiedArrayOf<Row>>
    var rows: IdentifiedArrayOf<Row> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }

    init(rowIDs: some Sequence<Int>) {
      _rows = StateField(IdentifiedArray(uniqueElements: rowIDs.map(Row.init)))
    }
  }

  enum Action: Sendable {
    case row(id: Int, action: RowAction)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .row(let id, .toggle): state.rows[id: id]?.isDone.toggle()
    case .row(let id, .rename(let name)): state.rows[id: id]?.name = name
    }
    return .none
  }
}

@MainActor
@Suite("Article: Derived values")
struct DerivedArticle {
  @Test("doneIDs recomputes once for a toggle and the badge re-runs; a rename recomputes nothing")
  func doneIDs() {
    let store = Store(initialState: Checklist.State(rowIDs: 1...3), reducer: Checklist.reduce)
    let doneIDs = Derived("doneIDs") { store.rows.filter(\.isDone).map(\.id) }
    let badge = Reaction("Badge") { print("\(doneIDs.value.count) done") }

    store.send(.row(id: 2, action: .toggle))  // doneIDs recomputes once; the badge re-runs
    store.send(.row(id: 2, action: .rename("Eggs")))  // doneIDs did not read names: nothing recomputes

    #expect(doneIDs.computationCount == 2)
    #expect(badge.runCount == 2)
    #expect(doneIDs.value == [2])
    #expect(store.rows[id: 2]?.name == "Eggs")
  }
}
