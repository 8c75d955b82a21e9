import Observant
import ObservantHarness
import ObservantStore
import Testing

// The store rules TCA users rely on, one test per rule: a scoped store keeps its root, plain state
// compares with `==`, a send re-runs readers once, bursts run and runaways stop, and misuse gets a
// clear message (crashes are checked in child processes).

/// Plain, `Equatable` state: readers of it depend on the whole value.
private struct PlainCounter: Equatable {
  var count = 0
  var name = "counter"
}

private enum PlainAction: Sendable {
  case increment
  case rename(String)
  case nothing
}

private func reducePlain(_ state: inout PlainCounter, _ action: PlainAction) -> Effect<PlainAction> {
  switch action {
  case .increment: state.count += 1
  case .rename(let name): state.name = name
  case .nothing: break
  }
  return .none
}

/// An enum root state.
private enum Screen: Equatable {
  case loading
  case loaded(Int)
}

private enum ScreenAction: Sendable {
  case load(Int)
  case reload  // writes the state it already has
  case nothing
}

private func reduceScreen(_ state: inout Screen, _ action: ScreenAction) -> Effect<ScreenAction> {
  switch action {
  case .load(let value): state = .loaded(value)
  case .reload:
    let same = state
    state = same
  case .nothing: break
  }
  return .none
}

/// Rows with a non-optional child, so that a child scope can be made below a row store.
enum CardsFeature {
  struct Card: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _front = StateField(CounterFeature.State())
    var front: CounterFeature.State {
      get { registrar.read(_front) }
      set { registrar.write(&_front, newValue) }
      _modify { yield &self[tracking: \._front] }
    }
    private var _notes = StateField<IdentifiedArrayOf<RowFeature.State>>([])
    var notes: IdentifiedArrayOf<RowFeature.State> {
      get { registrar.read(_notes) }
      set { registrar.write(&_notes, newValue) }
      _modify { yield &self[tracking: \._notes] }
    }
    init(id: Int) { self.id = id }
  }

  enum CardAction: Equatable, Sendable {
    case front(CounterFeature.Action)
    case note(id: Int, action: RowFeature.Action)
  }

  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _cards = StateField<IdentifiedArrayOf<Card>>([])
    var cards: IdentifiedArrayOf<Card> {
      get { registrar.read(_cards) }
      set { registrar.write(&_cards, newValue) }
      _modify { yield &self[tracking: \._cards] }
    }
    init(cards: some Sequence<Int>) { _cards = StateField(IdentifiedArray(uniqueElements: cards.map { Card(id: $0) })) }
  }

  enum Action: Equatable, Sendable {
    case remove(Int)
    case card(id: Int, action: CardAction)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .remove(let id): state.cards.remove(id: id)
    case .card(let id, .front(let action)):
      guard state.cards[id: id] != nil else { return .none }
      return CounterFeature.reduce(&state.cards[id: id]!.front, action).map { .card(id: id, action: .front($0)) }
    case .card(let id, .note(let noteID, let action)):
      guard state.cards[id: id]?.notes[id: noteID] != nil else { return .none }
      return RowFeature.reduce(&state.cards[id: id]!.notes[id: noteID]!, action).map {
        .card(id: id, action: .note(id: noteID, action: $0))
      }
    }
    return .none
  }
}

@MainActor
@Suite("Store semantics")
struct StoreSemanticsTests {
  private func listStore(_ rows: some Sequence<Int>) -> (Store<ListFeature.State, ListFeature.Action>, StoreDiagnostics)
  {
    let diagnostics = StoreDiagnostics(printing: false)
    return (
      Store(initialState: ListFeature.State(rows: rows), reducer: ListFeature.reduce, diagnostics: diagnostics),
      diagnostics
    )
  }

  // MARK: A scoped store keeps its parent alive

  @Test("a store scoped from a scoped store keeps the whole chain alive: sends reach the root's reducer")
  func scopeChainKeepsRootAlive() {
    let diagnostics = StoreDiagnostics(printing: false)
    weak var root: Store<CardsFeature.State, CardsFeature.Action>?
    weak var card: Store<CardsFeature.Card, CardsFeature.CardAction>?
    let front: Store<CounterFeature.State, CounterFeature.Action>
    do {
      let store = Store(
        initialState: CardsFeature.State(cards: [1, 2]), reducer: CardsFeature.reduce, diagnostics: diagnostics)
      root = store
      let cardStore = store.scope(state: \.cards, action: CardsFeature.Action.card)[1]
      card = cardStore
      front = cardStore.scope(state: \.front, action: CardsFeature.CardAction.front)
    }
    let reader = Reaction { _ = front.count }
    front.send(.increment)
    front.send(.increment)
    #expect(front.count == 2)
    #expect(reader.runCount == 3)
    #expect(diagnostics.all.isEmpty)
    #expect(diagnostics.commits == 2)
    _ = (root, card)
  }

  // MARK: Plain state compares with ==

  @Test("plain Equatable state: readers do not re-run when an action changed nothing")
  func plainEquatableState() {
    let store = Store(initialState: PlainCounter(), reducer: reducePlain)
    let label = Reaction { _ = store.count }
    store.send(.nothing)
    #expect(label.runCount == 1)
    store.send(.rename("counter"))  // the same value written again
    #expect(label.runCount == 1)
    store.send(.increment)
    #expect(label.runCount == 2)
    #expect(store.count == 1)
    // Plain state is read as a whole: a change of another field re-runs the reader too.
    store.send(.rename("other"))
    #expect(label.runCount == 3)
  }

  @Test("an enum root state whose action changed nothing re-runs nobody")
  func enumRootState() {
    let store = Store(initialState: Screen.loading, reducer: reduceScreen)
    let screen = Reaction { _ = store.state }
    store.send(.nothing)
    store.send(.reload)
    #expect(screen.runCount == 1)
    store.send(.load(3))
    #expect(screen.runCount == 2)
    store.send(.reload)
    store.send(.load(3))
    #expect(screen.runCount == 2)
    store.send(.load(4))
    #expect(screen.runCount == 3)
    #expect(store.state == .loaded(4))
  }

  // MARK: One re-run per send

  @Test("actions queued by .send effects and merges are committed in the send's round: readers re-run once")
  func effectChainRerunsOnce() {
    let store = Store<CounterFeature.State, CounterFeature.Action>(initialState: CounterFeature.State()) {
      state, action in
      _ = CounterFeature.reduce(&state, action)
      switch action {
      case .increment where state.count < 3: return .send(.increment)
      case .reset: return .merge([.send(.decrement), .send(.decrement), .none, .send(.decrement)])
      default: return .none
      }
    }
    let label = Reaction { _ = store.count }
    store.send(.increment)  // 1, then 2 and 3 through .send
    #expect(store.count == 3)
    #expect(label.runCount == 2)
    store.send(.reset)  // 0, then three decrements through a merge
    #expect(store.count == -3)
    #expect(label.runCount == 3)
    #expect(store.diagnostics.commits == 7)
  }

  @Test("actions sent by reactions make one more round: a reader re-runs once per round")
  func reactionSendsMakeRounds() {
    let (store, diagnostics) = listStore([1])
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    // When row 2 appears, a reaction adds row 3 and increments row 1 (one round, two actions).
    let follower = Reaction("follower") {
      if store.rows.ids.elements == [1, 2] {
        store.send(.add(3))
        rows.store(id: 1)?.send(.increment)
      }
    }
    let counter = Reaction("counter") { _ = store.rows.count }
    store.send(.add(2))
    #expect(store.rows.ids.elements == [1, 2, 3])
    #expect(follower.runCount == 3)  // created, [1, 2], [1, 2, 3]
    #expect(counter.runCount == 3)  // created, the send's round, the reaction's round
    #expect(diagnostics.all.isEmpty)
  }

  // MARK: Bursts and runaways

  @Test("a burst of 10,000 synchronous actions is processed, and readers re-run once")
  func burstOfTenThousandActions() {
    let diagnostics = StoreDiagnostics(printing: false)
    let reducer: (inout CounterFeature.State, CounterFeature.Action) -> Effect<CounterFeature.Action> = {
      state, action in
      _ = CounterFeature.reduce(&state, action)
      switch action {
      case .reset: return .merge((0..<10_000).map { _ in .send(.increment) })
      case .increment where state.count > 10_000 && state.count < 20_000: return .send(.increment)
      default: return .none
      }
    }
    let store = Store(initialState: CounterFeature.State(), reducer: reducer, diagnostics: diagnostics)
    let label = Reaction { _ = store.count }
    store.send(.reset)  // a merge of 10,000 sends
    #expect(store.count == 10_000)
    #expect(label.runCount == 2)
    store.send(.increment)  // a chain of 10,000 sends, each queued by the one before
    #expect(store.count == 20_000)
    #expect(label.runCount == 3)
    #expect(diagnostics.all.isEmpty)
    #expect(diagnostics.commits == 1 + 10_000 + 10_000)
  }

  @Test("a reaction that sends 10,000 actions in one run is processed: one round")
  func reactionBurst() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(initialState: CounterFeature.State(), reducer: CounterFeature.reduce, diagnostics: diagnostics)
    var armed = true
    let burst = Reaction("burst") {
      if store.count == 1 && armed {
        armed = false
        for _ in 0..<10_000 { store.send(.increment) }
      }
    }
    store.send(.increment)
    #expect(store.count == 10_001)
    #expect(burst.runCount == 3)
    #expect(diagnostics.all.isEmpty)
  }

  // MARK: Scopes below invalid stores

  @Test("a store scoped from an invalid store is invalid, and its dropped sends name its own path")
  func scopeOfInvalidStore() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: CardsFeature.State(cards: [1, 2]), reducer: CardsFeature.reduce, diagnostics: diagnostics)
    let card = store.scope(state: \.cards, action: CardsFeature.Action.card)[1]
    store.send(.remove(2))
    #expect(!card.isValid)
    let front = card.scope(state: \.front, action: CardsFeature.CardAction.front)
    #expect(!front.isValid)
    #expect(front.count == 0)  // what the card showed
    front.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    let message = diagnostics.all.last?.message ?? ""
    #expect(message.contains("invalid store root.cards[id: 2].front (State)"), "\(message)")
    // A collection scoped from the invalid store hands out invalid stores too.
    let notes = card.scope(state: \.notes, action: CardsFeature.CardAction.note)
    #expect(notes.isEmpty)
  }

  // MARK: Snapshots whose row came back

  @Test("an old snapshot position whose id was deleted and re-added returns the snapshot's row, invalid")
  func snapshotOfRemovedThenReaddedRow() {
    let (store, diagnostics) = listStore(1...3)
    let snapshot = store.scope(state: \.rows, action: ListFeature.Action.row)
    store.send(.remove(2))
    store.send(.add(2))  // a new row 2, count 0
    let old = snapshot[1]
    #expect(!old.isValid)
    #expect(old.count == 0)  // the row as the snapshot has it
    old.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(store.rows[id: 2]?.count == 0)
    // A fresh collection hands out the new row's store.
    let current = store.scope(state: \.rows, action: ListFeature.Action.row).store(id: 2)
    #expect(current?.isValid == true)
    #expect(current !== old)
    #expect(current?.count == 0)
    // A snapshot position whose row stayed still returns the cached, valid store.
    #expect(snapshot[0] === store.scope(state: \.rows, action: ListFeature.Action.row)[0])
    #expect(snapshot[0].isValid)
  }

  // MARK: Naming rows

  @Test("a row store's id is its row's id, read without subscribing: replacing a row re-runs only that row")
  func rowStoreIDDoesNotSubscribe() {
    let (store, _) = listStore(1...3)
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    #expect(rows.map(\.id) == [1, 2, 3])
    let (_, log) = recordAccesses { _ = rows[1].id }
    #expect(log.isEmpty)
    let tree = RenderTree("List") { list in
      list.forEach(store.scope(state: \.rows, action: ListFeature.Action.row), name: { "Row[\($0.id)]" }) {
        row, context in
        context.text("\(row.count)")
      }
    }
    let step = tree.step { store.send(.replace(2)) }
    #expect(step.runs == ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "100")
    store.send(.remove(2))
    #expect(rows[1].id == 2)  // an invalid row store keeps its id
  }

  // MARK: Observers reading the store during a send

  @Test("an onChange that reads the store during send sees the committed state and does not crash")
  func onChangeReadsStoreDuringSend() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      await MainActor.run {
        let store = Store(initialState: ListFeature.State(rows: [1]), reducer: ListFeature.reduce)
        let row = store.scope(state: \.rows, action: ListFeature.Action.row)[0]
        final class Seen: @unchecked Sendable { var values: [Int] = [] }
        let seen = Seen()
        withTracking({ _ = row.count }, onChange: { MainActor.assumeIsolated { seen.values.append(row.count) } })
        store.send(.row(id: 1, action: .increment))
        withTracking(
          { _ = store.rows.count }, onChange: { MainActor.assumeIsolated { seen.values.append(store.rows.count) } })
        store.send(.add(2))
        guard seen.values == [1, 2] else { fatalError("seen \(seen.values)") }
      }
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.isEmpty, "\(standardError)")
  }
}

/// Misuse that stops the program: each in a child process, checking the message (printed in
/// release builds too).
@MainActor
@Suite("Store semantics: stops with a message")
struct StoreStopTests {
  @Test("a row store's id read off the main actor stops with a message; on the main actor it is the row's id")
  func idOffTheMainActor() async {
    let id = await MainActor.run {
      let store = Store<ListFeature.State, ListFeature.Action>(initialState: ListFeature.State(rows: [7])) {
        ListFeature.reduce(&$0, $1)
      }
      return store.scope(state: \.rows, action: ListFeature.Action.row)[0].id
    }
    #expect(id == 7)
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let row = await MainActor.run {
        let store = Store<ListFeature.State, ListFeature.Action>(initialState: ListFeature.State(rows: [7])) {
          ListFeature.reduce(&$0, $1)
        }
        return store.scope(state: \.rows, action: ListFeature.Action.row)[0]
      }
      _ = await Task.detached { row.id }.value
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains("was read off the main actor"), "\(standardError)")
  }

  @Test("a reducer that reads its own store stops with a message naming the store and the action")
  func reducerReadsItsStore() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      await MainActor.run {
        final class Box { var store: Store<ListFeature.State, ListFeature.Action>? }
        let box = Box()
        let store = Store<ListFeature.State, ListFeature.Action>(initialState: ListFeature.State(rows: [1])) {
          state, action in
          _ = box.store?.rows.count
          return ListFeature.reduce(&state, action)
        }
        box.store = store
        store.send(.add(2))
      }
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      standardError.contains("store root (State) was read while its root store's reducer was processing action add(2)"),
      "\(standardError)")
    #expect(standardError.contains("A reducer must not read its store"))
  }

  @Test("a row store read by its root's reducer stops with a message naming the row store")
  func reducerReadsRowStore() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      await MainActor.run {
        final class Box { var row: Store<RowFeature.State, RowFeature.Action>? }
        let box = Box()
        let store = Store<ListFeature.State, ListFeature.Action>(initialState: ListFeature.State(rows: [1])) {
          state, action in
          _ = box.row?.count
          return ListFeature.reduce(&state, action)
        }
        box.row = store.scope(state: \.rows, action: ListFeature.Action.row)[0]
        store.send(.add(2))
      }
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains("store root.rows[id: 1] (State) was read while"), "\(standardError)")
  }

  @Test("Store(maximumActionsPerSend: 0) stops with a message naming the parameter")
  func zeroMaximumActions() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      await MainActor.run {
        _ = Store(initialState: CounterFeature.State(), reducer: CounterFeature.reduce, maximumActionsPerSend: 0)
      }
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains("Store's maximumActionsPerSend must be positive, got 0"), "\(standardError)")
  }

  @Test("StoreCollection[5] out of bounds stops with a message naming the position and the bounds")
  func storeCollectionOutOfBounds() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      await MainActor.run {
        let store = Store(initialState: ListFeature.State(rows: 1...3), reducer: ListFeature.reduce)
        _ = store.scope(state: \.rows, action: ListFeature.Action.row)[5]
      }
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains("StoreCollection index 5 is out of bounds 0..<3"), "\(standardError)")
  }

  @Test("Effect.merge nested 100,000 deep runs, maps and is released without overflowing the stack")
  func deeplyNestedMerge() async {
    await #expect(processExitsWith: .success) {
      await MainActor.run {
        let depth = 100_000
        let store = Store<CounterFeature.State, CounterFeature.Action>(initialState: CounterFeature.State()) {
          state, action in
          _ = CounterFeature.reduce(&state, action)
          guard action == .reset else { return .none }
          var left = Effect<CounterFeature.Action>.none
          var right = Effect<CounterFeature.Action>.none
          for _ in 0..<depth {
            left = .merge(left, .send(.increment))
            right = .merge(.send(.increment), right)
          }
          return .merge(left, right.map { $0 })
        }
        store.send(.reset)
        guard store.count == 2 * depth else { fatalError("count \(store.count)") }
      }
    }
  }

  @Test("Effect.map chained 100,000 times on a .run effect runs, sends back and is released with no stack overflow")
  func deeplyChainedMap() async {
    await #expect(processExitsWith: .success) {
      let store = await MainActor.run {
        Store<CounterFeature.State, CounterFeature.Action>(initialState: CounterFeature.State()) { state, action in
          _ = CounterFeature.reduce(&state, action)
          guard action == .reset else { return .none }
          var effect = Effect<CounterFeature.Action>.run { send in await send(.increment) }
          for _ in 0..<100_000 { effect = effect.map { $0 } }
          return effect
        }
      }
      await store.send(.reset)
      var count = 0
      for _ in 0..<100_000 where count == 0 {
        await Task.yield()
        count = await MainActor.run { store.count }
      }
      guard count == 1 else { fatalError("count \(count)") }
    }
  }
}
