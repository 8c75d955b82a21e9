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
  public subscript<Value>(tracking storage: WritableKeyPath<Self, StateField<Value>>, field: StaticString = #function) -> Value {
    get { registrar.read(self[keyPath: storage], field: field) }
    set {
      var copy = self[keyPath: storage]
      registrar.write(&copy, newValue, field: field)
      self[keyPath: storage] = copy
    }
    @inline(__always)
    _modify {
      let strategy = _modifyStrategy(Value.self)
      if strategy.yieldsCopy {
        var copy = self[keyPath: storage].value
        defer {
          var written = self[keyPath: storage]
          registrar.write(&written, copy, field: field)
          self[keyPath: storage] = written
        }
        yield &copy
      } else {
        // Scheduled observers dirtied by writes nested in this mutation run after it, when the
        // field is no longer being modified.
        _beginInPlaceMutation()
        let anchored = registrar._isLive
        var announcement: (seen: UInt64, openedTransaction: Bool)?
        if strategy == .announce {
          announcement = registrar.registrar._announceFieldWrite(
            field, owner: Self.self, from: self[keyPath: storage].stamp, live: anchored, values: { nil })
          self[keyPath: storage].stamp = announcement!.seen
        }
        let modification = _InPlaceModification(strategy, current: self[keyPath: storage].value, anchored: anchored)
        defer {
          let outcome = modification.finish(current: self[keyPath: storage].value)
          _applyInPlaceOutcome(outcome, storage: storage, field: field, live: anchored)
          if announcement?.openedTransaction == true { _endImplicitTransaction() }
          _endInPlaceMutation()
        }
        yield &self[keyPath: storage].value
      }
    }
  }

  /// Tells the slot's readers what an in-place mutation changed, and records the change in the
  /// value's stamps.
  @usableFromInline @inline(never)
  internal mutating func _applyInPlaceOutcome<Value>(
    _ outcome: _ModificationOutcome, storage: WritableKeyPath<Self, StateField<Value>>, field: StaticString, live: Bool
  ) {
    switch outcome {
    case .unchanged:
      return
    case .content, .announced:
      registrar._noteChange()
    case .slot(let values):
      let (seen, opened) = registrar.registrar._announceFieldWrite(
        field, owner: Self.self, from: self[keyPath: storage].stamp, live: live, values: { values })
      self[keyPath: storage].stamp = seen
      registrar._noteChange()
      if opened { _endImplicitTransaction() }
    }
  }
}
