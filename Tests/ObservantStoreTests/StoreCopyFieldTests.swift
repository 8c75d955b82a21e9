// swift-format-ignore-file
// (Observable types declared the way the README and the articles show them: two lines a field.)
import Observant
import ObservantHarness
import ObservantStore
import Testing

// Copies of state held in every kind of field, through a store rendered with the harness: after
// every step each body shows the current state, and exactly the bodies whose values changed
// re-ran (plus the documented re-run of the readers of a value whose copy was written).

enum CopyFieldsFeature {
  /// Enum state with an observable payload, identity-comparable: the same case and payload
  /// identity is the same value.
  enum Mode: IdentityComparable {
    case idle
    case editing(CounterFeature.State)

    static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
      switch (lhs, rhs) {
      case (.idle, .idle): true
      case let (.editing(lhs), .editing(rhs)): Observant.isIdentityEqual(lhs, rhs)
      default: false
      }
    }

    var editing: CounterFeature.State? {
      if case .editing(let state) = self { state } else { nil }
    }
  }

  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    /// A plain array of observable state, mutated in place.
    private var _list = StateField([CounterFeature.State(), CounterFeature.State()])
    var list: [CounterFeature.State] {
      get { registrar.read(_list) } set { registrar.write(&_list, newValue) }
      _modify { yield &self[tracking: \._list] }
    }
    /// The same without a `_modify` accessor: every change goes through the setter.
    private var _plainList = StateField([CounterFeature.State(), CounterFeature.State()])
    var plainList: [CounterFeature.State] { get { registrar.read(_plainList) } set { registrar.write(&_plainList, newValue) } }
    private var _table = StateField(["a": CounterFeature.State(), "b": CounterFeature.State()])
    var table: [String: CounterFeature.State] {
      get { registrar.read(_table) } set { registrar.write(&_table, newValue) }
      _modify { yield &self[tracking: \._table] }
    }
    private var _optionalChild = StateField<CounterFeature.State?>(CounterFeature.State())
    var optionalChild: CounterFeature.State? {
      get { registrar.read(_optionalChild) } set { registrar.write(&_optionalChild, newValue) }
      _modify { yield &self[tracking: \._optionalChild] }
    }
    private var _mode = StateField(Mode.editing(CounterFeature.State()))
    var mode: Mode { get { registrar.read(_mode) } set { registrar.write(&_mode, newValue) } }
    private var _first = StateField(CounterFeature.State())
    var first: CounterFeature.State {
      get { registrar.read(_first) } set { registrar.write(&_first, newValue) }
      _modify { yield &self[tracking: \._first] }
    }
    private var _second = StateField(CounterFeature.State())
    var second: CounterFeature.State {
      get { registrar.read(_second) } set { registrar.write(&_second, newValue) }
      _modify { yield &self[tracking: \._second] }
    }
    private var _rows = StateField(IdentifiedArray(uniqueElements: (1...3).map { RowFeature.State(id: $0) }))
    var rows: IdentifiedArrayOf<RowFeature.State> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    init() {}
  }

  enum Action: Sendable {
    /// `var x = state.list[i]; x.count += 1; state.list[i] = x`
    case copyMutateAssignList(Int)
    /// The same on the field without `_modify`.
    case copyMutateAssignPlainList(Int)
    /// `var x = state.table[key]!; x.count += 1; state.table[key] = x`
    case copyMutateAssignTable(String)
    /// `var x = state.optionalChild!; x.count += 1; state.optionalChild = x`
    case copyMutateAssignOptional
    /// `.editing(x)` -> `.editing(edited copy of x)`
    case editPayload
    /// `state.second = state.first`: one value in two slots.
    case shareFirst
    /// The value in both slots, changed differently in one action.
    case changeBothSlots
    /// `let x = state.list[0]; state.list[0] = state.list[1]; state.list[1] = x`
    case swapList
    /// `let x = state.first; state.first = state.second; state.second = x`
    case swapSlots
    /// `state.rows[id: row.id] = row`: a row snapshot restored.
    case restoreRow(RowFeature.State)
    /// `let row = state.rows[0]; state.rows.remove(at: 0); state.rows.insert(row, at: 1)`: the
    /// first two rows swapped by copying.
    case swapRows
    case first(CounterFeature.Action)
    case second(CounterFeature.Action)
    case optionalChild(CounterFeature.Action)
    case editing(CounterFeature.Action)
    case row(id: Int, action: RowFeature.Action)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .copyMutateAssignList(let index):
      var element = state.list[index]
      element.count += 1
      state.list[index] = element
    case .copyMutateAssignPlainList(let index):
      var element = state.plainList[index]
      element.count += 1
      state.plainList[index] = element
    case .copyMutateAssignTable(let key):
      var element = state.table[key]!
      element.count += 1
      state.table[key] = element
    case .copyMutateAssignOptional:
      var child = state.optionalChild!
      child.count += 1
      state.optionalChild = child
    case .editPayload:
      guard case .editing(var payload) = state.mode else { return .none }
      payload.count += 1
      state.mode = .editing(payload)
    case .shareFirst:
      state.second = state.first
    case .changeBothSlots:
      state.first.count += 1
      state.second.count += 10
    case .swapList:
      let element = state.list[0]
      state.list[0] = state.list[1]
      state.list[1] = element
    case .swapSlots:
      let first = state.first
      state.first = state.second
      state.second = first
    case .restoreRow(let row):
      state.rows[id: row.id] = row
    case .swapRows:
      let row = state.rows[0]
      state.rows.remove(at: 0)
      state.rows.insert(row, at: 1)
    case .first(let action):
      return CounterFeature.reduce(&state.first, action).map(Action.first)
    case .second(let action):
      return CounterFeature.reduce(&state.second, action).map(Action.second)
    case .optionalChild(let action):
      guard state.optionalChild != nil else { return .none }
      return CounterFeature.reduce(&state.optionalChild!, action).map(Action.optionalChild)
    case .editing(let action):
      guard case .editing(var payload) = state.mode else { return .none }
      let effect = CounterFeature.reduce(&payload, action)
      state.mode = .editing(payload)
      return effect.map(Action.editing)
    case .row(let id, let action):
      guard state.rows[id: id] != nil else { return .none }
      return RowFeature.reduce(&state.rows[id: id]!, action).map { .row(id: id, action: $0) }
    }
    return .none
  }
}

@MainActor
@Suite("Store: copies of state in every kind of field, rendered")
struct StoreCopyFieldTests {
  typealias Feature = CopyFieldsFeature
  typealias FeatureStore = Store<Feature.State, Feature.Action>

  /// One body per value: each shows one count, read through the store the way a view would.
  private func screen() -> (FeatureStore, RenderTree) {
    let store = Store(initialState: Feature.State(), reducer: Feature.reduce)
    let tree = RenderTree("Screen") { screen in
      for index in 0..<2 {
        screen.child("List[\(index)]") { $0.text("\(store.withState { $0.list[index].count })") }
        screen.child("Plain[\(index)]") { $0.text("\(store.withState { $0.plainList[index].count })") }
      }
      for key in ["a", "b"] {
        screen.child("Table[\(key)]") { $0.text("\(store.withState { $0.table[key]!.count })") }
      }
      screen.child("Optional") { node in
        node.text(store.scope(state: \.optionalChild, action: Feature.Action.optionalChild).map { "\($0.count)" } ?? "none")
      }
      screen.child("Editing") { node in
        node.text(store.scope(state: \.mode.editing, action: Feature.Action.editing).map { "\($0.count)" } ?? "idle")
      }
      screen.child("First") { $0.text("\(store.scope(state: \.first, action: Feature.Action.first).count)") }
      screen.child("Second") { $0.text("\(store.scope(state: \.second, action: Feature.Action.second).count)") }
      screen.forEach(store.scope(state: \.rows, action: Feature.Action.row), name: { "Row[\($0.id)]" }) { row, body in
        body.text("\(row.count)")
      }
    }
    return (store, tree)
  }

  /// What every body should show now, read from the state without tracking.
  private func expected(_ store: FeatureStore) -> [String: String] {
    let state = withoutTracking { store.state }
    return withoutTracking {
      var shown: [String: String] = [:]
      for index in 0..<2 {
        shown["List[\(index)]"] = "\(state.list[index].count)"
        shown["Plain[\(index)]"] = "\(state.plainList[index].count)"
      }
      for key in ["a", "b"] { shown["Table[\(key)]"] = "\(state.table[key]!.count)" }
      shown["Optional"] = state.optionalChild.map { "\($0.count)" } ?? "none"
      shown["Editing"] = state.mode.editing.map { "\($0.count)" } ?? "idle"
      shown["First"] = "\(state.first.count)"
      shown["Second"] = "\(state.second.count)"
      for row in state.rows { shown["Row[\(row.id)]"] = "\(row.count)" }
      return shown
    }
  }

  /// Runs `body` as one step, expects exactly `runs` (names, each once) to have re-run, and every
  /// body to show the current state.
  private func step(
    _ store: FeatureStore, _ tree: RenderTree, _ body: () -> Void, runs: [String],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let step = tree.step("step", body)
    #expect(step.runs.sorted() == runs.sorted(), sourceLocation: sourceLocation)
    for (name, value) in expected(store) {
      #expect(tree.output(of: name) == value, "\(name)", sourceLocation: sourceLocation)
    }
  }

  @Test("copy-mutate-assign of an element of a [State] field with _modify re-runs that element's body once")
  func listWithModify() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.copyMutateAssignList(0)) }, runs: ["List[0]"])
    step(store, tree, { store.send(.copyMutateAssignList(1)) }, runs: ["List[1]"])
    step(store, tree, { store.send(.copyMutateAssignList(0)) }, runs: ["List[0]"])
    #expect(tree.output(of: "List[0]") == "2")
  }

  @Test("copy-mutate-assign of an element of a [State] field without _modify re-runs that element's body once")
  func listWithoutModify() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.copyMutateAssignPlainList(1)) }, runs: ["Plain[1]"])
    step(store, tree, { store.send(.copyMutateAssignPlainList(1)) }, runs: ["Plain[1]"])
    step(store, tree, { store.send(.copyMutateAssignPlainList(0)) }, runs: ["Plain[0]"])
    #expect(tree.output(of: "Plain[1]") == "2")
  }

  @Test("copy-mutate-assign of a value of a [Key: State] field re-runs that value's body once")
  func dictionary() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.copyMutateAssignTable("a")) }, runs: ["Table[a]"])
    step(store, tree, { store.send(.copyMutateAssignTable("b")) }, runs: ["Table[b]"])
    step(store, tree, { store.send(.copyMutateAssignTable("a")) }, runs: ["Table[a]"])
    #expect(tree.output(of: "Table[a]") == "2")
  }

  @Test("copy-mutate-assign of an optional child re-runs the body of its store once")
  func optionalChild() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.copyMutateAssignOptional) }, runs: ["Optional"])
    step(store, tree, { store.send(.copyMutateAssignOptional) }, runs: ["Optional"])
    step(store, tree, { store.send(.optionalChild(.increment)) }, runs: ["Optional"])
    #expect(tree.output(of: "Optional") == "3")
  }

  @Test("an enum payload replaced by an edited copy (.editing(x) -> .editing(x')) re-runs the case store's body once")
  func enumPayload() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.editPayload) }, runs: ["Editing"])
    step(store, tree, { store.send(.editing(.increment)) }, runs: ["Editing"])
    step(store, tree, { store.send(.editPayload) }, runs: ["Editing"])
    #expect(tree.output(of: "Editing") == "3")
  }

  @Test("one value in two slots, changed differently in one action: both bodies re-run once and show their slot")
  func twoSlotsOneAction() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.first(.increment)) }, runs: ["First"])
    step(store, tree, { store.send(.shareFirst) }, runs: ["Second"])
    #expect(tree.output(of: "Second") == "1")
    step(store, tree, { store.send(.changeBothSlots) }, runs: ["First", "Second"])
    #expect((tree.output(of: "First"), tree.output(of: "Second")) == ("2", "11"))
  }

  @Test(
    "one value in two slots, changed differently across actions: each body shows its slot; the first write re-runs the other slot's body once, later ones do not"
  )
  func twoSlotsAcrossActions() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.shareFirst) }, runs: ["Second"])
    // The slots hold copies of one value, which share its registrar: the first write through one
    // reaches the readers of the other once (documented: Identity rules, "Copies"), showing the
    // same value; from then on the two have diverged.
    step(store, tree, { store.send(.first(.increment)) }, runs: ["First", "Second"])
    step(store, tree, { store.send(.second(.increment)) }, runs: ["Second"])
    step(store, tree, { store.send(.second(.increment)) }, runs: ["Second"])
    step(store, tree, { store.send(.first(.increment)) }, runs: ["First"])
    #expect((tree.output(of: "First"), tree.output(of: "Second")) == ("2", "2"))
  }

  @Test("two elements of a [State] field swapped by copying: both bodies re-run once and show the swapped values")
  func swapListElements() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.copyMutateAssignList(1)) }, runs: ["List[1]"])
    step(store, tree, { store.send(.swapList) }, runs: ["List[0]", "List[1]"])
    #expect((tree.output(of: "List[0]"), tree.output(of: "List[1]")) == ("1", "0"))
    // Each element's body follows the element now at its index.
    step(store, tree, { store.send(.copyMutateAssignList(0)) }, runs: ["List[0]"])
    #expect(tree.output(of: "List[0]") == "2")
  }

  @Test("two sibling children swapped by copying: both child stores' bodies re-run once and show the swapped values")
  func swapSlots() {
    let (store, tree) = screen()
    step(store, tree, { store.send(.first(.increment)) }, runs: ["First"])
    step(store, tree, { store.send(.swapSlots) }, runs: ["First", "Second"])
    #expect((tree.output(of: "First"), tree.output(of: "Second")) == ("0", "1"))
    step(store, tree, { store.send(.second(.increment)) }, runs: ["Second"])
    step(store, tree, { store.send(.first(.increment)) }, runs: ["First"])
    #expect((tree.output(of: "First"), tree.output(of: "Second")) == ("1", "2"))
  }

  @Test("two rows swapped by copying: the list re-runs once, the rows keep their stores and do not re-run")
  func swapRows() {
    let (store, tree) = screen()
    let rows = store.scope(state: \.rows, action: Feature.Action.row)
    let (first, second) = (rows[0], rows[1])
    step(store, tree, { store.send(.row(id: 1, action: .increment)) }, runs: ["Row[1]"])
    step(store, tree, { store.send(.swapRows) }, runs: ["Screen"])
    #expect(withoutTracking { store.state.rows.ids.elements } == [2, 1, 3])
    #expect(first.isValid && second.isValid)
    #expect(store.scope(state: \.rows, action: Feature.Action.row)[1] === first)
    step(store, tree, { store.send(.row(id: 1, action: .increment)) }, runs: ["Row[1]"])
    step(store, tree, { store.send(.row(id: 2, action: .increment)) }, runs: ["Row[2]"])
    #expect((tree.output(of: "Row[1]"), tree.output(of: "Row[2]")) == ("2", "1"))
  }

  @Test("undo of one row: a snapshot of the row restored by a reducer re-runs that row's body once")
  func undoOneRow() {
    let (store, tree) = screen()
    let saved = withoutTracking { store.state.rows[id: 2]! }
    step(store, tree, { store.send(.row(id: 2, action: .increment)) }, runs: ["Row[2]"])
    step(store, tree, { store.send(.row(id: 2, action: .increment)) }, runs: ["Row[2]"])
    step(store, tree, { store.send(.restoreRow(saved)) }, runs: ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "0")
    step(store, tree, { store.send(.restoreRow(saved)) }, runs: [])
    step(store, tree, { store.send(.row(id: 2, action: .increment)) }, runs: ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "1")
  }
}

// MARK: Enum root state

/// A screen whose root state is an enum of observable payloads, identity-comparable.
enum ScreenFeature {
  enum State: IdentityComparable {
    case loading
    case list(CounterFeature.State)
    case detail(CounterFeature.State)

    static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
      switch (lhs, rhs) {
      case (.loading, .loading): true
      case let (.list(lhs), .list(rhs)), let (.detail(lhs), .detail(rhs)): Observant.isIdentityEqual(lhs, rhs)
      default: false
      }
    }

    var list: CounterFeature.State? { if case .list(let state) = self { state } else { nil } }
  }

  enum Action: Sendable {
    case loaded
    /// Changes nothing.
    case refresh
    /// Assigns the current value back (`state = .list(payload)`).
    case reassign
    case list(CounterFeature.Action)
    case open
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .loaded:
      state = .list(CounterFeature.State())
    case .refresh:
      break
    case .reassign:
      if case .list(let payload) = state { state = .list(payload) }
    case .list(let action):
      guard case .list(var payload) = state else { return .none }
      let effect = CounterFeature.reduce(&payload, action)
      state = .list(payload)
      return effect.map(Action.list)
    case .open:
      if case .list(let payload) = state { state = .detail(payload) }
    }
    return .none
  }
}

@MainActor
@Suite("Store: an enum root state, rendered")
struct EnumRootStateTests {
  private func screen() -> (Store<ScreenFeature.State, ScreenFeature.Action>, RenderTree) {
    let store = Store(initialState: ScreenFeature.State.loading, reducer: ScreenFeature.reduce)
    let tree = RenderTree("Screen") { screen in
      screen.child("Case") { node in
        let name =
          switch store.state {
          case .loading: "loading"
          case .list: "list"
          case .detail: "detail"
          }
        node.text(name)
      }
      screen.child("List") { node in
        node.text(store.scope(state: \.list, action: ScreenFeature.Action.list).map { "\($0.count)" } ?? "none")
      }
    }
    return (store, tree)
  }

  @Test("an action that changes nothing re-runs nobody; one that changes the case or the payload re-runs its readers once")
  func changesNothing() {
    let (store, tree) = screen()
    #expect(tree.step { store.send(.refresh) }.runs == [])
    #expect(tree.step { store.send(.loaded) }.runs.sorted() == ["Case", "List"])
    #expect((tree.output(of: "Case"), tree.output(of: "List")) == ("list", "0"))
    #expect(tree.step { store.send(.refresh) }.runs == [])
    #expect(tree.step { store.send(.reassign) }.runs == [])
    #expect(tree.step { store.send(.list(.increment)) }.runs == ["List"])
    #expect((tree.output(of: "Case"), tree.output(of: "List")) == ("list", "1"))
    #expect(tree.step { store.send(.refresh) }.runs == [])
    #expect(tree.step { store.send(.reassign) }.runs == [])
    #expect(tree.output(of: "List") == "1")
    #expect(tree.step { store.send(.open) }.runs.sorted() == ["Case", "List"])
    #expect((tree.output(of: "Case"), tree.output(of: "List")) == ("detail", "none"))
    #expect(tree.step { store.send(.refresh) }.runs == [])
  }
}
