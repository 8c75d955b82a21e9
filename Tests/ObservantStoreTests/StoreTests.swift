import Observant
import ObservantStore
import ObservantTestSupport
import Synchronization
import Testing

@MainActor
@Suite("Store")
struct StoreTests {
  private func listStore(_ rows: some Sequence<Int>) -> (Store<ListFeature.State, ListFeature.Action>, StoreDiagnostics)
  {
    let diagnostics = StoreDiagnostics(printing: false)
    return (
      Store(initialState: ListFeature.State(rows: rows), reducer: ListFeature.reduce, diagnostics: diagnostics),
      diagnostics
    )
  }

  @Test("send runs the reducer in place and re-runs a reader once")
  func sendAndRead() {
    let store = Store(initialState: CounterFeature.State(), reducer: CounterFeature.reduce)
    let label = Reaction("Label") { _ = store.count }
    store.send(.increment)
    store.send(.increment)
    #expect(store.count == 2)
    #expect(label.runCount == 3)
  }

  @Test("reads through a store are tracked at field granularity")
  func fieldGranularity() {
    let (store, _) = listStore(1...3)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let row = rows[1]
    let (_, log) = recordAccesses { _ = row.count }
    // The row store's identity slot and the row's field: nothing of the list.
    #expect(log.fields == ["Store<State, Action>.state", "State.count"])
  }

  @Test("scoping twice returns the same store: child, optional, and collection element by id")
  func scopesAreCached() {
    let (store, _) = listStore(1...3)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    #expect(rows[0] === store.scope(state: \.rows, action: ListFeature.Action.row)[0])
    #expect(rows.store(id: 2) === rows[1])
    store.send(.row(id: 1, action: .showChild))
    let child = rows[0].scope(state: \.child, action: RowFeature.Action.child)
    #expect(child != nil)
    #expect(child === rows[0].scope(state: \.child, action: RowFeature.Action.child))
  }

  @Test("reading a row store does not subscribe the reader to the collection or to other rows")
  func rowReadsAreIsolated() {
    let (store, _) = listStore(1...3)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let row3 = rows[2]
    let reader = Reaction { _ = row3.count }
    store.send(.row(id: 2, action: .increment))  // another row
    store.send(.add(4))  // the collection's structure
    store.send(.move(from: 0, to: 1))
    #expect(reader.runCount == 1)
    store.send(.row(id: 3, action: .increment))
    #expect(reader.runCount == 2)
    #expect(row3.count == 1)
  }

  @Test("a row store's readers hear when the row is replaced by a new value with the same id")
  func replacedRow() {
    let (store, diagnostics) = listStore(1...3)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let row2 = rows[1]
    let reader = Reaction { _ = row2.count }
    store.send(.replace(2))
    #expect(reader.runCount == 2)
    #expect(row2.count == 100)
    #expect(row2.isValid)
    #expect(store.scope(state: \.rows, action: ListFeature.Action.row)[1] === row2)
    store.send(.row(id: 2, action: .increment))  // the new value's field
    #expect(reader.runCount == 3)
    #expect(diagnostics.all.isEmpty)
  }

  @Test(
    "removing a row invalidates its store: last value readable, sends dropped and reported, readers quiet, cache forgets"
  )
  func removedRow() {
    let (store, diagnostics) = listStore(1...3)
    var rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let row2 = rows[1]
    store.send(.row(id: 2, action: .increment))
    let reader = Reaction { _ = row2.count }
    store.send(.remove(2))
    #expect(!row2.isValid)
    #expect(row2.count == 1)  // the last valid value
    row2.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(diagnostics.all.first?.message.contains("increment") == true)
    #expect(store.rows.count == 2)  // nothing reached the reducer
    #expect(reader.runCount == 1)
    store.send(.add(2))  // the same id later gets a fresh store
    rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    #expect(rows[2] !== row2)
    #expect(rows[2].isValid)
    #expect(rows[2].count == 0)
  }

  @Test("descendants of an invalid store are invalid")
  func descendantsInvalidated() {
    let (store, diagnostics) = listStore(1...2)
    let row1 = store.scope(state: \.rows, action: ListFeature.Action.row)[0]
    row1.send(.showChild)
    let child = row1.scope(state: \.child, action: RowFeature.Action.child)!
    child.send(.increment)
    #expect(child.count == 1)  // what a view would have shown
    store.send(.remove(1))
    #expect(!row1.isValid)
    #expect(!child.isValid)
    #expect(child.count == 1)
    child.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
  }

  @Test("an optional child: present, mutate, replace in place")
  func optionalChild() {
    let (store, _) = listStore([1])
    let row = store.scope(state: \.rows, action: ListFeature.Action.row)[0]
    #expect(row.scope(state: \.child, action: RowFeature.Action.child) == nil)
    let presence = Reaction("presence") { _ = row.scope(state: \.child, action: RowFeature.Action.child) != nil }
    row.send(.showChild)
    #expect(presence.runCount == 2)
    let child = row.scope(state: \.child, action: RowFeature.Action.child)!
    let label = Reaction("label") { _ = child.count }
    child.send(.increment)
    #expect((presence.runCount, label.runCount) == (2, 2))
    #expect(row.child?.count == 1)
    store.send(.row(id: 1, action: .child(.reset)))  // replaced in place: `state = State()`
    #expect(label.runCount == 3)
    #expect(child.count == 0)
    #expect(child.isValid)
  }

  @Test("a sibling's change does not reach the other sibling's store readers")
  func siblings() {
    let (store, _) = listStore(1...2)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let (first, second) = (rows[0], rows[1])
    let firstReader = Reaction { _ = first.count }
    let secondReader = Reaction { _ = second.count }
    store.send(.row(id: 1, action: .increment))
    #expect((firstReader.runCount, secondReader.runCount) == (2, 1))
  }

  @Test("replacing the whole root state notifies readers of every field, through the root store")
  func rootReplacement() {
    let store = Store(initialState: CounterFeature.State(count: 5), reducer: CounterFeature.reduce)
    let label = Reaction { _ = store.count }
    store.send(.reset)
    #expect(label.runCount == 2)
    #expect(store.count == 0)
    store.send(.increment)  // the new state's field
    #expect(label.runCount == 3)
  }

  @Test(
    "an element store accessed at a position whose row was removed does not crash: it is invalid and shows the snapshot"
  )
  func staleSnapshotPosition() {
    let (store, diagnostics) = listStore(1...3)
    let snapshot = store.scope(state: \.rows, action: ListFeature.Action.row)
    store.send(.removeAll)
    let stale = snapshot[2]
    #expect(!stale.isValid)
    #expect(stale.id == 3)
    #expect(stale.state.id == 3)
    stale.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(snapshot.store(at: 3) == nil)
    #expect(snapshot.store(at: -1) == nil)
  }

  @Test("a StoreCollection creates element stores only for the elements accessed")
  func lazyElementStores() {
    let (store, _) = listStore(1...10)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let firstThree = rows.prefix(3).map(ObjectIdentifier.init)
    #expect(firstThree.count == 3)
    #expect(rows.prefix(3).map(ObjectIdentifier.init) == firstThree)  // cached: the same stores again
  }

  @Test("effects: .send is processed after the action, .run can send back, and actions sent while busy are queued")
  func effects() async {
    enum Feature {
      struct State: ObservableState {
        var registrar = StateRegistrar<Self>()
        private var _log = StateField<[String]>([])
        var log: [String] {
          get { registrar.read(_log) }
          set { registrar.write(&_log, newValue) }
        }
        init() {}
      }
      enum Action: Sendable { case start, follow, fetched(Int) }
      static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
        switch action {
        case .start:
          state.log.append("start")
          return .merge(.send(.follow), .run { send in await send(.fetched(42)) })
        case .follow:
          state.log.append("follow")
          return .none
        case .fetched(let value):
          state.log.append("fetched \(value)")
          return .none
        }
      }
    }
    let store = Store(initialState: Feature.State(), reducer: Feature.reduce)
    store.send(.start)
    #expect(store.log == ["start", "follow"])
    _ = await waitUntil { store.log.count >= 3 }
    #expect(store.log == ["start", "follow", "fetched 42"])
  }

  @Test("Effect.map on a .run effect applies the maps in order to every action sent back; maps of one effect branch")
  func mappedRunEffect() async {
    enum Feature {
      enum Action: Sendable { case start, value(Int) }
      static func reduce(_ state: inout [Int], _ action: Action) -> Effect<Action> {
        switch action {
        case .start:
          let base = Effect<Int>.run { send in
            await send(1)
            await send(2)
          }
          let tens = base.map { $0 * 10 }
          return .merge(tens.map { $0 + 1 }.map(Action.value), tens.map { -$0 }.map(Action.value))
        case .value(let value):
          state.append(value)
          return .none
        }
      }
    }
    let store = Store(initialState: [Int](), reducer: Feature.reduce)
    store.send(.start)
    _ = await waitUntil { store.state.count >= 4 }
    #expect(store.state.sorted() == [-20, -10, 11, 21])
    #expect(store.state.filter { $0 > 0 } == [11, 21])
  }

  @Test("a send from a reaction while the store is busy is queued, not nested")
  func reentrantSendFromReaction() {
    let store = Store(initialState: CounterFeature.State(), reducer: CounterFeature.reduce)
    let seen = Mutex<[Int]>([])
    let echo = Reaction {
      let count = store.count
      seen.withLock { $0.append(count) }
      if count == 1 { store.send(.increment) }
    }
    store.send(.increment)
    #expect(store.count == 2)
    #expect(seen.withLock { $0 } == [0, 1, 2])
    withExtendedLifetime(echo) {}
  }

  @Test("deallocating the root store cancels its running effects")
  func deinitCancelsEffects() async {
    enum Feature {
      struct State {}
      enum Action: Sendable { case start }
    }
    final class Flags: Sendable {
      let cancelled = Atomic<Bool>(false)
      let started = Atomic<Bool>(false)
    }
    let flags = Flags()
    do {
      let store = Store<Feature.State, Feature.Action>(initialState: Feature.State()) { _, _ in
        .run { _ in
          flags.started.store(true, ordering: .relaxed)
          // Waits without spinning (a task spinning on `Task.yield()` kept one of the pool's two
          // threads from the other tests and timed out on a loaded machine): cancellation ends
          // the sleep, and the handler records it.
          await withTaskCancellationHandler {
            try? await Task.sleep(for: .seconds(3_600))
          } onCancel: {
            flags.cancelled.store(true, ordering: .relaxed)
          }
        }
      }
      store.send(.start)
      // Bounded by time (under a sanitizer on a loaded machine the effect's task may take long to
      // start); `waitUntil` sleeps between looks.
      _ = await waitUntil { flags.started.load(ordering: .relaxed) }
    }
    _ = await waitUntil { flags.cancelled.load(ordering: .relaxed) }
    let wasCancelled = flags.cancelled.load(ordering: .relaxed)
    #expect(wasCancelled)
  }

  @Test("a scoped store keeps its root alive: Store(...).scope(...) on its own receives and processes sends")
  func scopedStoreKeepsRootAlive() {
    let diagnostics = StoreDiagnostics(printing: false)
    let row = Store(initialState: ListFeature.State(rows: [1]), reducer: ListFeature.reduce, diagnostics: diagnostics)
      .scope(state: \.rows, action: ListFeature.Action.row)[0]
    let reader = Reaction { _ = row.count }
    row.send(.increment)
    #expect(diagnostics.all.isEmpty)
    #expect(row.count == 1)
    #expect(reader.runCount == 2)
    let child = Store(initialState: SiblingsFeature.State(), reducer: SiblingsFeature.reduce, diagnostics: diagnostics)
      .scope(state: \.first, action: SiblingsFeature.Action.first)
    child.send(.increment)
    #expect(child.count == 1)
    #expect(diagnostics.all.isEmpty)
  }

}
