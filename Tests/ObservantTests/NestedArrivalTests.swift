import Observant
import Testing

/// A reader that reads only a state nested in an element (it reaches the element with tracking
/// suspended, as a store scoped from a row store to the row's child does), while an older copy of
/// the element comes back: where the element arrives, its nested state's readers must be told,
/// even though nobody reads the element's own fields.
@Suite("An older copy coming back: readers of a nested state only")
struct NestedArrivalTests {
  /// Reads `inner.z` of the element with identity `id`, navigating without tracking.
  private func innerReader(_ name: String, _ inner: @escaping () -> AdvInner?) -> AdvView {
    AdvView(name) { withoutTracking { inner() }?.z ?? -1 }
  }

  @Test("identified array: the element removed and an older copy appended")
  func identifiedArrayRemoveAndAppendOlderCopy() {
    let model = AdvModel()
    model.items = [AdvItem(id: 1), AdvItem(id: 2)]
    let saved = model.items[id: 1]!
    let reader = innerReader("items[1].inner.z") { model.items[id: 1]?.inner }
    model.items[id: 1]!.inner.z = 2
    #expect(reader.shown.value == 2)
    transaction {
      model.items.remove(id: 1)
      model.items.append(saved)
    }
    #expect(model.items[id: 1]!.inner.z == 0)
    #expect(reader.shown.value == 0)
    #expect(reader.runs == 3)
  }

  @Test("identified array: the element removed, then an older copy inserted (two transactions)")
  func identifiedArrayRemoveThenInsert() {
    let model = AdvModel()
    model.items = [AdvItem(id: 1)]
    let saved = model.items[id: 1]!
    let reader = innerReader("items[1].inner.z") { model.items[id: 1]?.inner }
    model.items[id: 1]!.inner.z = 2
    model.items.remove(id: 1)
    #expect(reader.shown.value == 2)  // nobody told it: it read the field, not the array
    model.items.insert(saved, at: 0)
    #expect(reader.shown.value == 0)
  }

  @Test("identified array: the element replaced by a new value of its identity, then by an older copy")
  func identifiedArrayFreshThenOlderCopy() {
    let model = AdvModel()
    model.items = [AdvItem(id: 1)]
    let saved = model.items[id: 1]!
    let reader = innerReader("items[1].inner.z") { model.items[id: 1]?.inner }
    model.items[id: 1]!.inner.z = 2
    transaction {
      model.items[id: 1] = AdvItem(id: 1)
      model.items[id: 1] = saved
    }
    #expect(reader.shown.value == 0)
  }

  @Test("identified array: the whole array restored from a snapshot taken before the change, after a removal")
  func identifiedArrayRestoredAfterRemoval() {
    let model = AdvModel()
    model.items = [AdvItem(id: 1), AdvItem(id: 2)]
    let snapshot = model.items
    let reader = innerReader("items[1].inner.z") { model.items[id: 1]?.inner }
    model.items[id: 1]!.inner.z = 2
    transaction {
      model.items.remove(id: 1)
      model.items = snapshot
    }
    #expect(reader.shown.value == 0)
  }

  @Test("a state slot: the state replaced by another and then by an older copy of itself")
  func slotReplacedThenOlderCopy() {
    let model = AdvModel()
    let saved = model.slot
    let reader = innerReader("slot.inner.z") { model.slot.inner }
    model.slot.inner.z = 2
    transaction {
      model.slot = model.other
      model.slot = saved
    }
    #expect(model.slot.inner.z == 0)
    #expect(reader.shown.value == 0)
  }

  @Test("an optional slot: the state removed and an older copy put back")
  func optionalRemovedThenOlderCopy() {
    let model = AdvModel()
    model.maybe = AdvItem(id: 7)
    let saved = model.maybe!
    let reader = innerReader("maybe.inner.z") { model.maybe?.inner }
    model.maybe!.inner.z = 2
    transaction {
      model.maybe = nil
      model.maybe = saved
    }
    #expect(reader.shown.value == 0)
  }

  @Test("a plain array: the element removed and an older copy appended")
  func plainArrayRemoveAndAppend() {
    let model = AdvModel()
    model.plain = [AdvItem(id: 1), AdvItem(id: 2)]
    let saved = model.plain[0]
    let reader = innerReader("plain[id 1].inner.z") { model.plain.first { $0.id == 1 }?.inner }
    model.plain[0].inner.z = 2
    transaction {
      model.plain.removeFirst()
      model.plain.append(saved)
    }
    #expect(reader.shown.value == 0)
  }

  @Test("a dictionary: the value removed and an older copy stored again")
  func dictionaryRemoveAndStore() {
    let model = TwoCollections()
    let saved = model.table[1]!
    let reader = innerReader("table[1].inner.z") { model.table[1]?.inner }
    model.table[1]!.inner.z = 2
    transaction {
      model.table[1] = nil
      model.table[1] = saved
    }
    #expect(reader.shown.value == 0)
  }

  @Test("two levels: a state nested two deep, its element removed and an older copy appended")
  func twoLevels() {
    let model = NestedArrivalModel()
    let saved = model.groups[id: 1]!
    let reader = AdvView("groups[1].items[1].inner.z") {
      withoutTracking { model.groups[id: 1]?.items[id: 1]?.inner }?.z ?? -1
    }
    model.groups[id: 1]!.items[id: 1]!.inner.z = 2
    #expect(reader.shown.value == 2)
    transaction {
      model.groups.remove(id: 1)
      model.groups.append(saved)
    }
    #expect(reader.shown.value == 0)
  }
}

final class NestedArrivalModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var groups: IdentifiedArrayOf<NestedArrivalGroup> = [NestedArrivalGroup(id: 1)]
}

// swift-format-ignore
struct NestedArrivalGroup: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _items = StateField<IdentifiedArrayOf<AdvItem>>([AdvItem(id: 1)])
  var items: IdentifiedArrayOf<AdvItem> {
    get { registrar.read(_items) } set { registrar.write(&_items, newValue) }
    _modify { yield &self[tracking: \._items] }
  }
  init(id: Int) { self.id = id }
}
