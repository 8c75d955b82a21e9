import Observant
import ObservantObservationBridge
import ObservantTestSupport
import Observation
import Synchronization
import Testing

// Derived values and TrackedValues read outside stores, under copies of value-type state.

@MainActor
@Suite("BH derived values over copies")
struct BHDerivedCopyTests {
  @Test func detachedCopyWriteIsCutOffForTheDerivedValuesReaders() {
    let model = BHModel()
    let row1 = Derived("row1") { model.state.rows[id: 1]?.count ?? -1 }
    var shown: [Int] = []
    let reader = Reaction("Reader") { shown.append(row1.value) }
    model.state.draft = model.state.rows[id: 1]
    model.state.draft?.count = 5  // a write to a copy: the derived value may recompute, but equal
    model.state.draft?.count = 6
    #expect(reader.runCount == 1)
    model.state.rows[id: 1] = model.state.draft!
    #expect(shown == [0, 6])
    model.state.draft = nil
    #expect(shown == [0, 6])
    _ = reader
  }

  @Test func undoSnapshotRestoredReachesDerivedReaders() {
    let model = BHModel()
    let sum = Derived("sum") { model.state.rows.reduce(0) { $0 + $1.count + $1.child.value } }
    let leaf = Derived("leaf") { model.state.nested.leaf.value }
    var shown: [[Int]] = []
    let reader = Reaction("Reader") { shown.append([sum.value, leaf.value]) }
    let saved = model.state
    model.state.rows[id: 1]?.count = 2
    model.state.rows[id: 2]?.child.value = 3
    model.state.nested.leaf.value = 4
    model.state.rows.remove(id: 3)
    model.state = saved
    #expect(shown.last == [0, 0])
    #expect(shown == [[0, 0], [2, 0], [5, 0], [5, 4], [0, 0]])  // removing row 3 (0) leaves the sum: cut off
    _ = reader
  }

  @Test func rowRemovedAndOlderCopyBackInDerived() {
    let model = BHModel()
    let row1 = Derived("row1") { model.state.rows[id: 1].map { $0.count * 10 + $0.child.value } ?? -1 }
    var shown: [Int] = []
    let reader = Reaction("Reader") { shown.append(row1.value) }
    let old = model.state.rows[id: 1]!
    model.state.rows[id: 1]?.count = 1
    model.state.rows[id: 1]?.child.value = 2
    model.state.rows.remove(id: 1)
    model.state.dict[7] = old
    model.state.dict[7]?.count = 3
    model.state.rows.append(model.state.dict.removeValue(forKey: 7)!)
    #expect(shown == [0, 10, 12, -1, 30])
    _ = reader
  }

  @Test func enumPayloadSwitchedBackInDerived() {
    let model = BHModel()
    let payload = Derived("payload") { model.state.mode.editing?.count ?? -1 }
    var shown: [Int] = []
    let reader = Reaction("Reader") { shown.append(payload.value) }
    model.state.mode = .editing(model.state.rows[id: 2]!)
    guard case .editing(var row) = model.state.mode else { Issue.record("no payload"); return }
    row.count = 4
    model.state.mode = .editing(row)
    let saved = model.state.mode
    row.count = 5
    model.state.mode = .editing(row)
    model.state.mode = .other(1)
    model.state.mode = saved
    #expect(shown == [-1, 0, 4, 5, -1, 4])
    _ = reader
  }

  @Test func setAndSetBackThroughCopiesReRunsNoDerivedReader() {
    let model = BHModel()
    let sum = Derived("sum") { model.state.rows.reduce(0) { $0 + $1.count } + model.state.nested.leaf.value }
    let reader = Reaction("Reader") { _ = sum.value }
    transaction {
      let saved = model.state.rows
      model.state.rows[id: 1]?.count = 5
      #expect(sum.value == 5)  // read midway, outside every scope
      model.state.rows = saved
    }
    transaction {
      let saved = model.state
      model.state.nested.leaf.value = 2
      model.state.rows[id: 2]?.count = 1
      _ = sum.value
      model.state = saved
    }
    transaction {
      let saved = model.state.nested
      model.state.nested.leaf.value = 9
      _ = sum.value
      model.state.nested = saved
    }
    #expect(reader.runCount == 1)
    #expect(sum.value == 0)
  }

  @Test func setAndSetBackWithTheBridgeOnAndAMidwayReadOnce() {
    ObservationBridge.withBridgeForTesting {
      let model = BHModel()
      let sum = Derived("sum") { model.state.rows.reduce(0) { $0 + $1.count } }
      let reader = Reaction("Reader") { _ = sum.value }
      let view = BHAppleView("sum") { sum.value }
      transaction {
        let saved = model.state.rows
        model.state.rows[id: 1]?.count = 5
        _ = sum.value
        model.state.rows = saved
      }
      #expect(reader.runCount == 1)
      #expect(view.fires == 0)
    }
  }

  /// The docs (DerivedValues.md, "Set back"): "a transaction that sets the inputs and sets them
  /// back re-runs no reader, whether the value was read midway or not." With the bridge on (as in
  /// a SwiftUI app), the second such transaction re-ran the reader, and Apple's tracking of a view
  /// that never saw the midway value fired (SwiftUIAndUIKit.md: a view does not re-render "for a
  /// transaction that sets a field and sets it back"): the derived value forgot that its readers
  /// held the value that came back in the first transaction, because the bridge recorded the
  /// midway read after it.
  @Test func twoSetAndSetBackTransactionsWithAMidwayReadAndTheBridgeOn() {
    ObservationBridge.withBridgeForTesting {
      let model = BHModel()
      let flag = Derived("flag") { model.state.flag }
      let reader = Reaction("Reader") { _ = flag.value }
      let view = BHAppleView("flag") { flag.value }
      for round in 1...2 {
        transaction {
          model.state.flag = round
          _ = flag.value  // read midway, outside every scope
          model.state.flag = 0
        }
      }
      #expect(reader.runCount == 1)
      #expect(view.fires == 0)
      #expect(flag.value == 0)
    }
  }

  /// The same without the bridge: passes (the control).
  @Test func twoSetAndSetBackTransactionsWithAMidwayReadAndTheBridgeOff() {
    let model = BHModel()
    let flag = Derived("flag") { model.state.flag }
    let reader = Reaction("Reader") { _ = flag.value }
    for round in 1...2 {
      transaction {
        model.state.flag = round
        _ = flag.value
        model.state.flag = 0
      }
    }
    #expect(reader.runCount == 1)
  }

  @Test func appleScopeThatSawTheMidwayValueIsTold() {
    // "A reader that recorded one of the values in between does re-run: it saw something else."
    ObservationBridge.withBridgeForTesting {
      let model = BHModel()
      let sum = Derived("sum") { model.state.rows.reduce(0) { $0 + $1.count } }
      let steady = BHAppleView("steady") { sum.value }
      var midway: BHAppleView<Int>?
      transaction {
        model.state.rows[id: 1]?.count = 5
        midway = BHAppleView("midway") { sum.value }
        model.state.rows[id: 1]?.count = 0
      }
      #expect(midway?.shown == 5)
      #expect(midway?.fires == 1)
      #expect(steady.fires == 0)
      midway?.settle()
      #expect(midway?.shown == 0)
    }
  }

  @Test func derivedReadThroughTheBridgeFollowsCopies() {
    ObservationBridge.withBridgeForTesting {
      let model = BHModel()
      let row1 = Derived("row1") { model.state.rows[id: 1]?.count ?? -1 }
      let draft = Derived("draft") { model.state.draft?.count ?? -1 }
      let screen = BHScreen()
      let rowView = screen.add("row1") { row1.value }
      let draftView = screen.add("draft") { draft.value }
      model.state.draft = model.state.rows[id: 1]
      #expect(screen.step() == ([], ["draft"]))
      model.state.draft?.count = 4
      #expect(screen.step() == ([], ["draft"]))  // the row's value is equal: cut off
      let saved = model.state
      model.state.rows[id: 1] = model.state.draft!
      model.state.draft = nil
      #expect(screen.step().stale == [])
      #expect(rowView.shown == 4 && draftView.shown == -1)
      model.state = saved
      #expect(screen.step().stale == [])
      #expect(rowView.shown == 0 && draftView.shown == 4)
      #expect(rowView.renders == 3)
    }
  }
}

/// Whether `next()` returns before the caller makes another change: the step is awaited on the
/// main actor, and the caller gives it main-actor turns (no wall clock) to return.
///
/// The step waits as long as the caller takes to make the change it waits for (under a sanitizer,
/// minutes): no time bound while it is pending. `value` bounds the wait from the moment it is
/// asked for (`safetyNetSeconds`, for a sanitizer build on a loaded machine; the step is cancelled then, and
/// shows as timed out).
@MainActor
final class BHPendingNext<Element: Sendable> {
  private let task: Task<Element?, Never>
  private(set) var isDone = false

  init(_ iterator: TrackedValues<Element>.Iterator) {
    var done: (() -> Void)?
    task = Task { @MainActor in
      var iterator = iterator
      let value = await iterator.next()
      done?()
      return value
    }
    done = { [weak self] in self?.isDone = true }
  }

  /// Gives the step main-actor turns to run; true if it returned.
  func returnedAfterTurns(_ turns: Int = 50) async -> Bool {
    for _ in 0..<turns where !isDone { await Task.yield() }
    return isDone
  }

  var value: BoundedNext<Element> {
    get async {
      let task = self.task
      let watchdog = Task { @MainActor in
        try? await Task.sleep(for: .seconds(safetyNetSeconds))
        if !Task.isCancelled { task.cancel() }
      }
      let value = await task.value
      let timedOut = watchdog.isCancelled == false && task.isCancelled
      watchdog.cancel()
      return timedOut ? .timedOut : .returned(value)
    }
  }
}

@MainActor
@Suite("BH TrackedValues over copies")
struct BHTrackedValuesCopyTests {
  @Test func loopFollowsDraftsUndoAndReinsertedCopies() async {
    let model = BHModel()
    let values = TrackedValues { model.state.rows[id: 1].map { $0.count * 10 + $0.child.value } ?? -1 }
    let iterator = values.makeAsyncIterator()
    #expect(await boundedNext(iterator) == .returned(0))

    model.state.draft = model.state.rows[id: 1]
    model.state.draft?.count = 3
    model.state.rows[id: 1] = model.state.draft!
    #expect(await boundedNext(iterator) == .returned(30))

    let saved = model.state
    model.state.rows[id: 1]?.child.value = 2
    #expect(await boundedNext(iterator) == .returned(32))
    model.state = saved
    #expect(await boundedNext(iterator) == .returned(30))

    let old = model.state.rows[id: 1]!
    model.state.rows.remove(id: 1)
    #expect(await boundedNext(iterator) == .returned(-1))
    model.state.rows.insert(old, at: 1)
    #expect(await boundedNext(iterator) == .returned(30))

    model.state.rows[id: 1]?.count = 7
    #expect(await boundedNext(iterator) == .returned(70))
    model.state.rows[id: 1] = old  // an older copy assigned over the row
    #expect(await boundedNext(iterator) == .returned(30))
  }

  @Test func loopFollowsEnumPayloadAndNestedCopies() async {
    let model = BHModel()
    let values = TrackedValues { [model.state.mode.editing?.count ?? -1, model.state.nested.leaf.value] }
    let iterator = values.makeAsyncIterator()
    #expect(await boundedNext(iterator) == .returned([-1, 0]))
    model.state.mode = .editing(BHRow(id: 4, count: 2))
    #expect(await boundedNext(iterator) == .returned([2, 0]))
    let saved = model.state.mode
    let savedNested = model.state.nested
    model.state.mode = .other(0)
    model.state.nested.leaf.value = 6
    #expect(await boundedNext(iterator) == .returned([-1, 6]))
    model.state.mode = saved
    model.state.nested = savedNested
    #expect(await boundedNext(iterator) == .returned([2, 0]))
    var copy = model.state.nested
    copy.leaf.value = 8
    model.state.nested = copy
    #expect(await boundedNext(iterator) == .returned([2, 8]))
  }

  @Test func noValueForChangesThatChangeNothing() async {
    // "an equal write, a field set and set back within the transaction, or a write to another
    // copy's state changes nothing"
    let model = BHModel()
    let values = TrackedValues { model.state.rows[id: 1]?.count ?? -1 }
    let iterator = values.makeAsyncIterator()
    #expect(await boundedNext(iterator) == .returned(0))

    let pending = BHPendingNext(iterator)
    model.state.rows[id: 1]?.count = 0  // equal
    #expect(await pending.returnedAfterTurns() == false)
    transaction {
      model.state.rows[id: 1]?.count = 4
      model.state.rows[id: 1]?.count = 0
    }
    #expect(await pending.returnedAfterTurns() == false)
    transaction {
      let saved = model.state.rows
      model.state.rows[id: 1]?.count = 4
      model.state.rows = saved
    }
    #expect(await pending.returnedAfterTurns() == false)
    transaction {
      let saved = model.state
      model.state.rows[id: 1]?.count = 4
      model.state = saved
    }
    #expect(await pending.returnedAfterTurns() == false)
    model.state.rows[id: 1]?.count = 9
    #expect(await pending.value == .returned(9))
  }

  /// TrackedValues' documentation: a write to a copy of the value makes a value due at most once
  /// per copy (the same value again), as it re-runs a reaction (IdentityRules, "Copies"); later
  /// writes to that copy make nothing due. (The documentation said "a write to another copy's
  /// state changes nothing", which the first write to a copy that still shares the state the loop
  /// read contradicted; the sentence now says what holds.)
  @Test func atMostOneValuePerDraftCopy() async {
    let model = BHModel()
    let values = TrackedValues { model.state.rows[id: 1]?.count ?? -1 }
    let iterator = values.makeAsyncIterator()
    #expect(await boundedNext(iterator) == .returned(0))
    var pending = BHPendingNext(iterator)
    model.state.draft = model.state.rows[id: 1]
    #expect(await pending.returnedAfterTurns() == false)  // copying alone
    model.state.draft?.count = 5  // the first write to the copy: at most one value, the same one
    if await pending.returnedAfterTurns() {
      #expect(await pending.value == .returned(0))
      pending = BHPendingNext(iterator)
    }
    model.state.draft?.count = 6  // not again for this copy
    #expect(await pending.returnedAfterTurns() == false)
    model.state.rows[id: 1] = model.state.draft!
    #expect(await pending.value == .returned(6))
  }

  /// As above, with a copy in a local variable.
  @Test func atMostOneValuePerLocalCopy() async {
    let model = BHModel()
    let values = TrackedValues { model.state.rows[id: 1]?.count ?? -1 }
    let iterator = values.makeAsyncIterator()
    #expect(await boundedNext(iterator) == .returned(0))
    var pending = BHPendingNext(iterator)
    var local = model.state.rows[id: 1]!
    local.count = 6
    if await pending.returnedAfterTurns() {
      #expect(await pending.value == .returned(0))
      pending = BHPendingNext(iterator)
    }
    local.count = 8
    #expect(await pending.returnedAfterTurns() == false)
    model.state.rows[id: 1]?.count = 7
    #expect(await pending.value == .returned(7))
    _ = local
  }
}
