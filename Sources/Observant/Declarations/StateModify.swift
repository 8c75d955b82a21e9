extension ObservableState {
  /// In-place access to a tracked field, for its `_modify` accessor: element mutation happens in
  /// the storage itself (no copy-on-write of a collection), and is observed as precisely as a
  /// write through the setter.
  ///
  /// ```swift
  /// private var _rows = StateField<IdentifiedArrayOf<Row>>([])
  /// var rows: IdentifiedArrayOf<Row> {
  ///   get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
  ///   _modify { yield &self[tracking: \._rows] }
  /// }
  /// ```
  ///
  /// What the mutation notifies depends on the field's type:
  /// - observable state, or an optional one: the slot's readers hear it only if the identity
  ///   changed (`child = Child()`, `child = nil`); the child's readers hear their own fields
  ///   (`child.count += 1`), also when the child was replaced by an edited copy of itself;
  /// - an identified array: the slot's readers hear insertions, removals, moves and replaced
  ///   elements (O(1)); an element's readers hear their own fields;
  /// - an array or a dictionary of observable state: the same, decided by comparing the ids before
  ///   and after (O(*n*));
  /// - a trivially copyable or identity-comparable value (enum state): mutated as a copy and
  ///   written like the setter;
  /// - anything else: the slot's readers are told before the mutation, unconditionally (comparing
  ///   would need a copy, which would force copy-on-write of the field's storage).
  ///
  /// - Parameters:
  ///   - storage: the field's storage (`\._rows`).
  ///   - field: the field's name; leave out the default (`#function`, the property's name).
  @inlinable
  public subscript<Value>(tracking storage: WritableKeyPath<Self, StateField<Value>>, field: StaticString = #function)
    -> Value
  {
    get { registrar.read(self[keyPath: storage], field: field) }
    set {
      var copy = self[keyPath: storage]
      registrar.write(&copy, newValue, field: field)
      self[keyPath: storage] = copy
    }
    // One yield site, and the bookkeeping out of line: the coroutine is then inlined into the
    // field's own `_modify`, where the key path folds into a field access (a coroutine with two
    // yield sites is not inlined: it applies the key path at run time, and its frame is allocated).
    @inline(__always)
    _modify {
      let strategy = _modifyStrategy(Value.self)
      // Trivially copyable values and enum state are mutated in place, then written like the
      // setter from the value they had (a copy kept meanwhile, as a copy yielded would be). The
      // other strategies mutate the storage itself, with the checks of `_InPlaceModification`.
      let old: Value? = strategy.yieldsCopy ? self[keyPath: storage].value : nil
      let inPlace: _StateFieldInPlace<Value>?
      if strategy.yieldsCopy {
        inPlace = nil
      } else {
        let live = registrar._isLive
        // Where the registrar is, to tell where the field is in the value (only subtracted from).
        let registrarAddress = withUnsafeMutablePointer(to: &registrar) { UnsafeRawPointer($0) }
        inPlace = Self._beginInPlace(
          &self[keyPath: storage], Unmanaged.passUnretained(registrar.tracking), strategy, field: field, live: live,
          place: registrar._place, registrarAddress: registrarAddress)
      }
      defer {
        if let old {
          var written = self[keyPath: storage]
          let new = written.value
          written.value = old
          registrar.write(&written, new, field: field)
          self[keyPath: storage] = written
        } else if let inPlace {
          let outcome = Self._endInPlace(
            &self[keyPath: storage], Unmanaged.passUnretained(registrar.tracking), inPlace, field: field)
          if outcome.changed { registrar._noteChange() }
          Self._closeInPlace(inPlace, slotOpenedTransaction: outcome.openedTransaction)
        }
      }
      yield &self[keyPath: storage].value
    }
  }

  /// Starts an in-place mutation of `storage` that yields the storage itself: opens the in-place
  /// frame (scheduled observers dirtied by writes nested in it run after it, when the field is no
  /// longer being modified), and for the `.announce` strategy tells the field's readers now.
  ///
  /// The registrar is passed unretained: the value being mutated holds it for the whole access (a
  /// reference loaded from it while `storage` is borrowed `inout` would be retained and released
  /// around each call).
  @inlinable @inline(never)
  internal static func _beginInPlace<Value>(
    _ storage: inout StateField<Value>, _ registrar: Unmanaged<TrackingRegistrar>, _ strategy: _ModifyStrategy,
    field: StaticString, live: Bool, place: UInt64, registrarAddress: UnsafeRawPointer
  ) -> _StateFieldInPlace<Value> {
    _beginInPlaceMutation()
    var opened = false
    if strategy == .announce {
      let announcement = registrar.takeUnretainedValue()._announceFieldWrite(
        field, owner: Self.self, from: storage.stamp, live: live, place: place, values: { nil })
      storage.stamp = announcement.seen
      opened = announcement.openedTransaction
    }
    let offset = withUnsafeMutablePointer(to: &storage) { UnsafeRawPointer($0) - registrarAddress }
    let fieldPlace = _WritePlace.field(of: place, offset: offset)
    let modification = _InPlaceModification(strategy, at: &storage.value, anchored: live, place: fieldPlace)
    return _StateFieldInPlace(modification: modification, live: live, place: place, openedTransaction: opened)
  }

  /// Ends an in-place mutation started by `_beginInPlace`: tells the slot's readers what changed
  /// and records it in the field's stamp. Returns whether the value changed (its own stamp is the
  /// caller's to move) and whether the slot's announcement opened a transaction. The registrar is
  /// passed unretained, as to `_beginInPlace`.
  @inlinable @inline(never)
  internal static func _endInPlace<Value>(
    _ storage: inout StateField<Value>, _ registrar: Unmanaged<TrackingRegistrar>,
    _ inPlace: _StateFieldInPlace<Value>, field: StaticString
  ) -> (changed: Bool, openedTransaction: Bool) {
    switch inPlace.modification.finish(at: &storage.value) {
    case .unchanged:
      return (false, false)
    case .content, .announced:
      return (true, false)
    case .slot(let values):
      let (seen, opened) = registrar.takeUnretainedValue()._announceFieldWrite(
        field, owner: Self.self, from: storage.stamp, live: inPlace.live, place: inPlace.place, values: { values })
      storage.stamp = seen
      return (true, opened)
    }
  }

  /// Closes the transactions an in-place mutation opened.
  @inlinable
  internal static func _closeInPlace<Value>(_ inPlace: _StateFieldInPlace<Value>, slotOpenedTransaction: Bool) {
    if slotOpenedTransaction { _endImplicitTransaction() }
    if inPlace.openedTransaction { _endImplicitTransaction() }
    _endInPlaceMutation()
  }
}

/// An in-place mutation of an `ObservableState` field under way (see `subscript(tracking:)`).
@usableFromInline
internal struct _StateFieldInPlace<Value> {
  @usableFromInline let modification: _InPlaceModification<Value>
  /// The value is live state (see `StateRegistrar._isLive`).
  @usableFromInline let live: Bool
  /// Where the value holding the field is stored (see `_WritePlace`): the place of the field's
  /// own writes.
  @usableFromInline let place: UInt64
  /// The `.announce` strategy's early announcement opened a transaction.
  @usableFromInline let openedTransaction: Bool

  @inlinable
  init(modification: _InPlaceModification<Value>, live: Bool, place: UInt64, openedTransaction: Bool) {
    self.modification = modification
    self.live = live
    self.place = place
    self.openedTransaction = openedTransaction
  }
}
