/// Makes a stored property of a `Trackable` class observable.
///
/// Reads inside a tracking scope record the property; writes notify its observers unless nothing
/// changed: `ObservableState` (and optionals and collections of it) compare by identity, `Equatable`
/// values by `==`, class references by `===`; any other value always notifies.
///
/// In-place mutation (`profile.tags.append(t)`, `model.state.rows[id: 1]?.count += 1`) mutates the
/// storage in place, with the checks described on `ObservableState`'s `subscript(tracking:)`.
@propertyWrapper
public struct Tracked<Value> {
  @usableFromInline
  internal var value: Value

  /// The property's initial value: `@Tracked var count = 0`.
  @inlinable
  public init(wrappedValue: Value) {
    value = wrappedValue
  }

  /// Unavailable: `@Tracked` reaches its object's registrar through the enclosing instance, so it
  /// works only on properties of classes that conform to `Trackable`.
  @available(*, unavailable, message: "@Tracked can only be used on properties of a class that conforms to Trackable")
  public var wrappedValue: Value {
    get { fatalError("@Tracked can only be used on properties of a class that conforms to Trackable") }
    set { fatalError("@Tracked can only be used on properties of a class that conforms to Trackable") }
  }

  @inlinable
  public static subscript<Object: Trackable>(
    _enclosingInstance object: Object,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Value {
    // The key path arguments are never used as objects: a use anywhere makes the compiler build
    // both on every access. `storageKeyPath` is only applied, which the optimizer folds into a
    // direct field access (and the field's identity into a constant storage offset) once these
    // accessors are inlined into the property's synthesized accessors, where the key paths are
    // literals. Hence `@inline(__always)`, and slow paths kept out of line.
    //
    // A read outside a tracking scope is a plain read access. A tracked read needs the field's
    // identity, its storage offset, which Swift yields only through a modifying access (taking
    // the address): that access touches no memory, but ThreadSanitizer would report two threads
    // reading one field as a race, so it is hidden from the sanitizer (see `_storageForReading`),
    // and the value is then read through the address. The read is recorded (and the observer
    // linked) before the value is read, so a write on another thread right after it is heard.
    @inline(__always)
    get {
      guard let recorder = ThreadLocal.recorder else { return object[keyPath: storageKeyPath].value }
      let storage = _storageForReading(object, storageKeyPath)
      recorder._withUnsafeGuaranteedRef {
        $0.record(object.trackingRegistrar, _fieldKey(object, storage), .storedProperty(Object.self), seen: Stamp.none)
      }
      return storage.pointee.value
    }
    @inline(__always)
    set {
      _set(object, _storage(object, storageKeyPath), newValue)
    }
    @inline(__always)
    _modify {
      let strategy = _modifyStrategy(Value.self)
      if strategy.yieldsCopy {
        // Trivially copyable (nothing inside can be observed) or enum state: mutate a copy, then
        // set it like the setter.
        var copy = object[keyPath: storageKeyPath].value
        defer { _set(object, _storage(object, storageKeyPath), copy) }
        yield &copy
      } else {
        // Scheduled observers dirtied by writes nested in this mutation run after it, when the
        // property is no longer being modified; synchronous ones are deferred to its end.
        _beginInPlaceMutation()
        let registrar = object.trackingRegistrar
        var opened = false
        let ticket = strategy == .announce ? registrar._writeTicket : 0
        if strategy == .announce && registrar.hasObservers {
          opened = registrar._announceClassFieldWrite(_fieldKey(object, storageKeyPath), owner: Object.self, values: { nil })
        }
        // A class's property is live state: the anchor of every in-place mutation below it.
        let modification = _InPlaceModification(strategy, current: object[keyPath: storageKeyPath].value, anchored: true)
        defer {
          let outcome = modification.finish(current: object[keyPath: storageKeyPath].value)
          if strategy == .announce && registrar._readersMayHaveMissed(since: ticket) {
            registrar._deliverLate(_fieldKey(object, storageKeyPath), overwriting: Stamp.none)
          }
          if case .slot(let values) = outcome, registrar.hasObservers {
            let slotOpened = registrar._announceClassFieldWrite(
              _fieldKey(object, storageKeyPath), owner: Object.self, values: { values })
            if slotOpened { _endImplicitTransaction() }
          }
          if opened { _endImplicitTransaction() }
          _endInPlaceMutation()
        }
        yield &object[keyPath: storageKeyPath].value
      }
    }
  }

  /// A write: a load and a branch when nobody observes the object and the value cannot hold
  /// observable state (decided at compile time for trivially copyable values).
  @inlinable @inline(__always)
  internal static func _set<Object: Trackable>(_ object: Object, _ storage: UnsafeMutablePointer<Self>, _ newValue: Value) {
    if object.trackingRegistrar.hasObservers || !_isPOD(Value.self) {
      _setObserved(object, storage, newValue)
    } else {
      storage.pointee.value = newValue
      _checkLateReaders(object, storage, since: 0)
    }
  }

  /// After a store: tells the field's readers that started depending on it while the write was
  /// under way, and may have read the old value (a barrier and a load; see
  /// `TrackingRegistrar._readersMayHaveMissed(since:)`).
  @inlinable @inline(__always)
  internal static func _checkLateReaders<Object: Trackable>(
    _ object: Object, _ storage: UnsafeMutablePointer<Self>, since ticket: UInt64
  ) {
    let registrar = object.trackingRegistrar
    if registrar._readersMayHaveMissed(since: ticket) {
      registrar._deliverLate(_fieldKey(object, storage), overwriting: Stamp.none)
    }
  }

  /// The observed path of a setter, kept out of line so accessors inline to a load and a branch.
  /// Observers run before the store: a synchronous observer may read the old value.
  @inlinable @inline(never)
  internal static func _setObserved<Object: Trackable>(_ object: Object, _ storage: UnsafeMutablePointer<Self>, _ newValue: Value) {
    let registrar = object.trackingRegistrar
    guard registrar.hasObservers || _TypeTraits.flags(of: Value.self) & _TypeTraits.mayHoldState != 0 else {
      storage.pointee.value = newValue
      _checkLateReaders(object, storage, since: 0)
      return
    }
    switch _classifyWrite(storage.pointee.value, newValue) {
    case .none:
      storage.pointee.value = newValue
    case .content:
      _beginInPlaceMutation()
      let ticket = registrar._writeTicket
      var adopted = newValue
      _notifyContentDifferences(old: storage.pointee.value, new: &adopted, live: true)
      storage.pointee.value = adopted
      _checkLateReaders(object, storage, since: ticket)
      _endInPlaceMutation()
    case .slot:
      guard registrar.hasObservers else {
        storage.pointee.value = newValue
        _checkLateReaders(object, storage, since: 0)
        return
      }
      let ticket = registrar._writeTicket
      let opened = registrar._announceClassFieldWrite(
        _fieldKey(object, storage), owner: Object.self,
        values: { _isComparable(Value.self) ? _changeValues(storage.pointee.value, newValue) : nil })
      storage.pointee.value = newValue
      _checkLateReaders(object, storage, since: ticket)
      if opened { _endImplicitTransaction() }
    }
  }

  /// The field's identity: the offset of its storage in the object, which optimized code folds to
  /// a constant. Called only outside any other access to the storage (the inout access below is
  /// instantaneous: it takes an address, it reads and writes nothing).
  @inlinable @inline(__always)
  internal static func _fieldKey<Object: AnyObject>(
    _ object: Object, _ storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> FieldKey {
    _fieldKey(object, _storage(object, storageKeyPath))
  }

  @inlinable @inline(__always)
  internal static func _fieldKey<Object: AnyObject>(_ object: Object, _ storage: UnsafeMutablePointer<Self>) -> FieldKey {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    return FieldKey(storedPropertyOffset: UnsafeRawPointer(storage) - base)
  }

  /// The address of the storage for a read: the same, with the modifying access that takes it
  /// hidden from ThreadSanitizer (a load and a branch when it is not in the build).
  @inlinable @inline(__always)
  internal static func _storageForReading<Object: AnyObject>(
    _ object: Object, _ storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> UnsafeMutablePointer<Self> {
    ThreadLocal.hidingFromThreadSanitizer { _storage(object, storageKeyPath) }
  }

  /// The address of the storage inside `object` (which keeps it alive), taken with an
  /// instantaneous modifying access; valid while `object` is.
  @inlinable @inline(__always)
  internal static func _storage<Object: AnyObject>(
    _ object: Object, _ storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> UnsafeMutablePointer<Self> {
    _withUnprotectedUnsafeMutablePointer(to: &object[keyPath: storageKeyPath]) { $0 }
  }
}

extension Tracked: Sendable where Value: Sendable {}
