import Dispatch
import Observant
import Synchronization
import Testing

// Hunt 3: reactions creating/cancelling reactions, self-writes, nested transactions, threads, and
// derived values over restored rows. Written against the documentation only.

// swift-format-ignore
private struct H3Item: ObservableState, Identifiable {
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
private struct H3State: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _items = StateField<IdentifiedArrayOf<H3Item>>([])
  var items: IdentifiedArrayOf<H3Item> {
    get { registrar.read(_items) } set { registrar.write(&_items, newValue) }
    _modify { yield &self[tracking: \._items] }
  }
  private var _other = StateField<IdentifiedArrayOf<H3Item>>([])
  var other: IdentifiedArrayOf<H3Item> {
    get { registrar.read(_other) } set { registrar.write(&_other, newValue) }
    _modify { yield &self[tracking: \._other] }
  }
  private var _title = StateField("t")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
  init(ids: [Int] = []) {
    _items = StateField(IdentifiedArray(uniqueElements: ids.map { H3Item(id: $0) }))
  }
}

private final class H3Model: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state = H3State()
  @Tracked var a = 0
  @Tracked var b = 0
  @Tracked var flag = false
}

private final class H3Count: Sendable {
  let atomic = Atomic(0)
  func add() { atomic.add(1, ordering: .relaxed) }
  var value: Int { atomic.load(ordering: .relaxed) }
}

private final class Box<T>: @unchecked Sendable {
  var value: T
  init(_ value: T) { self.value = value }
}

@Suite("Hunt 3")
struct Hunt3Tests {
  // MARK: reactions creating and cancelling reactions

  @Test(
    "a reaction that creates an unowned reaction while re-running: the new one reads the current state and reruns on later writes"
  )
  func createUnownedWhileRunning() {
    let m = H3Model()
    let made = Box<[Reaction]>([])
    let seen = Box<[Int: Int]>([:])
    let parent = Reaction("parent", ownedByParent: false) {
      let n = m.a
      let k = made.value.count
      if k < n {
        made.value.append(Reaction("child\(k)", ownedByParent: false) { seen.value[k] = m.b })
      }
    }
    transaction {
      m.a = 1
      m.b = 5
    }
    #expect(made.value.count == 1)
    #expect(seen.value[0] == 5)
    m.b = 6
    #expect(seen.value[0] == 6)
    #expect(made.value[0].runCount == 2)
    #expect(parent.runCount == 2)
    // A transaction that dirties the parent (which creates child1) and writes b: child0 runs once.
    transaction {
      m.a = 2
      m.b = 7
    }
    #expect(made.value.count == 2)
    #expect(seen.value[0] == 7 && seen.value[1] == 7)
    #expect(made.value[0].runCount == 3, "child0 runs once for the transaction")
    #expect(made.value[1].runCount == 1)
    parent.cancel()
    made.value.forEach { $0.cancel() }
  }

  @Test("a reaction cancelled by an earlier one in the same flush does not run")
  func cancelledByEarlier() {
    let m = H3Model()
    let victim = Box<Reaction?>(nil)
    let killer = Reaction("killer", ownedByParent: false) {
      if m.flag { victim.value?.cancel() }
    }
    var victimRuns = 0
    victim.value = Reaction("victim", ownedByParent: false) {
      _ = m.flag
      victimRuns += 1
    }
    #expect(victimRuns == 1)
    m.flag = true
    #expect(victimRuns == 1, "the victim was cancelled earlier in the same flush")
    #expect(victim.value?.runCount == 1)
    m.flag = false
    #expect(victimRuns == 1)
    killer.cancel()
  }

  @Test(
    "owned children: a parent re-run cancels its old child; the old child never runs again, the new one shows the current value"
  )
  func ownedChildReplaced() {
    let m = H3Model()
    var children: [Reaction] = []
    var childSeen: [Int] = []
    let parent = Reaction("parent") {
      _ = m.flag
      children.append(Reaction("child") { childSeen.append(m.b) })
    }
    #expect(children.count == 1)
    transaction {
      m.flag = true
      m.b = 3
    }
    #expect(children.count == 2)
    #expect(childSeen == [0, 3], "old child cancelled before it runs, new child runs once with 3: \(childSeen)")
    m.b = 4
    #expect(childSeen == [0, 3, 4])
    #expect(children[0].runCount == 1)
    parent.cancel()
    m.b = 5
    #expect(childSeen == [0, 3, 4], "cancelling the parent cancels its child")
  }

  @Test("a reaction that cancels itself while running is done")
  func selfCancel() {
    let m = H3Model()
    let me = Box<Reaction?>(nil)
    var runs = 0
    me.value = Reaction("self", ownedByParent: false) {
      runs += 1
      if m.a == 1 { me.value?.cancel() }
    }
    m.a = 1
    m.a = 2
    #expect(runs == 2)
  }

  // MARK: reactions writing state

  @Test("a clamping reaction writing what it read settles; a later reader shows the clamped value, once per round")
  func clamp() {
    let m = H3Model()
    let clamp = Reaction("clamp", ownedByParent: false) {
      if m.a > 10 { m.a = 10 }
    }
    var seen: [Int] = []
    let reader = Reaction("reader", ownedByParent: false) { seen.append(m.a) }
    m.a = 15
    #expect(m.a == 10)
    #expect(seen.last == 10)
    #expect(seen.allSatisfy { $0 != 15 }, "the reader ran after the clamp in creation order: \(seen)")
    #expect(reader.runCount == 2, "one transaction: the reader runs once: \(seen)")
    _ = clamp
  }

  @Test(
    "a reaction writing a field another reaction reads, via a transaction nested in its body: the reader shows the result once"
  )
  func nestedTransactionInReaction() {
    let m = H3Model()
    let writer = Reaction("writer", ownedByParent: false) {
      let a = m.a
      transaction {
        m.b = a * 2
        m.state.title = "a=\(a)"
        transaction { m.b += 1 }
      }
    }
    var seen: [String] = []
    let reader = Reaction("reader", ownedByParent: false) { seen.append("\(m.b) \(m.state.title)") }
    #expect(seen == ["1 a=0"])
    m.a = 3
    #expect(seen == ["1 a=0", "7 a=3"])
    transaction {
      m.a = 4
      m.a = 3
    }
    #expect(seen.count == 2)
    _ = (writer, reader)
  }

  @Test("a reaction over a row that restores a snapshot in its body: rows readers show the restored state")
  func reactionRestoresSnapshot() {
    let m = H3Model()
    m.state = H3State(ids: [1, 2])
    let snapshot = m.state.items
    let guardReaction = Reaction("guard", ownedByParent: false) {
      if (m.state.items[id: 1]?.count ?? 0) > 5 { m.state.items = snapshot }
    }
    var seen: [Int?] = []
    let row = Reaction("row", ownedByParent: false) { seen.append(m.state.items[id: 1]?.count) }
    m.state.items[id: 1]?.count = 3
    #expect(seen.last == 3)
    m.state.items[id: 1]?.count = 9
    #expect(m.state.items[id: 1]?.count == 0)
    #expect(seen.last == 0, "\(seen)")
    m.state.items[id: 1]?.count = 1
    #expect(seen.last == 1, "\(seen)")
    _ = (guardReaction, row)
  }

  @Test("withTracking onChange that writes: fires exactly once; the outer write is stored last; readers current")
  func withTrackingOnChangeWrites() {
    let m = H3Model()
    let fired = Atomic(0)
    _ = withTracking {
      m.a
    } onChange: {
      fired.add(1, ordering: .relaxed)
      m.a = 100  // written before the new value is stored
      m.b = 7
    }
    var seen: [String] = []
    let reader = Reaction("reader", ownedByParent: false) { seen.append("\(m.a) \(m.b)") }
    m.a = 1
    #expect(fired.load(ordering: .relaxed) == 1)
    #expect(seen.last == "\(m.a) \(m.b)", "reader shows \(seen), current \(m.a) \(m.b)")
    m.a = 2
    #expect(fired.load(ordering: .relaxed) == 1)
    #expect(seen.last == "2 7")
    _ = reader
  }

  @Test(
    "withTracking onChange that writes a row of value state, during an in-place mutation of the same state: the write is kept, readers current"
  )
  func withTrackingOnChangeWritesRow() {
    let m = H3Model()
    m.state = H3State(ids: [1, 2])
    let fired = Atomic(0)
    _ = withTracking {
      m.state.items[id: 1]?.count
    } onChange: {
      fired.add(1, ordering: .relaxed)
      m.state.items[id: 2]?.count += 1  // documented: called once the in-place mutation ended
    }
    var seen: [Int?] = []
    let reader = Reaction("row2", ownedByParent: false) { seen.append(m.state.items[id: 2]?.count) }
    m.state.items[id: 1]?.count = 4
    #expect(fired.load(ordering: .relaxed) == 1)
    #expect(m.state.items[id: 2]?.count == 1)
    #expect(seen.last == 1, "\(seen)")
    #expect(reader.runCount == 2)
  }

  @Test(
    "withTracking onChange writing a field, in a transaction that restores a snapshot and writes again: fires once, readers current"
  )
  func withTrackingOnChangeInRestoringTransaction() {
    let m = H3Model()
    m.state = H3State(ids: [1, 2])
    let fired = Atomic(0)
    _ = withTracking {
      m.state.items[id: 1]?.count
    } onChange: {
      fired.add(1, ordering: .relaxed)
      m.b += 1
    }
    var seen: [String] = []
    let reader = Reaction("r", ownedByParent: false) { seen.append("\(m.b) \(m.state.items[id: 1]?.count ?? -1)") }
    transaction {
      let saved = m.state.items
      m.state.items[id: 1]?.count = 4
      m.state.items = saved
      m.state.items[id: 1]?.count = 5
    }
    #expect(fired.load(ordering: .relaxed) == 1)
    #expect(seen == ["0 0", "1 5"])
    #expect(reader.runCount == 2)
  }

  // MARK: threads

  @Test(
    "one thread restores copies of state while another creates and cancels reactions reading it: no crash, live readers current"
  )
  func threadsRestoreAndCreate() {
    for _ in 0..<8 {
      let m = H3Model()
      m.state = H3State(ids: [1, 2, 3])
      let lock = Mutex(())
      let live = Mutex<[(Reaction, Box<Int?>, Int)]>([])
      DispatchQueue.concurrentPerform(iterations: 2) { thread in
        if thread == 0 {
          for i in 0..<300 {
            lock.withLock { _ in
              switch i % 5 {
              case 0:
                let saved = m.state
                m.state.items[id: 1]?.count += 1
                m.state.items[id: 2]?.count += 2
                if i % 10 == 0 { m.state = saved }
              case 1:
                transaction {
                  let saved = m.state.items
                  m.state.items.remove(id: 3)
                  m.state.items[id: 1]?.count += 1
                  m.state.items = saved
                }
              case 2:
                let row = m.state.items[id: 2]
                m.state.items[id: 2] = H3Item(id: 2, count: i)
                if let row, i % 4 == 0 { m.state.items[id: 2] = row }
              case 3:
                var copy = m.state
                copy.items[id: 1]?.count = -i
                transaction { m.state = copy }
              default:
                transaction {
                  if let row = m.state.items.remove(id: 3) { m.state.other.append(row) }
                  m.state.other[id: 3]?.count += 1
                  if let row = m.state.other.remove(id: 3) { m.state.items.append(row) }
                }
              }
            }
          }
        } else {
          for i in 0..<300 {
            let id = i % 3 + 1
            let shown = Box<Int?>(nil)
            let reaction = lock.withLock { _ in
              Reaction("r\(i)", ownedByParent: false) { shown.value = m.state.items[id: id]?.count }
            }
            live.withLock { $0.append((reaction, shown, id)) }
            if i % 2 == 0 {
              let victim = live.withLock { $0.remove(at: $0.count / 2) }
              victim.0.cancel()
            }
          }
        }
      }
      let readers = live.withLock { $0 }
      for (reaction, shown, id) in readers {
        let now = m.state.items[id: id]?.count
        #expect(
          shown.value == now, "\(reaction) shows \(String(describing: shown.value)), current \(String(describing: now))"
        )
        reaction.cancel()
      }
    }
  }

  @Test("concurrent withTracking scopes created on one thread while another restores copies: each fires at most once")
  func threadsWithTrackingScopes() {
    let m = H3Model()
    m.state = H3State(ids: [1, 2])
    let lock = Mutex(())
    let counters = Mutex<[H3Count]>([])
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
      if thread == 0 {
        for i in 0..<500 {
          lock.withLock { _ in
            let saved = m.state.items
            m.state.items[id: 1]?.count = i
            if i % 3 == 0 { m.state.items = saved }
          }
        }
      } else {
        for _ in 0..<300 {
          let c = H3Count()
          lock.withLock { _ in
            _ = withTracking {
              m.state.items[id: 1]?.count
            } onChange: {
              c.add()
            }
          }
          counters.withLock { $0.append(c) }
        }
      }
    }
    m.state.items[id: 1]?.count = 10_000
    let firings = counters.withLock { $0.map { $0.value } }
    #expect(firings.allSatisfy { $0 == 1 }, "firings: \(Dictionary(grouping: firings, by: { $0 }).mapValues(\.count))")
  }

  // MARK: Derived over restored rows

  @Test(
    "a chain of derived values over rows restored from a snapshot: every reader shows the current value, and runs once per change"
  )
  func derivedChainRestored() {
    let m = H3Model()
    m.state = H3State(ids: [1, 2, 3])
    let sum = Derived("sum") { m.state.items.reduce(0) { $0 + $1.count } }
    let first = Derived("first") { m.state.items.first?.count ?? -1 }
    let label = Derived("label") { "\(sum.value)/\(first.value)" }
    var seen: [String] = []
    let reader = Reaction("reader", ownedByParent: false) { seen.append(label.value) }
    #expect(seen == ["0/0"])
    let snapshot = m.state.items
    m.state.items[id: 1]?.count = 2
    #expect(seen.last == "2/2")
    m.state.items.move(fromOffsets: [0], toOffset: 3)
    #expect(seen.last == "2/0")
    m.state.items[id: 2]?.count = 5
    #expect(seen.last == "7/5")
    m.state.items = snapshot
    #expect(seen.last == "0/0", "\(seen)")
    transaction {
      m.state.items[id: 1]?.count = 9
      m.state.items = snapshot
    }
    #expect(seen.count == 5, "set back in a transaction: no run: \(seen)")
    // Row moved to other and back with a different count, then the snapshot's row restored.
    transaction {
      let row = m.state.items.remove(id: 1)!
      m.state.other.append(row)
      m.state.other[id: 1]?.count = 4
    }
    #expect(seen.last == "0/0")  // items: 2,3 -> sum 0, first count 0
    let saved1 = snapshot[id: 1]!
    m.state.items.insert(saved1, at: 0)
    #expect(seen.last == "0/0")
    m.state.items[id: 1]?.count = 1
    #expect(seen.last == "1/1")
    #expect(m.state.other[id: 1]?.count == 4)
    m.state.other[id: 1]?.count = 8  // another copy of the same row, in another collection
    #expect(seen.last == "1/1")
    #expect(label.value == "1/1")
    _ = reader
  }
  // MARK: more reaction interplay

  @Test(
    "a child created in a flush reads a field that a later reaction of the same flush writes: the child shows the current value"
  )
  func childCreatedBeforeLaterWriter() {
    let m = H3Model()
    let kids = Box<[Reaction]>([])
    let kidSeen = Box<[Int]>([])
    let parent = Reaction("parent", ownedByParent: false) {
      if m.flag {
        kids.value.append(Reaction("kid", ownedByParent: false) { kidSeen.value.append(m.b) })
      }
    }
    let writer = Reaction("writer", ownedByParent: false) {
      if m.flag { m.b = 42 }
    }
    m.flag = true
    #expect(m.b == 42)
    #expect(kidSeen.value.last == 42, "kid shows \(kidSeen.value)")
    #expect(kids.value.first?.runCount == 2)
    _ = (parent, writer)
    kids.value.forEach { $0.cancel() }
  }

  @Test(
    "a reaction creates a reaction inside a transaction nested in its body, then writes what the new one read: it shows the write"
  )
  func createInsideNestedTransaction() {
    let m = H3Model()
    m.state = H3State(ids: [1])
    let kids = Box<[Reaction]>([])
    let kidSeen = Box<[Int?]>([])
    let parent = Reaction("parent", ownedByParent: false) {
      guard m.flag else { return }
      transaction {
        kids.value.append(Reaction("kid", ownedByParent: false) { kidSeen.value.append(m.state.items[id: 1]?.count) })
        m.state.items[id: 1]?.count = 1  // a write through _modify: not a read of count
      }
    }
    m.flag = true
    #expect(m.state.items[id: 1]?.count == 1)
    #expect(kidSeen.value.last == 1, "\(kidSeen.value)")
    #expect(kidSeen.value == [0, 1])
    #expect(kids.value.count == 1, "the parent did not re-run: \(parent.runCount) runs")
    _ = parent
    kids.value.forEach { $0.cancel() }
  }

  @Test(
    "a reaction that restores an older copy of a row (value comes back) in its body: other readers of that row are current"
  )
  func reactionRestoresOlderCopy() {
    let m = H3Model()
    m.state = H3State(ids: [1, 2])
    m.state.items[id: 1]?.count = 5
    let saved = m.state.items[id: 1]!
    let restorer = Reaction("restorer", ownedByParent: false) {
      if m.flag {
        m.state.items[id: 1] = saved
      }
    }
    var seen: [Int?] = []
    let row = Reaction("row", ownedByParent: false) { seen.append(m.state.items[id: 1]?.count) }
    m.state.items[id: 1] = H3Item(id: 1, count: 9)
    #expect(seen.last == 9)
    transaction {
      m.state.items[id: 1]?.count = 10
      m.flag = true
    }
    #expect(m.state.items[id: 1]?.count == 5)
    #expect(seen.last == 5, "\(seen)")
    _ = (restorer, row)
  }

  @Test(
    "a derived value read inside a reaction that writes one of the derived's inputs: settles and shows the final value")
  func derivedInputWrittenByReader() {
    let m = H3Model()
    let double = Derived("double") { m.a * 2 }
    var seen: [Int] = []
    let r = Reaction("r", ownedByParent: false) {
      let d = double.value
      seen.append(d)
      if d < 10 { m.a += 1 }
    }
    #expect(m.a == 5)
    #expect(seen.last == 10, "\(seen)")
    m.a = 1
    #expect(m.a == 5)
    #expect(seen.last == 10)
    _ = r
  }
}
