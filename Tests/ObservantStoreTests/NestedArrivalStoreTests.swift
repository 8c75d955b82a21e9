import Observant
import ObservantStore
import Testing

/// A store scoped from a row store (or the child store) to the row's nested state reads only the
/// nested state's fields: when, within one send, the row is replaced or removed and an older copy
/// of it comes back, the nested store's readers must show the copy.
@MainActor
@Suite("Stores of a nested state: an older copy of its row coming back")
struct NestedArrivalStoreTests {
  private func make() -> Store<HuntStore.State, HuntStore.Action> {
    Store(initialState: HuntStore.State(), reducer: HuntStore.reducer(HuntStore.Stash()))
  }

  /// A store of row 1's inner state, scoped from its cell, and a reader of its `z` only.
  private func innerReader(
    _ store: Store<HuntStore.State, HuntStore.Action>
  ) -> (Store<HuntStore.Inner, Int>, HuntStoreReader) {
    let cell = store.scope(state: \.rows, action: HuntStore.Action.row)[0]
    let inner = cell.scope(state: \.inner, action: { (z: Int) in HuntStore.RowAction.setZ(z) })
    let reader = HuntStoreReader(
      "rows[1] inner store .z", read: { inner.z },
      truth: {
        withoutTracking { store.state.rows[id: 1]?.inner.z }
      })
    return (inner, reader)
  }

  /// How row 1 is saved before the change, and how, in one send, an older copy of it comes back.
  enum Return: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case rowsRestoredAfterRemoval = "the row removed and the rows restored from a snapshot taken before the change"
    case freshThenOlderCopy = "the row replaced by a new value of its identity, then by an older copy of itself"
    case removedThenAppended = "the row removed and an older copy appended"

    var save: [HuntStore.Op] { self == .rowsRestoredAfterRemoval ? [.saveRows] : [.save(.rows, id: 1)] }
    var comeBack: [HuntStore.Op] {
      switch self {
      case .rowsRestoredAfterRemoval: [.remove(.rows, id: 1), .restoreRows(stash: 0, to: .rows)]
      case .freshThenOlderCopy: [.fresh(.rows, id: 1), .restore(stash: 0, to: .rows)]
      case .removedThenAppended: [.remove(.rows, id: 1), .restore(stash: 0, to: .rows)]
      }
    }
    var testDescription: String { rawValue }
  }

  @Test("row 1's inner store, after an older copy of the row came back", arguments: Return.allCases)
  func olderRowCameBack(_ way: Return) {
    let store = make()
    store.send(.ops(way.save))
    let (inner, reader) = innerReader(store)
    inner.send(2)
    #expect(reader.shown == 2)
    store.send(.ops(way.comeBack))
    #expect(reader.stale == nil)
    #expect(reader.shown == 0)
    reader.reaction.cancel()
  }

  @Test("the child replaced by another row, then by an older copy of itself: the child's inner store")
  func childReplacedThenOlderCopy() {
    let store = make()
    store.send(.ops([.save(.child, id: 1)]))
    let child = store.scope(state: \.child, action: HuntStore.Action.child)
    let inner = child.scope(state: \.inner, action: { (z: Int) in HuntStore.RowAction.setZ(z) })
    let reader = HuntStoreReader(
      "child inner store .z", read: { inner.z },
      truth: {
        withoutTracking { store.state.child.inner.z }
      })
    inner.send(2)
    #expect(reader.shown == 2)
    store.send(.ops([.copy(from: .rows, to: .child, id: 2), .restore(stash: 0, to: .child)]))
    #expect(reader.stale == nil)
    #expect(reader.shown == 0)
    reader.reaction.cancel()
  }

  @Test("a plain array of rows: the row removed and an older copy appended (read through withState)")
  func plainListRemovedThenAppended() {
    let store = make()
    store.send(.ops([.copy(from: .rows, to: .list, id: 1), .save(.list, id: 1)]))
    let reader = HuntStoreReader(
      "list[1].inner.z",
      read: {
        withoutTracking { store.state.list.first { $0.id == 1 }?.inner }?.z ?? -1
      }, truth: { withoutTracking { store.state.list.first { $0.id == 1 }?.inner.z ?? -1 } })
    store.send(.ops([.write(.list, id: 1, pos: false, field: .z, value: 2)]))
    #expect(reader.shown == 2)
    store.send(.ops([.remove(.list, id: 1), .restore(stash: 0, to: .list)]))
    #expect(reader.stale == nil)
    #expect(reader.shown == 0)
    reader.reaction.cancel()
  }
}
