import Foundation
import Observant
import Synchronization
import Testing

// Behaviours that The Composable Architecture's observation tests check for `@ObservableState`
// (its `ObservableTests`), re-stated against Observant with hand-written declarations. Each test
// names the behaviour; counts are exact: a one-shot `withTracking` fires 0 or 1 times, a
// `Reaction` counts its runs (1 = the initial run).

// MARK: - State

// swift-format-ignore
private struct PChild: ObservableState, Identifiable, Equatable {
  var registrar = StateRegistrar<Self>()
  let id: UUID

  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }

  init(id: UUID = UUID(), count: Int = 0) {
    self.id = id
    _count = StateField(count)
  }

  /// TCA's test helper: a wholesale assignment through `inout`.
  mutating func assign(_ other: Self) { self = other }
  /// TCA's test helper: a new value through `inout`.
  mutating func reset() { self = Self() }
  /// A new value with the same `Identifiable` id, through `inout`.
  mutating func renew() { self = Self(id: id) }
  /// TCA's test helper: a copy taken inside a mutating method.
  mutating func copy() -> Self { self }
}

private enum PDestination: IdentityComparable, Equatable {
  case child1(PChild)
  case child2(PChild)
  case inert(Int)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case let (.child1(lhs), .child1(rhs)), let (.child2(lhs), .child2(rhs)): Observant.isIdentityEqual(lhs, rhs)
    case let (.inert(lhs), .inert(rhs)): lhs == rhs
    default: false
    }
  }

  var child1: PChild? { if case .child1(let c) = self { c } else { nil } }
  var child2: PChild? { if case .child2(let c) = self { c } else { nil } }
}

// swift-format-ignore
private struct PParent: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _child: StateField<PChild>
  var child: PChild {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }

  private var _sibling: StateField<PChild>
  var sibling: PChild {
    get { registrar.read(_sibling) } set { registrar.write(&_sibling, newValue) }
    _modify { yield &self[tracking: \._sibling] }
  }

  private var _destination: StateField<PDestination?>
  var destination: PDestination? {
    get { registrar.read(_destination) } set { registrar.write(&_destination, newValue) }
  }

  private var _children: StateField<[PChild]>
  var children: [PChild] {
    get { registrar.read(_children) } set { registrar.write(&_children, newValue) }
    _modify { yield &self[tracking: \._children] }
  }

  private var _optional: StateField<PChild?>
  var optional: PChild? {
    get { registrar.read(_optional) } set { registrar.write(&_optional, newValue) }
    _modify { yield &self[tracking: \._optional] }
  }

  private var _presentation: StateField<PChild?>
  var presentation: PChild? {
    get { registrar.read(_presentation) } set { registrar.write(&_presentation, newValue) }
    _modify { yield &self[tracking: \._presentation] }
  }

  private var _rows: StateField<IdentifiedArrayOf<PChild>>
  var rows: IdentifiedArrayOf<PChild> {
    get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }

  init(
    child: PChild = PChild(), sibling: PChild = PChild(), destination: PDestination? = nil,
    children: [PChild] = [], optional: PChild? = nil, presentation: PChild? = nil,
    rows: IdentifiedArrayOf<PChild> = []
  ) {
    _child = StateField(child)
    _sibling = StateField(sibling)
    _destination = StateField(destination)
    _children = StateField(children)
    _optional = StateField(optional)
    _presentation = StateField(presentation)
    _rows = StateField(rows)
  }

  mutating func swap() {
    let childCopy = child
    child = sibling
    sibling = childCopy
  }

  mutating func reset() { self = Self() }
}

private final class PHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state: PParent
  init(_ state: PParent = PParent()) { self.state = state }
}

private final class PChildHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state: PChild
  init(_ state: PChild = PChild()) { self.state = state }
}

// MARK: - Helpers

/// Counts `onChange` calls of one-shot trackings (0 or 1 each).
private final class Fired: Sendable {
  private let count = Atomic<Int>(0)
  var value: Int { count.load(ordering: .relaxed) }
  func hit() { count.add(1, ordering: .relaxed) }
}

/// `withTracking(body)`; returns how often its `onChange` fired.
private func tracking(_ body: () -> Void) -> Fired {
  let fired = Fired()
  withTracking(body) { fired.hit() }
  return fired
}

/// Uses a value without letting the read be discarded.
@inline(never)
private func use<T>(_ value: T) { withExtendedLifetime(value) {} }

// MARK: - Tests

@Suite("TCA parity: ObservableState through withTracking")
struct TCAParityTests {
  @Test("a field write notifies its reader")
  func basics() {
    var state = PChild()
    let fired = tracking { use(state.count) }
    state.count += 1
    #expect(fired.value == 1)
    #expect(state.count == 1)
  }

  @Test("assigning an equal value notifies nobody")
  func assignEqualValue() {
    var state = PChild()
    let fired = tracking { use(state.count) }
    state.count = state.count
    #expect(state.count == 0)
    #expect(fired.value == 0)
  }

  @Test("copy of a plain-array element, mutated, assigned back: the element's field reader hears it")
  func copyMutationPlainArray() {
    var state = PParent(children: [PChild(count: 42)])
    var copy = state.children[0]
    copy.count += 1
    let fired = tracking { use(state.children[0].count) }
    state.children[0] = copy
    #expect(fired.value == 1)
    #expect(state.children[0].count == 43)
  }

  @Test("copy of an identified-array element, mutated, assigned back by position and by id")
  func copyMutationIdentifiedArray() {
    var state = PParent(rows: [PChild(count: 42)])
    var copy = state.rows[0]
    copy.count += 1
    let byPosition = tracking { use(state.rows[0].count) }
    let slot = tracking { use(state.rows) }
    state.rows[0] = copy
    #expect(byPosition.value == 1)
    #expect(slot.value == 0)
    #expect(state.rows[0].count == 43)

    copy.count += 1
    let byID = tracking { use(state.rows[id: copy.id]?.count) }
    state.rows[id: copy.id] = copy
    #expect(byID.value == 1)
    #expect(state.rows[0].count == 44)
  }

  @Test("copy-mutate-assign of an element re-runs a Reaction over a @Tracked holder exactly once")
  func copyMutationHolderReaction() {
    let holder = PHolder(PParent(children: [PChild(count: 42)], rows: [PChild(count: 42)]))
    let plain = Reaction { use(holder.state.children[0].count) }
    let identified = Reaction { use(holder.state.rows[0].count) }
    var plainCopy = holder.state.children[0]
    plainCopy.count += 1  // a write to a detached copy: at most one run of the original's readers
    var rowCopy = holder.state.rows[0]
    rowCopy.count += 1
    let (plainBefore, identifiedBefore) = (plain.runCount, identified.runCount)
    #expect((plainBefore, identifiedBefore) == (2, 2))  // once per detached copy (documented)
    holder.state.children[0] = plainCopy
    holder.state.rows[0] = rowCopy
    #expect(plain.runCount == plainBefore + 1)
    #expect(identified.runCount == identifiedBefore + 1)
    #expect(holder.state.children[0].count == 43)
    #expect(holder.state.rows[0].count == 43)
  }

  @Test("replace(with:) a new value on a variable nobody owns notifies its field reader")
  func replaceLocal() {
    var state = PChild(count: 42)
    let fired = tracking { use(state.count) }
    state.replace(with: PChild())
    #expect(state.count == 0)
    #expect(fired.value == 1)
  }

  @Test("self = Self() on a @Tracked root (mutating method) notifies the field reader once")
  func resetThroughOwner() {
    let holder = PChildHolder(PChild(count: 42))
    let reader = Reaction { use(holder.state.count) }
    holder.state.reset()
    #expect(holder.state.count == 0)
    #expect(reader.runCount == 2)
  }

  @Test("self = other on a @Tracked root (mutating method) notifies the field reader once")
  func assignThroughOwner() {
    let holder = PChildHolder(PChild(count: 1))
    let reader = Reaction { use(holder.state.count) }
    holder.state.assign(PChild(count: 42))
    #expect(holder.state.count == 42)
    #expect(reader.runCount == 2)
  }

  @Test("mutating the child's field notifies the field's reader, not the child slot's")
  func childCountMutation() {
    var state = PParent()
    let count = tracking { use(state.child.count) }
    let slot = tracking { use(state.child) }
    state.child.count += 1
    #expect(state.child.count == 1)
    #expect(count.value == 1)
    #expect(slot.value == 0)
  }

  @Test("assigning a new child notifies the slot, not the reader of a copy of the old child")
  func childReset() {
    var state = PParent()
    let child = state.child
    let oldCount = tracking { use(child.count) }
    let slot = tracking { use(state.child) }
    state.child = PChild(count: 42)
    #expect(state.child.count == 42)
    #expect(oldCount.value == 0)
    #expect(slot.value == 1)
  }

  @Test("self = other inside the child (through _modify) notifies the child slot")
  func replaceChild() {
    var state = PParent()
    let slot = tracking { use(state.child) }
    state.child.assign(PChild(count: 42))
    #expect(slot.value == 1)
    #expect(state.child.count == 42)
  }

  @Test("replace(with:) on the child (through _modify) notifies the child slot")
  func replaceChildWithReplace() {
    var state = PParent()
    let slot = tracking { use(state.child) }
    let count = tracking { use(state.child.count) }
    state.child.replace(with: PChild(count: 42))
    #expect(slot.value == 1)
    #expect(count.value == 1)
    #expect(state.child.count == 42)
  }

  @Test("self = Self() inside the child notifies the child slot")
  func resetChild() {
    var state = PParent(child: PChild(count: 42))
    let slot = tracking { use(state.child) }
    state.child.reset()
    #expect(slot.value == 1)
    #expect(state.child.count == 0)
  }

  @Test("swapping siblings notifies both slots")
  func swapSiblings() {
    var state = PParent(child: PChild(count: 1), sibling: PChild(count: -1))
    let child = tracking { use(state.child) }
    let sibling = tracking { use(state.sibling) }
    state.swap()
    #expect(child.value == 1)
    #expect(sibling.value == 1)
    #expect(state.child.count == -1)
    #expect(state.sibling.count == 1)
  }

  @Test("swapping siblings under a @Tracked holder re-runs each slot reader and each count reader once")
  func swapSiblingsReaction() {
    let holder = PHolder(PParent(child: PChild(count: 1), sibling: PChild(count: -1)))
    let childCount = Reaction { use(holder.state.child.count) }
    let siblingCount = Reaction { use(holder.state.sibling.count) }
    holder.state.swap()
    #expect((childCount.runCount, siblingCount.runCount) == (2, 2))
    #expect((holder.state.child.count, holder.state.sibling.count) == (-1, 1))
    holder.state.child.count += 10  // now the former sibling: reaches the reader of child.count
    #expect((childCount.runCount, siblingCount.runCount) == (3, 2))
  }

  @Test("presenting an optional child notifies the optional slot")
  func presentOptional() {
    var state = PParent()
    let slot = tracking { use(state.optional) }
    state.optional = PChild(count: 42)
    #expect(slot.value == 1)
    #expect(state.optional?.count == 42)
  }

  @Test("mutating a presented optional notifies a copy's count reader, not the slot")
  func mutatePresentedOptional() {
    var state = PParent(optional: PChild())
    let slot = tracking { use(state.optional) }
    let optional = state.optional
    let count = tracking { use(optional?.count) }
    state.optional?.count += 1
    #expect(state.optional?.count == 1)
    #expect(slot.value == 0)
    #expect(count.value == 1)
  }

  @Test("dismissing an optional child notifies the slot")
  func dismissOptional() {
    var state = PParent(optional: PChild())
    let slot = tracking { use(state.optional) }
    state.optional = nil
    #expect(slot.value == 1)
    #expect(state.optional == nil)
  }

  @Test("presenting an enum destination notifies the destination slot")
  func presentDestination() {
    var state = PParent()
    let slot = tracking { use(state.destination) }
    state.destination = .child1(PChild(count: 42))
    #expect(slot.value == 1)
    #expect(state.destination?.child1?.count == 42)
  }

  @Test("dismissing an enum destination notifies the destination slot")
  func dismissDestination() {
    var state = PParent(destination: .child1(PChild()))
    let slot = tracking { use(state.destination) }
    state.destination = nil
    #expect(slot.value == 1)
    #expect(state.destination == nil)
  }

  @Test("changing the destination's case notifies the destination slot")
  func changeDestination() {
    var state = PParent(destination: .child1(PChild()))
    let slot = tracking { use(state.destination) }
    state.destination = .child2(PChild(count: 42))
    #expect(slot.value == 1)
    #expect(state.destination?.child2?.count == 42)
  }

  @Test("changing the destination's case with the same payload notifies the destination slot")
  func changeDestinationKeepIdentity() {
    let childState = PChild(count: 42)
    var state = PParent(destination: .child1(childState))
    let slot = tracking { use(state.destination) }
    state.destination = .child2(childState)
    #expect(slot.value == 1)
    #expect(state.destination?.child2?.count == 42)
  }

  @Test("the same case with the same payload does not notify the destination slot")
  func sameDestination() {
    let childState = PChild(count: 42)
    var state = PParent(destination: .child1(childState))
    let slot = tracking { use(state.destination) }
    state.destination = .child1(childState)
    #expect(slot.value == 0)
  }

  @Test("changing a non-observable payload notifies the destination slot")
  func mutatingDestinationNonObservableCase() {
    var state = PParent(destination: .inert(0))
    let slot = tracking { use(state.destination) }
    state.destination = .inert(1)
    #expect(state.destination == .inert(1))
    #expect(slot.value == 1)
  }

  @Test("an edited payload written back into the same case notifies the payload's field reader, not the slot")
  func destinationPayloadEdit() {
    let holder = PHolder(PParent(destination: .child1(PChild())))
    let slot = Reaction { use(holder.state.destination) }
    let count = Reaction { use(holder.state.destination?.child1?.count) }
    guard case .child1(var payload) = holder.state.destination else {
      Issue.record("not child1")
      return
    }
    payload.count += 1  // a detached copy: its original's readers may run once
    let (slotBefore, countBefore) = (slot.runCount, count.runCount)
    #expect((slotBefore, countBefore) == (1, 2))  // the copy's write: the count reader once
    holder.state.destination = .child1(payload)
    #expect(slot.runCount == slotBefore)
    #expect(count.runCount == countBefore + 1)
    #expect(holder.state.destination?.child1?.count == 1)
  }

  @Test("replacing the child by a mutated copy of it taken from a sibling notifies the count reader")
  func replaceWithCopy() {
    let childState = PChild(count: 1)
    var childStateCopy = childState
    childStateCopy.count = 2
    var state = PParent(child: childState, sibling: childStateCopy)
    let count = tracking { use(state.child.count) }
    state.child.assign(state.sibling)
    #expect(count.value == 1)
    #expect(state.child.count == 2)
    #expect(state.sibling.count == 2)
  }

  @Test("replacing the child by a mutated copy from a sibling, under a holder, runs the reader once")
  func replaceWithCopyReaction() {
    let childState = PChild(count: 1)
    var childStateCopy = childState
    childStateCopy.count = 2
    let holder = PHolder(PParent(child: childState, sibling: childStateCopy))
    let count = Reaction { use(holder.state.child.count) }
    holder.state.child.assign(holder.state.sibling)
    #expect(count.runCount == 2)
    #expect(holder.state.child.count == 2)
    #expect(holder.state.sibling.count == 2)
  }

  @Test("appending to an identified array notifies its slot")
  func identifiedArrayAddElement() {
    var state = PParent()
    let slot = tracking { use(state.rows) }
    state.rows.append(PChild())
    #expect(state.rows.count == 1)
    #expect(slot.value == 1)
  }

  @Test("mutating an identified array element notifies only that element's field reader")
  func identifiedArrayMutateElement() {
    var state = PParent(rows: [PChild(), PChild()])
    let rows = tracking { use(state.rows) }
    let firstRow = tracking { use(state.rows[0]) }
    let firstRowCount = tracking { use(state.rows[0].count) }
    let secondRowCount = tracking { use(state.rows[1].count) }
    state.rows[0].count += 1
    #expect(state.rows[0].count == 1)
    #expect(rows.value == 0)
    #expect(firstRow.value == 0)
    #expect(firstRowCount.value == 1)
    #expect(secondRowCount.value == 0)
  }

  @Test("mutating an identified array element by id (stack-like) notifies only that element's field reader")
  func identifiedArrayMutateElementByID() {
    var state = PParent(rows: [PChild(), PChild()])
    let firstID = state.rows[0].id
    let rows = tracking { use(state.rows) }
    let firstRow = tracking { use(state.rows[0]) }
    let firstRowCount = tracking { use(state.rows[0].count) }
    let secondRowCount = tracking { use(state.rows[1].count) }
    state.rows[id: firstID]?.count += 1
    #expect(state.rows[0].count == 1)
    #expect(rows.value == 0)
    #expect(firstRow.value == 0)
    #expect(firstRowCount.value == 1)
    #expect(secondRowCount.value == 0)
  }

  @Test("removing, moving, swapping and replacing an identified array element by a new value notify the slot")
  func identifiedArrayStructure() {
    var state = PParent(rows: [PChild(), PChild(), PChild()])
    let ids = state.rows.ids.elements

    let removed = tracking { use(state.rows) }
    state.rows.remove(id: ids[2])
    #expect(removed.value == 1)

    let swapped = tracking { use(state.rows) }
    state.rows.swapAt(0, 1)
    #expect(swapped.value == 1)
    #expect(state.rows.ids.elements == [ids[1], ids[0]])

    let moved = tracking { use(state.rows) }
    state.rows.move(fromOffsets: [0], toOffset: 2)
    #expect(moved.value == 1)
    #expect(state.rows.ids.elements == [ids[0], ids[1]])

    let replacedSlot = tracking { use(state.rows) }
    let replacedCount = tracking { use(state.rows[id: ids[0]]?.count) }
    // A new value under an existing id: a new identity, so a change of the array's structure.
    state.rows[id: ids[0]] = PChild(id: ids[0], count: 5)
    #expect(replacedSlot.value == 1)
    #expect(replacedCount.value == 1)
  }

  @Test("an identified array element's count reader is not notified by another element's change or by an equal write")
  func identifiedArrayOtherElement() {
    let holder = PHolder(PParent(rows: [PChild(), PChild()]))
    let secondID = holder.state.rows[1].id
    let list = Reaction { use(holder.state.rows.count) }
    let first = Reaction { use(holder.state.rows[0].count) }
    let second = Reaction { use(holder.state.rows[id: secondID]?.count) }
    holder.state.rows[1].count += 1
    holder.state.rows[0].count = 0
    #expect((list.runCount, first.runCount, second.runCount) == (1, 1, 2))
    holder.state.rows.append(PChild())
    #expect(list.runCount == 2)
  }

  @Test("presenting a presentation child notifies its slot")
  func presentsNilToNonNil() {
    var state = PParent()
    let slot = tracking { use(state.presentation) }
    state.presentation = PChild()
    #expect(state.presentation?.count == 0)
    #expect(slot.value == 1)
  }

  @Test("mutating a presentation child notifies its count reader, not the slot")
  func presentsMutate() {
    var state = PParent(presentation: PChild())
    let slot = tracking { use(state.presentation) }
    let count = tracking { use(state.presentation?.count) }
    state.presentation?.count += 1
    #expect(state.presentation?.count == 1)
    #expect(slot.value == 0)
    #expect(count.value == 1)
  }

  @Test("a copy taken in a mutating method, edited and assigned back, notifies the child's count reader")
  func copy() {
    var state = PParent()
    var childCopy = state.child.copy()
    childCopy.count = 42
    let count = tracking { use(state.child.count) }
    state.child.assign(childCopy)
    #expect(state.child.count == 42)
    #expect(count.value == 1)
  }

  @Test("appending to a plain array of state notifies its slot")
  func arrayAppend() {
    var state = PParent()
    let slot = tracking { use(state.children) }
    state.children.append(PChild())
    #expect(slot.value == 1)
  }

  @Test("mutating a plain array element in place does not notify the array's slot")
  func arrayMutate() {
    var state = PParent(children: [PChild()])
    let slot = tracking { use(state.children) }
    let count = tracking { use(state.children[0].count) }
    state.children[0].count += 1
    #expect(slot.value == 0)
    #expect(count.value == 1)
  }

  @Test("a copy shares the identity; a new value, even equal by ==, does not")
  func identityAfterCopy() {
    let original = PChild(count: 3)
    var copy = original
    copy.count = 4
    #expect(copy.observableStateID == original.observableStateID)
    #expect(isIdentityEqual(original, copy))
    #expect(original.count == 3)  // copy-on-write: the original keeps its value
    let other = PChild(count: 3)
    #expect(other.observableStateID != original.observableStateID)
    #expect(!isIdentityEqual(original, other))
  }

  @Test("a copy of the parent is independent in value, and writes to it reach the original's readers at most once")
  func copyOnWriteOfParent() {
    let holder = PHolder(PParent(child: PChild(count: 1), rows: [PChild(count: 1)]))
    let childCount = Reaction { use(holder.state.child.count) }
    let rowCount = Reaction { use(holder.state.rows[0].count) }
    var copy = holder.state
    copy.child.count = 10
    copy.child.count = 11
    copy.rows[0].count = 10
    copy.rows[0].count = 11
    #expect(holder.state.child.count == 1)
    #expect(holder.state.rows[0].count == 1)
    #expect((childCount.runCount, rowCount.runCount) == (2, 2))  // once per detached copy
    let (childBefore, rowBefore) = (childCount.runCount, rowCount.runCount)
    holder.state = copy
    #expect(childCount.runCount == childBefore + 1)
    #expect(rowCount.runCount == rowBefore + 1)
    #expect(holder.state.child.count == 11)
    #expect(holder.state.rows[0].count == 11)
  }

  @Test("isIdentityEqual for collections of state")
  func identityOfCollections() {
    let a = PChild()
    let b = PChild()
    var mutatedA = a
    mutatedA.count = 9
    #expect(isIdentityEqual([a, b], [mutatedA, b]))
    #expect(!isIdentityEqual([a, b], [b, a]))
    #expect(!isIdentityEqual([a, b], [a]))
    let rows: IdentifiedArrayOf<PChild> = [a, b]
    var inPlace = rows
    inPlace[id: a.id]?.count = 5
    #expect(isIdentityEqual(rows, inPlace))
    var appended = rows
    appended.append(PChild())
    #expect(!isIdentityEqual(rows, appended))
    var replaced = rows
    replaced[0] = PChild(id: a.id)
    #expect(!isIdentityEqual(rows, replaced))
    #expect(isIdentityEqual(PDestination.child1(a), .child1(mutatedA)))
    #expect(!isIdentityEqual(PDestination.child1(a), .child2(a)))
    #expect(!isIdentityEqual(PDestination.inert(0), .inert(1)))
    #expect(isIdentityEqual(Optional(a), Optional(mutatedA)))
    #expect(!isIdentityEqual(Optional(a), nil))
  }
  @Test("a copy mutated while its original is observed: readers run once for the copy, once when it is assigned back")
  func copyMutatedWhileObserved() {
    let holder = PHolder(PParent(children: [PChild(count: 1)], rows: [PChild(count: 1)]))
    let plain = Reaction { use(holder.state.children[0].count) }
    let identified = Reaction { use(holder.state.rows[0].count) }
    let plainSlot = Reaction { use(holder.state.children) }
    let rowsSlot = Reaction { use(holder.state.rows) }
    var plainCopy = holder.state.children[0]
    var rowCopy = holder.state.rows[0]
    plainCopy.count = 2
    rowCopy.count = 2
    #expect((plain.runCount, identified.runCount) == (2, 2))
    plainCopy.count = 3
    rowCopy.count = 3
    #expect((plain.runCount, identified.runCount) == (2, 2))
    #expect((holder.state.children[0].count, holder.state.rows[0].count) == (1, 1))
    holder.state.children[0] = plainCopy
    holder.state.rows[0] = rowCopy
    #expect((plain.runCount, identified.runCount) == (3, 3))
    #expect((plainSlot.runCount, rowsSlot.runCount) == (1, 1))
    #expect((holder.state.children[0].count, holder.state.rows[0].count) == (3, 3))
  }

  @Test("assigning an unmodified copy back notifies nobody")
  func unmodifiedCopyBack() {
    var state = PParent(child: PChild(count: 1), children: [PChild(count: 1)], rows: [PChild(count: 1)])
    let child = state.child
    let element = state.children[0]
    let row = state.rows[0]
    let rows = state.rows
    let fired = tracking {
      use(state.child)
      use(state.child.count)
      use(state.children)
      use(state.children[0].count)
      use(state.rows)
      use(state.rows[0].count)
    }
    state.child = child
    state.children[0] = element
    state.rows[0] = row
    state.rows = rows
    #expect(fired.value == 0)
  }

  @Test("assigning a new child under a @Tracked holder: the reader of a copy of the old child does not run")
  func childResetReaction() {
    let holder = PHolder()
    let child = holder.state.child
    let oldCount = Reaction { use(child.count) }
    let slot = Reaction { use(holder.state.child) }
    let liveCount = Reaction { use(holder.state.child.count) }
    holder.state.child = PChild(count: 42)
    #expect(oldCount.runCount == 1)
    #expect(slot.runCount == 2)
    #expect(liveCount.runCount == 2)
  }

  @Test("mutating a presented optional under a @Tracked holder: count reader once, slot reader never")
  func mutatePresentedOptionalReaction() {
    let holder = PHolder(PParent(optional: PChild()))
    let slot = Reaction { use(holder.state.optional) }
    let count = Reaction { use(holder.state.optional?.count) }
    holder.state.optional?.count += 1
    #expect((slot.runCount, count.runCount) == (1, 2))
    holder.state.optional = nil
    #expect((slot.runCount, count.runCount) == (2, 3))
    holder.state.optional = PChild(count: 5)
    #expect((slot.runCount, count.runCount) == (3, 4))
    #expect(holder.state.optional?.count == 5)
  }

  @Test("mutating a plain array element under a @Tracked holder: element reader once, array reader never")
  func arrayMutateReaction() {
    let holder = PHolder(PParent(children: [PChild(), PChild()]))
    let slot = Reaction { use(holder.state.children) }
    let first = Reaction { use(holder.state.children[0].count) }
    let second = Reaction { use(holder.state.children[1].count) }
    holder.state.children[0].count += 1
    #expect((slot.runCount, first.runCount, second.runCount) == (1, 2, 1))
    holder.state.children.append(PChild())
    #expect(slot.runCount == 2)
  }

  @Test("self = other on a variable nobody owns is not observed (Observant documents it; TCA marks it a known gap)")
  func assignOnUnownedVariable() {
    var state = PChild(count: 42)
    let fired = tracking { use(state.count) }
    transaction { state.assign(PChild()) }
    #expect(state.count == 0)
    #expect(fired.value == 0)
  }

  @Test("a root replaced by a new value under a @Tracked holder re-runs a reader of the root slot once")
  func rootSlotReplaced() {
    let holder = PChildHolder(PChild(count: 1))
    let slot = Reaction { use(holder.state) }
    let count = Reaction { use(holder.state.count) }
    holder.state.count += 1
    #expect((slot.runCount, count.runCount) == (1, 2))
    holder.state = PChild(count: 2)
    #expect((slot.runCount, count.runCount) == (2, 3))
  }
  @Test("removing a row or dismissing an optional does not notify the reader of a detached copy of it")
  func removedCopyReaders() {
    var state = PParent(optional: PChild(count: 1), rows: [PChild(count: 1), PChild(count: 2)])
    let row = state.rows[0]
    let optional = state.optional
    let rowCopy = tracking { use(row.count) }
    let optionalCopy = tracking { use(optional?.count) }
    state.rows.remove(at: 0)
    state.optional = nil
    #expect(rowCopy.value == 0)
    #expect(optionalCopy.value == 0)
  }

  @Test("a removed row's copy reader under a @Tracked holder does not run; the row readers of the slot do")
  func removedRowReaction() {
    let holder = PHolder(PParent(rows: [PChild(count: 1), PChild(count: 2)]))
    let row = holder.state.rows[0]
    let copyReader = Reaction { use(row.count) }
    let byPosition = Reaction { use(holder.state.rows.first?.count) }
    holder.state.rows.remove(at: 0)
    #expect(copyReader.runCount == 1)
    #expect(byPosition.runCount == 2)
  }

  @Test("a dictionary of state: element mutation notifies its field reader only; a new key notifies the slot")
  func dictionaryOfState() {
    let holder = DictHolder()
    holder.state.byKey = ["a": PChild(), "b": PChild()]
    let slot = Reaction { use(holder.state.byKey) }
    let a = Reaction { use(holder.state.byKey["a"]?.count) }
    let b = Reaction { use(holder.state.byKey["b"]?.count) }
    holder.state.byKey["a"]?.count += 1
    #expect((slot.runCount, a.runCount, b.runCount) == (1, 2, 1))
    holder.state.byKey["c"] = PChild()
    #expect(slot.runCount == 2)
  }

  @Test("swapping identified array rows re-runs readers that read the array, not copies of the rows")
  func identifiedArraySwapReaction() {
    let holder = PHolder(PParent(rows: [PChild(count: 1), PChild(count: 2)]))
    let firstID = holder.state.rows[0].id
    let byPosition = Reaction { use(holder.state.rows[0].count) }
    let byID = Reaction { use(holder.state.rows[id: firstID]?.count) }
    holder.state.rows.swapAt(0, 1)
    #expect(byPosition.runCount == 2)
    #expect(byID.runCount == 2)  // it read the array's slot too
    #expect(holder.state.rows[0].count == 2)
    holder.state.rows[id: firstID]?.count += 1
    #expect(byPosition.runCount == 2)
    #expect(byID.runCount == 3)
  }

  @Test(
    "set and set back within a transaction re-runs nothing; a child swapped and swapped back re-runs its slot readers at most once"
  )
  func transactionSetBack() {
    let holder = PHolder(PParent(child: PChild(count: 1), sibling: PChild(count: 2), rows: [PChild(count: 1)]))
    let count = Reaction { use(holder.state.child.count) }
    let row = Reaction { use(holder.state.rows[0].count) }
    transaction {
      holder.state.child.count = 5
      holder.state.child.count = 1
      holder.state.rows[0].count = 7
      holder.state.rows[0].count = 1
    }
    #expect((count.runCount, row.runCount) == (1, 1))
  }

  @Test("a child reset through _modify (self = Self()) notifies the slot, not the reader of a copy of the old child")
  func copyReaderReset() {
    var state = PParent(child: PChild(count: 42))
    let child = state.child
    let oldCount = tracking { use(child.count) }
    let slot = tracking { use(state.child) }
    state.child.reset()
    #expect(slot.value == 1)
    #expect(oldCount.value == 0)
  }

  @Test("a child replaced through _modify (self = other) does not notify the reader of a copy of the old child")
  func copyReaderAssign() {
    var state = PParent(child: PChild(count: 42))
    let child = state.child
    let oldCount = tracking { use(child.count) }
    state.child.assign(PChild(count: 1))
    #expect(oldCount.value == 0)
  }

  @Test("under a @Tracked holder, a child reset through _modify re-runs the slot reader, not the old copy's reader")
  func copyReaderResetHolder() {
    let holder = PHolder(PParent(child: PChild(count: 42)))
    let child = holder.state.child
    let oldCount = Reaction { use(child.count) }
    let slot = Reaction { use(holder.state.child) }
    holder.state.child.reset()
    #expect(slot.runCount == 2)
    #expect(oldCount.runCount == 1)
  }

  @Test("under a @Tracked holder, a root reset does not re-run the reader of a copy of the old root")
  func copyReaderRootReset() {
    let holder = PHolder(PParent(child: PChild(count: 42)))
    let root = holder.state
    let oldChildCount = Reaction { use(root.child.count) }
    holder.state.reset()
    #expect(oldChildCount.runCount == 1)
  }

  @Test(
    "an identified row replaced by a new value with the same id does not notify the reader of a copy of the old row")
  func copyReaderRowReplaced() {
    var state = PParent(rows: [PChild(count: 1)])
    let row = state.rows[0]
    let oldCount = tracking { use(row.count) }
    state.rows[id: row.id] = PChild(id: row.id, count: 5)
    #expect(oldCount.value == 0)
  }

  @Test("an optional child reset through _modify notifies the slot, not the reader of a copy of the old child")
  func copyReaderOptionalReset() {
    var state = PParent(optional: PChild(count: 1))
    let optional = state.optional
    let oldCount = tracking { use(optional?.count) }
    let slot = tracking { use(state.optional) }
    state.optional?.reset()
    #expect(slot.value == 1)
    #expect(oldCount.value == 0)
  }

  @Test("a plain array element renewed in place notifies the array, not the reader of a copy of the old element")
  func copyReaderArrayReset() {
    var state = PParent(children: [PChild(count: 1)])
    let element = state.children[0]
    let oldCount = tracking { use(element.count) }
    let slot = tracking { use(state.children) }
    state.children[0].renew()
    #expect(slot.value == 1)
    #expect(oldCount.value == 0)
  }

  @Test("an identified row renewed in place notifies the array, not the reader of a copy of the old row")
  func copyReaderRowReset() {
    var state = PParent(rows: [PChild(count: 1)])
    let row = state.rows[0]
    let oldCount = tracking { use(row.count) }
    let slot = tracking { use(state.rows) }
    state.rows[0].renew()
    #expect(slot.value == 1)
    #expect(oldCount.value == 0)
  }
}

// swift-format-ignore
private struct PDictParent: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _byKey = StateField<[String: PChild]>([:])
  var byKey: [String: PChild] {
    get { registrar.read(_byKey) } set { registrar.write(&_byKey, newValue) }
    _modify { yield &self[tracking: \._byKey] }
  }
  init() {}
}

private final class DictHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state = PDictParent()
}
