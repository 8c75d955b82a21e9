import Testing

@testable import Observant

// The internal invariant checks (`_checkInvariants()`), called directly: with the package's
// internal checks on (`-D OBSERVANT_INTERNAL_CHECKS`), the structures call them after every
// mutation; here they run in every build, on structures driven through their states (few and many
// entries, indexed and scanned, re-runs, cancellation, an owner gone).

/// Fields of the runtime's own kind, on one registrar: as many as a test wants.
private func fields(_ count: Int) -> [InternalField] {
  (0..<count).map { InternalField($0, name: "field\($0)", owner: InvariantTests.self) }
}

@Suite("Internal invariants")
struct InvariantTests {
  @Test("a write's loads through the shims read the registrar's state word: no table, table without and with observers")
  func stateWordAddress() {
    // Writes load `state` at `_stateAddress` (see `OBSERVANT_PURE`): if that were not where the
    // word is, a write would miss its observers.
    let profile = Profile()
    let registrar = profile.trackingRegistrar
    func word() -> UInt { registrar._stateAddress.load(as: UInt.self) }
    #expect(word() == 0 && registrar.state.load(ordering: .relaxed) == 0)
    let observation = withCancellableTracking {
      _ = profile.count
    } onChange: {
    }.1
    #expect(word() == registrar.state.load(ordering: .relaxed))
    #expect(word() & 1 == 1 && registrar.hasObservers && registrar._writeTicket != 0)
    observation.cancel()
    #expect(word() == registrar.state.load(ordering: .relaxed))
    #expect(word() != 0 && word() & 1 == 0 && !registrar.hasObservers && registrar._writeTicket == 0)
  }

  @Test(
    "the observer table's first field (kept inline) and its others: observers link, unlink and relink in any order, each write reaches exactly its field's readers"
  )
  func observerTableFirstSlot() throws {
    let registrar = TrackingRegistrar()
    let three = fields(3)
    let fired = [Counter(), Counter(), Counter()]
    func observe(_ index: Int) -> TrackingObservation {
      withCancellableTracking {
        registrar.access(three[index])
      } onChange: {
        fired[index].increment()
      }.1
    }
    // The first field read becomes the inline slot; its list empties and fills again.
    let first = observe(0)
    let table = try #require(registrar.existingTable)
    first.cancel()
    table._checkInvariants()
    #expect(table.count == 0 && !registrar.hasObservers)
    var observations = [observe(0), observe(0), observe(1), observe(2), observe(1)]
    table._checkInvariants()
    #expect(table.count == 5 && registrar.hasObservers)
    // Unlinked from the middle, the head and the tail of each list.
    observations[1].cancel()
    observations[2].cancel()
    table._checkInvariants()
    #expect(table.count == 3)
    registrar.notifyChange(of: three[0])
    registrar.notifyChange(of: three[1])
    registrar.notifyChange(of: three[2])
    #expect(fired.map(\.value) == [1, 1, 1])
    table._checkInvariants()
    #expect(table.count == 0 && !registrar.hasObservers)
    observations.removeAll()
  }

  @Test("a derived value's registrar has the computed table, which forgets the value once it is released")
  func computedTable() throws {
    let profile = Profile()
    var derived: Derived<Int>? = Derived { profile.count * 2 }
    let reader = Reaction { _ = derived?.value }
    let table = try #require(derived!.core.registrar.existingTable)
    #expect(table is ComputedObserverTable)
    #expect(table.computedSource != nil)
    #expect(profile.trackingRegistrar.existingTable!.computedSource == nil)
    reader.cancel()
    derived = nil
    #expect(table.computedSource == nil)
  }

  @Test("the observer table holds its invariants as observers link, unlink, alias and its owner goes away")
  func observerTable() throws {
    var registrar: TrackingRegistrar? = TrackingRegistrar()
    let many = fields(20)  // more slots than a scan covers: the slot index is built
    var observations: [TrackingObservation] = []
    for field in many {
      let (_, observation) = withCancellableTracking {
        registrar!.access(field)
      } onChange: {
      }
      observations.append(observation)
      registrar!.existingTable!._checkInvariants()
    }
    let table = try #require(registrar!.existingTable)
    #expect(table.count == 20)
    for observation in observations.prefix(10) {
      observation.cancel()
      table._checkInvariants()
    }
    #expect(table.count == 10)

    // Aliasing: readers of a value-type field's state follow an equal state under another stamp.
    var child = Child(count: 1)
    let reader = Reaction { _ = child.count }
    let childTable = try #require(child.registrar.tracking.existingTable)
    let old = child._fieldStamps[0]
    _ = childTable.alias(old, as: Stamp.next())
    childTable._checkInvariants()
    withExtendedLifetime(reader) {}
    reader.cancel()
    childTable._checkInvariants()
    child.count = 2

    // The owner goes away: the table (kept by the observers' dependencies) is dead and empty.
    registrar = nil
    table._checkInvariants()
    #expect(table.isDead)
    #expect(table.count == 0)
    observations.removeAll()
  }

  @Test(
    "an object's first observed field, once nobody observes it, leaves its place to the next new field: every field's observers hear its writes and no other's"
  )
  func firstSlotTakenByANewField() throws {
    let profile = Profile()
    final class Fired: @unchecked Sendable { var names: [String] = [] }
    let fired = Fired()
    func observe(_ name: String, _ read: @escaping () -> Void) -> TrackingObservation {
      withCancellableTracking {
        read()
      } onChange: {
        fired.names.append(name)
      }.observation
    }
    let countA = observe("count A") { _ = profile.count }  // the table's first slot
    let other = observe("other") { _ = profile.other }  // a second slot
    let table = try #require(profile.trackingRegistrar.existingTable)
    table._checkInvariants()
    countA.cancel()  // the first slot's list is empty now
    table._checkInvariants()
    let first = observe("first") { _ = profile.first }  // takes the first slot
    table._checkInvariants()
    let countB = observe("count B") { _ = profile.count }  // count again: a slot after the others
    table._checkInvariants()
    #expect(table.count == 3)

    profile.count = 1
    #expect(fired.names == ["count B"])
    profile.other = 1
    #expect(fired.names == ["count B", "other"])
    profile.first = "Grace"
    #expect(fired.names == ["count B", "other", "first"])
    #expect([countB, other, first].allSatisfy { !$0.isActive })
    #expect(table.count == 0)
    table._checkInvariants()
  }

  @Test("the recorder and its index hold their invariants through reads, re-runs, a reset and a removal")
  func recorder() {
    let registrar = TrackingRegistrar()
    let many = fields(40)  // more dependencies than a scan covers: the index is built
    let recorder = Recorder()
    withRecorder(recorder, propagating: false) {
      for field in many { registrar.access(field) }
      for field in many.reversed() { registrar.access(field) }  // repeated reads, found in the index
    }
    recorder._checkInvariants()
    #expect(recorder.cursor == 40)

    // A re-run that reads half of what it read: the rest is stale at its end.
    recorder.beginRun()
    recorder._checkInvariants()
    withRecorder(recorder, propagating: false) {
      for field in many.enumerated().filter({ $0.offset.isMultiple(of: 2) }).map(\.element) {
        registrar.access(field)
        recorder._checkInvariants()
      }
    }
    let stale = recorder.endRun()
    #expect(stale.count == 20)
    recorder._checkInvariants()

    // Back below the scan limit: the index is dropped.
    recorder.beginRun()
    withRecorder(recorder, propagating: false) {
      for field in many.prefix(4) { registrar.access(field) }
    }
    _ = recorder.endRun()
    recorder._checkInvariants()

    // Guarded reads, and a nested scope merged into this one.
    let `guard` = TrackingGuard()
    recorder.beginRun()
    withRecorder(recorder, propagating: false) {
      withTrackingGuard(`guard`) { registrar.access(many[30]) }
      _ = recordAccesses(propagatingToOuterScope: true) {
        for field in many.suffix(20) { registrar.access(field) }
      }
    }
    recorder._checkInvariants()
    _ = recorder.endRun()
    recorder._checkInvariants()

    recorder.reset()
    recorder._checkInvariants()
    #expect(recorder.isEmpty)
    _ = recorder.removeAll()
    recorder._checkInvariants()
  }

  @Test("a linked recorder keeps its invariants while its reaction re-runs with other dependencies")
  func reactionRecorder() {
    let profile = Profile()
    let registrar = TrackingRegistrar()
    let many = fields(30)
    var wide = true
    let reaction = Reaction {
      _ = profile.count
      for field in wide ? many : Array(many.prefix(3)) { registrar.access(field) }
    }
    reaction.core._checkInvariants()
    wide = false
    profile.count += 1
    reaction.core._checkInvariants()
    wide = true
    profile.count += 1
    reaction.core._checkInvariants()
    #expect(reaction.runCount == 3)
    registrar.existingTable?._checkInvariants()
    profile.trackingRegistrar.existingTable?._checkInvariants()
  }

  @Test("the transaction context and its write records hold their invariants as a transaction grows, and after it")
  func transactionContext() {
    let registrar = TrackingRegistrar()
    let many = fields(20)  // more records than a scan covers: the record index is built
    let reactions = many.map { field in Reaction { registrar.access(field) } }
    let context = TransactionContext.current
    context._checkInvariants()
    transaction {
      for field in many {
        registrar.notifyChange(of: field)
        context._checkInvariants()
      }
      #expect(context.writes.count == 20)
      // Written again: the same records.
      for field in many.prefix(5) { registrar.notifyChange(of: field) }
      #expect(context.writes.count == 20)
      context._checkInvariants()
    }
    context._checkInvariants()
    #expect(context.writes.isEmpty)
    #expect(reactions.allSatisfy { $0.runCount == 2 })

    // Value-type writes, set back within the transaction: records that follow stamps.
    var state = Child()
    let reader = Reaction { _ = state.count }
    transaction {
      state.count = 1
      context._checkInvariants()
      state.count = 0
      context._checkInvariants()
    }
    #expect(reader.runCount == 1)
    withExtendedLifetime(reactions) {}
  }

  @Test("write records keep their index and their observers' positions")
  func writeRecords() {
    let registrars = (0..<12).map { _ in TrackingRegistrar() }
    let observer = ScheduledObserver()
    var writes = WriteRecords()
    var stamps: [UInt64] = []
    for registrar in registrars {
      let seen = Stamp.next()
      let new = writes.record(
        table: registrar.table, key: .unresolved, name: .custom("field", owner: "Test"), from: seen,
        to: Stamp.next(), isLive: true, revertible: true, canRestoreStamp: true, slot: nil, place: 0, isOnlyCopy: false,
        values: { nil },
        observers: CollectionOfOne(observer))
      stamps.append(new)
      writes._checkInvariants()
    }
    // Each lineage written again, from the state the first write left.
    for (registrar, stamp) in zip(registrars, stamps) {
      _ = writes.record(
        table: registrar.table, key: .unresolved, name: .custom("field", owner: "Test"), from: stamp,
        to: Stamp.next(), isLive: true, revertible: true, canRestoreStamp: true, slot: nil, place: 0, isOnlyCopy: false,
        values: { nil },
        observers: CollectionOfOne(observer))
      writes._checkInvariants()
    }
    #expect(writes.count == 12)
    var dirty: [DirtyObserver] = []
    writes.takeDirtyObservers(into: &dirty)
    writes._checkInvariants()
    #expect(writes.isEmpty)
    #expect(dirty.count == 24)
  }

  @Test("the observer queue stays in creation order, each observer once")
  func observerQueue() {
    let observers = (0..<300).map { _ in ScheduledObserver() }
    var queue = ObserverQueue(storage: [])
    // Appended out of order and repeated, then sorted.
    for index in [5, 3, 9, 3, 7, 1, 9] {
      queue.unsorted.append(DirtyObserver(observer: observers[index], order: RunOrder.next()))
    }
    queue.sort()
    queue._checkInvariants()
    #expect(queue.observers.count == 5)
    // Inserted one by one (past the length checked in full after each insertion).
    for index in (0..<300).shuffled() {
      queue.insert(DirtyObserver(observer: observers[index], order: RunOrder.next()))
    }
    queue._checkInvariants()
    var popped: [UInt64] = []
    while let entry = queue.popFirst() {
      popped.append(entry.observer.sequence)
      queue._checkInvariants()
    }
    #expect(popped == observers.map(\.sequence))
  }

  @Test(
    "the observer queue's sort: entries already in order (repeats side by side) and the same entries shuffled end the same",
    arguments: [false, true])
  func observerQueueSort(shuffled: Bool) {
    // More entries than the standard sort handles without a scratch buffer (in order, the queue
    // skips it), each observer once or twice.
    let observers = (0..<100).map { _ in ScheduledObserver() }
    var entries: [DirtyObserver] = []
    for (index, observer) in observers.enumerated().reversed() {
      entries.append(DirtyObserver(observer: observer, order: RunOrder.next()))
      if index % 3 == 0 { entries.append(DirtyObserver(observer: observer, order: RunOrder.next())) }
    }
    var queue = ObserverQueue(storage: [])
    queue.unsorted.append(contentsOf: shuffled ? entries.shuffled() : entries)
    queue.sort()
    queue._checkInvariants()
    var popped: [UInt64] = []
    while let entry = queue.popFirst() { popped.append(entry.observer.sequence) }
    #expect(popped == observers.map(\.sequence))
  }

  @Test("a broken invariant stops the process")
  func brokenInvariantStops() async {
    await #expect(processExitsWith: .failure) {
      let observers = (0..<3).map { _ in ScheduledObserver() }
      var queue = ObserverQueue(storage: [])
      for observer in observers { queue.unsorted.append(DirtyObserver(observer: observer, order: 1)) }
      queue._checkInvariants()  // ascending: not sorted yet
    }
  }
}

@Suite("Write records: two lineages of one field that end in the same state")
struct ConvergingLineageTests {
  @Test(
    "a copy written from an older state, then assigned the state another copy's lineage reached: the records stay indexed, no reader is stale"
  )
  func convergingLineages() {
    let model = TwoCollections()
    model.first = IdentifiedArray(uniqueElements: (1...10).map { AdvItem(id: $0) })
    model.second = [model.first[id: 1]!]
    let first = AdvView("first[1].x") { model.first[id: 1]!.x }
    let second = AdvView("second[1].x") { model.second[id: 1]!.x }
    transaction {
      // Enough records for the index.
      for id in 2...10 { model.first[id: id]!.x = 1 }
      model.first[id: 1]!.x = 5
      let copy = model.first[id: 1]!
      model.second[id: 1]!.x = 7
      // The second lineage now ends in the state the first one reached.
      model.second = [copy]
      TransactionContext.current._checkInvariants()
      model.first[id: 1]!.x = 0
      TransactionContext.current._checkInvariants()
    }
    #expect(model.first[id: 1]!.x == 0 && model.second[id: 1]!.x == 5)
    #expect(first.shown.value == 0)
    #expect(second.shown.value == 5)
  }
}
