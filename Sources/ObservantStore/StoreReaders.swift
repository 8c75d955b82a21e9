import Observant

/// The reader role of a store: the identity slot its readers record, the guard their reads are
/// recorded under, and the identity of the state they last heard of.
///
/// Stored inline in the store's core; the registrar and the guard are made on the first tracked
/// read, so a store nobody reads under tracking costs neither.
@MainActor
internal struct StoreReaders {
  /// The identity slot: readers record it; it notifies when the state is replaced by a new value.
  private var registrar: TrackingRegistrar?
  /// Guards the reads made through the store (see `TrackingGuard`); invalidated with the store.
  private var readGuard: TrackingGuard?
  /// The `ObservableStateID` of the state readers last heard of (`nil` for plain state).
  var identity: ObservableStateID?

  init(identity: ObservableStateID?) {
    self.identity = identity
  }

  /// Records, in the current tracking scope, a read of the identity slot, `field` (the store's
  /// `state` field, named after its `Store` type).
  mutating func recordIdentityRead(_ field: @autoclosure () -> InternalField) {
    let registrar = self.registrar ?? TrackingRegistrar()
    self.registrar = registrar
    registrar.access(field())
  }

  /// The guard for reads made through the store.
  mutating func guardForReads() -> TrackingGuard {
    if let readGuard { return readGuard }
    let made = TrackingGuard()
    readGuard = made
    return made
  }

  /// Tells the readers of the identity slot that the state was replaced.
  func notifyReplacement(_ field: @autoclosure () -> InternalField) {
    registrar?.notifyChange(of: field())
  }

  /// What was read through the store stops driving its readers.
  func invalidate() {
    readGuard?.invalidate()
  }
}
