/// The observed path of an in-place mutation (`_modify`) of a tracked field, shared by
/// `@Tracked` and the `ObservableState` accessor helpers.
///
/// An accessor creates one before yielding, yields either the field's storage or `copy` (when
/// `yieldsCopy`), and calls `finish` afterwards (from a `defer`, so an unwound access is finished
/// too). See `_ModifyStrategy` for what each strategy notifies and when.
@usableFromInline
internal struct _FieldModification<Value> {
  @usableFromInline let registrar: TrackingRegistrar
  @usableFromInline let strategy: _ModifyStrategy
  @usableFromInline let tokenBefore: UInt64
  @usableFromInline let openedTransaction: Bool
  /// The value being mutated, for the `.copy` strategy.
  @usableFromInline var copy: Value?

  @inlinable @inline(never)
  init(_ registrar: TrackingRegistrar, key: () -> FieldKey, current: () -> Value) {
    self.registrar = registrar
    strategy = _modifyStrategy(Value.self)
    switch strategy {
    case .token:
      tokenBefore = _inPlaceToken(current())
      openedTransaction = false
      copy = nil
    case .copy:
      tokenBefore = 0
      openedTransaction = false
      copy = current()
    case .announce:
      tokenBefore = 0
      openedTransaction = registrar._willChange(key(), values: { nil })
      copy = nil
    }
  }

  /// Whether the accessor must yield `copy` instead of the storage.
  @inlinable
  var yieldsCopy: Bool { strategy == .copy }

  @inlinable @inline(never)
  mutating func finish(key: () -> FieldKey, current: () -> Value, store: (Value) -> Void) {
    switch strategy {
    case .token:
      let before = tokenBefore
      let after = _inPlaceToken(current())
      guard before != after else { return }
      let opened = registrar._willChange(key(), values: { (ValueBox(before), ValueBox(after)) })
      if opened { registrar._didChange() }
    case .copy:
      guard let value = copy.take() else { return }
      let old = current()
      let unchanged = _isComparable(Value.self) ? _isUnchanged(old, value) : _bitwiseEqual(old, value)
      if unchanged {
        store(value)
        return
      }
      let opened = registrar._willChange(key(), values: { _changeValues(old, value) })
      store(value)
      if opened { registrar._didChange() }
    case .announce:
      if openedTransaction { registrar._didChange() }
    }
  }
}
