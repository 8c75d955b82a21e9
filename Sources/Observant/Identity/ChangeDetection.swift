/// How accessors decide whether a write changes anything (the tracking contract's rule 4).
///
/// Everything here is generic and decides by testing the value's type: identity rules first
/// (`IdentityComparable`, whose answer is final), then `==` for `Equatable` values, then `===` for
/// class references; any other value always counts as changed. Accessors are generic over the
/// field type and inlinable, so in optimized builds each call site is specialized to the concrete
/// field type and these type tests fold to a direct call of the right comparison.

/// Whether writing `new` over `old` may skip notifying observers.
@inlinable
internal func _isUnchanged<Value>(_ old: Value, _ new: Value) -> Bool {
  // The cached flags spare the runtime lookups for protocols the type does not conform to; the
  // casts below fold away in specialized code for the ones it does.
  let flags = _TypeTraits.comparison(of: Value.self)
  if flags & _TypeTraits.identityComparable != 0, let comparable = Value.self as? any IdentityComparable.Type {
    return _isIdentityEqual(comparable, old, new)
  }
  if flags & _TypeTraits.equatable != 0, let equatable = _EquatableProbe<Value>.self as? any _EquatableProbing.Type {
    return equatable._areEqual(old, new)
  }
  if Value.self is AnyObject.Type {
    return (old as AnyObject) === (new as AnyObject)
  }
  return false
}

/// Whether `_isUnchanged` can ever answer `true` for this type (otherwise a reverted write cannot
/// be recognized and nothing is boxed for it).
@inlinable
internal func _isComparable<Value>(_: Value.Type) -> Bool {
  _TypeTraits.comparison(of: Value.self) & (_TypeTraits.identityComparable | _TypeTraits.equatable) != 0
    || Value.self is AnyObject.Type
}

@usableFromInline
internal protocol _EquatableProbing {
  static func _areEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool
}

/// `_EquatableProbe<T>` conforms to `_EquatableProbing` exactly when `T: Equatable`, which lets
/// generic code ask "is `T` Equatable?" without boxing a value in an existential.
@usableFromInline
internal enum _EquatableProbe<T> {}

extension _EquatableProbe: _EquatableProbing where T: Equatable {
  @inlinable
  static func _areEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
    (lhs as! T) == (rhs as! T)
  }
}

// MARK: In-place mutation

/// How an in-place mutation (`_modify`) of a tracked field detects a change.
@usableFromInline
internal enum _ModifyStrategy {
  /// The field has an O(1) identity token (an `ObservableState`'s id, an identified array's
  /// version): mutate in place, compare tokens, notify after the mutation if they differ.
  case token
  /// The value is trivially copyable: mutate a copy, compare, and notify before storing it.
  case copy
  /// No O(1) check exists without copying (which would force copy-on-write of the field's
  /// storage): notify before the mutation, unconditionally.
  case announce
}

@inlinable
internal func _modifyStrategy<Value>(_: Value.Type) -> _ModifyStrategy {
  if _TypeTraits.modification(of: Value.self) & _TypeTraits.inPlaceIdentity != 0 { return .token }
  if _isPOD(Value.self) { return .copy }
  return .announce
}

/// Types whose in-place mutation can be checked in O(1) through a token read before and after.
@usableFromInline
internal protocol _InPlaceIdentity {
  /// Equal before and after a mutation exactly when the slot need not notify.
  static func _inPlaceToken(of value: Self) -> UInt64
}

@inlinable
internal func _inPlaceToken<Value>(_ value: Value) -> UInt64 {
  if let state = Value.self as? any ObservableState.Type { return _openStateToken(state, value) }
  guard let type = Value.self as? any _InPlaceIdentity.Type else { return 0 }
  return _openInPlaceToken(type, value)
}

@inlinable
internal func _openStateToken<State: ObservableState, Value>(_: State.Type, _ value: Value) -> UInt64 {
  (value as! State).observableStateID.rawValue
}

@inlinable
internal func _openInPlaceToken<Token: _InPlaceIdentity, Value>(_: Token.Type, _ value: Value) -> UInt64 {
  Token._inPlaceToken(of: value as! Token)
}

extension Optional: _InPlaceIdentity where Wrapped: ObservableState {
  /// The wrapped state's id, or 0 (never an id) for `nil`.
  @inlinable
  static func _inPlaceToken(of value: Self) -> UInt64 { value?.observableStateID.rawValue ?? 0 }
}

extension IdentifiedArray: _InPlaceIdentity {
  /// For elements that report their own changes (`ObservableState`), only structure counts;
  /// for any other element every mutation does.
  @inlinable
  static func _inPlaceToken(of value: Self) -> UInt64 {
    Element.self is any ObservableState.Type ? value.structuralVersion : value.version
  }
}

/// Bitwise comparison for trivially copyable values that are not `Equatable` (padding may differ
/// between equal values; that only costs a spurious notification).
@inlinable
internal func _bitwiseEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  withUnsafeBytes(of: lhs) { lhs in withUnsafeBytes(of: rhs) { rhs in lhs.elementsEqual(rhs) } }
}

// MARK: Values kept for reverted-write detection

/// A value kept by a transaction to recognize a field that ends the transaction where it began.
@usableFromInline
internal class ComparableBox: @unchecked Sendable {
  @usableFromInline init() {}
  func isEqual(to other: ComparableBox) -> Bool { false }
}

@usableFromInline
internal final class ValueBox<Value>: ComparableBox, @unchecked Sendable {
  @usableFromInline let value: Value
  /// `_isUnchanged` as specialized where the box was made (a generic class's methods are not).
  @usableFromInline let isUnchanged: (Value, Value) -> Bool
  @inlinable init(_ value: Value, isUnchanged: @escaping (Value, Value) -> Bool = { _isUnchanged($0, $1) }) {
    self.value = value
    self.isUnchanged = isUnchanged
  }
  override func isEqual(to other: ComparableBox) -> Bool {
    guard let other = other as? ValueBox<Value> else { return false }
    return isUnchanged(value, other.value)
  }
}

/// The old and new value of one write.
@usableFromInline
internal typealias ChangeValues = (old: ComparableBox, new: ComparableBox)

/// Boxes a write's values when a reverted write could be recognized, otherwise `nil`.
@inlinable
internal func _changeValues<Value>(_ old: Value, _ new: Value) -> ChangeValues? {
  guard _isComparable(Value.self) else { return nil }
  return (ValueBox(old), ValueBox(new))
}
