import Foundation
import Observant
import ObservantStore
import ObservantTestSupport
import Synchronization
import Testing

// The asynchronous surface of the store, from its documentation: `TrackedValues` over row stores,
// `.run` effects and the lifetime of the store tree.

/// Flags an effect raises, shared with the test.
final class HAEffectFlags: Sendable {
  private let storage = Mutex<(started: Bool, cancelled: Bool, sentAfterEnd: Bool)>((false, false, false))
  var started: Bool { storage.withLock { $0.started } }
  var cancelled: Bool { storage.withLock { $0.cancelled } }
  var sentAfterEnd: Bool { storage.withLock { $0.sentAfterEnd } }
  func start() { storage.withLock { $0.started = true } }
  func cancel() { storage.withLock { $0.cancelled = true } }
  func sent() { storage.withLock { $0.sentAfterEnd = true } }
}

enum HAListFeature {
  // swift-format-ignore
  struct Row: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _count = StateField(0)
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
    init(id: Int) { self.id = id }
  }

  enum RowAction: Sendable { case increment }

  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows = StateField<IdentifiedArrayOf<Row>>([])
    var rows: IdentifiedArrayOf<Row> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _ticks = StateField(0)
    var ticks: Int { get { registrar.read(_ticks) } set { registrar.write(&_ticks, newValue) } }
    init(ids: [Int]) { _rows = StateField(IdentifiedArray(uniqueElements: ids.map(Row.init(id:)))) }
  }

  enum Action: Sendable {
    case row(id: Int, action: RowAction)
    case remove(Int)
    case tick
    /// Starts an effect that waits until it is cancelled, then sends `.tick`.
    case startLongEffect(HAEffectFlags)
    /// Starts `count` effects, each sending `.tick` from its task.
    case startTickers(Int)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .row(let id, .increment):
      state.rows[id: id]?.count += 1
      return .none
    case .remove(let id):
      state.rows.remove(id: id)
      return .none
    case .tick:
      state.ticks += 1
      return .none
    case .startLongEffect(let flags):
      return .run { send in
        flags.start()
        await withTaskCancellationHandler {
          while !Task.isCancelled { try? await Task.sleep(for: .seconds(1)) }
        } onCancel: {
          flags.cancel()
        }
        await send(.tick)  // every store of the tree is gone: does nothing
        flags.sent()
      }
    case .startTickers(let count):
      return .merge((0..<count).map { _ in .run { send in await send(.tick) } })
    }
  }
}

@MainActor
@Suite("HA: store, asynchronously")
struct HAStoreAsyncTests {
  /// TrackedValues: "When everything the last evaluation read was read through stores that have
  /// become invalid ..., the sequence ends without another value, as soon as the last of those
  /// stores becomes invalid, even while the loop waits".
  @Test("a loop waiting on a row store's value ends, without another value, when the row is removed")
  func rowRemovedWhileWaiting() async {
    let store = Store(initialState: HAListFeature.State(ids: [1, 2]), reducer: HAListFeature.reduce)
    let row = store.scope(state: \.rows, action: HAListFeature.Action.row)[0]
    var values = TrackedValues { row.count }.makeAsyncIterator()
    #expect(await values.next() == 0)
    let pending = Task { await boundedNext(values) }
    await Task.yield()
    store.send(.remove(1))
    #expect(await pending.value == .returned(nil))
  }

  @Test("a loop reading two row stores goes on when one row is removed and ends when the other is")
  func twoRowsRemovedOneByOne() async {
    let store = Store(initialState: HAListFeature.State(ids: [1, 2]), reducer: HAListFeature.reduce)
    let rows = store.scope(state: \.rows, action: HAListFeature.Action.row)
    let first = rows[0]
    let second = rows[1]
    var values = TrackedValues { first.count + second.count * 10 }.makeAsyncIterator()
    #expect(await values.next() == 0)
    store.send(.row(id: 1, action: .increment))
    #expect(await values.next() == 1)
    store.send(.remove(1))  // the first store is invalid; the second one still reads a live row
    let pending = Task { await boundedNext(values) }
    await Task.yield()
    store.send(.row(id: 2, action: .increment))
    #expect(await pending.value == .returned(11))
    store.send(.remove(2))
    #expect(await boundedNext(values) == .returned(nil))
  }

  /// `Effect.run`: "The task is cancelled when the last store of the tree (the root store or a
  /// store scoped from it) is deallocated." `Send`: "Does nothing once every store of the tree is
  /// gone." `Store`: "A scoped store keeps its parent and root alive".
  @Test("a .run effect is cancelled with the last store of its tree, not before; its later send does nothing")
  func effectCancelledWithTheLastStore() async {
    let flags = HAEffectFlags()
    var store: Store<HAListFeature.State, HAListFeature.Action>? = Store(
      initialState: HAListFeature.State(ids: [1]), reducer: HAListFeature.reduce)
    var row: Store<HAListFeature.Row, HAListFeature.RowAction>? =
      store?.scope(state: \.rows, action: HAListFeature.Action.row)[0]
    store?.send(.startLongEffect(flags))
    #expect(await waitUntil { flags.started })
    store = nil  // the row store keeps the tree alive
    for _ in 0..<5 { await Task.yield() }
    #expect(!flags.cancelled)
    #expect(row?.isValid == true)
    row = nil
    #expect(await waitUntil { flags.cancelled })
    #expect(await waitUntil { flags.sentAfterEnd })
  }

  @Test("actions sent back by many effects' tasks are all processed, on the main actor")
  func manyEffectsSendBack() async {
    let store = Store(initialState: HAListFeature.State(ids: []), reducer: HAListFeature.reduce)
    let reader = Reaction("HATicks") { _ = store.ticks }
    store.send(.startTickers(30))
    #expect(await waitUntil { store.ticks == 30 })
    #expect(reader.runCount >= 2)
    #expect(reader.lastAccessLog.contains("State.ticks"))
  }
}
