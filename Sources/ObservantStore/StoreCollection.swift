import Observant

/// A lazy, random-access collection of per-element stores, returned by
/// `Store.scope(state:action:)` for an identified array.
///
/// It is a snapshot of the ids at the moment it was made: indices stay valid while a view uses
/// it, and element stores are created only when accessed (showing the first 3 rows of 10 creates
/// 3 stores). Stores are `Identifiable`, so a keyed `ForEach` can use them directly.
///
/// Accessing a position whose row has since been removed does not crash: it returns that row's
/// store, invalid — also when a new row with the same id has been added since (the snapshot's row
/// is still gone). It is the store handed out for that row before the removal, if someone still
/// holds it, showing the last state read through it (what a cell bound to it shows); otherwise a
/// new invalid store showing the row as it was in the snapshot. Positions outside the snapshot are
/// out of bounds, as for any collection (a clear message, also in release builds); `store(at:)`
/// returns `nil` for them instead.
///
/// A row changed since, or replaced by a new value with the same id (in place, or by rebuilding
/// the array with the same id in it), is still the snapshot's row: its position returns the row's
/// store, valid, showing the current row. The scope remembers which ids the last 64 commits that
/// removed rows took away; a snapshot older than that cannot be answered exactly, and is answered
/// conservatively: a position whose id is present returns a valid store only when the row is the
/// very instance the snapshot holds (an `ObservableState` row, changed in place at most), and an
/// invalid store showing the snapshot's row otherwise (every plain row). Make a new collection
/// after actions rather than keeping an old one.
///
/// **Copies.** The collection holds a copy of the array: the rows it shows at positions whose row
/// is gone. While it is kept, it shares the array's storage, so the reducer's next in-place change
/// of a row (or insertion or removal of one) copies the whole array, O(*n*), once. A body that
/// makes a collection and lets it go when it returns costs nothing; a view that keeps it across
/// actions (SwiftUI's `ForEach` keeps its data, a table's data source may store it) costs one copy
/// of the array per collection kept. In code of your own, don't keep a collection across
/// actions: scope again when you need one (O(1), the same cached stores).
public struct StoreCollection<ID: Hashable, ElementState, ElementAction>: RandomAccessCollection {
  private let elements: IdentifiedArray<ID, ElementState>
  /// The collection scope's removal epoch when the snapshot was taken.
  private let epoch: Int
  private let stores: AnyObject
  private let storeFor: (ID, ElementState, Int) -> Store<ElementState, ElementAction>

  internal init<ParentState, ParentAction>(
    elements: IdentifiedArray<ID, ElementState>, epoch: Int,
    stores: CollectionStores<ParentState, ParentAction, ID, ElementState, ElementAction>
  ) {
    self.elements = elements
    self.epoch = epoch
    self.stores = stores
    self.storeFor = { [unowned stores] id, shown, epoch in
      let access = UncheckedAccess(stores: stores, id: id, shown: shown)
      return MainActor.assumeIsolated {
        UncheckedStore(store: access.stores.store(for: access.id, showing: access.shown, since: epoch))
      }.store
    }
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { elements.count }

  /// The ids of the snapshot, in order.
  public var ids: OrderedSet<ID> { elements.ids }

  /// The store of the element at `position` (created on first access, then cached by id).
  ///
  /// - Precondition: `position` is within the snapshot (`indices`); use `store(at:)` otherwise.
  /// - Complexity: O(1).
  public subscript(position: Int) -> Store<ElementState, ElementAction> {
    guard let store = store(at: position) else {
      observantFatalError(
        "Observant: StoreCollection index \(position) is out of bounds 0..<\(count) (the snapshot's size); use store(at:) for a checked access"
      )
    }
    return store
  }

  /// The store of the element at `position`, or `nil` outside the snapshot.
  public func store(at position: Int) -> Store<ElementState, ElementAction>? {
    guard position >= 0 && position < elements.count else { return nil }
    // Stores live on the main actor; a collection of them is used there (a ForEach, a data source).
    return storeFor(elements.ids[position], elements[position], epoch)
  }

  /// The store of the element with `id`, or `nil` if the snapshot has no such element.
  public func store(id: ID) -> Store<ElementState, ElementAction>? {
    guard let position = elements.index(id: id) else { return nil }
    return store(at: position)
  }
}

/// Carries a main-actor-only access across `MainActor.assumeIsolated`, which checks at run time
/// that the caller is on the main actor.
private struct UncheckedAccess<Stores, ID, ElementState>: @unchecked Sendable {
  let stores: Stores
  let id: ID
  let shown: ElementState
}

private struct UncheckedStore<ElementState, ElementAction>: @unchecked Sendable {
  let store: Store<ElementState, ElementAction>
}
