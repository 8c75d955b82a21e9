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
/// is never held while user code runs. Its observer table is allocated the first time a tracking
/// scope reads one of its fields, so an object nobody observes carries only this small handle.
/// When the registrar goes away (with its object), every observer entry goes with it.
///
/// Apple's `Observation` module has a type with a similar role; this one is named differently so
/// both can be imported into the same file.
public final class TrackingRegistrar: Sendable {
  /// An identity distinct from every other registrar's, shared by copies of the value that owns it.
  public let id: InstanceIdentity

  /// Number of observer entries; zero lets writes skip everything else. Maintained by the core.
  @usableFromInline
  internal let observerCount: Atomic<Int>

  /// The observer table, created on first use (+1 while stored).
  @usableFromInline
  internal let storedCore: Atomic<Unmanaged<RegistrarCore>?>

  /// Creates a registrar with a fresh identity.
  ///
  /// - Complexity: O(1); one small allocation (the registrar itself).
  public init() {
    id = InstanceIdentity.make()
    observerCount = Atomic(0)
    storedCore = Atomic(nil)
  }

  deinit {
    guard let core = storedCore.load(ordering: .acquiring) else { return }
    core.takeUnretainedValue().ownerDidDeinit()
    core.release()
  }

  /// The observer table, created on first use.
  internal var core: RegistrarCore {
    if let core = existingCore { return core }
    let created = Unmanaged.passRetained(RegistrarCore(owner: self))
    let (exchanged, winner) = storedCore.compareExchange(
      expected: nil, desired: created, ordering: .acquiringAndReleasing)
    if exchanged { return created.takeUnretainedValue() }
    created.release()
    return winner!.takeUnretainedValue()
  }

  /// The address of the observer table, if one was made (compared by recorders, never
  /// dereferenced by them).
  @inlinable
  internal var _coreAddress: UnsafeMutableRawPointer? {
    storedCore.load(ordering: .acquiring)?.toOpaque()
  }

  /// The observer table if a field was ever tracked.
  internal var existingCore: RegistrarCore? {
    storedCore.load(ordering: .acquiring)?.takeUnretainedValue()
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
  /// - Parameter name: the field's name in access logs (key paths to computed properties carry
  ///   none); by default derived from the key path.
  /// - Complexity: O(1) when no scope is active (one thread-local load).
  @inlinable
  public func access<Root, Value>(keyPath: KeyPath<Root, Value>, name: StaticString? = nil) {
    _recordAccess(self, FieldKey(keyPath), name.map(FieldLabel.name) ?? .keyPath)
  }

  /// Records a read of a numbered field (see `TrackedField`).
  ///
  /// - Complexity: O(1) when no scope is active (one thread-local load). Builds no key path.
  @inlinable
  public func access(_ field: TrackedField) {
    _recordAccess(self, FieldKey(numberedField: field.number), .owned(field.name, field.owner))
  }

  // MARK: Writes

  /// Notifies the observers of a numbered field that it changed (see `TrackedField`); runs
  /// `mutation` in between.
  public func withMutation<Result>(of field: TrackedField, _ mutation: () throws -> Result) rethrows -> Result {
    guard hasObservers else { return try mutation() }
    let opened = _willChange(FieldKey(numberedField: field.number), values: { nil })
    defer { if opened { _didChange() } }
    return try mutation()
  }

  /// Notifies the observers of `keyPath` that it is about to change. Pair every call with
  /// `didSet(keyPath:)` after the value is stored; prefer `withMutation(keyPath:_:)`, which pairs
  /// them for you.
  ///
  /// Notifies unconditionally: the registrar cannot see values. Accessors written with
  /// `@Tracked` or the `ObservableState` helpers skip writes that change nothing.
  public func willSet<Root, Value>(keyPath: KeyPath<Root, Value>) {
    guard hasObservers else { return }
    let key = FieldKey(keyPath)
    if _willChange(key, values: { nil }) {
      TransactionContext.current.pushPendingDidSet(self, key)
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
    let opened = _willChange(FieldKey(keyPath), values: { nil })
    defer { if opened { _didChange() } }
    return try mutation()
  }

  /// The observed path of a setter, kept out of line so accessors inline to a load and a branch.
  ///
  /// Notifies the observers of `key` unless writing `new` over `old` changes nothing.
  /// - Returns: whether the caller must call `_didChange()` after storing `new`.
  @inlinable @inline(never)
  internal func _announceWrite<Value>(_ key: FieldKey, from old: Value, to new: Value) -> Bool {
    guard !_isUnchanged(old, new) else { return false }
    return _willChange(key, values: { _changeValues(old, new) })
  }

  /// Slow path of a write to an observed registrar: notifies the observers of `key`.
  ///
  /// - Parameter values: the write's old and new value, boxed only if a reaction needs them to
  ///   recognize a write that is reverted within its transaction.
  /// - Returns: whether an implicit transaction was opened (the caller must call `_didChange()`
  ///   after storing the value).
  @usableFromInline
  internal func _willChange(_ key: FieldKey, values: () -> ChangeValues?) -> Bool {
    existingCore?.willChange(key, values: values) ?? false
  }

  /// Ends the implicit transaction opened by `_willChange` (flushing reactions if it was the
  /// outermost one).
  @usableFromInline
  internal func _didChange() {
    TransactionContext.current.end()
  }

  /// Notifies every observer of every field, e.g. when the value that owned this registrar was
  /// replaced wholesale and its readers must look again.
  internal func notifyAllFieldsWillChange() {
    guard hasObservers, let core = existingCore else { return }
    if core.allFieldsWillChange() { _didChange() }
  }
}

extension TrackingRegistrar: CustomStringConvertible {
  public var description: String {
    "TrackingRegistrar(\(id), observers: \(observerEntryCount))"
  }
}
