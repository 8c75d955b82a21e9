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
  /// The identity slot readers record: for scoped stores of `ObservableState`, the table of the
  /// state readers last heard of (which its copies share: the state the store keeps holds the
  /// same table, so this adds no reference of its own that matters); for plain state and the
  /// root's state, a table of the store's own, made on the first tracked read, which notifies
  /// when the state changed or was replaced. (The root keeps no reference to its state's table: a
  /// second one would make every write to the state take the slower path of a shared value.)
  private var slot: TrackingRegistrar?
  /// Guards the reads made through the store (see `TrackingGuard`); invalidated with the store.
  private var readGuard: TrackingGuard?
  /// The raw `ObservableStateID` of the state readers last heard of; 0 (no identity is) for plain
  /// state. (A raw value: an optional would take a word more in every store.)
  private var identityValue: UInt64
  /// Whether readers record the identity slot in the state's table (scoped stores of
  /// `ObservableState`) rather than in a table of the store's own.
  let recordsInStateTable: Bool
  /// The number of this store's identity field in the state's table (scoped stores of
  /// `ObservableState`): one per store. Stores over copies of one state (a row's store and a
  /// draft's store over a copy of the row) share the state's table, and a store handed another
  /// state tells the readers of its own identity field, not those of every store over a copy.
  private let identityNumber: UInt32

  /// The last identity field number handed out (0 is the shared number of the stores' own tables).
  private static var lastIdentityNumber: UInt32 = 0

  init(identity: StateIdentity?, isRoot: Bool) {
    self.identityValue = identity?.id.rawValue ?? 0
    self.recordsInStateTable = identity != nil && !isRoot
    self.slot = recordsInStateTable ? identity?.slot.takeUnretainedValue() : nil
    if recordsInStateTable {
      // Wrapping after 2^32 - 1 stores only makes two stores share a field again: a store handed
      // another state would then also re-run the other's readers once (showing what they show).
      Self.lastIdentityNumber = Self.lastIdentityNumber == .max ? 1 : Self.lastIdentityNumber + 1
      self.identityNumber = Self.lastIdentityNumber
    } else {
      self.identityNumber = 0
    }
  }

  /// The `ObservableStateID` of the state readers last heard of (`nil` for plain state).
  var identity: ObservableStateID? { identityValue == 0 ? nil : ObservableStateID(rawValue: identityValue) }

  /// Records, in the current tracking scope, a read of the identity slot, `field` (the store's
  /// `state` field, named after its `Store` type): in `stateSlot`, the table of the observable
  /// state read (held by that state, see `StateIdentity`), or in the store's own.
  mutating func recordIdentityRead(
    _ field: @autoclosure () -> InternalField, in stateSlot: Unmanaged<TrackingRegistrar>?
  ) {
    if recordsInStateTable, let stateSlot {
      return _recordRead(field().numbered(Int(identityNumber)), in: stateSlot)
    }
    let own = slot ?? TrackingRegistrar()
    slot = own
    own.access(field())
  }

  /// The guard for reads made through the store.
  mutating func guardForReads() -> TrackingGuard {
    if let readGuard { return readGuard }
    let made = TrackingGuard()
    readGuard = made
    return made
  }

  /// Whether `identity` is the one readers last heard of; otherwise it becomes it, and, for a
  /// scoped store of `ObservableState`, the readers of the identity slot `field` in the table of
  /// the one it replaces are told now (the state was replaced: the caller announces the
  /// replacement next, see `notifyReplacement`). `nil` (plain state) never is.
  mutating func accept(_ identity: StateIdentity?, field: @autoclosure () -> InternalField) -> Bool {
    guard let identity else {
      identityValue = 0
      return false
    }
    if identity.id.rawValue == identityValue { return true }
    identityValue = identity.id.rawValue
    if recordsInStateTable {
      let replaced = slot
      slot = identity.slot.takeUnretainedValue()
      replaced?.notifyChange(of: field().numbered(Int(identityNumber)))
    }
    return false
  }

  /// Tells the readers of the store's own identity slot (plain state, the root's state) that the
  /// state was replaced or changed. (A scoped store of `ObservableState` told the table of the
  /// replaced state when it accepted the new one.)
  mutating func notifyReplacement(_ field: @autoclosure () -> InternalField) {
    if !recordsInStateTable { slot?.notifyChange(of: field()) }
  }

  /// `notifyReplacement(_:)` for plain state known to have gone from `old` to `new`: the
  /// transaction keeps both, so that state changed and changed back within it (by two actions of
  /// one send) re-runs nobody.
  mutating func notifyChange<State>(_ field: @autoclosure () -> InternalField, from old: State, to new: State) {
    if !recordsInStateTable { slot?.notifyChange(of: field(), from: old, to: new) }
  }

  /// What was read through the store stops driving its readers.
  func invalidate() {
    readGuard?.invalidate()
  }
}

/// Records a read of `field` in `slot`, held by the state read (see `StateIdentity`). Not
/// isolated: a main-actor closure handed to the standard library checks its executor on every call.
private func _recordRead(_ field: InternalField, in slot: Unmanaged<TrackingRegistrar>) {
  slot._withUnsafeGuaranteedRef { $0.access(field) }
}

/// The identity of an `ObservableState` value, and the observer table its copies share (where a
/// store's identity slot is recorded).
///
/// Read from a state and used while that state is held (a commit's, a read's): the state keeps the
/// registrar alive, so the identity holds it unmanaged (a strong reference was a retain and a
/// release on every read through a store and every commit). Whoever keeps the slot takes a
/// reference of its own (`takeUnretainedValue()`).
@usableFromInline
internal struct StateIdentity {
  @usableFromInline let id: ObservableStateID
  @usableFromInline let slot: Unmanaged<TrackingRegistrar>

  @inlinable
  init(id: ObservableStateID, slot: TrackingRegistrar) {
    self.id = id
    self.slot = .passUnretained(slot)
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
