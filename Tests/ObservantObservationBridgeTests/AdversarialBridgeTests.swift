import Dispatch
import Observant
import ObservantObservationBridge
import Observation
import Synchronization
import Testing

// Adversarial tests of the bridge, written against the documented contract only.

private func entries(_ profile: Profile) -> Int {
  profile.trackingRegistrar.observerEntryCount + profile.state.registrar.observerEntryCount
    + profile.state.child.registrar.observerEntryCount
    + (profile.state.rows.first?.registrar.observerEntryCount ?? 0)
}

@Suite("Adversarial: observation bridge")
struct AdversarialBridgeTests {
  @Test(
    "first reads on three threads racing a writer that replaces the states read: every scope hears a later write; entries as without the race"
  )
  func firstReadsRacingWriter() {
    // Baseline: the entries one scope leaves after it fired and the fields were written again.
    let baseline: Int = ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      profile.state = Screen(rows: [1, 2])
      withObservationTracking {
        _ = profile.name
        _ = profile.state.child.count
        _ = profile.state.rows[id: 1]?.count
      } onChange: {
      }
      profile.name = "x"
      profile.state.child.count += 1
      profile.state.rows[id: 1]?.count += 1
      return entries(profile)
    }
    var missed = 0
    var extra: [Int] = []
    var racedRounds = 0
    var extraWithoutRace: [Int] = []
    for round in 0..<300 {
      let profile = Profile()
      profile.state = Screen(rows: [1, 2])
      let lock = Mutex(())
      let fired = (0..<3).map { _ in Firings() }
      let windows = (0..<3).map { _ in InstallWindow() }
      DispatchQueue.concurrentPerform(iterations: 4) { thread in
        if thread < 3 {
          ObservationBridge.withBridgeForTesting {
            windows[thread].track {
              lock.withLock { _ in
                _ = profile.name
                _ = profile.state.child.count
                _ = profile.state.rows[id: 1]?.count
              }
            } onChange: {
              fired[thread].onChange()
            }
          }
        } else {
          lock.withLock { _ in profile.state.child.count += 1 }
          lock.withLock { _ in profile.name = "r\(round)" }
          lock.withLock { _ in profile.state.rows[id: 1]?.count += 1 }
        }
      }
      // After everything is installed, a write of each field: each scope hears at least one.
      profile.name = "final"
      profile.state.child.count += 1
      profile.state.rows[id: 1]?.count += 1
      if fired.contains(where: { $0.value == 0 }) { missed += 1 }
      // Everything fired; write once more so watchers of replaced states retire.
      profile.name = "final2"
      profile.state.child.count += 1
      profile.state.rows[id: 1]?.count += 1
      let e = entries(profile)
      let raced = windows.contains { $0.raced > 0 }
      if raced { racedRounds += 1 }
      if e > baseline {
        extra.append(e)
        if !raced { extraWithoutRace.append(e) }
      }
    }
    #expect(missed == 0, "rounds where a scope missed a write made after it was installed")
    // A round may keep a retired watcher or two: when a write fires one of Apple's scopes while
    // its thread is still installing it, Apple keeps its observations for good (its install race;
    // see ObservationBridge), and with them the watchers' key paths, as long as the object lives.
    // How often that happens depends on the machine's load; that it happens only in such rounds
    // does not: a round whose scopes all finished installing before any fired keeps nothing.
    #expect(
      extraWithoutRace.isEmpty,
      "baseline \(baseline); rounds without Apple's race that kept more entries: \(extraWithoutRace.prefix(10)) (\(extraWithoutRace.count); \(racedRounds) rounds raced)"
    )
    #expect(
      extra.allSatisfy { $0 <= baseline + 3 }, "baseline \(baseline); rounds with more entries: \(extra.prefix(10))")
  }

  @Test("one object, many rounds of concurrent Apple scopes and writes: observer entries stay bounded")
  func boundedEntriesOverRounds() {
    let baseline: Int = ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      withObservationTracking {
        _ = profile.count
        _ = profile.state.child.count
      } onChange: {
      }
      profile.count += 1
      profile.state.child.count += 1
      profile.count += 1
      profile.state.child.count += 1
      return entries(profile)
    }
    let profile = Profile()
    let lock = Mutex(())
    var samples: [(entries: Int, raced: Int)] = []
    var raced = 0
    for round in 0..<1_500 {
      let windows = (0..<2).map { _ in InstallWindow() }
      DispatchQueue.concurrentPerform(iterations: 3) { thread in
        if thread < 2 {
          ObservationBridge.withBridgeForTesting {
            windows[thread].track {
              lock.withLock { _ in
                _ = profile.count
                _ = profile.state.child.count
              }
            } onChange: {
            }
          }
        } else {
          lock.withLock { _ in profile.count += 1 }
          lock.withLock { _ in profile.state.child.count += 1 }
        }
      }
      raced += windows.reduce(0) { $0 + $1.raced }
      if round % 100 == 99 {
        profile.count += 1
        profile.state.child.count += 1
        profile.count += 1
        profile.state.child.count += 1
        samples.append((entries(profile), raced))
      }
    }
    // Steady state: one watcher each for `count` and the slot `state`, one for the child's
    // current state (the baseline: one scope, fired, the fields written again). A retired watcher
    // stays while Apple holds its key path: briefly, for a scope still being installed, and for
    // good (as long as the object) when Apple keeps the observations of a scope that fired while
    // its thread was still installing it (Apple's race; see ObservationBridge, "A write racing
    // with withObservationTracking"). Such a scope installed on two registrars, so it keeps at
    // most two. How many rounds race depends on the machine's load (none in 15,000 rounds on an
    // idle machine here, a few under load); a watcher kept without a race is the bridge's leak.
    for sample in samples {
      #expect(
        sample.entries <= baseline + 2 * sample.raced,
        "baseline \(baseline); entries and scopes that raced so far after each 100 rounds: \(samples)")
    }
  }

  @Test("the bridge reports once, after the transaction, with the value stored")
  func afterTransaction() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let fired = Firings()
      let seen = Mutex<[Int]>([])
      withObservationTracking {
        _ = profile.count
        _ = profile.state.child.count
      } onChange: {
        fired.onChange()
        seen.withLock { $0.append(withoutTracking { profile.count }) }
      }
      transaction {
        profile.count = 1
        #expect(fired.value == 0)
        profile.state.child.count = 4
        profile.count = 2
        #expect(fired.value == 0)
      }
      #expect(fired.value == 1)
      #expect(seen.withLock { $0 } == [2])
    }
  }

  @Test("set back in a transaction, equal writes, and an edited copy with the field unchanged: nothing fires")
  func silentWrites() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      profile.state = Screen(rows: [1, 2])
      let fired = Firings()
      withObservationTracking {
        _ = profile.count
        _ = profile.state.child.count
        _ = profile.state.rows[id: 2]?.count
      } onChange: {
        fired.onChange()
      }
      transaction {
        profile.count += 1
        profile.count -= 1
        profile.state.child.count += 1
        profile.state.child.count -= 1
        profile.state.rows[id: 2]?.count += 1
        profile.state.rows[id: 2]?.count -= 1
      }
      #expect(fired.value == 0, "set back")
      profile.count = 0
      profile.state.child.count = 0
      #expect(fired.value == 0, "equal writes")
      var copy = profile.state.rows[id: 1]!
      copy.title = "edited"
      #expect(fired.value == 0, "a copy of another row")
      profile.state.rows[id: 1] = copy
      #expect(fired.value == 0, "other row's copy assigned back")
      var childCopy = profile.state.child
      childCopy.title = "t"
      profile.state.child = childCopy
      #expect(fired.value == 0, "child copy with count unchanged assigned back")
      profile.state.rows[id: 2]?.count = 3
      #expect(fired.value == 1)
    }
  }

  @Test(
    "a draft's writes disturb the live value's Apple scope at most once; a scope re-installed after is disturbed at most once more"
  )
  func draftAtMostOnce() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let fired = Firings()
      withObservationTracking {
        _ = profile.state.child.count
      } onChange: {
        fired.onChange()
      }
      var draft = profile.state.child
      for i in 1...10 { draft.count = i }
      #expect(fired.value <= 1)
      let again = Firings()
      withObservationTracking {
        _ = profile.state.child.count
      } onChange: {
        again.onChange()
      }
      for i in 11...20 { draft.count = i }
      #expect(again.value <= 1)
      profile.state.child = draft
      #expect(again.value == 1)
    }
  }

  @Test(
    "withTracking(propagatingToOuterScope: true) and recordAccesses(propagatingToOuterScope: true) inside withObservationTracking are heard; plain nested scopes are not"
  )
  func nestedScopes() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let propagating = Firings()
      withObservationTracking {
        _ = withTracking(propagatingToOuterScope: true) {
          profile.name
        } onChange: {
        }
      } onChange: {
        propagating.onChange()
      }
      let recorded = Firings()
      withObservationTracking {
        _ = recordAccesses(propagatingToOuterScope: true) { _ = profile.count }
      } onChange: {
        recorded.onChange()
      }
      let hidden = Firings()
      withObservationTracking {
        _ = withTracking {
          profile.state.title
        } onChange: {
        }
        _ = withoutTracking { profile.state.child.count }
      } onChange: {
        hidden.onChange()
      }
      profile.name = "n"
      profile.count = 9
      profile.state.title = "t"
      profile.state.child.count = 1
      #expect(propagating.value == 1)
      #expect(recorded.value == 1)
      #expect(hidden.value == 0)
    }
  }

  @Test("a derived value read in withObservationTracking: its scope fires when an input changes the value")
  func derivedThroughBridge() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let doubled = Derived("doubled") { profile.count * 2 }
      let fired = Firings()
      withObservationTracking {
        _ = doubled.value
      } onChange: {
        fired.onChange()
      }
      profile.count = 3
      #expect(fired.value == 1)
      #expect(doubled.value == 6)
      // a second scope, installed after a recomputation
      let again = Firings()
      withObservationTracking {
        _ = doubled.value
      } onChange: {
        again.onChange()
      }
      profile.count = 4
      #expect(again.value == 1)
    }
  }

  @Test("the object going away: an Apple scope over its fields hears one last change")
  func objectGoesAway() {
    ObservationBridge.withBridgeForTesting {
      let fired = Firings()
      do {
        let profile = Profile()
        withObservationTracking {
          _ = profile.name
          _ = profile.state.child.count
        } onChange: {
          fired.onChange()
        }
      }
      #expect(fired.value >= 1)
    }
  }

  @Test(
    "Apple scopes on four threads reading a derived-free value-type row for the first time, a writer in place: each hears a later write"
  )
  func firstReadsOfRowsUnderWrites() {
    var missed = 0
    for _ in 0..<200 {
      let profile = Profile()
      profile.state = Screen(rows: [1, 2, 3])
      let lock = Mutex(())
      let fired = (0..<4).map { _ in Firings() }
      DispatchQueue.concurrentPerform(iterations: 5) { thread in
        if thread < 4 {
          ObservationBridge.withBridgeForTesting {
            withObservationTracking {
              lock.withLock { _ in _ = profile.state.rows[id: 1 + thread % 3]?.count }
            } onChange: {
              fired[thread].onChange()
            }
          }
        } else {
          for id in 1...3 { lock.withLock { _ in profile.state.rows[id: id]?.count += 1 } }
        }
      }
      for id in 1...3 { profile.state.rows[id: id]?.count += 1 }
      if fired.contains(where: { $0.value == 0 }) { missed += 1 }
    }
    #expect(missed == 0)
  }
}

import ObservantStore

enum AdvUndo {
  enum Action: Sendable {
    case bumpAndUndoState(Int)
    case bumpAndUndoRows(Int)
    case copyMutateAssign(Int)
    case replace(Int, Int)
    case remove(Int)
    case add(Int)
    case bump(Int)
    case row(id: Int, action: ListFeature.RowAction)
  }
  static func reduce(_ state: inout Screen, _ action: Action) -> Effect<Action> {
    switch action {
    case .bumpAndUndoState(let id):
      let saved = state
      state.rows[id: id]?.count += 1
      state.child.count += 1
      state = saved
    case .bumpAndUndoRows(let id):
      let saved = state.rows
      state.rows[id: id]?.count += 1
      state.rows = saved
    case .copyMutateAssign(let id):
      var row = state.rows[id: id]!
      row.count += 1
      state.rows[id: id] = row
    case .replace(let id, let count): state.rows[id: id] = Counter(id: id, count: count)
    case .remove(let id): state.rows.remove(id: id)
    case .add(let id): state.rows.append(Counter(id: id))
    case .bump(let id): state.rows[id: id]?.count += 1
    case .row(let id, let action):
      return ListFeature.reduce(&state, .row(id: id, action: action)).map { _ in .bump(-1) }
    }
    return .none
  }
}

@MainActor
@Suite("Adversarial: store copies and stale stores")
struct AdversarialStoreTests {
  func make() -> Store<Screen, AdvUndo.Action> {
    Store(initialState: Screen(rows: [1, 2]), reducer: AdvUndo.reduce, diagnostics: StoreDiagnostics(printing: false))
  }

  @Test(
    "undo inside one send (state = saved, rows = savedRows) re-runs no reader; copy-mutate-assign re-runs that row only"
  )
  func undoInOneSend() {
    let store = make()
    let rows = store.scope(state: \.rows, action: AdvUndo.Action.row)
    let list = Reaction("list") { _ = store.scope(state: \.rows, action: AdvUndo.Action.row).count }
    let row1 = Reaction("row1") { _ = rows[0].count }
    let row2 = Reaction("row2") { _ = rows[1].count }
    let child = Reaction("child") { _ = store.child.count }
    store.send(.bumpAndUndoRows(1))
    #expect([list.runCount, row1.runCount, row2.runCount, child.runCount] == [1, 1, 1, 1], "rows = saved in one send")
    store.send(.bumpAndUndoState(1))
    // IdentityRules: a value replaced through inout is not set back in an element of a collection
    // (documented exception): row 1's reader may re-run once.
    #expect(row1.runCount <= 2)
    #expect([list.runCount, row2.runCount, child.runCount] == [1, 1, 1], "state = saved in one send")
    let r1 = row1.runCount
    store.send(.copyMutateAssign(1))
    #expect([list.runCount, row1.runCount, row2.runCount] == [1, r1 + 1, 1])
    #expect(rows[0].count == 1)
    store.send(.replace(2, 5))
    #expect(
      [list.runCount, row1.runCount, row2.runCount] == [1, r1 + 1, 2], "a row replaced by a new value with the same id")
    #expect(rows[1].isValid && rows[1].count == 5)
  }

  @Test(
    "an old collection after remove and re-add of the id: invalid store showing the removed row, never re-run by the new row"
  )
  func removedAndBack() {
    let store = make()
    let old = store.scope(state: \.rows, action: AdvUndo.Action.row)
    store.send(.bump(2))
    let oldSecond = old[1]
    let shown = Mutex<Int>(-1)
    let reader = Reaction("old row 2") {
      let c = oldSecond.count; shown.withLock { $0 = c }
    }
    #expect(shown.withLock { $0 } == 1)
    store.send(.remove(2))
    store.send(.add(2))
    #expect(!oldSecond.isValid)
    #expect(!old[1].isValid)
    #expect(old[1] === oldSecond)
    #expect(oldSecond.count == 1)
    #expect(old[1].count == 1, "shows the removed row (removed with count 1)")
    let fresh = store.scope(state: \.rows, action: AdvUndo.Action.row)[1]
    #expect(fresh.isValid && fresh.count == 0 && fresh !== oldSecond)
    let runs = reader.runCount
    store.send(.bump(2))
    #expect(reader.runCount == runs)
    #expect(fresh.count == 1)
    oldSecond.send(.increment)
    #expect(fresh.count == 1)
    #expect(store.diagnostics.count(of: .actionSentToInvalidStore) == 1)
  }

  @Test(
    "through the bridge: a row store's Apple scope hears its row, not the others; after removal, reads through the invalid store are not reported"
  )
  func bridgeRowStores() {
    ObservationBridge.withBridgeForTesting {
      let store = make()
      let rows = store.scope(state: \.rows, action: AdvUndo.Action.row)
      let first = Firings()
      withObservationTracking {
        _ = rows[0].count
      } onChange: {
        first.onChange()
      }
      store.send(.bump(2))
      #expect(first.value == 0)
      store.send(.bumpAndUndoRows(1))
      #expect(first.value == 0)
      store.send(.bump(1))
      #expect(first.value == 1)
      let stale = rows[1]
      store.send(.remove(2))
      let late = Firings()
      withObservationTracking {
        _ = stale.count
      } onChange: {
        late.onChange()
      }
      store.send(.add(2))
      store.send(.bump(2))
      #expect(late.value == 0)
    }
  }
}

@MainActor
@Suite("Adversarial: old StoreCollection positions")
struct AdversarialOldCollectionTests {
  func make() -> Store<Screen, AdvUndo.Action> {
    Store(initialState: Screen(rows: [1, 2]), reducer: AdvUndo.reduce, diagnostics: StoreDiagnostics(printing: false))
  }

  @Test("removed only, no store handed out for the row: the old collection's position shows the row as it saw it")
  func removedOnly() {
    let store = make()
    let old = store.scope(state: \.rows, action: AdvUndo.Action.row)
    store.send(.bump(2))
    store.send(.bump(2))
    store.send(.remove(2))
    #expect(!old[1].isValid)
    #expect(old[1].count == 0, "the collection was made at count 0")
  }

  @Test("removed only, the row's store accessed before: same answer")
  func removedOnlyAccessed() {
    let store = make()
    let old = store.scope(state: \.rows, action: AdvUndo.Action.row)
    store.send(.bump(2))
    let handed = old[1]
    #expect(handed.count == 1)
    store.send(.remove(2))
    #expect(old[1] === handed)
    #expect(old[1].count == 1)
  }

  @Test("removed and back, no store handed out for the row: the old position shows the row as the collection saw it")
  func removedAndBack() {
    let store = make()
    let old = store.scope(state: \.rows, action: AdvUndo.Action.row)
    store.send(.bump(2))
    store.send(.remove(2))
    store.send(.add(2))
    #expect(!old[1].isValid)
    #expect(old[1].count == 0, "the collection was made at count 0")
  }
}
