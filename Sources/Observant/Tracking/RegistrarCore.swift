import Synchronization

/// The observer table behind a `TrackingRegistrar`, created the first time a field is tracked.
///
/// Observers and dependency lists hold the core, never the registrar: observing an object does not
/// keep its registrar alive, so the registrar goes away with its object, and its `deinit` empties
/// the core (`ownerDidDeinit`), which releases every observer entry. No weak references are
/// involved (they would move every retain and release of the object to a slow path).
@usableFromInline
internal final class RegistrarCore: @unchecked Sendable {
  private struct State {
    var table = ObserverTable()
    var isDead = false
  }

  /// The owning registrar's identity (for access logs).
  let id: InstanceIdentity
  /// Valid while the owner is alive; used only under the lock and only while `!isDead`, and the
  /// owner's `deinit` sets `isDead` under the same lock.
  private unowned(unsafe) let owner: TrackingRegistrar
  private let state = Mutex(State())
  private let dead = Atomic<Bool>(false)

  init(owner: TrackingRegistrar) {
    self.owner = owner
    self.id = owner.id
  }

  /// Whether the owning registrar is gone.
  var isDead: Bool { dead.load(ordering: .acquiring) }

  /// Installs `observer` on the fields of `accesses` (which all belong to this core). Returns
  /// `false` (installing nothing) if the owner is gone.
  @discardableResult
  func add(_ observer: TrackingObserver, for accesses: UnsafeBufferPointer<Access>) -> Bool {
    state.withLock { state in
      guard !state.isDead else { return false }
      for access in accesses { state.table.add(observer, for: access.key) }
      owner.observerCount.store(state.table.observerCount, ordering: .relaxed)
      return true
    }
  }

  @discardableResult
  func add(_ observer: TrackingObserver, for key: FieldKey) -> Bool {
    state.withLock { state in
      guard !state.isDead else { return false }
      state.table.add(observer, for: key)
      owner.observerCount.store(state.table.observerCount, ordering: .relaxed)
      return true
    }
  }

  /// Removes one entry of `observer` per access; missing entries are ignored.
  func remove(_ observer: TrackingObserver, for accesses: UnsafeBufferPointer<Access>) {
    state.withLock { state in
      guard !state.isDead else { return }
      for access in accesses { state.table.remove(observer, for: access.key) }
      owner.observerCount.store(state.table.observerCount, ordering: .relaxed)
    }
  }

  /// Fires immediate observers of `key` and schedules deferred ones (reactions) in this thread's
  /// transaction, opening one if a reaction is involved.
  ///
  /// - Returns: whether an implicit transaction was opened.
  func willChange(_ key: FieldKey, values: () -> ChangeValues?) -> Bool {
    let (observers, canonicalKey) = state.withLock { $0.table.observers(of: key) }
    return notify(observers, canonicalKey, values)
  }

  /// Notifies every observer of every field. Returns whether a transaction was opened.
  func allFieldsWillChange() -> Bool {
    let observers = state.withLock { $0.table.allObservers() }
    return notify(.many(observers), FieldKey(\RegistrarCore.id), { nil })
  }

  private func notify(_ observers: ObserverSnapshot, _ key: FieldKey, _ values: () -> ChangeValues?) -> Bool {
    guard !observers.isEmpty else { return false }
    var hasDeferred = false
    observers.forEach { observer in
      if observer.isDeferred { hasDeferred = true } else { observer.fire() }
    }
    guard hasDeferred else { return false }
    let context = TransactionContext.current
    context.begin()
    context.recordWrite(self, key, values, observers)
    return true
  }

  /// The owner is being deallocated: drop every observer entry and tell the observers.
  func ownerDidDeinit() {
    let observers = state.withLock { state in
      defer {
        state.isDead = true
        state.table = ObserverTable()
      }
      return state.table.allObservers()
    }
    dead.store(true, ordering: .releasing)
    for observer in observers { observer.registrarDidDeinit() }
  }
}
