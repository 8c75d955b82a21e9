import Foundation
import Observant
import ObservantStore
import Synchronization
import Testing

// Bad input, one test per rule: each gets a clear message or its documented behaviour, nothing
// crashes unless the API documents a precondition, and no state is lost.

/// A class with tracked fields, for reactions that write what they (or others) read.
private final class Gauge: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var level = 0
  @Tracked var limit = 10
  @Tracked var isRunning = false
}

/// Collects reaction diagnostics raised while `body` runs, with flushes bounded by `rounds`.
private func collectingReactionDiagnostics(rounds: Int = 10, _ body: () -> Void) -> [ReactionDiagnostic] {
  let diagnostics = Mutex<[ReactionDiagnostic]>([])
  Reaction.withDiagnosticHandler({ diagnostic in diagnostics.withLock { $0.append(diagnostic) } }) {
    Reaction.$maximumFlushRounds.withValue(rounds) { body() }
  }
  return diagnostics.withLock { $0 }
}

/// A JSON array of rows (`{"id": …}` objects).
private func rowsJSON(_ ids: [Int]) -> Data {
  Data("[\(ids.map { "{\"id\": \($0)}" }.joined(separator: ", "))]".utf8)
}

/// A plain, decodable row, for the Codable rule.
private struct DecodedRow: Identifiable, Codable, Equatable {
  let id: Int
}

@MainActor
@Suite("Bad input")
struct BadInputTests {
  private func listStore(_ rows: some Sequence<Int>) -> (Store<ListFeature.State, ListFeature.Action>, StoreDiagnostics)
  {
    let diagnostics = StoreDiagnostics(printing: false)
    return (
      Store(initialState: ListFeature.State(rows: rows), reducer: ListFeature.reduce, diagnostics: diagnostics),
      diagnostics
    )
  }

  // MARK: Duplicate ids

  @Test("duplicate ids, keeping the first: the first element of each id stays, with its state and identity")
  func duplicateIDsKeepFirst() {
    let first = RowFeature.State(id: 1, count: 5)
    let rows = IdentifiedArray(keepingFirstOf: [
      first, RowFeature.State(id: 2, count: 2), RowFeature.State(id: 1, count: 7),
    ])
    #expect(rows.ids.elements == [1, 2])
    #expect(rows[id: 1]?.count == 5)
    #expect(rows[id: 1]?.observableStateID == first.observableStateID)
    // In a store: the kept row's store shows it, and its readers hear its changes.
    var state = ListFeature.State()
    state.rows = rows
    let store = Store(initialState: state, reducer: ListFeature.reduce, diagnostics: StoreDiagnostics(printing: false))
    let row = store.scope(state: \.rows, action: ListFeature.Action.row)[0]
    let reader = Reaction { _ = row.count }
    store.send(.row(id: 1, action: .increment))
    #expect(row.count == 6)
    #expect(reader.runCount == 2)
  }

  @Test("duplicate ids, merging: duplicates merge into the first element's position, keeping its identity")
  func duplicateIDsMerge() {
    let first = RowFeature.State(id: 1, count: 5)
    let rows = IdentifiedArray([first, RowFeature.State(id: 2, count: 2), RowFeature.State(id: 1, count: 7)]) {
      kept, duplicate in
      var merged = kept
      merged.count += duplicate.count
      return merged
    }
    #expect(rows.ids.elements == [1, 2])
    #expect(rows.map(\.count) == [12, 2])
    #expect(rows[id: 1]?.observableStateID == first.observableStateID)
  }

  @Test("duplicate ids, decoding: throws an error naming the id and both offsets; the current value is kept")
  func duplicateIDsDecoding() throws {
    var rows = try JSONDecoder().decode(IdentifiedArrayOf<DecodedRow>.self, from: rowsJSON([1, 2, 3]))
    let before = rows
    do {
      rows = try JSONDecoder().decode(IdentifiedArrayOf<DecodedRow>.self, from: rowsJSON([4, 5, 4]))
      Issue.record("decoding duplicates did not throw")
    } catch let DecodingError.dataCorrupted(context) {
      #expect(context.debugDescription == "Duplicate id 4 at offset 2 of an IdentifiedArray (first at offset 0)")
    } catch {
      Issue.record("unexpected error \(error)")
    }
    #expect(rows == before)
  }

  // MARK: Ids changed through positional writes

  @Test("an id changed through a positional write stops the program, naming the position and both ids")
  func idChangedThroughPositionalWrite() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      await MainActor.run {
        // A reducer that writes a row with another id at position 0 (documented as a precondition).
        let store = Store<ListFeature.State, ListFeature.Action>(initialState: ListFeature.State(rows: [1, 2])) {
          state, _ in
          state.rows[0] = RowFeature.State(id: 9)
          return .none
        }
        store.send(.reset)
      }
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains("IdentifiedArray[0] cannot change an element's id from 1 to 9"))
  }

  @Test("an id changed through a positional in-place mutation stops the program, naming both ids")
  func idChangedThroughPositionalModify() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      struct Editable: Identifiable { var id: Int }
      var rows: IdentifiedArrayOf<Editable> = [Editable(id: 1), Editable(id: 2)]
      rows[1].id = 3
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains("IdentifiedArray[1] cannot change an element's id from 2 to 3"))
  }

  // MARK: Stale stores and kept roots

  @Test(
    "a send to a stale store is dropped and reported with a message naming the action and the store; no state changes")
  func sendToStaleStore() {
    let (store, diagnostics) = listStore(1...3)
    let row2 = store.scope(state: \.rows, action: ListFeature.Action.row)[1]
    store.send(.row(id: 1, action: .increment))
    store.send(.remove(2))
    let commits = diagnostics.commits
    row2.send(.increment)
    row2.send(.showChild)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 2)
    let message = diagnostics.all.first?.message ?? ""
    #expect(message.contains("dropped action increment sent to invalid store root."))
    #expect(message.contains("[id: 2] (State): its state is gone."))
    #expect(message.contains("root.rows[id: 2]"), "\(message)")
    #expect(diagnostics.commits == commits)  // nothing reached the reducer
    #expect(store.rows.map(\.id) == [1, 3])
    #expect(store.rows.map(\.count) == [1, 0])
    #expect(row2.count == 0)
    #expect(row2.child == nil)
  }

  @Test("diagnostics name a store by the fields that lead to it, through child, optional, enum and collection scopes")
  func diagnosticPaths() {
    let (store, diagnostics) = listStore(1...3)
    let row2 = store.scope(state: \.rows, action: ListFeature.Action.row)[1]
    row2.send(.showChild)
    let child = row2.scope(state: \.child, action: RowFeature.Action.child)
    store.send(.remove(2))
    child?.send(.increment)
    let message = diagnostics.all.last?.message ?? ""
    #expect(message.contains("invalid store root.rows[id: 2].child (State)"), "\(message)")

    let destinations = Store(
      initialState: DestinationFeature.State(), reducer: DestinationFeature.reduce, diagnostics: diagnostics)
    destinations.send(.showDetail)
    let detail = destinations.scope(state: \.destination?.detail, action: DestinationFeature.Action.detail)
    destinations.send(.dismiss)
    detail?.send(.increment)
    // The enum case's payload accessor is a plain computed property: it has no tracked name.
    #expect(diagnostics.all.last?.message.contains("invalid store root.destination?.<computed> (State)") == true)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 2)
  }

  @Test("a row store outliving every reference to its root store keeps the root alive: sends still work")
  func rowStoreKeepsRootAlive() {
    let diagnostics = StoreDiagnostics(printing: false)
    var row: Store<RowFeature.State, RowFeature.Action>?
    weak var root: Store<ListFeature.State, ListFeature.Action>?
    do {
      let store = Store(
        initialState: ListFeature.State(rows: [1, 2]), reducer: ListFeature.reduce, diagnostics: diagnostics)
      root = store
      row = store.scope(state: \.rows, action: ListFeature.Action.row)[1]
      row?.send(.increment)
    }
    // The root store object may go (nothing holds it), but its state and reducer live on in the
    // row store's tree.
    withExtendedLifetime(root) {}
    row?.send(.increment)
    #expect(diagnostics.all.isEmpty)
    #expect(row?.isValid == true)
    #expect(row?.count == 2)
    #expect(row?.state.id == 2)
    #expect(diagnostics.commits == 2)
  }

  // The root store's handle on its collection scope keeps the row stores (so that scoping twice
  // returns the same store); when it goes with the root store, the scope holds the row stores'
  // cores weakly: rows removed or replaced later still reach the stores someone kept, and the
  // stores nobody keeps go.
  @Test("row stores kept after their root store object is gone are still examined, and go when let go of")
  func rowStoresOutlivingTheRootStoreObject() {
    let diagnostics = StoreDiagnostics(printing: false)
    var first: Store<RowFeature.State, RowFeature.Action>?
    var second: Store<RowFeature.State, RowFeature.Action>?
    weak var root: Store<ListFeature.State, ListFeature.Action>?
    do {
      let store = Store(
        initialState: ListFeature.State(rows: [1, 2]), reducer: ListFeature.reduce, diagnostics: diagnostics)
      root = store
      // A row can ask the root to remove or replace it.
      let rows = store.scope(
        state: \.rows,
        action: { (id: Int, action: RowFeature.Action) -> ListFeature.Action in
          switch action {
          case .showChild: .remove(id)
          case .dismissChild: .replace(id)
          default: .row(id: id, action: action)
          }
        })
      first = rows[0]
      second = rows[1]
    }
    #expect(root == nil)
    let reader = Reaction { _ = second?.count }
    second?.send(.dismissChild)  // row 2 replaced by a new value
    #expect(reader.runCount == 2)
    #expect(second?.count == 100)
    first?.send(.showChild)  // row 1 removed
    #expect(first?.isValid == false)
    #expect(second?.isValid == true)
    #expect(diagnostics.all.isEmpty)
    weak let released = second
    second = nil
    #expect(released == nil, "nothing holds a row store nobody keeps")
    withExtendedLifetime(reader) {}
  }

  // MARK: Reads of removed rows

  @Test("reading a removed row returns its last value and records nothing")
  func readsOfRemovedRows() {
    let (store, diagnostics) = listStore(1...3)
    let row3 = store.scope(state: \.rows, action: ListFeature.Action.row)[2]
    store.send(.row(id: 3, action: .increment))
    store.send(.row(id: 3, action: .increment))
    let reader = Reaction { _ = row3.count }
    store.send(.remove(3))
    #expect(!row3.isValid)
    #expect(row3.count == 2)
    #expect(row3.state.count == 2)
    #expect(row3.state.id == 3)
    let (_, log) = recordAccesses { _ = (row3.count, row3.state.id, row3.child) }
    #expect(log.isEmpty)
    #expect(reader.runCount == 1)  // not re-run by the removal: it shows the last value, still true
    store.send(.add(3))  // a new row 3: the old store does not follow it
    #expect(row3.count == 2)
    #expect(reader.runCount == 1)
    #expect(diagnostics.all.isEmpty)
  }

  @Test("an invalid store shows the last state read or committed through it, not later changes nobody read")
  func readsOfRemovedRowsNobodyRead() {
    let (store, _) = listStore(1...3)
    let row3 = store.scope(state: \.rows, action: ListFeature.Action.row)[2]
    let row2 = store.scope(state: \.rows, action: ListFeature.Action.row)[1]
    row2.send(.showChild)
    let child = row2.scope(state: \.child, action: RowFeature.Action.child)!
    store.send(.row(id: 3, action: .increment))
    #expect(row3.count == 1)  // read through the store: what a view showing it displays
    store.send(.row(id: 3, action: .increment))
    child.send(.increment)
    store.send(.remove(3))
    row2.send(.dismissChild)
    #expect(!row3.isValid && !child.isValid)
    #expect(row3.state.id == 3)
    // Documented (Store.state, README "Store and scoping"): a row mutated in place examines no
    // store, so a store not read since keeps the state it last read. DESIGN.md's "last valid
    // value" would need the state from before each commit, which the store does not keep (a
    // copy would make the next in-place mutation of the rows copy the whole array).
    #expect(row3.count == 1)
    #expect(child.count == 0)
  }

  // MARK: Re-entrant sends

  @Test("sends from inside a reducer are queued and processed after it, in the order sent")
  func reentrantSendFromReducer() {
    final class StoreBox { weak var store: Store<ListFeature.State, ListFeature.Action>? }
    let box = StoreBox()
    var processed: [ListFeature.Action] = []
    var countsSeenByReducer: [Int] = []
    let store = Store<ListFeature.State, ListFeature.Action>(initialState: ListFeature.State(rows: [1])) {
      state, action in
      processed.append(action)
      countsSeenByReducer.append(state.rows.count)
      if action == .add(2) {
        box.store?.send(.add(3))
        box.store?.send(.row(id: 3, action: .increment))
        box.store?.send(.add(4))
        countsSeenByReducer.append(state.rows.count)  // nothing was processed in between
      }
      return ListFeature.reduce(&state, action)
    }
    box.store = store
    let reader = Reaction { _ = store.rows.count }
    store.send(.add(2))
    #expect(processed == [.add(2), .add(3), .row(id: 3, action: .increment), .add(4)])
    #expect(countsSeenByReducer == [1, 1, 2, 3, 3])
    #expect(store.rows.map(\.id) == [1, 2, 3, 4])
    #expect(store.rows.map(\.count) == [0, 0, 1, 0])
    #expect(reader.runCount == 2)  // created, then once for the send: its four actions are one round
  }

  @Test("sends from a reaction are queued behind the action being processed, in the order sent")
  func reentrantSendFromReaction() {
    let (store, diagnostics) = listStore([1])
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    var seen: [[Int]] = []
    let follower = Reaction("follower") {
      let ids = store.rows.map(\.id)
      seen.append(ids)
      // When row 2 appears, add 3 and increment 2: both queued behind the current action.
      if ids == [1, 2] {
        store.send(.add(3))
        rows.store(id: 1)?.send(.increment)
      }
    }
    store.send(.add(2))
    #expect(seen == [[1], [1, 2], [1, 2, 3]])
    #expect(store.rows.map(\.id) == [1, 2, 3])
    #expect(store.rows.map(\.count) == [1, 0, 0])
    #expect(follower.runCount == 3)
    #expect(diagnostics.all.isEmpty)
  }

  // MARK: Runaway loops

  @Test(
    "a runaway reaction loop stops with a diagnostic naming the reactions; state stays consistent and a later change re-runs normally"
  )
  func runawayReactionLoop() {
    let gauge = Gauge()
    var ping: Reaction?
    var pong: Reaction?
    let diagnostics = collectingReactionDiagnostics(rounds: 10) {
      // Each reaction raises `level` past what the other just wrote: they never agree.
      ping = Reaction("ping") { if gauge.isRunning { gauge.limit = gauge.level + 1 } }
      pong = Reaction("pong") { if gauge.isRunning { gauge.level = gauge.limit + 1 } }
      gauge.isRunning = true
    }
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.kind == .runawayFlush)
    #expect(diagnostics.first?.message.contains("did not settle after 10 rounds") == true)
    #expect(diagnostics.first?.reactionNames == ["ping"])  // pong ran last: ping was left dirty
    // Consistent: the values are what the last runs wrote, both reactions still observe.
    #expect(gauge.level == gauge.limit + 1)
    #expect(ping?.isCancelled == false && pong?.isCancelled == false)
    #expect(gauge.trackingRegistrar.observerEntryCount == 4)  // isRunning by both, level by ping, limit by pong
    let runs = (ping?.runCount ?? 0, pong?.runCount ?? 0)
    let later = collectingReactionDiagnostics {
      gauge.isRunning = false  // a later change: each re-runs once and the loop is over
    }
    #expect(later.isEmpty)
    #expect((ping?.runCount ?? 0, pong?.runCount ?? 0) == (runs.0 + 1, runs.1 + 1))
  }

  @Test("a reaction that sends to its store on every run stops with a diagnostic instead of looping forever")
  func runawaySendLoop() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(initialState: CounterFeature.State(), reducer: CounterFeature.reduce, diagnostics: diagnostics)
    // A safety valve, so that the test ends: a loop that is not stopped runs this many actions.
    let valve = 2_000
    var enabled = false
    let reactionDiagnostics = collectingReactionDiagnostics(rounds: 100) {
      let echo = Reaction("echo") {
        let count = store.count
        if enabled && count < valve { store.send(.increment) }
      }
      enabled = true
      store.send(.increment)
      withExtendedLifetime(echo) {}
    }
    // Every action that ran was committed; the send stopped after the store's maximum of rounds
    // of actions sent by reactions (100 by default): the action sent, then one per round.
    #expect(store.count == diagnostics.commits)
    #expect(store.count == 101)
    #expect(reactionDiagnostics.isEmpty)
    #expect(diagnostics.count(of: .runawayActions) == 1)
    let message = diagnostics.all.last?.message ?? ""
    #expect(message.contains("one send to root (State) did not settle"), "\(message)")
    #expect(message.contains("in 100 rounds in a row"), "\(message)")
    #expect(message.contains("sent by \"echo\""), "\(message)")
    #expect(message.contains("dropped the 1 they sent last (increment)"), "\(message)")
    // The loop is over, and the store works as before.
    enabled = false
    store.send(.increment)
    #expect(store.count == 102)
    #expect(diagnostics.count(of: .runawayActions) == 1)
  }

  @Test("a store's maximumActionsPerSend bounds one send; chains below it run to the end")
  func maximumActionsPerSend() {
    let diagnostics = StoreDiagnostics(printing: false)
    // .increment sends .increment again through an effect until the count reaches `target`.
    func chain(to target: Int) -> (inout CounterFeature.State, CounterFeature.Action) -> Effect<CounterFeature.Action> {
      { state, action in
        _ = CounterFeature.reduce(&state, action)
        return state.count < target ? .send(.increment) : .none
      }
    }
    let short = Store(
      initialState: CounterFeature.State(), reducer: chain(to: 10), diagnostics: diagnostics, maximumActionsPerSend: 10)
    short.send(.increment)
    #expect(short.count == 10)
    #expect(diagnostics.all.isEmpty)
    let long = Store(
      initialState: CounterFeature.State(), reducer: chain(to: 50), diagnostics: diagnostics, maximumActionsPerSend: 10)
    long.send(.increment)
    #expect(long.count == 10)
    #expect(diagnostics.count(of: .runawayActions) == 1)
    long.send(.increment)  // a new send: a new budget
    #expect(long.count == 20)
    #expect(diagnostics.count(of: .runawayActions) == 2)
  }

  // MARK: Cancellation during a flush

  @Test("cancellation during a flush: a reaction cancelled by an earlier reaction in the same flush does not run")
  func cancelledByEarlierReactionInFlush() {
    let (store, _) = listStore([1, 2])
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let (row1, row2) = (rows[0], rows[1])
    var victim: Reaction?
    let killer = Reaction("killer") { if row1.count > 0 { victim?.cancel() } }
    victim = Reaction("victim") { _ = (row1.count, row2.count) }
    store.send(.row(id: 1, action: .increment))  // dirties both, killer runs first
    #expect(killer.runCount == 2)
    #expect(victim?.runCount == 1)
    #expect(victim?.isCancelled == true)
    store.send(.row(id: 2, action: .increment))
    #expect(victim?.runCount == 1)
    #expect(store.rows.map(\.count) == [1, 1])  // the action itself was committed
  }

  @Test("cancellation during a flush: cancelling the running reaction lets that run finish, and it never runs again")
  func cancellingTheRunningReaction() {
    let (store, _) = listStore([1])
    let row = store.scope(state: \.rows, action: ListFeature.Action.row)[0]
    var seen: [Int] = []
    var handle: Reaction?
    let reaction = Reaction("self-cancelling") {
      let count = row.count
      if count == 1 { handle?.cancel() }
      seen.append(row.count)  // the run goes on after the cancellation
    }
    handle = reaction
    let watcher = Reaction("watcher") { _ = row.count }  // a later reaction in the same flush still runs
    store.send(.row(id: 1, action: .increment))
    store.send(.row(id: 1, action: .increment))
    #expect(seen == [0, 1])
    #expect(reaction.runCount == 2)
    #expect(reaction.isCancelled)
    #expect(reaction.lastAccessLog.isEmpty)
    #expect(watcher.runCount == 3)
    #expect(row.count == 2)
    handle = nil
  }

  // MARK: A reaction writing what it reads

  @Test("mutation from a reaction of the state it reads settles when idempotent: one extra run, no diagnostic")
  func reactionWritingWhatItReadsSettles() {
    let gauge = Gauge()
    var clamp: Reaction?
    let diagnostics = collectingReactionDiagnostics {
      clamp = Reaction("clamp") { if gauge.level > gauge.limit { gauge.level = gauge.limit } }
      gauge.level = 25  // clamp runs, writes 10, runs again, writes nothing
    }
    #expect(diagnostics.isEmpty)
    #expect(gauge.level == 10)
    #expect(clamp?.runCount == 3)  // creation, 25, 10
    gauge.level = 5  // within the limit: one run, no write
    #expect(clamp?.runCount == 4)
    #expect(gauge.level == 5)
  }

  @Test(
    "mutation from a reaction of the state it reads that never settles stops with a runaway diagnostic; a later change re-runs it normally"
  )
  func reactionWritingWhatItReadsRunsAway() {
    let gauge = Gauge()
    var counter: Reaction?
    let diagnostics = collectingReactionDiagnostics(rounds: 10) {
      counter = Reaction("counter") {
        let level = gauge.level
        if gauge.isRunning { gauge.level = level + 1 }
      }
      gauge.isRunning = true
    }
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.reactionNames == ["counter"])
    #expect(diagnostics.first?.message.contains("did not settle after 10 rounds") == true)
    // Ten rounds ran (each writing one more), then the flush stopped: nothing half-applied.
    #expect(gauge.level == 10)
    #expect(counter?.runCount == 11)
    #expect(counter?.isCancelled == false)
    #expect(gauge.trackingRegistrar.observerEntryCount == 2)
    let later = collectingReactionDiagnostics(rounds: 10) { gauge.isRunning = false }
    #expect(later.isEmpty)
    #expect(counter?.runCount == 12)
    #expect(gauge.level == 10)
  }
}
