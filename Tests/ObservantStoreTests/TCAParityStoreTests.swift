import Foundation
import Observant
import ObservantStore
import Synchronization
import ObservantTestSupport
import Testing

// Behaviours that The Composable Architecture's observation tests check through a `Store`
// (`ObservableTests.testStore_*`, `testEnumStateWith*`, and the scoping/lifetime tests), re-stated
// against `ObservantStore`. Counts are exact: a `Reaction` counts its runs (1 = the initial run),
// a one-shot `withTracking` fires 0 or 1 times.

// MARK: - State

// swift-format-ignore
private struct SLeaf: ObservableState, Equatable {
  var registrar = StateRegistrar<Self>()
  private var _value = StateField(0)
  var value: Int { get { registrar.read(_value) } set { registrar.write(&_value, newValue) } }
  init(value: Int = 0) { _value = StateField(value) }
}

// swift-format-ignore
private struct SChild: ObservableState, Identifiable, Equatable {
  var registrar = StateRegistrar<Self>()
  let id: Int

  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }

  private var _leaf = StateField<SLeaf?>(nil)
  var leaf: SLeaf? {
    get { registrar.read(_leaf) } set { registrar.write(&_leaf, newValue) }
    _modify { yield &self[tracking: \._leaf] }
  }

  init(id: Int = 0, count: Int = 0) {
    self.id = id
    _count = StateField(count)
  }

  mutating func assign(_ other: Self) { self = other }
  mutating func reset() { self = Self(id: id) }
}

private enum SChildAction: Equatable, Sendable {
  case increment
  case assign(count: Int)
  case reset
  case showLeaf
  case dismissLeaf
  case leaf(SLeafAction)
}

private enum SLeafAction: Equatable, Sendable { case bump }

private func reduceChild(_ state: inout SChild, _ action: SChildAction) -> Effect<SChildAction> {
  switch action {
  case .increment: state.count += 1
  case .assign(let count): state.assign(SChild(id: state.id, count: count))
  case .reset: state.reset()
  case .showLeaf: state.leaf = SLeaf()
  case .dismissLeaf: state.leaf = nil
  case .leaf(.bump):
    guard state.leaf != nil else { return .none }
    state.leaf!.value += 1
  }
  return .none
}

private enum SDestination: IdentityComparable {
  case child1(SChild)
  case child2(SChild)
  case inert(Int)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case let (.child1(lhs), .child1(rhs)), let (.child2(lhs), .child2(rhs)): Observant.isIdentityEqual(lhs, rhs)
    case let (.inert(lhs), .inert(rhs)): lhs == rhs
    default: false
    }
  }

  var child1: SChild? { if case .child1(let c) = self { c } else { nil } }
  var child2: SChild? { if case .child2(let c) = self { c } else { nil } }
}

// swift-format-ignore
private struct SParent: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _child: StateField<SChild>
  var child: SChild {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }

  private var _sibling: StateField<SChild>
  var sibling: SChild {
    get { registrar.read(_sibling) } set { registrar.write(&_sibling, newValue) }
    _modify { yield &self[tracking: \._sibling] }
  }

  private var _optional: StateField<SChild?>
  var optional: SChild? {
    get { registrar.read(_optional) } set { registrar.write(&_optional, newValue) }
    _modify { yield &self[tracking: \._optional] }
  }

  private var _rows: StateField<IdentifiedArrayOf<SChild>>
  var rows: IdentifiedArrayOf<SChild> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }

  private var _destination: StateField<SDestination?>
  var destination: SDestination? {
    get { registrar.read(_destination) } set { registrar.write(&_destination, newValue) }
  }

  init(
    child: SChild = SChild(), sibling: SChild = SChild(), optional: SChild? = nil,
    rows: IdentifiedArrayOf<SChild> = [], destination: SDestination? = nil
  ) {
    _child = StateField(child)
    _sibling = StateField(sibling)
    _optional = StateField(optional)
    _rows = StateField(rows)
    _destination = StateField(destination)
  }
}

private enum SAction: Sendable {
  case child(SChildAction)
  case sibling(SChildAction)
  case optional(SChildAction)
  case row(id: Int, action: SChildAction)
  case child1(SChildAction)
  case replaceChild(count: Int)
  case resetChild
  case newChild(count: Int)
  case swap
  case present(count: Int)
  case dismiss
  case append(id: Int)
  case remove(id: Int)
  case replaceRow(id: Int, count: Int)
  case copyEditAssignRow(id: Int)
  case moveRows
  case rebuildRows
  case destination(SDestination?)
  case moveChild1ToChild2
  case resetAll
  case copySiblingIntoChild
}

private func reduceParent(_ state: inout SParent, _ action: SAction) -> Effect<SAction> {
  switch action {
  case .child(let action):
    return reduceChild(&state.child, action).map(SAction.child)
  case .sibling(let action):
    return reduceChild(&state.sibling, action).map(SAction.sibling)
  case .optional(let action):
    guard state.optional != nil else { return .none }
    return reduceChild(&state.optional!, action).map(SAction.optional)
  case .row(let id, let action):
    guard state.rows[id: id] != nil else { return .none }
    return reduceChild(&state.rows[id: id]!, action).map { SAction.row(id: id, action: $0) }
  case .child1(let action):
    guard case .child1(var payload) = state.destination else { return .none }
    let effect = reduceChild(&payload, action)
    state.destination = .child1(payload)
    return effect.map(SAction.child1)
  case .replaceChild(let count):
    state.child.assign(SChild(count: count))  // TCA's `state.child.replace(with: ChildState(count:))`
  case .resetChild:
    state.child.assign(SChild())  // TCA's `state.child.reset()`: a new value through inout
  case .newChild(let count):
    state.child = SChild(count: count)
  case .swap:
    let first = state.child
    state.child = state.sibling
    state.sibling = first
  case .present(let count):
    state.optional = SChild(count: count)
  case .dismiss:
    state.optional = nil
  case .append(let id):
    state.rows.append(SChild(id: id))
  case .remove(let id):
    state.rows.remove(id: id)
  case .replaceRow(let id, let count):
    state.rows[id: id] = SChild(id: id, count: count)
  case .copyEditAssignRow(let id):
    guard var copy = state.rows[id: id] else { return .none }
    copy.count += 1
    state.rows[id: id] = copy
  case .moveRows:
    state.rows.swapAt(0, 1)
  case .rebuildRows:
    state.rows = IdentifiedArray(uniqueElements: state.rows.elements)
  case .destination(let destination):
    state.destination = destination
  case .moveChild1ToChild2:
    if case .child1(let payload) = state.destination { state.destination = .child2(payload) }
  case .resetAll:
    state = SParent()
  case .copySiblingIntoChild:
    state.child.assign(state.sibling)
  }
  return .none
}

/// Enum state at the root, with inert (non-observable) payloads only.
private enum SEnum: Equatable {
  case count(Count)
  case anotherCount(Count)
  case int(Int)
  enum Count: String { case one, two }
}

/// The same enum made `IdentityComparable`.
private enum SIdentityEnum: IdentityComparable, Equatable {
  case count(SEnum.Count)
  case anotherCount(SEnum.Count)
  case int(Int)
  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool { lhs == rhs }
}

// MARK: - Helpers

private final class Fired: Sendable {
  private let count = Atomic<Int>(0)
  var value: Int { count.load(ordering: .relaxed) }
  func hit() { count.add(1, ordering: .relaxed) }
}

private func tracking(_ body: () -> Void) -> Fired {
  let fired = Fired()
  withTracking(body) { fired.hit() }
  return fired
}

@inline(never)
private func use<T>(_ value: T) { withExtendedLifetime(value) {} }

@MainActor
private func makeStore(_ state: SParent = SParent()) -> Store<SParent, SAction> {
  Store(initialState: state, reducer: reduceParent, diagnostics: StoreDiagnostics(printing: false))
}

// MARK: - Tests

@MainActor
@Suite("TCA parity: Store observation")
struct TCAParityStoreTests {
  // MARK: Replacing and resetting through a reducer

  @Test("reducer replaces the child through inout: the reader of store.child hears it once")
  func storeReplaceChild() {
    let store = makeStore()
    let fired = tracking { use(store.child) }
    let reader = Reaction { use(store.child) }
    store.send(.replaceChild(count: 42))
    #expect(fired.value == 1)
    #expect(reader.runCount == 2)
    #expect(store.child.count == 42)
  }

  @Test("reducer replaces the root through inout (self = other): the reader of store.count hears it once")
  func storeReplace() {
    let store = Store(
      initialState: SChild(),
      reducer: { (state: inout SChild, _: Void) -> Effect<Void> in
        state.assign(SChild(count: 42))
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let fired = tracking { use(store.count) }
    let reader = Reaction { use(store.count) }
    let stateReader = Reaction { use(store.state) }
    store.send(())
    #expect(fired.value == 1)
    #expect(reader.runCount == 2)
    #expect(stateReader.runCount == 2)
    #expect(store.count == 42)
  }

  @Test("reducer resets the child through inout: the reader of store.child hears it once")
  func storeResetChild() {
    let store = makeStore(SParent(child: SChild(count: 42)))
    let fired = tracking { use(store.child) }
    let reader = Reaction { use(store.child) }
    store.send(.resetChild)
    #expect(fired.value == 1)
    #expect(reader.runCount == 2)
    #expect(store.child.count == 0)
  }

  @Test("reducer resets the root (self = Self()): the reader of store.count hears it once")
  func storeReset() {
    let store = Store(
      initialState: SChild(count: 42),
      reducer: { (state: inout SChild, _: Void) -> Effect<Void> in
        state.reset()
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let fired = tracking { use(store.count) }
    let reader = Reaction { use(store.count) }
    store.send(())
    #expect(fired.value == 1)
    #expect(reader.runCount == 2)
    #expect(store.count == 0)
  }

  @Test("reducer replaces the whole parent state: the readers of every changed field hear it once")
  func storeResetAll() {
    let store = makeStore(SParent(child: SChild(count: 1), sibling: SChild(count: 2)))
    let childCount = Reaction { use(store.child.count) }
    let siblingCount = Reaction { use(store.sibling.count) }
    let rowsCount = Reaction { use(store.rows.count) }
    store.send(.resetAll)
    #expect((childCount.runCount, siblingCount.runCount) == (2, 2))
    #expect(rowsCount.runCount == 2)  // a new (rebuilt) rows array: documented as conservative
    #expect((store.child.count, store.sibling.count) == (0, 0))
  }

  // MARK: Enum state at the root

  @Test("enum root with inert cases: .count(.one) -> .count(.two) re-runs the reader of store.state")
  func enumStateWithInertCases() {
    let store = Store(
      initialState: SEnum.count(.one),
      reducer: { (state: inout SEnum, _: Void) -> Effect<Void> in
        state = .count(.two)
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let fired = tracking { use(store.state) }
    let reader = Reaction { use(store.state) }
    store.send(())
    #expect(fired.value == 1)
    #expect(reader.runCount == 2)
    #expect(store.state == .count(.two))
    store.send(())  // the same value again: nobody re-runs
    #expect(reader.runCount == 2)
  }

  @Test("enum root with inert cases: .count(.one) -> .anotherCount(.one) re-runs the reader of store.state")
  func enumStateWithInertCasesTricky() {
    let store = Store(
      initialState: SEnum.count(.one),
      reducer: { (state: inout SEnum, _: Void) -> Effect<Void> in
        state = .anotherCount(.one)
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let fired = tracking { use(store.state) }
    let reader = Reaction { use(store.state) }
    store.send(())
    #expect(fired.value == 1)
    #expect(reader.runCount == 2)
  }

  @Test("enum root with an Int case: .int(0) -> .int(1) re-runs the reader of store.state")
  func enumStateWithIntCase() {
    let store = Store(
      initialState: SEnum.int(0),
      reducer: { (state: inout SEnum, _: Void) -> Effect<Void> in
        state = .int(1)
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let fired = tracking { use(store.state) }
    let reader = Reaction { use(store.state) }
    let withState = Reaction { use(store.withState { $0 }) }
    store.send(())
    #expect(fired.value == 1)
    #expect(reader.runCount == 2)
    #expect(withState.runCount == 2)
  }

  @Test("IdentityComparable enum root: case and payload changes re-run the reader of store.state")
  func identityEnumRoot() {
    let store = Store(
      initialState: SIdentityEnum.count(.one),
      reducer: { (state: inout SIdentityEnum, next: SIdentityEnum) -> Effect<SIdentityEnum> in
        state = next
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let reader = Reaction { use(store.state) }
    store.send(.count(.two))
    #expect(reader.runCount == 2)
    store.send(.anotherCount(.two))
    #expect(reader.runCount == 3)
    store.send(.int(1))
    #expect(reader.runCount == 4)
    store.send(.int(1))
    #expect(reader.runCount == 4)
  }

  // MARK: Child scopes

  @Test("a child store's readers re-run for the child's fields; the sibling's and the parent's slot readers do not")
  func childScope() {
    let store = makeStore()
    let child = store.scope(state: \.child, action: SAction.child)
    let sibling = store.scope(state: \.sibling, action: SAction.sibling)
    let childCount = Reaction { use(child.count) }
    let siblingCount = Reaction { use(sibling.count) }
    let slot = Reaction { use(store.child) }
    child.send(.increment)
    #expect((childCount.runCount, siblingCount.runCount, slot.runCount) == (2, 1, 1))
    #expect(child.count == 1)
    store.send(.child(.increment))
    #expect((childCount.runCount, siblingCount.runCount, slot.runCount) == (3, 1, 1))
    #expect(store.scope(state: \.child, action: SAction.child) === child)  // cached
  }

  @Test("a child replaced by a new value: the child store follows it and its readers re-run once")
  func childScopeReplaced() {
    let store = makeStore(SParent(child: SChild(count: 5)))
    let child = store.scope(state: \.child, action: SAction.child)
    let childCount = Reaction { use(child.count) }
    store.send(.newChild(count: 42))
    #expect(childCount.runCount == 2)
    #expect(child.count == 42)
    #expect(child.isValid)
    child.send(.increment)
    #expect(childCount.runCount == 3)
    #expect(store.child.count == 43)
    store.send(.replaceChild(count: 7))  // through inout in the reducer
    #expect(childCount.runCount == 4)
    #expect(child.count == 7)
  }

  @Test("a child reset through inout by its own reducer: its store's reader re-runs once")
  func childScopeResetByOwnReducer() {
    let store = makeStore(SParent(child: SChild(count: 5)))
    let child = store.scope(state: \.child, action: SAction.child)
    let childCount = Reaction { use(child.count) }
    child.send(.reset)
    #expect(childCount.runCount == 2)
    #expect(child.count == 0)
    child.send(.assign(count: 9))
    #expect(childCount.runCount == 3)
    #expect(child.count == 9)
  }

  @Test("swapping two children: each child store's readers re-run once and show the other value")
  func childScopeSwap() {
    let store = makeStore(SParent(child: SChild(count: 1), sibling: SChild(count: -1)))
    let child = store.scope(state: \.child, action: SAction.child)
    let sibling = store.scope(state: \.sibling, action: SAction.sibling)
    let childCount = Reaction { use(child.count) }
    let siblingCount = Reaction { use(sibling.count) }
    store.send(.swap)
    #expect((childCount.runCount, siblingCount.runCount) == (2, 2))
    #expect((child.count, sibling.count) == (-1, 1))
  }

  @Test("nested scopes: a grandchild store scoped from a child store keeps working after the child store is released")
  func nestedScopeLifetime() {
    let store = makeStore(SParent(child: SChild()))
    store.send(.child(.showLeaf))
    var child: Store<SChild, SChildAction>? = store.scope(state: \.child, action: SAction.child)
    let leaf = child!.scope(state: \.leaf, action: SChildAction.leaf)!
    #expect(child!.scope(state: \.leaf, action: SChildAction.leaf) === leaf)  // cached
    let leafValue = Reaction { use(leaf.value) }
    leaf.send(.bump)
    #expect(store.child.leaf?.value == 1)
    #expect(leaf.value == 1)
    #expect(leafValue.runCount == 2)
    child = nil
    leaf.send(.bump)
    #expect(store.child.leaf?.value == 2)
    #expect(leaf.value == 2)
    #expect(leafValue.runCount == 3)
    store.send(.child(.leaf(.bump)))
    #expect(leaf.value == 3)
    #expect(leafValue.runCount == 4)
  }

  // MARK: Optional scopes

  @Test("an optional child: the scoping caller re-runs when it appears and disappears, not when its fields change")
  func optionalScope() {
    let store = makeStore()
    let presenter = Reaction { use(store.scope(state: \.optional, action: SAction.optional) != nil) }
    #expect(store.scope(state: \.optional, action: SAction.optional) == nil)
    store.send(.present(count: 42))
    #expect(presenter.runCount == 2)
    let optional = store.scope(state: \.optional, action: SAction.optional)!
    let count = Reaction { use(optional.count) }
    optional.send(.increment)
    #expect(optional.count == 43)
    #expect((presenter.runCount, count.runCount) == (2, 2))
    store.send(.dismiss)
    #expect(presenter.runCount == 3)
    #expect(count.runCount == 2)
    #expect(!optional.isValid)
  }

  @Test("a dismissed optional child's store: invalid, keeps its last state, drops and reports actions")
  func optionalScopeStale() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: SParent(optional: SChild(count: 3)), reducer: reduceParent, diagnostics: diagnostics)
    let optional = store.scope(state: \.optional, action: SAction.optional)!
    let count = Reaction { use(optional.count) }
    store.send(.dismiss)
    #expect(!optional.isValid)
    #expect(optional.count == 3)
    optional.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(store.optional == nil)
    store.send(.present(count: 0))  // a new child: a new store; the stale one stays stale
    let fresh = store.scope(state: \.optional, action: SAction.optional)!
    #expect(fresh !== optional)
    fresh.send(.increment)
    #expect(count.runCount == 1)
    #expect(optional.count == 3)
    #expect(fresh.count == 1)
  }

  @Test("an optional child replaced by a new value: the scoping caller re-runs")
  func optionalScopeReplaced() {
    let store = makeStore(SParent(optional: SChild(count: 1)))
    let presenter = Reaction { use(store.scope(state: \.optional, action: SAction.optional)) }
    store.send(.present(count: 2))
    #expect(presenter.runCount == 2)
  }

  @Test("a grandchild store below a dismissed optional child becomes invalid with it")
  func nestedOptionalStale() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(initialState: SParent(optional: SChild()), reducer: reduceParent, diagnostics: diagnostics)
    store.send(.optional(.showLeaf))
    let optional = store.scope(state: \.optional, action: SAction.optional)!
    let leaf = optional.scope(state: \.leaf, action: SChildAction.leaf)!
    let shown = Reaction { use(leaf.value) }  // a view showing the grandchild
    leaf.send(.bump)
    #expect(store.optional?.leaf?.value == 1)
    #expect(shown.runCount == 2)
    store.send(.dismiss)
    #expect(shown.runCount == 2)
    #expect(!optional.isValid)
    #expect(!leaf.isValid)
    #expect(leaf.value == 1)
    leaf.send(.bump)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
  }

  // MARK: Enum case scopes

  @Test("an enum case store: field changes re-run its readers, not the destination's slot readers")
  func enumCaseScope() {
    let store = makeStore()
    let presenter = Reaction { use(store.scope(state: \.destination?.child1, action: SAction.child1) != nil) }
    store.send(.destination(.child1(SChild(count: 1))))
    #expect(presenter.runCount == 2)
    let child1 = store.scope(state: \.destination?.child1, action: SAction.child1)!
    let count = Reaction { use(child1.count) }
    child1.send(.increment)
    #expect(child1.count == 2)
    #expect((presenter.runCount, count.runCount) == (2, 2))
    store.send(.moveChild1ToChild2)
    #expect(!child1.isValid)
    #expect(presenter.runCount == 3)
    #expect(count.runCount == 2)
    #expect(store.destination?.child2?.count == 2)
  }

  @Test("a destination changed to an inert case and back to an inert value re-runs the slot reader each time")
  func enumInertDestination() {
    let store = makeStore(SParent(destination: .inert(0)))
    let slot = Reaction { use(store.destination) }
    store.send(.destination(.inert(1)))
    #expect(slot.runCount == 2)
    store.send(.destination(.inert(1)))
    #expect(slot.runCount == 2)
    store.send(.destination(nil))
    #expect(slot.runCount == 3)
  }

  // MARK: Collections

  @Test("row stores: a row's readers re-run for that row only; the list re-runs when rows come and go")
  func collectionScope() {
    let store = makeStore(SParent(rows: [SChild(id: 1), SChild(id: 2)]))
    let list = Reaction { use(store.scope(state: \.rows, action: SAction.row).count) }
    let rows = store.scope(state: \.rows, action: SAction.row)
    let first = rows[0]
    let second = rows[1]
    let firstCount = Reaction { use(first.count) }
    let secondCount = Reaction { use(second.count) }
    first.send(.increment)
    #expect((list.runCount, firstCount.runCount, secondCount.runCount) == (1, 2, 1))
    store.send(.append(id: 3))
    #expect((list.runCount, firstCount.runCount, secondCount.runCount) == (2, 2, 1))
    store.send(.remove(id: 2))
    #expect((list.runCount, firstCount.runCount, secondCount.runCount) == (3, 2, 1))
    #expect(!second.isValid)
    #expect(first.isValid)
    #expect(store.scope(state: \.rows, action: SAction.row)[0] === first)  // cached by id
  }

  @Test("the store of a removed row: invalid, shows its last state, drops and reports actions")
  func removedRowStore() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: SParent(rows: [SChild(id: 1, count: 5), SChild(id: 2)]), reducer: reduceParent,
      diagnostics: diagnostics)
    let row = store.scope(state: \.rows, action: SAction.row)[0]
    let count = Reaction { use(row.count) }
    store.send(.remove(id: 1))
    #expect(!row.isValid)
    #expect(row.count == 5)
    row.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(count.runCount == 1)
    store.send(.append(id: 1))  // the same id comes back: a new store
    let again = store.scope(state: \.rows, action: SAction.row).store(id: 1)!
    #expect(again !== row)
    #expect(again.count == 0)
    #expect(count.runCount == 1)
  }

  @Test("moving rows re-runs the list, not the rows' readers")
  func collectionMove() {
    let store = makeStore(SParent(rows: [SChild(id: 1), SChild(id: 2)]))
    let list = Reaction { use(store.scope(state: \.rows, action: SAction.row).ids) }
    let rows = store.scope(state: \.rows, action: SAction.row)
    let first = rows[0]
    let firstCount = Reaction { use(first.count) }
    store.send(.moveRows)
    #expect(list.runCount == 2)
    #expect(firstCount.runCount == 1)
    #expect(store.scope(state: \.rows, action: SAction.row).ids.elements == [2, 1])
    #expect(first.isValid)
  }

  @Test("a row replaced by a new value with the same id: its store stays valid and its readers re-run once")
  func collectionReplaceSameID() {
    let store = makeStore(SParent(rows: [SChild(id: 1, count: 1), SChild(id: 2)]))
    let list = Reaction { use(store.scope(state: \.rows, action: SAction.row).count) }
    let rows = store.scope(state: \.rows, action: SAction.row)
    let first = rows[0]
    let second = rows[1]
    let firstCount = Reaction { use(first.count) }
    let secondCount = Reaction { use(second.count) }
    store.send(.replaceRow(id: 1, count: 42))
    #expect(first.count == 42)
    #expect(firstCount.runCount == 2)
    #expect(secondCount.runCount == 1)
    #expect(list.runCount == 1)
    first.send(.increment)
    #expect(store.rows[id: 1]?.count == 43)
    #expect(firstCount.runCount == 3)
  }

  @Test("a row copied, edited and assigned back in the reducer: its reader re-runs once, the list does not")
  func collectionCopyEditAssign() {
    let store = makeStore(SParent(rows: [SChild(id: 1), SChild(id: 2)]))
    let list = Reaction { use(store.scope(state: \.rows, action: SAction.row).count) }
    let rows = store.scope(state: \.rows, action: SAction.row)
    let first = rows[0]
    let firstCount = Reaction { use(first.count) }
    store.send(.copyEditAssignRow(id: 1))
    #expect(first.count == 1)
    #expect(firstCount.runCount == 2)
    #expect(list.runCount == 1)
  }

  @Test("rows rebuilt with the same ids in the same order: neither the list nor the rows re-run")
  func collectionRebuilt() {
    let store = makeStore(SParent(rows: [SChild(id: 1), SChild(id: 2)]))
    let list = Reaction { use(store.scope(state: \.rows, action: SAction.row).count) }
    let first = store.scope(state: \.rows, action: SAction.row)[0]
    let firstCount = Reaction { use(first.count) }
    store.send(.rebuildRows)
    #expect(list.runCount == 1)
    #expect(firstCount.runCount == 1)
    #expect(first.isValid)
  }

  @Test("a row store's nested optional child store, shown from the row (TCA's cached-scope check)")
  func rowNestedOptional() {
    let store = makeStore(SParent(rows: [SChild(id: 1)]))
    let row = store.scope(state: \.rows, action: SAction.row)[0]
    #expect(row.scope(state: \.leaf, action: SChildAction.leaf) == nil)
    row.send(.showLeaf)
    let leaf = row.scope(state: \.leaf, action: SChildAction.leaf)!
    let value = Reaction { use(leaf.value) }
    leaf.send(.bump)
    #expect(store.rows[id: 1]?.leaf?.value == 1)
    #expect(value.runCount == 2)
    store.send(.remove(id: 1))
    #expect(!row.isValid)
    #expect(!leaf.isValid)
  }
  @Test("store.state on an ObservableState root: depends on identity; fields read on the value depend on those fields")
  func storeStateOfObservableRoot() {
    let store = Store(
      initialState: SChild(count: 0), reducer: reduceChild, diagnostics: StoreDiagnostics(printing: false))
    let whole = Reaction { use(store.state) }
    let field = Reaction { use(store.state.count) }
    store.send(.increment)
    #expect((whole.runCount, field.runCount) == (1, 2))
    store.send(.reset)  // a new value: a new identity
    #expect((whole.runCount, field.runCount) == (2, 3))
    #expect(store.count == 0)
  }

  @Test("a plain Equatable struct root is read as a whole: re-runs when it changes, not on an equal write")
  func plainStructRoot() {
    struct Plain: Equatable {
      var a = 0
      var b = 0
    }
    let store = Store(
      initialState: Plain(),
      reducer: { (state: inout Plain, action: Int) -> Effect<Int> in
        if action >= 0 { state.a = action }
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let aReader = Reaction { use(store.a) }
    let whole = Reaction { use(store.state) }
    store.send(1)
    #expect((aReader.runCount, whole.runCount) == (2, 2))
    store.send(1)
    #expect((aReader.runCount, whole.runCount) == (2, 2))
    store.send(-1)
    #expect((aReader.runCount, whole.runCount) == (2, 2))
  }

  @Test("an unread grandchild store below a dismissed optional child shows the state it last read")
  func unreadNestedStale() {
    let store = makeStore(SParent(optional: SChild()))
    store.send(.optional(.showLeaf))
    let optional = store.scope(state: \.optional, action: SAction.optional)!
    let leaf = optional.scope(state: \.leaf, action: SChildAction.leaf)!
    leaf.send(.bump)  // nobody reads the leaf store afterwards
    store.send(.dismiss)
    #expect(!leaf.isValid)
    // Documented: "answers reads with the last state read through it or given to it by a commit".
    #expect(leaf.value == 0)
  }

  @Test("one-shot withTracking over child, optional and row stores fires exactly once, only for what was read")
  func oneShotOverScopes() {
    let store = makeStore(SParent(optional: SChild(), rows: [SChild(id: 1), SChild(id: 2)]))
    let child = store.scope(state: \.child, action: SAction.child)
    let optional = store.scope(state: \.optional, action: SAction.optional)!
    let rows = store.scope(state: \.rows, action: SAction.row)
    let first = rows[0]
    let second = rows[1]
    let childFired = tracking { use(child.count) }
    let optionalFired = tracking { use(optional.count) }
    let firstFired = tracking { use(first.count) }
    let secondFired = tracking { use(second.count) }
    let listFired = tracking { use(store.scope(state: \.rows, action: SAction.row).count) }
    first.send(.increment)
    first.send(.increment)
    #expect(
      (childFired.value, optionalFired.value, firstFired.value, secondFired.value, listFired.value) == (0, 0, 1, 0, 0))
    child.send(.increment)
    optional.send(.increment)
    #expect(
      (childFired.value, optionalFired.value, firstFired.value, secondFired.value, listFired.value) == (1, 1, 1, 0, 0))
    store.send(.append(id: 3))
    #expect((secondFired.value, listFired.value) == (0, 1))
  }
  @Test("scoping through \\.self (TCA's cached-scope check) gives a working store whose scopes send and observe")
  func scopeThroughSelf() {
    let store = makeStore(SParent(optional: SChild(), rows: [SChild(id: 1)]))
    let same = store.scope(state: \.self, action: { $0 })
    #expect(store.scope(state: \.self, action: { $0 }) === same)
    let rowReader = Reaction { use(store.rows[id: 1]?.count) }
    Array(same.scope(state: \.rows, action: SAction.row))[0].send(.increment)
    #expect(store.rows[id: 1]?.count == 1)
    #expect(rowReader.runCount == 2)
    let optionalReader = Reaction { use(store.optional?.count) }
    same.scope(state: \.optional, action: SAction.optional)?.send(.increment)
    #expect(store.optional?.count == 1)
    #expect(optionalReader.runCount == 2)
    let sameReader = Reaction { use(same.child.count) }
    store.send(.child(.increment))
    #expect(sameReader.runCount == 2)
  }

  @Test("a send whose reducer queues .send and .merge effects re-runs a reader once")
  func oneRunPerSend() {
    let store = Store(
      initialState: SChild(),
      reducer: { (state: inout SChild, action: Int) -> Effect<Int> in
        state.count += 1
        if action > 0 { return .merge(.send(action - 1), .none) }
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let reader = Reaction { use(store.count) }
    store.send(3)
    #expect(store.count == 4)
    #expect(reader.runCount == 2)
  }

  @Test("a .run effect sends back on the main actor and re-runs the reader")
  func runEffect() async throws {
    let store = Store(
      initialState: SChild(),
      reducer: { (state: inout SChild, action: Int) -> Effect<Int> in
        if action == 0 { return .run { send in await send(1) } }
        state.count += action
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let reader = Reaction { use(store.count) }
    store.send(0)
    _ = await waitUntil { store.count != 0 }
    #expect(store.count == 1)
    #expect(reader.runCount == 2)
  }
  // MARK: Ports of TCA's StoreTests (publisher/ViewStore sinks replaced by reactions)

  @Test("a scoped store of plain state hears its parent's changes")
  func scopedStoreReceivesUpdatesFromParent() {
    let parent = Store(
      initialState: 0,
      reducer: { (state: inout Int, _: Void) -> Effect<Void> in
        state += 1
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let child = parent.scope(state: \.description, action: { $0 })
    var values: [String] = []
    let sink = Reaction { values.append(child.state) }
    #expect(values == ["0"])
    parent.send(())
    #expect(values == ["0", "1"])
    _ = sink
  }

  @Test("a parent store hears changes sent through a scoped store of plain state")
  func parentStoreReceivesUpdatesFromChild() {
    let parent = Store(
      initialState: 0,
      reducer: { (state: inout Int, _: Void) -> Effect<Void> in
        state += 1
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    let child = parent.scope(state: \.description, action: { $0 })
    var values: [Int] = []
    let sink = Reaction { values.append(parent.state) }
    #expect(values == [0])
    child.send(())
    #expect(values == [0, 1])
    _ = sink
  }

  @Test("synchronous .send effects are coalesced: the reader sees only the final value")
  func coalesceSynchronousActions() {
    let store = Store(
      initialState: 0,
      reducer: { (state: inout Int, action: Int) -> Effect<Int> in
        if action == 0 { return .merge(.send(1), .send(2), .send(3)) }
        state = action
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    var emissions: [Int] = []
    let sink = Reaction { emissions.append(store.state) }
    store.send(0)
    #expect(emissions == [0, 3])
    _ = sink
  }

  @Test("100,000 synchronous actions from one send run to the end, one re-run")
  func lotsOfSynchronousActions() {
    let store = Store(
      initialState: 0,
      reducer: { (state: inout Int, action: Bool) -> Effect<Bool> in
        guard action else { return .none }
        state += 1
        return .send(state < 100_000)
      }, diagnostics: StoreDiagnostics(printing: false))
    let reader = Reaction { use(store.state) }
    store.send(true)
    #expect(store.state == 100_000)
    #expect(reader.runCount == 2)
  }

  @Test("an optional plain child scoped from the root appears and disappears with each action (ifLet after scope)")
  func ifLetAfterScope() {
    struct AppState: Equatable { var count: Int? }
    let parent = Store(
      initialState: AppState(),
      reducer: { (state: inout AppState, action: Int?) -> Effect<Int?> in
        state.count = action
        return .none
      }, diagnostics: StoreDiagnostics(printing: false))
    var outputs: [Int?] = []
    var stores: [Store<Int, Int?>] = []
    let sink = Reaction {
      if let store = parent.scope(state: \.count, action: { $0 }) {
        stores.append(store)
        outputs.append(store.state)
      } else {
        outputs.append(nil)
      }
    }
    #expect(outputs == [nil])
    for _ in 0..<3 {
      parent.send(1)
      parent.send(nil)
    }
    #expect(outputs == [nil, 1, nil, 1, nil, 1, nil])
    #expect(stores.count == 3)
    #expect(stores.allSatisfy { !$0.isValid })
    #expect(Set(stores.map(ObjectIdentifier.init)).count == 3)
    _ = sink
  }

  @Test("a child store of an optional root receives actions sent back by its .run effects (ifLet two)")
  func ifLetTwo() async throws {
    let parent = Store(
      initialState: Optional(0),
      reducer: { (state: inout Int?, action: Bool) -> Effect<Bool> in
        if action {
          state? += 1
          return .none
        }
        return .run { send in await send(true) }
      }, diagnostics: StoreDiagnostics(printing: false))
    let child = try #require(parent.scope(state: \.self, action: { $0 }))
    let reader = Reaction { use(child.state) }
    for expected in 1...3 {
      child.send(false)
      _ = await waitUntil { child.state == expected }
      #expect(child.state == expected)
    }
    #expect(child.state == 3)
    #expect(reader.runCount == 4)
  }
  @Test("store.state of an ObservableState child store depends on the child's identity, not its fields")
  func childStoreStateIdentity() {
    let store = makeStore(SParent(child: SChild(count: 1)))
    let child = store.scope(state: \.child, action: SAction.child)
    let whole = Reaction { use(child.state) }
    child.send(.increment)
    #expect(whole.runCount == 1)
    store.send(.newChild(count: 2))
    #expect(whole.runCount == 2)
    #expect(child.state.count == 2)
  }
  @Test(
    "siblings sharing one identity (a copy stored twice): replacing one with the other re-runs its store's reader once")
  func sharedIdentitySiblings() {
    let original = SChild(count: 1)
    var copy = original
    copy.count = 2
    let store = makeStore(SParent(child: original, sibling: copy))
    let child = store.scope(state: \.child, action: SAction.child)
    let sibling = store.scope(state: \.sibling, action: SAction.sibling)
    let childCount = Reaction { use(child.count) }
    let siblingCount = Reaction { use(sibling.count) }
    store.send(.copySiblingIntoChild)
    #expect((child.count, sibling.count) == (2, 2))
    #expect((childCount.runCount, siblingCount.runCount) == (2, 1))
    sibling.send(.increment)
    #expect((child.count, sibling.count) == (2, 3))
    #expect(siblingCount.runCount == 2)
    // Documented: a write to a copy re-runs the readers of the other copy at most once (shown value unchanged).
    #expect(childCount.runCount == 3)
    child.send(.increment)
    #expect((child.count, sibling.count) == (3, 3))
    #expect(store.child.count == 3)
    #expect((childCount.runCount, siblingCount.runCount) == (4, 2))
  }
}
