import Observant
import ObservantObservationBridge
import ObservantStore
import Dispatch
import Observation
import Synchronization
import Testing

// Hunt 3: the observation bridge, written against the documentation only.

// swift-format-ignore
private struct H3Row: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  init(id: Int, count: Int = 0) {
    self.id = id
    _count = StateField(count)
  }
}

// swift-format-ignore
private struct H3Lists: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _a = StateField<IdentifiedArrayOf<H3Row>>([])
  var a: IdentifiedArrayOf<H3Row> {
    get { registrar.read(_a) } set { registrar.write(&_a, newValue) }
    _modify { yield &self[tracking: \._a] }
  }
  private var _b = StateField<IdentifiedArrayOf<H3Row>>([])
  var b: IdentifiedArrayOf<H3Row> {
    get { registrar.read(_b) } set { registrar.write(&_b, newValue) }
    _modify { yield &self[tracking: \._b] }
  }
  private var _child = StateField(H3Row(id: 100))
  var child: H3Row {
    get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
    _modify { yield &self[tracking: \._child] }
  }
  init(a: [Int] = [], b: [Int] = []) {
    _a = StateField(IdentifiedArray(uniqueElements: a.map { H3Row(id: $0) }))
    _b = StateField(IdentifiedArray(uniqueElements: b.map { H3Row(id: $0) }))
  }
}

private final class H3Holder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var lists = H3Lists()
}

/// An Apple scope that re-installs itself when checked after it fired, and otherwise asserts that
/// what it read is still the current value (a scope that did not fire must not be stale).
private final class AppleWatch<Value: Equatable & Sendable>: @unchecked Sendable {
  let name: String
  let read: () -> Value
  let fired = Firings()
  var installs = 0
  var seen: Value
  var totalFirings = 0

  init(_ name: String, _ read: @escaping () -> Value) {
    self.name = name
    self.read = read
    seen = read()  // placeholder, replaced by install
    install()
  }

  private var current: Firings?

  func install() {
    let f = Firings()
    current = f
    installs += 1
    seen = withObservationTracking(read, onChange: f.onChange)
  }

  /// After a step: a scope that did not fire shows the current value; one that fired re-installs.
  func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let now = withoutTracking(read)
    let f = current!.value
    totalFirings += f
    #expect(f <= 1, "\(name) fired \(f) times at \(step)", sourceLocation: sourceLocation)
    if f == 0 {
      #expect(seen == now, "\(name) stale after \(step): shows \(seen), current \(now)", sourceLocation: sourceLocation)
    } else {
      install()
      #expect(seen == now, sourceLocation: sourceLocation)
    }
  }
}

private enum H3Feature {
  enum Action: Sendable {
    case inc(Int)
    case replaceA(Int, count: Int)
    case snapshotA
    case restoreA
    case moveAToB(Int)
    case moveBToA(Int)
    case saveRow(Int)
    case restoreRow(Int)
    case editAndRestore(Int)
    case removeAndRestore(Int)
    case removeAndAppendSaved(Int)
    case editSavedBack(Int)
  }
}

private final class H3Snapshots: @unchecked Sendable {
  var a: IdentifiedArrayOf<H3Row> = []
  var rows: [Int: H3Row] = [:]
}

/// The row stores' actions (they send none here; `Never` would make the scoping closure dead code).
private enum H3RowAction: Sendable { case touch }

@MainActor
private func makeStore(_ snaps: H3Snapshots) -> Store<H3Lists, H3Feature.Action> {
  Store(initialState: H3Lists(a: [1, 2, 3], b: [4])) { (state: inout H3Lists, action: H3Feature.Action) in
    switch action {
    case .inc(let id):
      if state.a[id: id] != nil { state.a[id: id]?.count += 1 } else { state.b[id: id]?.count += 1 }
    case .replaceA(let id, let count): state.a[id: id] = H3Row(id: id, count: count)
    case .snapshotA: snaps.a = state.a
    case .restoreA: state.a = snaps.a
    case .moveAToB(let id):
      if let row = state.a.remove(id: id) { state.b.append(row) }
    case .moveBToA(let id):
      if let row = state.b.remove(id: id) { state.a.append(row) }
    case .saveRow(let id): snaps.rows[id] = state.a[id: id]
    case .restoreRow(let id): state.a[id: id] = snaps.rows[id]
    case .editAndRestore(let id):
      let saved = state.a
      state.a[id: id]?.count += 7
      state.a = saved
    case .removeAndAppendSaved(let id):
      state.a.remove(id: id)
      if let row = snaps.rows[id] { state.a.append(row) }
    case .editSavedBack(let id):
      state.a[id: id] = H3Row(id: id, count: 50)
      if var row = snaps.rows[id] {
        row.count += 100
        state.a[id: id] = row
      }
    case .removeAndRestore(let id):
      let saved = state.a
      state.a.remove(id: id)
      state.a = saved
    }
    return .none
  }
}

@Suite("Hunt 3: bridge")
struct Hunt3BridgeTests {
  @Test("within one transaction: a row edited in place then the array restored from a snapshot fires nothing")
  func editThenRestoreInTransaction() {
    ObservationBridge.withBridgeForTesting {
      let h = H3Holder()
      h.lists = H3Lists(a: [1, 2], b: [3])
      let count = AppleWatch("a[1].count") { h.lists.a[id: 1]?.count }
      let ids = AppleWatch("a.ids") { h.lists.a.ids.elements }
      transaction {
        let saved = h.lists.a
        h.lists.a[id: 1]?.count += 1
        h.lists.a = saved
      }
      #expect(count.fired.value == 0)
      #expect(ids.fired.value == 0)
      count.check("edit+restore")
      ids.check("edit+restore")
      transaction {
        let saved = h.lists.a
        h.lists.a.remove(id: 2)
        h.lists.a = saved
      }
      #expect(ids.fired.value == 0, "remove then restore the very value read: documented to fire nothing")
      count.check("remove+restore")
      ids.check("remove+restore")
    }
  }

  @Test("a row moved from one collection to another, edited there, moved back: every Apple scope shows the current row")
  func rowMovedBetweenCollections() {
    ObservationBridge.withBridgeForTesting {
      let h = H3Holder()
      h.lists = H3Lists(a: [1, 2], b: [3])
      let inA = AppleWatch("a[1]") { h.lists.a[id: 1]?.count }
      let inB = AppleWatch("b[1]") { h.lists.b[id: 1]?.count }
      let other = AppleWatch("a[2]") { h.lists.a[id: 2]?.count }
      transaction {
        let row = h.lists.a.remove(id: 1)!
        h.lists.b.append(row)
        h.lists.b[id: 1]?.count = 5
      }
      inA.check("move to b"); inB.check("move to b"); other.check("move to b")
      #expect(inB.seen == 5 && inA.seen == nil)
      h.lists.b[id: 1]?.count += 1
      inA.check("edit in b"); inB.check("edit in b"); other.check("edit in b")
      #expect(inB.seen == 6)
      transaction {
        let row = h.lists.b.remove(id: 1)!
        h.lists.a.append(row)
        h.lists.a[id: 1]?.count = 0
      }
      inA.check("move back, set 0"); inB.check("move back, set 0"); other.check("move back, set 0")
      #expect(inA.seen == 0 && inB.seen == nil)
      h.lists.a[id: 1]?.count = 2
      inA.check("edit in a"); inB.check("edit in a"); other.check("edit in a")
      #expect(inA.seen == 2)
      #expect(other.totalFirings <= 3)
    }
  }

  @Test("an older copy of a row stored again (in one transaction, and across two): Apple scopes show the stored row")
  func olderCopyBack() {
    ObservationBridge.withBridgeForTesting {
      let h = H3Holder()
      h.lists = H3Lists(a: [1, 2])
      h.lists.a[id: 1]?.count = 3
      let saved = h.lists.a[id: 1]!
      let row = AppleWatch("a[1]") { h.lists.a[id: 1]?.count }
      // Across two transactions.
      h.lists.a[id: 1] = H3Row(id: 1, count: 9)
      row.check("replaced")
      #expect(row.seen == 9)
      h.lists.a[id: 1] = saved
      row.check("older copy back")
      #expect(row.seen == 3)
      // Within one: replaced then the older copy edited and stored.
      transaction {
        h.lists.a[id: 1] = H3Row(id: 1, count: 11)
        var back = saved
        back.count = 4
        h.lists.a[id: 1] = back
      }
      row.check("replaced and older copy edited back, one transaction")
      #expect(row.seen == 4)
      // The live row written; then the saved (count 3) copy comes back again within a transaction.
      transaction {
        h.lists.a[id: 1]?.count = 8
        h.lists.a[id: 1] = saved
      }
      row.check("live edited then older copy back")
      #expect(row.seen == 3)
      // child slot: child = other then child = saved in one transaction, with an edit in between.
      let savedChild = h.lists.child
      let child = AppleWatch("child") { h.lists.child.count }
      transaction {
        h.lists.child = H3Row(id: 100, count: 1)
        h.lists.child.count = 2
        h.lists.child = savedChild
        h.lists.child.count = 6
      }
      child.check("child replaced and back, then edited")
      #expect(child.seen == 6)
      transaction {
        h.lists.child.count = 0
        h.lists.child = savedChild
      }
      child.check("child written and savedChild back")
      #expect(child.seen == 0)
    }
  }

  @Test(
    "store: an older row copy restored through a reducer fires the row store's Apple scope; restore of an edit fires nothing"
  )
  @MainActor
  func storeOlderCopy() {
    ObservationBridge.withBridgeForTesting {
      let snaps = H3Snapshots()
      let store = makeStore(snaps)
      let rows = store.scope(state: \.a, action: { (id: Int, _: H3RowAction) in H3Feature.Action.inc(id) })
      let one = rows.store(id: 1)!
      let two = rows.store(id: 2)!
      let w1 = AppleWatch("row1") { one.count }
      let w2 = AppleWatch("row2") { two.count }
      store.send(.inc(1))
      w1.check("inc 1"); w2.check("inc 1")
      #expect(w1.seen == 1 && w2.totalFirings == 0)
      store.send(.saveRow(1))
      store.send(.inc(1))
      store.send(.inc(1))
      w1.check("inc 1 twice"); w2.check("inc 1 twice")
      #expect(w1.seen == 3)
      store.send(.restoreRow(1))
      w1.check("older copy restored")
      w2.check("older copy restored")
      #expect(w1.seen == 1, "the row store shows the restored row")
      #expect(one.count == 1)
      store.send(.editAndRestore(1))
      #expect(w1.fired.value == 0, "edited in place and restored in one send: documented to fire nothing")
      w1.check("edit and restore"); w2.check("edit and restore")
      store.send(.replaceA(1, count: 20))
      w1.check("replaced"); w2.check("replaced")
      #expect(w1.seen == 20)
      store.send(.restoreRow(1))
      w1.check("older copy back after replacement"); w2.check("older copy back after replacement")
      #expect(w1.seen == 1)
      #expect(w2.totalFirings == 0, "row 2 never changed")
    }
  }

  @Test("store: array snapshot restored after a row moved to another collection and edited there")
  @MainActor
  func storeSnapshotAfterMove() {
    ObservationBridge.withBridgeForTesting {
      let snaps = H3Snapshots()
      let store = makeStore(snaps)
      let rowsA = store.scope(state: \.a, action: { (id: Int, _: H3RowAction) in H3Feature.Action.inc(id) })
      let one = rowsA.store(id: 1)!
      let idsA = AppleWatch("a ids") {
        store.scope(state: \.a, action: { (id: Int, _: H3RowAction) in H3Feature.Action.inc(id) }).ids.map {
          $0
        }
      }
      let bCount = AppleWatch("b[1]") { store.b[id: 1]?.count }
      let w1 = AppleWatch("row1") { one.count }
      store.send(.inc(1))  // 1
      w1.check("inc"); idsA.check("inc"); bCount.check("inc")
      store.send(.snapshotA)
      store.send(.moveAToB(1))
      idsA.check("move"); bCount.check("move"); w1.check("move")
      #expect(one.isValid == false || w1.seen == 1)
      store.send(.inc(1))  // now in b: 2
      bCount.check("inc in b"); idsA.check("inc in b")
      #expect(bCount.seen == 2)
      store.send(.restoreA)  // a gets the old row 1 (count 1) back; b still holds count 2
      idsA.check("restore"); bCount.check("restore")
      #expect(idsA.seen == [1, 2, 3])
      #expect(store.a[id: 1]?.count == 1 && store.b[id: 1]?.count == 2)
      let again = store.scope(state: \.a, action: { (id: Int, _: H3RowAction) in H3Feature.Action.inc(id) })
        .store(id: 1)!
      let w1b = AppleWatch("row1 again") { again.count }
      #expect(w1b.seen == 1)
      store.send(.inc(1))  // a[1] is found first: 2
      w1b.check("inc restored"); bCount.check("inc restored")
      #expect(w1b.seen == 2 && bCount.seen == 2)
    }
  }

  @Test(
    "Derived chained over store rows, with rows restored: Apple scope over the last derived shows the current value")
  @MainActor
  func derivedChainOverStore() {
    ObservationBridge.withBridgeForTesting {
      let snaps = H3Snapshots()
      let store = makeStore(snaps)
      let computations = Mutex(0)
      let sum = Derived("sum") {
        computations.withLock { $0 += 1 }
        return store.a.reduce(0) { $0 + $1.count }
      }
      let parity = Derived("parity") { sum.value % 2 == 0 ? "even" : "odd" }
      let label = Derived("label") { "\(parity.value) \(store.b.count)" }
      let w = AppleWatch("label") { label.value }
      let s = AppleWatch("sum") { sum.value }
      #expect(w.seen == "even 1")
      store.send(.snapshotA)
      store.send(.inc(1))
      w.check("inc"); s.check("inc")
      #expect(w.seen == "odd 1" && s.seen == 1)
      store.send(.inc(2))
      w.check("inc 2"); s.check("inc 2")
      #expect(w.seen == "even 1" && s.seen == 2)
      store.send(.restoreA)
      w.check("restore"); s.check("restore")
      #expect(s.seen == 0 && w.seen == "even 1")
      store.send(.editAndRestore(2))
      #expect(s.fired.value == 0 && w.fired.value == 0)
      w.check("edit+restore"); s.check("edit+restore")
      store.send(.moveAToB(3))
      w.check("move"); s.check("move")
      #expect(w.seen == "even 2")
      store.send(.inc(3))  // in b now: sum over a unchanged
      w.check("inc in b"); s.check("inc in b")
      #expect(s.seen == 0 && w.seen == "even 2")
      store.send(.restoreA)  // row 3 back in a with count 0, b still holds 3 (count 1)
      w.check("restore 2"); s.check("restore 2")
      #expect(s.seen == 0)
      #expect(w.seen == "even 2")
    }
  }

  @Test("withObservationTracking onChange that writes another Observant field: the write is stored, readers current")
  func onChangeWrites() {
    ObservationBridge.withBridgeForTesting {
      let h = H3Holder()
      h.lists = H3Lists(a: [1], b: [2])
      let f = Firings()
      _ = withObservationTracking {
        h.lists.a[id: 1]?.count
      } onChange: {
        f.onChange()
        h.lists.b[id: 2]?.count += 10
      }
      let b = AppleWatch("b[2]") { h.lists.b[id: 2]?.count }
      var seen: [Int?] = []
      let reaction = Reaction("b reader", ownedByParent: false) { seen.append(h.lists.b[id: 2]?.count) }
      h.lists.a[id: 1]?.count = 1
      #expect(f.value == 1)
      b.check("onChange wrote")
      #expect(b.seen == 10)
      #expect(seen.last == 10)
      h.lists.a[id: 1]?.count = 2
      #expect(f.value == 1)
      #expect(h.lists.b[id: 2]?.count == 10)
      reaction.cancel()
    }
  }
  @Test("store: a row removed and an older copy appended in one send: the row store's Apple scope shows the copy")
  @MainActor
  func storeRemoveAndAppendOlder() {
    ObservationBridge.withBridgeForTesting {
      let snaps = H3Snapshots()
      let store = makeStore(snaps)
      let rows = store.scope(state: \.a, action: { (id: Int, _: H3RowAction) in H3Feature.Action.inc(id) })
      let one = rows.store(id: 1)!
      store.send(.inc(1))
      store.send(.saveRow(1))  // count 1
      store.send(.inc(1))
      store.send(.inc(1))  // count 3
      let w = AppleWatch("row1") { one.count }
      let ids = AppleWatch("ids") {
        store.scope(state: \.a, action: { (id: Int, _: H3RowAction) in H3Feature.Action.inc(id) }).ids.map {
          $0
        }
      }
      #expect(w.seen == 3)
      store.send(.removeAndAppendSaved(1))
      w.check("remove + append older copy")
      ids.check("remove + append older copy")
      #expect(ids.seen == [2, 3, 1])
      #expect(store.a[id: 1]?.count == 1)
      #expect(one.isValid)
      #expect(w.seen == 1)
      store.send(.editSavedBack(1))  // replaced by a new value, then the older copy edited (101) stored
      w.check("replaced, older copy edited back")
      #expect(w.seen == 101)
      #expect(one.count == 101)
    }
  }

  @Test("a Reaction and an Apple scope over one row store, row restored from snapshot across sends: both current")
  @MainActor
  func reactionAndAppleScope() {
    ObservationBridge.withBridgeForTesting {
      let snaps = H3Snapshots()
      let store = makeStore(snaps)
      let rows = store.scope(state: \.a, action: { (id: Int, _: H3RowAction) in H3Feature.Action.inc(id) })
      let two = rows.store(id: 2)!
      var seen: [Int] = []
      let reaction = Reaction("row2") { seen.append(two.count) }
      let w = AppleWatch("row2") { two.count }
      store.send(.snapshotA)
      store.send(.inc(2))
      store.send(.inc(2))
      w.check("inc twice")
      store.send(.restoreA)
      w.check("restore")
      #expect(seen == [0, 1, 2, 0])
      #expect(w.seen == 0)
      store.send(.inc(2))
      w.check("inc after restore")
      #expect(seen.last == 1 && w.seen == 1)
      reaction.cancel()
    }
  }
  @Test(
    "threads: Apple scopes installed (under a lock) while another thread stores older copies of rows back: a scope that did not fire shows the current value"
  )
  func threadsOlderCopies() {
    ObservationBridge.withBridgeForTesting {
      for _ in 0..<5 {
        let h = H3Holder()
        h.lists = H3Lists(a: [1, 2], b: [3])
        let lock = Mutex(())
        let scopes = Mutex<[(Firings, Int?, Int)]>([])
        // Threads started by the body are not in the bridge's testing scope: each wraps its work
        // (ObservationBridge.withBridgeForTesting documents it).
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
          ObservationBridge.withBridgeForTesting {
            if thread == 0 {
              var saved: [H3Row] = []
              for i in 0..<400 {
                lock.withLock { _ in
                  switch i % 4 {
                  case 0:
                    saved.append(h.lists.a[id: 1]!)
                    h.lists.a[id: 1]?.count = i
                  case 1:
                    h.lists.a[id: 1] = H3Row(id: 1, count: -i)
                  case 2:
                    if let old = saved.randomElement() { h.lists.a[id: 1] = old }
                  default:
                    transaction {
                      let row = h.lists.a.remove(id: 1)!
                      h.lists.b.append(row)
                      h.lists.b[id: 1]?.count += 1
                      let back = h.lists.b.remove(id: 1)!
                      h.lists.a.insert(back, at: 0)
                      if let old = saved.first { h.lists.a[id: 1] = old }
                    }
                  }
                }
              }
            } else {
              for i in 0..<300 {
                let f = Firings()
                let id = i % 2 + 1
                let seen = lock.withLock { _ in
                  withObservationTracking {
                    h.lists.a[id: id]?.count
                  } onChange: {
                    f.onChange()
                  }
                }
                scopes.withLock { $0.append((f, seen, id)) }
              }
            }
          }
        }
        var stale: [String] = []
        for (f, seen, id) in scopes.withLock({ $0 }) where f.value == 0 {
          let now = withoutTracking { h.lists.a[id: id]?.count }
          if seen != now {
            stale.append("row \(id): shows \(String(describing: seen)), current \(String(describing: now))")
          }
        }
        #expect(stale.isEmpty, "\(stale.prefix(5)) (\(stale.count))")
      }
    }
  }
}
