extension StateRegistrar {
  /// The getter of a tracked field: records the read, returns the value.
  ///
  /// ```swift
  /// var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  /// ```
  ///
  /// - Parameters:
  ///   - storage: the field's storage.
  ///   - field: the field's name; the default (`#function` inside the accessor) is the property's
  ///     name, which identifies the field. Leave it out.
  /// - Complexity: O(1). Outside a tracking scope: one thread-local load.
  @inlinable @inline(__always)
  public func read<Value>(_ storage: StateField<Value>, field: StaticString = #function) -> Value {
    _recordAccess(tracking, .unresolved, .field(owner: Owner.self), text: field, seen: storage.stamp)
    return storage.value
  }

  /// The setter of a tracked field: stores `newValue` and notifies the field's readers, unless
  /// nothing changed (identity rules, then `==`, then `===`; see `isIdentityEqual`).
  ///
  /// ```swift
  /// var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  /// ```
  ///
  /// Writing an edited copy of child state over the value it was copied from (same identity)
  /// notifies the readers of the child's fields that differ, not the readers of this field.
  ///
  /// - Parameters:
  ///   - storage: the field's storage.
  ///   - newValue: the value to store.
  ///   - field: the field's name; leave out the default (`#function`, the property's name).
  /// - Complexity: O(1) when nobody observes the value and the field holds no state (a comparison,
  ///   a thread-local increment, the store); otherwise the comparison plus notifying the field's
  ///   readers.
  @inlinable
  public mutating func write<Value>(
    _ storage: inout StateField<Value>, _ newValue: Value, field: StaticString = #function
  ) {
    switch _classifyWrite(storage.value, newValue) {
    case .none:
      // Nothing a reader can tell changed; the value is stored all the same (an equal value may
      // still differ in ways nobody observes, an identified array's journal, say).
      _replaceValue(&storage.value, with: newValue)
    case .content:
      _writeContent(&storage, newValue)
    case .slot:
      let flags = _TypeTraits.flags(of: Value.self)
      if flags & (_TypeTraits.collectionOfStates | _TypeTraits.dictionaryOfStates) != 0 {
        _writeCollectionOfStates(&storage, newValue, field: field)
      } else if flags & _TypeTraits.mayHoldState != 0 {
        // A state, an optional of one, an `IdentityComparable` enum whose payload may be one.
        _writeArrivingState(&storage, newValue, field: field)
      } else {
        _writeSlot(&storage, newValue, field: field)
      }
    }
  }

  /// A write that replaces what the field holds: out of line with readers to tell, otherwise a new
  /// stamp and the store (and the readers that started depending on the field meanwhile).
  @inlinable @inline(__always)
  internal mutating func _writeSlot<Value>(_ storage: inout StateField<Value>, _ newValue: Value, field: StaticString) {
    if tracking.hasObservers {
      _writeObserved(&storage, newValue, field: field)
    } else {
      let old = storage.stamp
      let new = Stamp.next()
      _replaceValue(&storage.value, with: newValue)
      storage.stamp = new
      _noteChange(to: new)
      if tracking._readersMayHaveMissed(since: 0) { tracking._deliverLate(field: field, overwriting: old) }
    }
  }

  /// A write that gives a collection of states other elements (or another order): the slot's
  /// readers hear it, and so do the readers of the elements both collections hold (matched by
  /// identity) whose content differs: the new collection may hold copies from another time (an
  /// undo snapshot of the rows), and a reader of a row that does not read the slot (a row store's
  /// body) must hear that its row changed. O(*n*) in the elements.
  @inlinable @inline(never)
  internal mutating func _writeCollectionOfStates<Value>(
    _ storage: inout StateField<Value>, _ newValue: Value, field: StaticString
  ) {
    // One transaction around both, so that what they dirty runs once the value is stored.
    _beginInPlaceMutation()
    _notifyNestedDifferences(old: storage.value, new: newValue)
    _writeSlot(&storage, newValue, field: field)
    _endInPlaceMutation()
  }

  /// A write that stores another state (or none) in a field of observable state: the slot's
  /// readers hear it, and so do the readers of the state that arrives, if they read other states
  /// of its fields than it holds (an older copy of a value coming back, whose readers a store's
  /// scoped store reads without reading the slot).
  @inlinable @inline(never)
  internal mutating func _writeArrivingState<Value>(
    _ storage: inout StateField<Value>, _ newValue: Value, field: StaticString
  ) {
    // One transaction around both, so that what they dirty runs once the value is stored.
    _beginInPlaceMutation()
    _writeSlot(&storage, newValue, field: field)
    _reconcileArrival(newValue)
    _endInPlaceMutation()
  }

  /// Whether a write to this value is a write to live state, whose result every reader of its
  /// lineage sees: the value has no other copy (its registrar is referenced by it alone), or it is
  /// being mutated in place inside an anchored in-place mutation (a class's property, a store's
  /// root). Only live writes may be recognized as "set and set back".
  @inlinable
  internal var _isLive: Bool {
    mutating get {
      isKnownUniquelyReferenced(&tracking)
        || (InPlaceFrames.isInnermost(tracking, stamp: stamp) && InPlaceFrames.innermostIsAnchored)
    }
  }

  /// Where this value is stored (see `_WritePlace`): known when it is being mutated in place in a
  /// frame that knows its place; otherwise 0.
  @inlinable
  internal var _place: UInt64 { InPlaceFrames.innermostPlace(of: tracking, stamp: stamp) }

  /// How far `storage` (a field of the value this registrar belongs to) is from this registrar:
  /// the same in every copy of the value (see `_WritePlace.field`).
  @inlinable
  internal mutating func _offset<Field>(of storage: inout Field) -> Int {
    let registrar = withUnsafeMutablePointer(to: &self) { UnsafeRawPointer($0) }
    return withUnsafeMutablePointer(to: &storage) { UnsafeRawPointer($0) - registrar }
  }

  /// Records that the value changed: a new stamp, which the innermost in-place mutation of this
  /// value (if any) expects next.
  @inlinable @inline(__always)
  internal mutating func _noteChange(to new: UInt64) {
    InPlaceFrames.noteChange(of: tracking, from: stamp, to: new)
    stamp = new
  }

  @inlinable @inline(__always)
  internal mutating func _noteChange() { _noteChange(to: Stamp.next()) }

  /// A write that replaces what the field holds, with readers to tell (out of line, so accessors
  /// inline to a comparison, a load and a branch).
  @inlinable @inline(never)
  internal mutating func _writeObserved<Value>(
    _ storage: inout StateField<Value>, _ newValue: Value, field: StaticString
  ) {
    let onlyCopy = isKnownUniquelyReferenced(&tracking)
    let innermost = InPlaceFrames.isInnermost(tracking, stamp: stamp)
    let live = onlyCopy || (innermost && InPlaceFrames.innermostIsAnchored)
    let place = innermost ? InPlaceFrames.innermostFramePlace : 0
    let old = storage.stamp
    let ticket = tracking._writeTicket
    let (seen, opened) = tracking._announceFieldWrite(
      field, owner: Owner.self, from: old, live: live, place: place, isOnlyCopy: onlyCopy,
      values: { _isComparable(Value.self) ? _changeValues(storage.value, newValue) : nil })
    _replaceValue(&storage.value, with: newValue)
    storage.stamp = seen
    _noteChange()
    if seen != old && tracking._readersMayHaveMissed(since: ticket) {
      tracking._deliverLate(field: field, overwriting: old)
    }
    if opened { _endImplicitTransaction() }
  }

  /// A write of a value with the same identity as the old one but other content (an edited copy
  /// assigned back): the readers of what differs inside hear it, the field's own readers need not.
  @inlinable @inline(never)
  internal mutating func _writeContent<Value>(_ storage: inout StateField<Value>, _ newValue: Value) {
    _beginInPlaceMutation()
    var adopted = newValue
    let live = _isLive
    let place = _WritePlace.field(of: _place, offset: _offset(of: &storage))
    withUnsafeMutablePointer(to: &storage.value) { address in
      _notifyContentDifferences(
        old: address.pointee, new: &adopted, live: live, storedAt: UnsafePointer(address), place: place)
    }
    _replaceValue(&storage.value, with: adopted)
    _noteChange()
    _endInPlaceMutation()
  }
}

extension ObservableState {
  /// Replaces this value by `other`, telling the readers of this value's fields about what differs,
  /// wherever the value is held: a local variable, a draft, a value nobody else owns.
  ///
  /// Assigning a value through its owner (`model.state = other`, `state.child = other`) is observed
  /// anyway; a plain `value = other` on a variable nobody owns is not (Swift runs no code for it),
  /// and its readers would keep showing the old value. Use `replace(with:)` there.
  ///
  /// ```swift
  /// var draft = model.state.rows[id: 1]!
  /// let reader = Reaction { print(draft.count) }
  /// draft.replace(with: Row(id: 1))   // the reader runs: another value
  /// ```
  ///
  /// - Complexity: O(fields) for a copy of this value (same identity; the fields that differ are
  ///   told); O(readers) for another value (every reader of this value is told).
  public mutating func replace(with other: Self) {
    if other.observableStateID == observableStateID {
      var adopted = other
      _notifyContentDifferences(old: self, new: &adopted, live: registrar._isLive)
      self = adopted
    } else {
      // The old registrar may go away with the old value (its deinit unlinks every reader), and an
      // optimized build may end its life as soon as it is last used: kept alive until its readers
      // have heard (otherwise they were unlinked before being collected, and missed the change).
      let old = registrar.tracking
      let dependencies = old.existingTable?.allDependencies() ?? []
      self = other
      Notifications.deliverReplacement(dependencies)
      withExtendedLifetime(old) {}
    }
  }
}

extension TrackingRegistrar {
  /// Notifies the readers of the value-type field `name` that read the state `seen`, which a write
  /// is about to replace. Returns the stamp the field should carry and whether the caller must end
  /// an implicit transaction once the value is stored.
  ///
  /// - Parameters:
  ///   - place: where the value whose field is written is stored (see `_WritePlace`), 0 if not
  ///     known.
  ///   - isOnlyCopy: the value is the only copy of its state (see `WriteRecords.record`).
  @usableFromInline
  internal func _announceFieldWrite(
    _ name: StaticString, owner: Any.Type, from seen: UInt64, live: Bool, place: UInt64, isOnlyCopy: Bool = false,
    values: () -> WriteValues?
  ) -> (seen: UInt64, openedTransaction: Bool) {
    let proposed = Stamp.next()
    guard let table = existingTable else { return (proposed, false) }
    let key = FieldNames.key(for: name)
    var dependencies = table.dependencies(of: key, overwriting: seen)
    return Notifications.deliver(
      &dependencies, table: table, key: key, name: .field(owner: owner), from: seen, to: proposed,
      isLive: live, place: place, isOnlyCopy: isOnlyCopy, values: values)
  }

  /// Notifies the readers of the class field `key` (which have no stamps). Returns whether the
  /// caller must end an implicit transaction once the value is stored.
  @usableFromInline
  internal func _announceClassFieldWrite(
    _ key: FieldKey, owner: AnyObject.Type, values: () -> WriteValues?
  ) -> Bool {
    guard let table = existingTable else { return false }
    var dependencies = table.dependencies(of: key, overwriting: Stamp.none)
    return Notifications.deliver(
      &dependencies, table: table, key: key, name: .storedProperty(owner), from: Stamp.none, to: Stamp.none,
      isLive: true, values: values
    ).openedTransaction
  }
}

/// Tells the readers of whatever differs between two values of the same identity; fields of `new`
/// equal to `old`'s keep the old stamps.
@usableFromInline
internal func _notifyContentDifferences<Value>(old: Value, new: inout Value, live: Bool) {
  ContentDiff.apply(old: old, new: &new, live: live)
}

/// `_notifyContentDifferences(old:new:live:)` for a value about to be stored at `address` (a
/// class's tracked property, a field of state): the writes found for its fields, and for the
/// fields of the states stored inline in it, are recorded as made there, so that a transaction can
/// tell them from writes to copies stored elsewhere.
///
/// - Parameter place: the place of that storage (see `_WritePlace`), 0 if not known.
@usableFromInline
internal func _notifyContentDifferences<Value>(
  old: Value, new: inout Value, live: Bool, storedAt address: UnsafePointer<Value>, place: UInt64
) {
  ContentDiff.apply(old: old, new: &new, live: live, storedAt: UnsafeRawPointer(address), writePlace: place)
}

/// Tells the readers of the states `old` and `new` both hold (same identity) about what differs
/// inside them; neither value is updated.
@usableFromInline
internal func _notifyNestedDifferences<Value>(old: Value, new: Value) {
  ContentDiff.notify(old: old, new: new, live: false)
}

/// Tells the readers of `value`'s subtree that read something it no longer holds.
@usableFromInline
internal func _reconcile<Value>(_ value: Value) {
  Reconciliation.reconcile(value)
}

/// Tells the readers of `value`'s subtree that read something it no longer holds, if any state in
/// it has readers (see `Reconciliation.reconcileArrival`): for a value that arrived where another
/// value (or none) was, or another copy of the state a store showed, handed to it through a path
/// that reports every write (the payload of an enum that is not `IdentityComparable`).
@usableFromInline
package func _reconcileArrival<Value>(_ value: Value) {
  Reconciliation.reconcileArrival(value)
}

/// `_reconcileArrival(_:)` of a state.
@usableFromInline
internal func _reconcileArrival<State: ObservableState>(_ state: State) {
  Reconciliation.reconcileArrival(state)
}

/// `_reconcile(_:)` for a value that replaced, inside an in-place mutation, the value stored at
/// `address` (`size` bytes): writes of the current transaction made in that storage whose field is
/// back where its readers read it are set back.
@usableFromInline
internal func _reconcile<Value>(_ value: Value, restoredAt address: UnsafeRawPointer, size: Int) {
  Reconciliation.reconcile(value, restoredAt: address, size: size)
}
