@testable import ObservantCollections
import Observant
import Testing

@Suite("Observable value types")
struct ValueTypeTests {
  @Test("mutating state.child.count notifies readers of child.count, not readers of child")
  func childFieldMutation() {
    var parent = Parent()
    let (countReaders, _) = observe { _ = parent.child.count }
    let (slotReaders, _) = observe { _ = readSlot(parent, \.child) }
    parent.child.count += 1
    #expect(countReaders.value == 1)
    #expect(slotReaders.value == 0)
  }

  @Test("assigning a new child notifies the slot, not readers of the old child's fields")
  func newChildNotifiesSlot() {
    var parent = Parent()
    let oldChild = parent.child
    let (oldFieldReaders, _) = observe { _ = oldChild.count }
    let (slotReaders, _) = observe { _ = readSlot(parent, \.child) }
    parent.child = Child(count: 5)
    #expect(slotReaders.value == 1)
    #expect(oldFieldReaders.value == 0)
  }

  @Test("replacing a child in place (self = Self()) notifies the slot")
  func inPlaceReplacementNotifiesSlot() {
    var parent = Parent()
    let (slotReaders, _) = observe { _ = readSlot(parent, \.child) }
    parent.child.reset()
    #expect(slotReaders.value == 1)
  }

  @Test("assigning a copy of a sibling notifies the slot")
  func siblingCopyNotifiesSlot() {
    var parent = Parent()
    let (slotReaders, _) = observe { _ = readSlot(parent, \.child) }
    parent.child = parent.sibling
    #expect(slotReaders.value == 1)
  }

  @Test("swapping siblings notifies both slots")
  func swappingSiblings() {
    var parent = Parent()
    let (childReaders, _) = observe { _ = readSlot(parent, \.child) }
    let (siblingReaders, _) = observe { _ = readSlot(parent, \.sibling) }
    let child = parent.child
    parent.child = parent.sibling
    parent.sibling = child
    #expect(childReaders.value == 1)
    #expect(siblingReaders.value == 1)
  }

  @Test("an optional child going nil -> value -> nil notifies the slot; mutation through ?. does not")
  func optionalChild() {
    var parent = Parent()
    let (presented, _) = observe { _ = readSlot(parent, \.optional) }
    parent.optional = Child()
    #expect(presented.value == 1)

    let (slotReaders, _) = observe { _ = readSlot(parent, \.optional) }
    let (countReaders, _) = observe { _ = parent.optional?.count }
    parent.optional?.count += 1
    #expect(slotReaders.value == 0)
    #expect(countReaders.value == 1)

    parent.optional = nil
    #expect(slotReaders.value == 1)
  }

  @Test("identified array append, remove and move notify the slot")
  func identifiedArrayStructure() {
    var parent = Parent()
    parent.rows = [Row(id: 1), Row(id: 2)]

    let (appended, _) = observe { _ = readSlot(parent, \.rows) }
    parent.rows.append(Row(id: 3))
    #expect(appended.value == 1)

    let (moved, _) = observe { _ = readSlot(parent, \.rows) }
    parent.rows.move(fromOffsets: [0], toOffset: 3)
    #expect(moved.value == 1)

    let (removed, _) = observe { _ = readSlot(parent, \.rows) }
    parent.rows.remove(id: 2)
    #expect(removed.value == 1)
    #expect(parent.rows.ids.elements == [3, 1])
  }

  @Test("identified array element field mutation does not notify the slot, only the element's readers")
  func identifiedArrayElementMutation() {
    var parent = Parent()
    parent.rows = [Row(id: 1), Row(id: 2)]
    let (slotReaders, _) = observe { _ = readSlot(parent, \.rows) }
    let (rowOneReaders, _) = observe { _ = parent.rows[id: 1]?.count }
    let (rowTwoReaders, _) = observe { _ = parent.rows[id: 2]?.count }
    parent.rows[id: 2]?.count += 1
    parent.rows[1].count += 1
    #expect(slotReaders.value == 0)
    #expect(rowOneReaders.value == 0)
    #expect(rowTwoReaders.value == 1)
  }

  @Test("element mutation through an observed slot keeps the array's storage (no copy-on-write)")
  func elementMutationInPlace() {
    var parent = Parent()
    parent.rows = [Row(id: 1), Row(id: 2)]
    parent.plainRows = [PlainRow(id: 1), PlainRow(id: 2)]
    observe {
      _ = parent.rows; _ = parent.plainRows
    }
    let rowsStorage = withoutTracking { parent.rows._elementStorageIdentity }
    let plainStorage = withoutTracking { parent.plainRows._elementStorageIdentity }
    parent.rows[id: 2]?.count += 1
    parent.plainRows[id: 2]?.count += 1
    #expect(withoutTracking { parent.rows._elementStorageIdentity } == rowsStorage)
    #expect(withoutTracking { parent.plainRows._elementStorageIdentity } == plainStorage)
  }

  @Test("copy-mutate-assign of an element notifies readers of that element's count")
  func copyMutateAssign() {
    var parent = Parent()
    parent.rows = [Row(id: 1), Row(id: 2)]
    let (countReaders, _) = observe { _ = parent.rows[id: 1]?.count }
    let (slotReaders, _) = observe { _ = readSlot(parent, \.rows) }
    var row = parent.rows[id: 1]!
    row.count += 1
    parent.rows[id: 1] = row
    #expect(countReaders.value == 1)
    #expect(slotReaders.value == 0)  // same element identity: not a structural change
  }

  @Test("replacing an element by a new value with the same id notifies the slot")
  func elementReplacementIsStructural() {
    var parent = Parent()
    parent.rows = [Row(id: 1), Row(id: 2)]
    let (slotReaders, _) = observe { _ = readSlot(parent, \.rows) }
    parent.rows[id: 1] = Row(id: 1, count: 9)
    #expect(slotReaders.value == 1)
  }

  @Test("an identified array of plain structs notifies its slot when an element changes")
  func plainElementsNotifySlot() {
    var parent = Parent()
    parent.plainRows = [PlainRow(id: 1), PlainRow(id: 2)]
    let (inPlace, _) = observe { _ = readSlot(parent, \.plainRows) }
    parent.plainRows[id: 1]?.count += 1
    #expect(inPlace.value == 1)

    let (assigned, _) = observe { _ = readSlot(parent, \.plainRows) }
    var rows = parent.plainRows
    rows[id: 2]?.count = 7
    parent.plainRows = rows
    #expect(assigned.value == 1)

    let (unchanged, _) = observe { _ = readSlot(parent, \.plainRows) }
    parent.plainRows = IdentifiedArray(uniqueElements: parent.plainRows.elements)
    #expect(unchanged.value == 0)  // equal by ==, a different array value
  }

  @Test("root replacement (self = Self() in a mutating method) notifies readers of its fields through the slot")
  func rootReplacement() {
    let holder = Holder()
    let (titleReaders, _) = observe { _ = holder.state.title }
    let (childCountReaders, _) = observe { _ = holder.state.child.count }
    holder.state.reset()
    #expect(titleReaders.value == 1)
    #expect(childCountReaders.value == 1)
  }

  @Test("equal writes are silent for value-type fields, also through _modify")
  func equalValueWrites() {
    var parent = Parent()
    parent.score = 3
    let (changes, _) = observe {
      _ = parent.title
      _ = parent.score
      _ = parent.child.count
    }
    parent.title = "Parent"
    parent.score += 0
    parent.child.count = 0
    #expect(changes.value == 0)
    parent.score += 1
    #expect(changes.value == 1)
  }

  @Test("copies share the registrar: a write through a copy notifies readers of the original")
  func copiesShareRegistrar() {
    let child = Child()
    var copy = child
    let (changes, _) = observe { _ = child.count }
    copy.count = 3
    #expect(changes.value == 1)
    #expect(copy.observableStateID == child.observableStateID)
    #expect(Child().observableStateID != child.observableStateID)
  }

  @Test("in-place mutation of a plain array field notifies before the mutation")
  func plainArrayAnnounces() {
    var parent = Parent()
    parent.numbers = [1]
    let (changes, _) = observe { _ = parent.numbers }
    parent.numbers.append(2)
    #expect(changes.value == 1)
  }
}

/// Reads only the slot (not the child's fields): `read` records the slot; the value is discarded.
func readSlot<Root, Value>(_ root: Root, _ keyPath: KeyPath<Root, Value>) -> Value {
  root[keyPath: keyPath]
}
