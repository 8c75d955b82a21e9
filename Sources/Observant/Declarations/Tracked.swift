/// Makes a stored property of a `Trackable` class observable.
///
/// Reads inside a tracking scope record the property; writes notify its observers unless nothing
/// changed: `ObservableState` (and optionals and collections of it) compare by identity, observable
/// objects (`Trackable`, optional, in a collection or a dictionary) by `===` even when
/// `Equatable`, `Equatable` values by `==`, class references (optional or not) by `===`; any other
/// value always notifies.
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
    // Every access this wrapper makes is instantaneous (no formal access spans the `_modify`
    // accessor's yield, see below), so optimized clients compile them without dynamic
    // exclusivity checks. A read outside a tracking scope is a plain read: a load, and nothing
    // that could make the optimizer keep the object retained around it. A tracked read also needs
    // the field's identity, its storage offset, which Swift yields only through a modifying
    // access (taking the address, which touches no memory; ThreadSanitizer would report it as a
    // write when two threads read one field, so it is hidden from the sanitizer, see
    // `_storageForReading`). The read is recorded (and the observer linked) before the value is
    // loaded, so a write on another thread right after it is heard.
    @inline(__always)
    get {
      guard let recorder = ThreadLocal.recorderForReads else { return object[keyPath: storageKeyPath].value }
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
    // One yield site, and the bookkeeping out of line: the coroutine is then inlined into the
    // property's own `_modify`, where the key path folds into a field access (a coroutine with
    // two yield sites is not inlined, and applies the key path at run time).
    @inline(__always)
    _modify {
      let storage = _storage(object, storageKeyPath)
      let strategy = _modifyStrategy(Value.self)
      // Trivially copyable values and enum state are mutated in place, then set like the setter
      // from the value they had (observers are told before the new value is stored). The other
      // strategies mutate the storage itself, with the checks of `_InPlaceModification`.
      let old: Value? = strategy.yieldsCopy ? storage.pointee.value : nil
      let inPlace = strategy.yieldsCopy ? nil : _beginInPlace(object, storage, strategy)
      defer {
        if let old {
          let new = storage.pointee.value
          storage.pointee.value = old
          _set(object, storage, new)
        } else if let inPlace {
          _endInPlace(object, storage, inPlace)
        }
      }
      yield &storage.pointee.value
    }
  }

  /// Starts an in-place mutation that yields the storage itself (see `_InPlaceModification`):
  /// opens the in-place frame (synchronous observers dirtied by writes nested in it run after it,
  /// when the property is no longer being modified), and for the `.announce` strategy tells the
  /// field's readers now.
  @inlinable @inline(never)
  internal static func _beginInPlace<Object: Trackable>(
    _ object: Object, _ storage: UnsafeMutablePointer<Self>, _ strategy: _ModifyStrategy
  ) -> _TrackedInPlace<Value> {
    _beginInPlaceMutation()
    let registrar = object.trackingRegistrar
    var opened = false
    let ticket = strategy == .announce ? registrar._writeTicket : 0
    if strategy == .announce && registrar.hasObservers {
      opened = registrar._announceClassFieldWrite(_fieldKey(object, storage), owner: Object.self, values: { nil })
    }
    // A class's property is live state: the anchor of every in-place mutation below it.
    let address = _valueAddress(storage)
    let modification = _InPlaceModification(strategy, at: address, anchored: true, place: _WritePlace.root(address))
    return _TrackedInPlace(modification: modification, ticket: ticket, openedTransaction: opened)
  }

  /// Ends an in-place mutation started by `_beginInPlace`: tells the slot's readers what changed.
  @inlinable @inline(never)
  internal static func _endInPlace<Object: Trackable>(
    _ object: Object, _ storage: UnsafeMutablePointer<Self>, _ inPlace: _TrackedInPlace<Value>
  ) {
    let registrar = object.trackingRegistrar
    let outcome = inPlace.modification.finish(at: _valueAddress(storage))
    if inPlace.modification.strategy == .announce && registrar._readersMayHaveMissed(since: inPlace.ticket) {
      registrar._deliverLate(_fieldKey(object, storage), overwriting: Stamp.none)
    }
    if case .slot(let values) = outcome, registrar.hasObservers {
      let slotOpened = registrar._announceClassFieldWrite(
        _fieldKey(object, storage), owner: Object.self, values: { values })
      if slotOpened { _endImplicitTransaction() }
    }
    if inPlace.openedTransaction { _endImplicitTransaction() }
    _endInPlaceMutation()
  }

  /// A write: a load and a branch when nobody observes the object and the value cannot hold
  /// observable state (decided at compile time for trivially copyable values).
  @inlinable @inline(__always)
  internal static func _set<Object: Trackable>(
    _ object: Object, _ storage: UnsafeMutablePointer<Self>, _ newValue: Value
  ) {
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
  internal static func _setObserved<Object: Trackable>(
    _ object: Object, _ storage: UnsafeMutablePointer<Self>, _ newValue: Value
  ) {
    let registrar = object.trackingRegistrar
    guard registrar.hasObservers || _TypeTraits.flags(of: Value.self) & _TypeTraits.mayHoldState != 0 else {
      _replaceValue(&storage.pointee.value, with: newValue)
      _checkLateReaders(object, storage, since: 0)
      return
    }
    switch _classifyWrite(storage.pointee.value, newValue) {
    case .none:
      _replaceValue(&storage.pointee.value, with: newValue)
    case .content:
      _beginInPlaceMutation()
      let ticket = registrar._writeTicket
      var adopted = newValue
      let address = _valueAddress(storage)
      _notifyContentDifferences(
        old: storage.pointee.value, new: &adopted, live: true, storedAt: address, place: _WritePlace.root(address))
      _replaceValue(&storage.pointee.value, with: adopted)
      _checkLateReaders(object, storage, since: ticket)
      _endInPlaceMutation()
    case .slot:
      // A collection of states: the readers of the elements both collections hold hear what
      // differs inside them (see `StateRegistrar._writeCollectionOfStates`).
      let flags = _TypeTraits.flags(of: Value.self)
      let nested = flags & (_TypeTraits.collectionOfStates | _TypeTraits.dictionaryOfStates) != 0
      // Another state (or none): the readers of the state that arrives hear what it holds that
      // they did not read (an older copy of a value coming back).
      // (A state, an optional of one, an `IdentityComparable` enum whose payload may be one.)
      let arriving = !nested && flags & _TypeTraits.mayHoldState != 0
      if nested || arriving { _beginInPlaceMutation() }
      if nested { _notifyNestedDifferences(old: storage.pointee.value, new: newValue) }
      defer {
        if arriving { _reconcileArrival(newValue) }
        if nested || arriving { _endInPlaceMutation() }
      }
      guard registrar.hasObservers else {
        _replaceValue(&storage.pointee.value, with: newValue)
        _checkLateReaders(object, storage, since: 0)
        return
      }
      let ticket = registrar._writeTicket
      let opened = registrar._announceClassFieldWrite(
        _fieldKey(object, storage), owner: Object.self,
        values: { _isComparable(Value.self) ? _changeValues(storage.pointee.value, newValue) : nil })
      _replaceValue(&storage.pointee.value, with: newValue)
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
  internal static func _fieldKey<Object: AnyObject>(_ object: Object, _ storage: UnsafeMutablePointer<Self>) -> FieldKey
  {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    return FieldKey(storedPropertyOffset: UnsafeRawPointer(storage) - base)
  }

  /// The address of the value in `storage` (its only stored property), where an in-place mutation
  /// reads its tokens without copying the value.
  @inlinable @inline(__always)
  internal static func _valueAddress(_ storage: UnsafeMutablePointer<Self>) -> UnsafePointer<Value> {
    UnsafeRawPointer(storage).assumingMemoryBound(to: Value.self)
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

/// What an in-place mutation of a `@Tracked` property keeps from its start to its end.
@usableFromInline
internal struct _TrackedInPlace<Value> {
  @usableFromInline let modification: _InPlaceModification<Value>
  @usableFromInline let ticket: UInt64
  @usableFromInline let openedTransaction: Bool

  @inlinable
  init(modification: _InPlaceModification<Value>, ticket: UInt64, openedTransaction: Bool) {
    self.modification = modification
    self.ticket = ticket
    self.openedTransaction = openedTransaction
  }
}
