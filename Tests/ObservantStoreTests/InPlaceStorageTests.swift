// swift-format-ignore-file
// (Observable types declared the way the README and the articles show them: two lines a field.)
import Observant
import ObservantHarness
import ObservantStore
import Testing

// DESIGN rule 4: a store never keeps a copy of its state that would make the reducer's next
// in-place mutation of a collection inside that state copy the collection. Each test reads a
// scoped store, lets the reducer append in place to an array inside the store's state, and checks
// that the array's buffer is the same one before and after (its capacity leaves room, so only a
// copy-on-write could move it).

/// A value with a large array inside.
enum NumbersFeature {
  struct State: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _title = StateField("")
    var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
    private var _numbers = StateField<[Int]>([])
    var numbers: [Int] {
      get { registrar.read(_numbers) } set { registrar.write(&_numbers, newValue) }
      _modify { yield &self[tracking: \._numbers] }
    }
    init(id: Int, title: String = "", count: Int = 1_000) {
      self.id = id
      _title = StateField(title)
      var numbers = Array(0..<count)
      numbers.reserveCapacity(count + 1_000)
      _numbers = StateField(numbers)
    }
  }

  enum Action: Sendable {
    case append
    case rename(String)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .append: state.numbers.append(state.numbers.count)
    case .rename(let title): state.title = title
    }
    return .none
  }
}

/// Where a `NumbersFeature` value lives: a row, a child, an optional child, an enum case.
enum HolderFeature {
  /// Not `IdentityComparable`: its field is mutated in place (an identity-comparable enum field
  /// yields a copy to mutate, which would copy the array whatever the store does).
  enum Destination {
    case numbers(NumbersFeature.State)
    case other

    /// The payload of `.numbers`, mutated in place: the enum lets go of it while it is lent.
    var numbers: NumbersFeature.State? {
      get { if case .numbers(let state) = self { state } else { nil } }
      set { self = newValue.map(Destination.numbers) ?? .other }
      _modify {
        var payload: NumbersFeature.State?
        if case .numbers(let state) = self {
          payload = state
          self = .other
        }
        defer { self = payload.map(Destination.numbers) ?? .other }
        yield &payload
      }
    }
  }

  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows = StateField<IdentifiedArrayOf<NumbersFeature.State>>([])
    var rows: IdentifiedArrayOf<NumbersFeature.State> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _child = StateField(NumbersFeature.State(id: 0))
    var child: NumbersFeature.State {
      get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
      _modify { yield &self[tracking: \._child] }
    }
    private var _optionalChild = StateField<NumbersFeature.State?>(NumbersFeature.State(id: 0))
    var optionalChild: NumbersFeature.State? {
      get { registrar.read(_optionalChild) } set { registrar.write(&_optionalChild, newValue) }
      _modify { yield &self[tracking: \._optionalChild] }
    }
    private var _destination = StateField<Destination?>(.numbers(NumbersFeature.State(id: 0)))
    var destination: Destination? {
      get { registrar.read(_destination) } set { registrar.write(&_destination, newValue) }
      _modify { yield &self[tracking: \._destination] }
    }
    init(rows: some Sequence<Int> = 1...3) {
      var array = IdentifiedArray(uniqueElements: rows.map { NumbersFeature.State(id: $0, title: "row \($0)") })
      array.reserveCapacity(100)  // room to append rows in place
      _rows = StateField(array)
    }
  }

  enum Action: Sendable {
    case row(id: Int, action: NumbersFeature.Action)
    case child(NumbersFeature.Action)
    case optionalChild(NumbersFeature.Action)
    case destination(NumbersFeature.Action)
    /// Appends to row 1, the child, the optional child and the enum payload, in place.
    case appendEverywhere
    case addRow(id: Int)
    case removeRow(id: Int)
    case replaceRows
    case dismissOptionalChild
    case dismissDestination
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .row(let id, let action):
      guard state.rows[id: id] != nil else { return .none }
      return NumbersFeature.reduce(&state.rows[id: id]!, action).map { .row(id: id, action: $0) }
    case .child(let action):
      return NumbersFeature.reduce(&state.child, action).map(Action.child)
    case .optionalChild(let action):
      guard state.optionalChild != nil else { return .none }
      return NumbersFeature.reduce(&state.optionalChild!, action).map(Action.optionalChild)
    case .destination(let action):
      guard state.destination?.numbers != nil else { return .none }
      return NumbersFeature.reduce(&state.destination!.numbers!, action).map(Action.destination)
    case .appendEverywhere:
      state.rows[id: 1]?.numbers.append(-1)
      state.child.numbers.append(-1)
      state.optionalChild?.numbers.append(-1)
      state.destination?.numbers?.numbers.append(-1)
    case .addRow(let id):
      state.rows.append(NumbersFeature.State(id: id, title: "row \(id)", count: 0))
    case .removeRow(let id):
      state.rows.remove(id: id)
    case .replaceRows:
      state.rows = IdentifiedArray(uniqueElements: [NumbersFeature.State(id: 9, title: "row 9")])
    case .dismissOptionalChild:
      state.optionalChild = nil
    case .dismissDestination:
      state.destination = nil
    }
    return .none
  }
}

/// The address of `numbers`' buffer.
private func buffer(_ numbers: [Int]) -> UnsafeRawPointer? {
  numbers.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
}

/// The address of the buffer of the rows array's elements in `store`'s state.
@MainActor
private func rowsBuffer(_ store: Store<HolderFeature.State, HolderFeature.Action>) -> UnsafeRawPointer? {
  withoutTracking { store.state.rows.elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
}

/// The address of the buffer of the rows array's ids in `store`'s state.
@MainActor
private func idsBuffer(_ store: Store<HolderFeature.State, HolderFeature.Action>) -> UnsafeRawPointer? {
  withoutTracking { store.state.rows.ids.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil }
}

@MainActor
@Suite("In-place mutation under a store that was read")
struct InPlaceStorageTests {
  typealias Holder = Store<HolderFeature.State, HolderFeature.Action>

  private func makeStore() -> Holder {
    Store(initialState: HolderFeature.State(), reducer: HolderFeature.reduce)
  }

  /// Reads `read` through a scoped store, appends in place with `send` a few times (reading again
  /// in between, as a view re-rendering would), and expects `live`'s buffer never to move.
  private func expectInPlace(
    _ store: Holder, read: () -> Int, send: () -> Void, live: () -> [Int],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let before = buffer(live())
    var count = live().count
    #expect(read() == count, sourceLocation: sourceLocation)
    for _ in 0..<3 {
      send()
      count += 1
      #expect(buffer(live()) == before, "the reducer's append copied the array", sourceLocation: sourceLocation)
      #expect(read() == count, "the store shows the current state", sourceLocation: sourceLocation)
    }
  }

  @Test("through the root store: the baseline")
  func root() {
    let store = makeStore()
    expectInPlace(
      store, read: { store.child.numbers.count }, send: { store.send(.child(.append)) },
      live: { store.child.numbers })
  }

  @Test(
    "a row store that was read: the row's array is appended to in place",
    .disabled(
      """
      conflicts with the documented stale-store semantics: a row store that was read keeps that state, to show \
      once the row is gone ("the last state read through it or committed to it", BadInputTests and the \
      differential fuzzer check it), and a copy kept across an in-place mutation is what copies the array
      """))
  func rowStore() {
    let store = makeStore()
    let row = store.scope(state: \.rows, action: HolderFeature.Action.row)[0]
    expectInPlace(
      store, read: { row.numbers.count }, send: { store.send(.appendEverywhere) },
      live: { store.rows[id: 1]!.numbers })
    expectInPlace(
      store, read: { row.numbers.count }, send: { row.send(.append) }, live: { store.rows[id: 1]!.numbers })
  }

  @Test("a child store that was read: the child's array is appended to in place")
  func childStore() {
    let store = makeStore()
    let child = store.scope(state: \.child, action: HolderFeature.Action.child)
    _ = child.title
    expectInPlace(
      store, read: { child.numbers.count }, send: { store.send(.appendEverywhere) }, live: { store.child.numbers })
    expectInPlace(store, read: { child.numbers.count }, send: { child.send(.append) }, live: { store.child.numbers })
  }

  @Test(
    "an optional child store that was read: the child's array is appended to in place",
    .disabled(
      """
      conflicts with the documented stale-store semantics: an optional child store keeps the state it read, to \
      show once the child is dismissed; the write that dismisses it destroys it inside the reducer, where no \
      observer may run, so a copy is the only way to show it later
      """))
  func optionalChildStore() {
    let store = makeStore()
    let child = store.scope(state: \.optionalChild, action: HolderFeature.Action.optionalChild)!
    expectInPlace(
      store, read: { child.numbers.count }, send: { store.send(.appendEverywhere) },
      live: { store.optionalChild!.numbers })
  }

  @Test(
    "an enum-case store that was read: the payload's array is appended to in place",
    .disabled(
      """
      conflicts with the documented stale-store semantics: an enum-case store keeps the state it read, to show \
      once the case changes; the write that changes it destroys the payload inside the reducer, where no \
      observer may run, so a copy is the only way to show it later
      """))
  func enumCaseStore() {
    let store = makeStore()
    let payload = store.scope(state: \.destination?.numbers, action: HolderFeature.Action.destination)!
    expectInPlace(
      store, read: { payload.numbers.count }, send: { store.send(.appendEverywhere) },
      live: { store.destination!.numbers!.numbers })
  }

  @Test(
    "a child store of a row store that was read: the array is appended to in place",
    .disabled(
      """
      conflicts with the documented stale-store semantics: a row store that was read keeps that state, to show \
      once the row is gone ("the last state read through it or committed to it", BadInputTests and the \
      differential fuzzer check it), and a copy kept across an in-place mutation is what copies the array
      """))
  func childOfRow() {
    let store = makeStore()
    let row = store.scope(state: \.rows, action: HolderFeature.Action.row)[0]
    let child = row.scope(state: \.self, action: { $0 })
    _ = row.title
    expectInPlace(
      store, read: { child.numbers.count }, send: { store.send(.appendEverywhere) },
      live: { store.rows[id: 1]!.numbers })
  }

  @Test("a child store of a child store that was read: the array is appended to in place")
  func childOfChild() {
    let store = makeStore()
    let child = store.scope(state: \.child, action: HolderFeature.Action.child)
    let grandchild = child.scope(state: \.self, action: { $0 })
    expectInPlace(
      store, read: { grandchild.numbers.count }, send: { store.send(.appendEverywhere) },
      live: { store.child.numbers })
  }

  @Test("a child store read several times in one action navigates once, and shows every action's state")
  func childReadsAfterEachAction() {
    let store = makeStore()
    let child = store.scope(state: \.child, action: HolderFeature.Action.child)
    for expected in ["a", "b", "c"] {
      child.send(.rename(expected))
      #expect(child.title == expected)
      #expect(child.withState { $0.title } == expected)
      #expect(child.state.title == expected)
    }
  }

  // MARK: What keeping the last state costs (the Store article's "Copies")

  /// Reads through a store that keeps its state, then lets the reducer append in place twice: the
  /// first append copies `live`'s buffer (the store's copy shares it), the second does not
  /// (nothing was read since); after another read, the next append copies it again. The rows
  /// array's buffer never moves.
  private func expectCopiedOncePerRead(
    _ store: Holder, read: () -> Int, send: () -> Void, live: () -> [Int],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let rows = rowsBuffer(store)
    var count = live().count
    for _ in 0..<2 {
      #expect(read() == count, sourceLocation: sourceLocation)
      let before = buffer(live())
      send()
      count += 1
      let copied = buffer(live())
      #expect(copied != before, "the first in-place append after a read copies the array", sourceLocation: sourceLocation)
      send()
      count += 1
      #expect(buffer(live()) == copied, "nothing read since: appended in place", sourceLocation: sourceLocation)
    }
    #expect(read() == count, sourceLocation: sourceLocation)
    #expect(rowsBuffer(store) == rows, "the rows array is never copied", sourceLocation: sourceLocation)
  }

  @Test("a row store that was read: the next in-place append to an array in the row copies that array, once per read")
  func rowStoreCopiesOncePerRead() {
    let store = makeStore()
    let row = store.scope(state: \.rows, action: HolderFeature.Action.row)[0]
    expectCopiedOncePerRead(
      store, read: { row.numbers.count }, send: { row.send(.append) }, live: { store.rows[id: 1]!.numbers })
  }

  @Test("an optional child store that was read: the next in-place append copies the child's array, once per read")
  func optionalChildStoreCopiesOncePerRead() {
    let store = makeStore()
    let child = store.scope(state: \.optionalChild, action: HolderFeature.Action.optionalChild)!
    expectCopiedOncePerRead(
      store, read: { child.numbers.count }, send: { child.send(.append) }, live: { store.optionalChild!.numbers })
  }

  @Test(
    "an enum-case store: the enum's slot reports every write, so each in-place append to the payload's array copies it")
  func enumCaseStoreCopiesPerAction() {
    let store = makeStore()
    let live = { store.destination!.numbers!.numbers }
    // No case store: in place.
    expectInPlace(
      store, read: { store.destination!.numbers!.numbers.count }, send: { store.send(.destination(.append)) },
      live: live)
    let payload = store.scope(state: \.destination?.numbers, action: HolderFeature.Action.destination)!
    var count = payload.numbers.count
    let rows = rowsBuffer(store)
    for _ in 0..<3 {
      let before = buffer(live())
      payload.send(.append)
      count += 1
      // The enum (not IdentityComparable) reports the write; the commit hands the case store the
      // new state, which it keeps.
      #expect(buffer(live()) != before, "the case store keeps the state each commit hands it")
    }
    #expect(payload.numbers.count == count)
    #expect(rowsBuffer(store) == rows)
  }

  @Test("a child store of a row store that was read: the next in-place append copies the array, once per read")
  func childOfRowCopiesOncePerRead() {
    let store = makeStore()
    let row = store.scope(state: \.rows, action: HolderFeature.Action.row)[0]
    let child = row.scope(state: \.self, action: { $0 })
    expectCopiedOncePerRead(
      store, read: { child.numbers.count }, send: { child.send(.append) }, live: { store.rows[id: 1]!.numbers })
  }

  @Test(
    "a StoreCollection kept across actions: the next in-place change of a row copies the rows array, once; one let go of costs nothing"
  )
  func keptStoreCollection() {
    let store = makeStore()
    var kept: StoreCollection<Int, NumbersFeature.State, NumbersFeature.Action>? =
      store.scope(state: \.rows, action: HolderFeature.Action.row)
    let before = rowsBuffer(store)
    store.send(.row(id: 2, action: .rename("two")))
    let copied = rowsBuffer(store)
    #expect(copied != before, "the collection's copy of the array shares its buffer: the change copies it")
    store.send(.row(id: 2, action: .rename("2")))
    #expect(rowsBuffer(store) == copied, "once")
    #expect(kept?.count == 3)
    kept = nil
    // A collection used and let go of, as a body does.
    let titles = store.scope(state: \.rows, action: HolderFeature.Action.row).map { $0.title }
    #expect(titles == ["row 1", "2", "row 3"])
    store.send(.row(id: 2, action: .rename("two")))
    #expect(rowsBuffer(store) == copied)
  }

  @Test("a list that reads the collection: rows appended and changed in place, ids and elements alike")
  func renderedListAppendsInPlace() {
    let store = makeStore()
    let list = Reaction("List") {
      let rows = store.scope(state: \.rows, action: HolderFeature.Action.row)
      _ = rows.map(\.title)
    }
    let (ids, elements) = (idsBuffer(store), rowsBuffer(store))
    #expect(ids != nil && elements != nil)
    // Checked after every action (a buffer copied once and freed later could be reallocated at
    // the address it had).
    for action in [HolderFeature.Action.addRow(id: 4), .row(id: 4, action: .rename("four")), .addRow(id: 5)] {
      store.send(action)
      #expect(idsBuffer(store) == ids, "\(action): the scope's copy of the ids is its own")
      #expect(rowsBuffer(store) == elements, "\(action)")
    }
    #expect(list.runCount == 4)
  }

  // The harness's forEach keeps no `data` for class elements (stores): the collection its body
  // made goes away with the run, and with it the collection's copy of the rows array.
  @Test("a list rendered with forEach over row stores: a row change stays in place from the first action")
  func renderedForEachChangesInPlace() {
    let store = makeStore()
    let tree = RenderTree("List") { list in
      list.forEach(store.scope(state: \.rows, action: HolderFeature.Action.row), name: { "Row[\($0.id)]" }) {
        row, context in
        context.text(row.title)
      }
    }
    let elements = rowsBuffer(store)
    #expect(elements != nil)
    for title in ["two", "2"] {
      #expect(tree.step { store.send(.row(id: 2, action: .rename(title))) }.runs == ["Row[2]"])
      #expect(rowsBuffer(store) == elements, "renamed to \(title)")
      #expect(tree.output(of: "Row[2]") == title)
    }
  }

  // MARK: What invalid stores show (unchanged: the last state read or committed)

  @Test("a removed row's store shows the row as last read through it")
  func removedRow() {
    let store = makeStore()
    let rows = store.scope(state: \.rows, action: HolderFeature.Action.row)
    let first = rows[0]
    #expect(first.numbers.count == 1_000)
    store.send(.appendEverywhere)
    #expect(first.numbers.count == 1_001)
    store.send(.row(id: 1, action: .rename("first, renamed")))  // nobody reads it
    store.send(.removeRow(id: 1))
    #expect(!first.isValid)
    #expect(first.numbers.count == 1_001)
    #expect(first.title == "row 1")
  }

  @Test("rows replaced by another array: the stores of rows gone show the rows as last read")
  func replacedArray() {
    let store = makeStore()
    let third = store.scope(state: \.rows, action: HolderFeature.Action.row)[2]
    store.send(.row(id: 3, action: .append))
    #expect(third.numbers.count == 1_001)
    store.send(.replaceRows)
    #expect(!third.isValid)
    #expect(third.numbers.count == 1_001)
  }

  @Test("dismissed optional and enum-case stores show the state last read through them")
  func dismissed() {
    let store = makeStore()
    let child = store.scope(state: \.optionalChild, action: HolderFeature.Action.optionalChild)!
    let payload = store.scope(state: \.destination?.numbers, action: HolderFeature.Action.destination)!
    child.send(.rename("child"))
    payload.send(.rename("payload"))
    #expect((child.title, payload.title) == ("child", "payload"))
    store.send(.dismissOptionalChild)
    store.send(.dismissDestination)
    #expect(!child.isValid && !payload.isValid)
    #expect((child.title, payload.title) == ("child", "payload"))
  }
}
