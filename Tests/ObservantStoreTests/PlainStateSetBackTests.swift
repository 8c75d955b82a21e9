import Observant
import ObservantStore
import Testing

// Plain state (not `ObservableState`, compared with `==`) changed by one action of a send and
// changed back by another (queued by an effect, or a second send in one transaction) is a set-back:
// its readers re-run nobody, as for a field set and set back within a transaction.

private struct PSCounter: Equatable, Sendable {
  var a = 0
  var b = 0
}

private enum PSCounterAction: Equatable, Sendable {
  case setA(Int)
  case bumpAndBack
  case unbump
}

private func psReduceCounter(_ state: inout PSCounter, _ action: PSCounterAction) -> Effect<PSCounterAction> {
  switch action {
  case .setA(let value): state.a = value
  case .bumpAndBack:
    state.a += 1
    return .send(.unbump)
  case .unbump: state.a -= 1
  }
  return .none
}

private struct PSRow: Identifiable, Equatable, Sendable {
  let id: Int
  var count = 0
}

private struct PSState: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _counter = StateField(PSCounter())
  var counter: PSCounter {
    get { registrar.read(_counter) }
    set { registrar.write(&_counter, newValue) }
    _modify { yield &self[tracking: \._counter] }
  }
  private var _rows = StateField<IdentifiedArrayOf<PSRow>>([PSRow(id: 1), PSRow(id: 2)])
  var rows: IdentifiedArrayOf<PSRow> {
    get { registrar.read(_rows) }
    set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  init() {}
}

private enum PSAction: Equatable, Sendable {
  case counter(PSCounterAction)
  case row(id: Int, delta: Int)
  case rowBumpAndBack(id: Int)
}

private func psReduce(_ state: inout PSState, _ action: PSAction) -> Effect<PSAction> {
  switch action {
  case .counter(let action): return psReduceCounter(&state.counter, action).map(PSAction.counter)
  case .row(let id, let delta): state.rows[id: id]?.count += delta
  case .rowBumpAndBack(let id):
    state.rows[id: id]?.count += 1
    return .send(.row(id: id, delta: -1))
  }
  return .none
}

@MainActor
@Suite("Plain state changed and changed back within a send or a transaction re-runs nobody")
struct PlainStateSetBackTests {
  @Test("a plain root store: two actions of one send, two sends in one transaction")
  func plainRoot() {
    let store = Store(initialState: PSCounter(), reducer: psReduceCounter)
    let reader = Reaction { _ = store.a }
    defer { reader.cancel() }
    store.send(.bumpAndBack)
    #expect(store.a == 0)
    #expect(reader.runCount == 1)
    transaction {
      store.send(.setA(5))
      store.send(.setA(0))
    }
    #expect(reader.runCount == 1)
    // Changed and not changed back: one run per send.
    store.send(.setA(2))
    #expect(reader.runCount == 2)
    transaction {
      store.send(.setA(3))
      store.send(.setA(4))
    }
    #expect(reader.runCount == 3)
    #expect(store.a == 4)
  }

  @Test("a plain child store of an ObservableState root")
  func plainChild() {
    let store = Store(initialState: PSState(), reducer: psReduce)
    let counter = store.scope(state: \.counter, action: PSAction.counter)
    let reader = Reaction { _ = counter.a }
    defer { reader.cancel() }
    counter.send(.bumpAndBack)
    #expect(counter.a == 0)
    #expect(reader.runCount == 1)
    transaction {
      counter.send(.setA(7))
      counter.send(.setA(0))
    }
    #expect(reader.runCount == 1)
    counter.send(.setA(1))
    #expect(reader.runCount == 2)
    #expect(counter.a == 1)
  }

  @Test("a plain row store")
  func plainRow() throws {
    let store = Store(initialState: PSState(), reducer: psReduce)
    let rows = store.scope(state: \.rows, action: { (id: Int, delta: Int) in PSAction.row(id: id, delta: delta) })
    let row = try #require(rows.store(id: 1))
    let reader = Reaction { _ = row.count }
    let other = Reaction { _ = rows.store(id: 2)?.count }
    defer {
      reader.cancel()
      other.cancel()
    }
    store.send(.rowBumpAndBack(id: 1))
    #expect(row.count == 0)
    #expect(reader.runCount == 1)
    store.send(.row(id: 1, delta: 3))
    #expect(reader.runCount == 2)
    #expect(row.count == 3)
    #expect(other.runCount == 1)
  }
}
