import Synchronization

/// The observer table of one observable object or value: which observers depend on which field.
///
/// Every `Trackable` class stores one, and every `ObservableState` value reaches one through its
/// `StateRegistrar` (copies of a value share it). Accessors call it on every read and write:
///
/// - A read records the field in the tracking scope active on this thread, if any. With no scope
///   active it costs one thread-local load; no key path is built.
/// - A write to an object nobody observes costs one relaxed atomic load and no lock.
/// - A write to an observed field notifies its observers before the value is stored (willSet),
///   on the writing thread.
///
/// The registrar is thread-safe: observers are installed, removed and notified under a mutex that
/// is never held while user code runs.
///
/// Apple's `Observation` module has a type with a similar role; this one is named differently so
/// both can be imported into the same file.
public final class TrackingRegistrar: Sendable {
  /// An identity distinct from every other registrar's, shared by copies of the value that owns it.
  public let id: InstanceIdentity

  /// Number of observer entries in `table`; zero lets writes skip the lock.
  @usableFromInline
  internal let observerCount: Atomic<Int>

  internal let table: Mutex<ObserverTable>

  /// Creates a registrar with a fresh identity.
  ///
  /// - Complexity: O(1); one allocation (the registrar itself).
  public init() {
    id = InstanceIdentity.make()
    observerCount = Atomic(0)
    table = Mutex(ObserverTable())
  }

  deinit {
    guard hasObservers else { return }
    // The object is gone: observers that depended only on it can never fire; let them release
    // what they hold (a one-shot observation's closure, for one).
    let observers = table.withLock { $0.allObservers() }
    for observer in observers { observer.registrarDidDeinit() }
  }

  /// Whether any observer is installed on any field of this registrar.
  ///
  /// - Complexity: O(1); one relaxed atomic load.
  @inlinable
  public var hasObservers: Bool { observerCount.load(ordering: .relaxed) != 0 }

  /// The number of observer entries installed on this registrar (an observer of two fields counts
  /// twice). Meant for tests and diagnostics.
  public var observerEntryCount: Int { observerCount.load(ordering: .relaxed) }

  // MARK: Reads

  /// Records a read of `keyPath` in the tracking scope active on this thread, if any.
  ///
  /// - Complexity: O(1) when no scope is active (one thread-local load).
  @inlinable
  public func access<Root, Value>(keyPath: KeyPath<Root, Value>) {
    _recordAccess(self, keyPath, .keyPath)
  }

  // MARK: Writes

  /// Notifies the observers of `keyPath` that it is about to change. Pair every call with
  /// `didSet(keyPath:)` after the value is stored; prefer `withMutation(keyPath:_:)`, which pairs
  /// them for you.
  ///
  /// Notifies unconditionally: the registrar cannot see values. Accessors written with
  /// `@Tracked` or the `ObservableState` helpers skip writes that change nothing.
  public func willSet<Root, Value>(keyPath: KeyPath<Root, Value>) {
    guard hasObservers else { return }
    if _willChange(keyPath, values: { nil }) {
      TransactionContext.current.pushPendingDidSet(self, FieldKey(keyPath))
    }
  }

  /// Completes a change announced by `willSet(keyPath:)`: ends the implicit transaction the write
  /// started, if any, which re-runs the reactions that depend on the field.
  public func didSet<Root, Value>(keyPath: KeyPath<Root, Value>) {
    TransactionContext.existing?.popPendingDidSet(self, FieldKey(keyPath))
  }

  /// Runs `mutation` between `willSet(keyPath:)` and `didSet(keyPath:)`.
  public func withMutation<Root, Value, Result>(
    keyPath: KeyPath<Root, Value>,
    _ mutation: () throws -> Result
  ) rethrows -> Result {
    guard hasObservers else { return try mutation() }
    let opened = _willChange(keyPath, values: { nil })
    defer { if opened { _didChange() } }
    return try mutation()
  }

  /// Slow path of a write to an observed registrar: notifies the observers of `key`.
  ///
  /// - Parameter values: the write's old and new value, boxed only if a reaction needs them to
  ///   recognize a write that is reverted within its transaction.
  /// - Returns: whether an implicit transaction was opened (the caller must call `_didChange()`
  ///   after storing the value).
  @usableFromInline
  internal func _willChange(_ keyPath: AnyKeyPath, values: () -> ChangeValues?) -> Bool {
    let key = FieldKey(keyPath)
    let observers = table.withLock { $0.observers(of: key) }
    return _notify(observers, key, values)
  }

  /// Fires immediate observers and schedules deferred ones (reactions) in this thread's
  /// transaction, opening one if a reaction is involved.
  private func _notify(_ observers: ObserverSnapshot, _ key: FieldKey, _ values: () -> ChangeValues?) -> Bool {
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

  /// Ends the implicit transaction opened by `_willChange` (flushing reactions if it was the
  /// outermost one).
  @usableFromInline
  internal func _didChange() {
    TransactionContext.current.end()
  }

  // MARK: Observer installation

  internal func addObserver(_ observer: TrackingObserver, for key: FieldKey) {
    table.withLock { table in
      table.add(observer, for: key)
      observerCount.store(table.observerCount, ordering: .relaxed)
    }
  }

  internal func addObserver(_ observer: TrackingObserver, for keys: some Sequence<FieldKey>) {
    table.withLock { table in
      for key in keys { table.add(observer, for: key) }
      observerCount.store(table.observerCount, ordering: .relaxed)
    }
  }

  internal func removeObserver(_ observer: TrackingObserver, for keys: some Sequence<FieldKey>) {
    table.withLock { table in
      for key in keys { table.remove(observer, for: key) }
      observerCount.store(table.observerCount, ordering: .relaxed)
    }
  }

  /// Notifies every observer of every field, e.g. when the value that owned this registrar was
  /// replaced wholesale and its readers must look again.
  internal func notifyAllFieldsWillChange() {
    guard hasObservers else { return }
    let observers = table.withLock { $0.allObservers() }
    if _notify(.many(observers), FieldKey(\TrackingRegistrar.id), { nil }) { _didChange() }
  }
}

extension TrackingRegistrar: CustomStringConvertible {
  public var description: String {
    "TrackingRegistrar(\(id), observers: \(observerEntryCount))"
  }
}
