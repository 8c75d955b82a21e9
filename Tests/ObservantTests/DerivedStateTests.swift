import Observant
import Testing

// A derived value whose value holds observable state (a child, a row, the rows, a list of rows, a
// struct or an enum around one) hands its readers a copy. The fields of that state can change in
// place, or by an edited copy assigned back, without the derived value's inputs changing: the
// readers of those fields re-run, and must read the current fields through the derived value.

private struct DSLeaf: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _value = StateField(0)
  var value: Int {
    get { registrar.read(_value) }
    set { registrar.write(&_value, newValue) }
  }
  init() {}
}

private struct DSItem: ObservableState, Identifiable, Equatable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int {
    get { registrar.read(_count) }
    set { registrar.write(&_count, newValue) }
  }
  private var _leaf = StateField(DSLeaf())
  var leaf: DSLeaf {
    get { registrar.read(_leaf) }
    set { registrar.write(&_leaf, newValue) }
    _modify { yield &self[tracking: \._leaf] }
  }
  init(id: Int) { self.id = id }

  static func == (lhs: DSItem, rhs: DSItem) -> Bool { lhs.id == rhs.id && lhs.count == rhs.count }
}

/// Not `IdentityComparable`: an enum whose payload is state.
private enum DSSelection {
  case none
  case item(DSItem)

  var item: DSItem? {
    if case .item(let item) = self { return item }
    return nil
  }
}

/// A plain struct around state (no conformance of its own).
private struct DSPair {
  var item: DSItem
  var label: String
}

private struct DSScreen: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _child = StateField(DSItem(id: 0))
  var child: DSItem {
    get { registrar.read(_child) }
    set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }
  private var _items = StateField<IdentifiedArrayOf<DSItem>>([DSItem(id: 1), DSItem(id: 2)])
  var items: IdentifiedArrayOf<DSItem> {
    get { registrar.read(_items) }
    set { registrar.write(&_items, newValue) }
    _modify { yield &self[tracking: \._items] }
  }
  init() {}
}

private final class DSModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var screen = DSScreen()
  @Tracked var names = ["a", "b"]
}

/// A reaction that keeps what each run read.
private final class DSShown<Value>: @unchecked Sendable {
  private(set) var values: [Value] = []
  private var reaction: Reaction!

  init(_ read: @escaping () -> Value) {
    reaction = Reaction { [unowned self] in values.append(read()) }
  }

  deinit { reaction.cancel() }
}

@Suite("Derived values that hold state: readers read the current fields through them")
struct DerivedStateTests {
  @Test("a derived child state: written in place, readers of its field read the new value; one run each")
  func childWrittenInPlace() {
    let model = DSModel()
    let child = Derived("child") { model.screen.child }
    let count = DSShown { child.value.count }
    model.screen.child.count = 3
    model.screen.child.count = 4
    #expect(count.values == [0, 3, 4])
    #expect(child.value.count == 4)
  }

  @Test("a derived child state: an edited copy assigned back, readers read the new value")
  func childCopyAssignedBack() {
    let model = DSModel()
    let child = Derived("child") { model.screen.child }
    let count = DSShown { child.value.count }
    let direct = DSShown { model.screen.child.count }
    var copy = model.screen.child
    copy.count = 3
    model.screen.child = copy
    // The write to the copy re-runs the readers of the field it was copied from once (they read
    // the live 0), the assignment once more: through the derived value as read directly.
    #expect(direct.values == [0, 0, 3])
    #expect(count.values == direct.values)
  }

  @Test("a nested field (child.leaf.value) through a derived child state")
  func nestedField() {
    let model = DSModel()
    let child = Derived("child") { model.screen.child }
    let value = DSShown { child.value.leaf.value }
    model.screen.child.leaf.value = 5
    #expect(value.values == [0, 5])
    let saved = model.screen.child
    model.screen.child.leaf.value = 6
    model.screen.child = saved
    #expect(value.values == [0, 5, 6, 5])
  }

  @Test("a derived identified array of states, a derived row, a filtered list: readers read the row's new count")
  func rowsAndLists() {
    let model = DSModel()
    let rows = Derived("rows") { model.screen.items }
    let row = Derived("row 1") { model.screen.items[id: 1] }
    let list = Derived("counted") { Array(model.screen.items.filter { $0.id == 1 }) }
    let fromRows = DSShown { rows.value[id: 1]?.count ?? -1 }
    let fromRow = DSShown { row.value?.count ?? -1 }
    let fromList = DSShown { list.value.first?.count ?? -1 }
    model.screen.items[id: 1]?.count = 3
    #expect(fromRows.values == [0, 3])
    #expect(fromRow.values == [0, 3])
    #expect(fromList.values == [0, 3])
    // A write to the other row re-runs none of them.
    model.screen.items[id: 2]?.count = 9
    #expect(fromRows.values == [0, 3])
    #expect(fromRow.values == [0, 3])
    #expect(fromList.values == [0, 3])
  }

  @Test("state inside a plain struct or an enum payload, through a derived value")
  func wrappedState() {
    let model = DSModel()
    let pair = Derived("pair") { DSPair(item: model.screen.child, label: "child") }
    let selection = Derived("selection") { DSSelection.item(model.screen.child) }
    let fromPair = DSShown { pair.value.item.count }
    let fromSelection = DSShown { selection.value.item?.count ?? -1 }
    model.screen.child.count = 2
    #expect(fromPair.values == [0, 2])
    #expect(fromSelection.values == [0, 2])
  }

  @Test("an Equatable state compared with ==: a value set and set back is read as it is now")
  func equatableStateSetBack() {
    let model = DSModel()
    let child = Derived("child") { model.screen.child }  // `DSItem` is Equatable: compared with ==
    let count = DSShown { child.value.count }
    transaction {
      model.screen.child.count = 7
      model.screen.child.count = 0
    }
    #expect(count.values == [0])
    // Equal to the cached value, but written since: a later write to the field still reaches the
    // reader, which reads it.
    model.screen.child.count = 1
    #expect(count.values == [0, 1])
  }

  @Test("a derived value holding state is recomputed at each read; one holding none is not")
  func recomputation() {
    let model = DSModel()
    let child = Derived("child") { model.screen.child }
    let names = Derived("names") { model.names.sorted() }
    _ = child.value
    _ = child.value
    _ = names.value
    _ = names.value
    #expect(child.computationCount == 2)
    #expect(names.computationCount == 1)
  }

  @Test("readers of a derived child state re-run only for their own fields, not for the derived value")
  func readersOfTheDerivedValue() {
    let model = DSModel()
    let child = Derived("child") { model.screen.child }
    let identity = DSShown { child.value.id }
    let count = DSShown { child.value.count }
    model.screen.child.count = 1
    model.screen.child.leaf.value = 1
    #expect(identity.values == [0])
    #expect(count.values == [0, 1])
    // A new child (another identity) is a change of the derived value.
    model.screen.child = DSItem(id: 5)
    #expect(identity.values == [0, 5])
    #expect(count.values == [0, 1, 0])
  }
}
