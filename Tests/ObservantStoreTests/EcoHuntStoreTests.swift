// swift-format-ignore-file
import Observant
import ObservantHarness
import ObservantStore
import ObservantTestSupport
import Testing

// Per-row stores bound to cells (CellPool, synchronous and scheduled on the main actor), derived
// values and TrackedValues over stores, while the reducer moves rows, restores older copies and
// undo snapshots. Written against the documentation only.

enum EHS {
  // The rows of the other store hunts.
  typealias Inner = HuntStore.Inner
  typealias Row = HuntStore.Row
  typealias RowAction = HuntStore.RowAction

  static func reduceRow(_ state: inout Row, _ action: RowAction) -> Effect<RowAction> {
    HuntStore.reduceRow(&state, action)
  }

  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows = StateField<IdentifiedArrayOf<Row>>([Row(id: 1), Row(id: 2), Row(id: 3)])
    var rows: IdentifiedArrayOf<Row> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _parked = StateField<[Int: Row]>([:])
    var parked: [Int: Row] {
      get { registrar.read(_parked) } set { registrar.write(&_parked, newValue) }
      _modify { yield &self[tracking: \._parked] }
    }
    private var _editing = StateField<Row?>(nil)
    var editing: Row? {
      get { registrar.read(_editing) } set { registrar.write(&_editing, newValue) }
      _modify { yield &self[tracking: \._editing] }
    }
    init() {}
  }

  enum Action: Sendable {
    case row(id: Int, action: RowAction)
    case remove(Int)
    case park(Int)        // move a row into the dictionary
    case unpark(Int)      // and back (an older copy, moved through another container)
    case snapshot
    case undo             // state.rows = the last snapshot's rows
    case undoWhole        // state = the last snapshot (through inout)
    case edit(Int)        // a draft copy in an optional
    case editSet(Int)
    case save             // the draft assigned back over the row
    case replaceNew(Int)  // a new value under the same id
    case swapFirstTwo
  }

  @MainActor final class Undo {
    var snapshots: [State] = []
  }
}

@MainActor
func ehsReducer(_ undo: EHS.Undo) -> (inout EHS.State, EHS.Action) -> Effect<EHS.Action> {
  { state, action in
    switch action {
    case let .row(id, a):
      guard state.rows[id: id] != nil else { return .none }
      return EHS.reduceRow(&state.rows[id: id]!, a).map { EHS.Action.row(id: id, action: $0) }
    case .remove(let id): state.rows.remove(id: id)
    case .park(let id):
      if let r = state.rows.remove(id: id) { state.parked[id] = r }
    case .unpark(let id):
      if let r = state.parked.removeValue(forKey: id) {
        if state.rows[id: id] == nil { state.rows.append(r) } else { state.rows[id: id] = r }
      }
    case .snapshot: undo.snapshots.append(state)
    case .undo: if let s = undo.snapshots.last { state.rows = s.rows }
    case .undoWhole: if let s = undo.snapshots.last { state = s }
    case .edit(let id): state.editing = state.rows[id: id]
    case .editSet(let v): state.editing?.x = v
    case .save:
      if let d = state.editing, state.rows[id: d.id] != nil { state.rows[id: d.id] = d }
      state.editing = nil
    case .replaceNew(let id): if state.rows[id: id] != nil { state.rows[id: id] = EHS.Row(id: id, x: 7) }
    case .swapFirstTwo: if state.rows.count >= 2 { state.rows.swapAt(0, 1) }
    }
    return .none
  }
}

struct EHSRandom {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
  mutating func action() -> EHS.Action {
    let id = 1 + int(3)
    switch int(13) {
    case 0, 1: return .row(id: id, action: .setX(int(4)))
    case 2: return .row(id: id, action: .setZ(int(4)))
    case 3: return .remove(id)
    case 4: return .park(id)
    case 5: return .unpark(id)
    case 6: return .snapshot
    case 7: return .undo
    case 8: return .undoWhole
    case 9: return .edit(id)
    case 10: return int(2) == 0 ? .editSet(int(4)) : .save
    case 11: return .replaceNew(id)
    default: return .swapFirstTwo
    }
  }
}

@MainActor
@Suite("Eco hunt: row stores in cells, derived values, tracked values")
struct EcoHuntStoreTests {
  /// Cells bound to row stores (a scheduled pool and a synchronous one) are re-bound after every
  /// turn to the rows present, as a table view reloading would; a valid cell must show its row,
  /// an unbound or invalid one must not re-render. The render reads through `withState`:
  /// `row.inner.z` would read `z` on the returned value, a direct read that (by the docs) may keep
  /// a removed row's cell re-running.
  func runCells(_ turns: [[EHS.Action]], scheduled: Bool) async -> String? {
    let undo = EHS.Undo()
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(initialState: EHS.State(), reducer: ehsReducer(undo), diagnostics: diagnostics)
    let pool = CellPool("Cell", tracking: ReactionTracking(scheduling: scheduled ? .mainActor : .synchronous))
    var bound: [(Int, Store<EHS.Row, EHS.RowAction>, Cell)] = []
    func rebind() {
      for (_, _, cell) in bound { pool.enqueue(cell) }
      // A loop, not `map`: the cells are dequeued on the main actor (a `map` closure is not
      // isolated, and the optimized build rejects sending the pool into it).
      bound = []
      for row in store.scope(state: \.rows, action: EHS.Action.row) {
        bound.append((row.id, row, pool.dequeue(for: row.id) { row.withState { "\($0.id):\($0.x):\($0.inner.z)" } }))
      }
    }
    rebind()
    for (i, actions) in turns.enumerated() {
      let before = bound.map { ($0.0, $0.1, $0.2, $0.2.renderCount) }
      for a in actions { store.send(a) }
      for _ in 0..<5 { await Task.yield() }
      for (id, rowStore, cell, renders) in before {
        if !rowStore.isValid {
          // Doc: a removed row's cell does not re-run (unless it re-ran before removal in this turn: sync only).
          if scheduled, cell.renderCount != renders, store.state.rows[id: id] == nil {
            return "turn \(i): cell of removed row \(id) re-rendered: \(cell.history)"
          }
          continue
        }
        guard let row = store.state.rows[id: id] else {
          return "turn \(i): store of row \(id) still valid, row gone"
        }
        let truth = "\(id):\(row.x):\(row.inner.z)"
        if cell.content != truth { return "turn \(i): cell of row \(id) shows \(cell.content), state holds \(truth)" }
      }
      rebind()
    }
    return nil
  }

  @Test("random row actions, parking, undo, drafts, replacements: cells (synchronous and scheduled) show their row")
  func randomizedCells() async {
    for scheduled in [false, true] {
      for seed in UInt64(1)...60 {
        var rng = EHSRandom(state: seed &* 31 &+ (scheduled ? 1_000 : 0))
        let turns = (0..<15).map { _ in (0..<(1 + rng.int(3))).map { _ in rng.action() } }
        if let failure = await runCells(turns, scheduled: scheduled) {
          var current = turns
          var changed = true
          while changed {
            changed = false
            outer: for i in current.indices.reversed() {
              for j in current[i].indices.reversed() {
                var cand = current
                cand[i].remove(at: j)
                if cand[i].isEmpty { cand.remove(at: i) }
                if await runCells(cand, scheduled: scheduled) != nil {
                  current = cand
                  changed = true
                  break outer
                }
              }
            }
          }
          let shrunkFailure = await runCells(current, scheduled: scheduled) ?? failure
          Issue.record(Comment(rawValue: "seed \(seed) scheduled \(scheduled): \(shrunkFailure)\n  turns: \(current)"))
          break
        }
      }
    }
  }

  @Test("a scheduled cell rendering a derived value over its row store re-renders only when the derived value changes")
  func scheduledCellOverDerived() async {
    let undo = EHS.Undo()
    let store = Store(initialState: EHS.State(), reducer: ehsReducer(undo), diagnostics: StoreDiagnostics(printing: false))
    let row = store.scope(state: \.rows, action: EHS.Action.row)[0]
    let isSet = Derived("isSet") { row.x > 0 }
    let pool = CellPool("Cell", tracking: ReactionTracking(scheduling: .mainActor))
    let cell = pool.dequeue(for: row.id) { isSet.value ? "set" : "unset" }
    store.send(.row(id: 1, action: .setX(1)))
    for _ in 0..<5 { await Task.yield() }
    #expect(cell.history == ["unset", "set"])
    store.send(.row(id: 1, action: .setX(2)))   // isSet stays true: the cell must not re-render
    for _ in 0..<5 { await Task.yield() }
    #expect(cell.history == ["unset", "set"])
    #expect(cell.renderCount == 2)
  }

  @Test("the same with a synchronous cell: no re-render for an equal derived value")
  func syncCellOverDerived() async {
    let undo = EHS.Undo()
    let store = Store(initialState: EHS.State(), reducer: ehsReducer(undo), diagnostics: StoreDiagnostics(printing: false))
    let row = store.scope(state: \.rows, action: EHS.Action.row)[0]
    let isSet = Derived("isSet") { row.x > 0 }
    let pool = CellPool("Cell")
    let cell = pool.dequeue(for: row.id) { isSet.value ? "set" : "unset" }
    store.send(.row(id: 1, action: .setX(1)))
    store.send(.row(id: 1, action: .setX(2)))
    #expect(cell.history == ["unset", "set"])
  }

  @Test("TrackedValues over a row store: the row parked in a dictionary and back in a later send ends the sequence (bounded wait)")
  func trackedValuesParkedAndBack() async {
    let undo = EHS.Undo()
    let store = Store(initialState: EHS.State(), reducer: ehsReducer(undo), diagnostics: StoreDiagnostics(printing: false))
    let row = store.scope(state: \.rows, action: EHS.Action.row)[0]
    var values = TrackedValues { row.x * 10 }.makeAsyncIterator()
    #expect(await values.next() == 0)
    store.send(.row(id: 1, action: .setX(3)))
    #expect(await values.next() == 30)
    store.send(.park(1))
    store.send(.unpark(1))
    #expect(!row.isValid)
    // Doc: the sequence ends, without another value, when the row store it read through is invalid.
    #expect(await boundedNext(values) == .returned(nil))
  }

  @Test("TrackedValues over a row store: the row removed (no return) ends the sequence (bounded wait)")
  func trackedValuesRemoved() async {
    let undo = EHS.Undo()
    let store = Store(initialState: EHS.State(), reducer: ehsReducer(undo), diagnostics: StoreDiagnostics(printing: false))
    let row = store.scope(state: \.rows, action: EHS.Action.row)[0]
    var values = TrackedValues { row.x * 10 }.makeAsyncIterator()
    #expect(await values.next() == 0)
    store.send(.remove(1))
    #expect(await boundedNext(values) == .returned(nil))
  }

  @Test("TrackedValues over a row store: the row moved out and back within one send, then undone: yields the older copy's value")
  func trackedValuesDetourOneSend() async {
    let undo = EHS.Undo()
    let store = Store(initialState: EHS.State(), reducer: ehsReducer(undo), diagnostics: StoreDiagnostics(printing: false))
    let row = store.scope(state: \.rows, action: EHS.Action.row)[0]
    var values = TrackedValues { row.x * 10 + row.inner.z }.makeAsyncIterator()
    #expect(await values.next() == 0)
    store.send(.snapshot)
    store.send(.row(id: 1, action: .setZ(2)))
    #expect(await values.next() == 2)
    store.send(.undo)   // rows = snapshot: row 1's older copy comes back
    #expect(row.isValid)
    // Bounded wait: a sequence that never yields again is cancelled (and shows as timed out).
    #expect(await boundedNext(values) == .returned(0))
  }
}
