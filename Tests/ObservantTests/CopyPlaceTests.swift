import Observant
import Testing

/// Two tracked collections on one object, for copies of an element that end up in both.
final class TwoCollections: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var first: IdentifiedArrayOf<AdvItem> = [AdvItem(id: 1)]
  @Tracked var second: IdentifiedArrayOf<AdvItem> = []
  @Tracked var list: [AdvItem] = [AdvItem(id: 1), AdvItem(id: 2)]
  @Tracked var table: [Int: AdvItem] = [1: AdvItem(id: 1)]
}

/// A value changed in one place, copied to another place in the same transaction and set back
/// there: the readers of the first place must see the first place's value. The runtime follows
/// one lineage of each field through the transaction; a write in another place than the
/// lineage's previous write may be a write to another copy, and must not set the field back for
/// the readers of the first.
@Suite("Copies in two places: a set-back on one copy is not a set-back of the other")
struct CopyPlaceTests {
  @Test("an element of a plain array, copied into an identified array and set back there")
  func plainElementIntoIdentifiedArray() {
    let model = AdvModel()
    model.plain = [AdvItem(id: 5)]
    model.items = [AdvItem(id: 5)]
    let reader = AdvView("plain[0].x") { model.plain[0].x }
    transaction {
      model.plain[0].x = 5
      model.items[id: 5] = model.plain[0]
      model.items[id: 5]!.x = 0
    }
    #expect(model.plain[0].x == 5)
    #expect(reader.shown.value == 5)
    #expect(reader.runs == 2)
  }

  @Test("an element of one identified array, copied into another and set back there")
  func identifiedArrayIntoIdentifiedArray() {
    let model = TwoCollections()
    let reader = AdvView("first[1].x") { model.first[id: 1]!.x }
    transaction {
      model.first[id: 1]!.x = 5
      model.second = [model.first[id: 1]!]
      model.second[id: 1]!.x = 0
    }
    #expect(model.first[id: 1]!.x == 5)
    #expect(reader.shown.value == 5)
    #expect(reader.runs == 2)
  }

  @Test("a state nested in an element, copied with the element into another identified array and set back there")
  func nestedStateIntoIdentifiedArray() {
    let model = TwoCollections()
    let reader = AdvView("first[1].inner.z") { model.first[id: 1]!.inner.z }
    transaction {
      model.first[id: 1]!.inner.z = 5
      model.second = [model.first[id: 1]!]
      model.second[id: 1]!.inner.z = 0
    }
    #expect(model.first[id: 1]!.inner.z == 5)
    #expect(reader.shown.value == 5)
    #expect(reader.runs == 2)
  }

  @Test("an element copied into another identified array, then that copy restored from a snapshot")
  func copyRestoredFromSnapshotElsewhere() {
    let model = TwoCollections()
    let saved = model.first[id: 1]!
    let reader = AdvView("first[1].x") { model.first[id: 1]!.x }
    transaction {
      model.first[id: 1]!.x = 5
      model.second = [model.first[id: 1]!]
      model.second[id: 1] = saved
    }
    #expect(model.first[id: 1]!.x == 5)
    #expect(reader.shown.value == 5)
    #expect(reader.runs == 2)
  }

  @Test("an element of a plain array copied into its sibling slot and set back there")
  func siblingSlotsOfOneArray() {
    let model = TwoCollections()
    let reader = AdvView("list[0].x") { model.list[0].x }
    let nested = AdvView("list[0].inner.z") { model.list[0].inner.z }
    transaction {
      model.list[0].x = 5
      model.list[0].inner.z = 5
      model.list[1] = model.list[0]
      model.list[1].x = 0
      model.list[1].inner.z = 0
    }
    #expect(reader.shown.value == 5 && nested.shown.value == 5)
  }

  @Test("a dictionary value copied under another key and set back there")
  func dictionaryValueUnderAnotherKey() {
    let model = TwoCollections()
    let reader = AdvView("table[1].x") { model.table[1]!.x }
    transaction {
      model.table[1]!.x = 5
      model.table[2] = model.table[1]
      model.table[2]!.x = 0
    }
    #expect(model.table[1]!.x == 5)
    #expect(reader.shown.value == 5)
  }

  @Test("an element copied into a class's state property and set back there")
  func elementIntoProperty() {
    let model = AdvModel()
    model.items = [AdvItem(id: 1)]
    let reader = AdvView("items[1].x") { model.items[id: 1]!.x }
    transaction {
      model.items[id: 1]!.x = 5
      model.slot = model.items[id: 1]!
      model.slot.x = 0
    }
    #expect(model.items[id: 1]!.x == 5)
    #expect(reader.shown.value == 5)
    #expect(reader.runs == 2)
  }

  // The set-backs that stay silent: the same place, reached again.

  @Test("an element set and set back in the same place, by id and by position: no re-run")
  func samePlaceSetBack() {
    let model = TwoCollections()
    let byID = AdvView("first[1].x") { model.first[id: 1]!.x }
    let nested = AdvView("first[1].inner.z") { model.first[id: 1]!.inner.z }
    transaction {
      model.first[id: 1]!.x = 5
      model.first[id: 1]!.inner.z = 5
      model.first[0].x = 0
      model.first[id: 1]!.inner.z = 0
    }
    #expect(byID.runs == 1 && nested.runs == 1)
  }

  @Test("an element changed, then the whole collection restored from a snapshot taken before: no re-run")
  func collectionRestoredBySnapshot() {
    let model = AdvModel()
    model.slot = AdvItem(id: 0)
    let saved = model.slot
    let reader = AdvView("slot.x") { model.slot.x }
    let nested = AdvView("slot.inner.z") { model.slot.inner.z }
    transaction {
      model.slot.x = 5
      model.slot.inner.z = 5
      model.slot = saved
    }
    #expect(reader.runs == 1 && nested.runs == 1)
  }
}
