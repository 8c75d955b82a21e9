import Observant

/// The reader role of a store: the identity slot its readers record, the guard their reads are
/// recorded under, and the identity of the state they last heard of.
///
/// Stored inline in the store's core. The identity slot of `ObservableState` is a field of the
/// state's own observer table (which its copies share and its fields' readers already use): a
/// reader records it in the table of the value it read, and a commit that replaces the value
/// notifies the table of the value readers last heard of. Plain state has no table: the store
/// makes one for the slot on the first tracked read, as it makes the guard.
@MainActor
internal struct StoreReaders {
  /// The identity slot of plain state and of the root's state: readers record it; it notifies
  /// when the state changed or was replaced. (The root keeps no reference to its state's table: a
  /// second one would make every write to the state take the slower path of a shared value.)
  private var ownSlot: TrackingRegistrar?
  /// Guards the reads made through the store (see `TrackingGuard`); invalidated with the store.
  private var readGuard: TrackingGuard?
  /// The `ObservableStateID` of the state readers last heard of (`nil` for plain state).
  private(set) var identity: ObservableStateID?
  /// Scoped stores of `ObservableState`: the table of the state readers last heard of, and the
  /// table of the state a commit found replaced, which `notifyReplacement` tells. (Their last
  /// state holds the same table: keeping it adds no reference of its own that matters.)
  private var heardSlot: TrackingRegistrar?
  private var replacedSlot: TrackingRegistrar?
  /// Whether readers record the identity slot in the state's table (scoped stores of
  /// `ObservableState`) rather than in `ownSlot`.
  let recordsInStateTable: Bool

  init(identity: StateIdentity?, isRoot: Bool) {
    self.identity = identity?.id
    self.recordsInStateTable = identity != nil && !isRoot
    self.heardSlot = recordsInStateTable ? identity?.slot : nil
  }

  /// Records, in the current tracking scope, a read of the identity slot, `field` (the store's
  /// `state` field, named after its `Store` type): in `slot`, the table of the observable state
  /// read, or in the store's own.
  mutating func recordIdentityRead(_ field: @autoclosure () -> InternalField, in slot: TrackingRegistrar?) {
    if recordsInStateTable, let slot { return slot.access(field()) }
    let own = ownSlot ?? TrackingRegistrar()
    ownSlot = own
    own.access(field())
  }

  /// The guard for reads made through the store.
  mutating func guardForReads() -> TrackingGuard {
    if let readGuard { return readGuard }
    let made = TrackingGuard()
    readGuard = made
    return made
  }

  /// Whether `identity` is the one readers last heard of; otherwise it becomes it, and the table
  /// of the one it replaces is told by the next `notifyReplacement`. `nil` (plain state) never is.
  mutating func accept(_ identity: StateIdentity?) -> Bool {
    guard let identity else {
      self.identity = nil
      return false
    }
    if identity.id == self.identity { return true }
    self.identity = identity.id
    if recordsInStateTable {
      replacedSlot = heardSlot
      heardSlot = identity.slot
    }
    return false
  }

  /// Tells the readers of the identity slot that the state was replaced (or, plain, changed).
  mutating func notifyReplacement(_ field: @autoclosure () -> InternalField) {
    if let replacedSlot {
      self.replacedSlot = nil
      replacedSlot.notifyChange(of: field())
    }
    ownSlot?.notifyChange(of: field())
  }

  /// What was read through the store stops driving its readers.
  func invalidate() {
    readGuard?.invalidate()
  }
}

/// The identity of an `ObservableState` value, and the observer table its copies share (where a
/// store's identity slot is recorded).
@usableFromInline
internal struct StateIdentity {
  @usableFromInline let id: ObservableStateID
  @usableFromInline let slot: TrackingRegistrar

  @inlinable
  init(id: ObservableStateID, slot: TrackingRegistrar) {
    self.id = id
    self.slot = slot
  }
}

/// The identity of `state` if it is `ObservableState` (for the stores' initializers; the hot paths
/// use `StoreCore.observableIdentity(of:)`).
@usableFromInline
internal func _observableIdentity<State>(of state: State) -> StateIdentity? {
  guard let type = State.self as? any ObservableState.Type else { return nil }
  return _openIdentity(type, state)
}

/// The identity of `state`, an `Observable` (the caller opened its type). Read in place: `state as!
/// Observable` would copy all of it.
@inlinable
internal func _openIdentity<Observable: ObservableState, State>(_ type: Observable.Type, _ state: State)
  -> StateIdentity
{
  withUnsafePointer(to: state) { _openIdentity(type, at: $0) }
}

/// The identity of the state at `state`, an `Observable` (the caller opened its type).
@inlinable
internal func _openIdentity<Observable: ObservableState, State>(
  _: Observable.Type, at state: UnsafePointer<State>
) -> StateIdentity {
  let observable = UnsafeRawPointer(state).assumingMemoryBound(to: Observable.self)
  return StateIdentity(id: observable.pointee.observableStateID, slot: observable.pointee._trackingRegistrar)
}
