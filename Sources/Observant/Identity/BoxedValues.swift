// Values kept for reverted writes and causes: a transaction boxes the old and new value of a write
// that could still be set back (or whose reader records causes), and compares them when it ends.
// Fields that hold observable state are boxed as content tokens (identity and stamp).

/// A value boxed with the comparison specialized where it was made.
@usableFromInline
internal final class ValueBox<Value>: ComparableBox, @unchecked Sendable {
  @usableFromInline let value: Value
  /// `_holdsSameValue` for `Value`, specialized where the box was made: this class's methods run
  /// generic code, in which the comparison would look the type's conformances up at run time.
  @usableFromInline let holdsSameValue: (Value, Value) -> Bool

  @inlinable
  init(_ value: Value) {
    self.value = value
    self.holdsSameValue = _holdsSameValue
    super.init()
  }
  /// Whether the field holds what it held: for a value compared by identity, the same identity
  /// *and* the same content (the same copy). Two copies of one state with different content are
  /// not "set back" (a slot that got back the identity its readers read, but another copy of it,
  /// changed what they read without any of its fields being written).
  override func isEqual(to other: ComparableBox) -> Bool {
    // The same class means the same `Value` (a cast to `ValueBox<Value>` would look its metadata up).
    guard ObjectIdentifier(type(of: other)) == ObjectIdentifier(type(of: self)) else { return false }
    return holdsSameValue(value, unsafeDowncast(other, to: ValueBox<Value>.self).value)
  }

  @usableFromInline override var description: String { String(describing: value) }
}

extension ValueBox: PrintableBox {
  var printedValue: String? { (value as? any CustomStringConvertible)?.description }
}

/// Boxes a write's values (inlinable: the boxes' comparison is specialized where they are made).
///
/// Fields holding observable state are boxed as tokens (identity and stamp of each state they
/// hold), the same tokens an in-place mutation records without a copy of the old value: a field
/// written both ways in one transaction compares like with like, and "set back" means the same
/// copies of the same states.
@inlinable
internal func _changeValues<Value>(_ old: Value, _ new: Value) -> ChangeValues {
  if _TypeTraits.flags(of: Value.self) & (_TypeTraits.observableState | _TypeTraits.optionalState) != 0 {
    return (ValueBox(_ContentToken(of: old)), ValueBox(_ContentToken(of: new)))
  }
  if let container = Value.self as? any _StateContainer.Type, let values = container._tokenValues(old, new) {
    return values
  }
  if _TypeTraits.flags(of: Value.self) & _TypeTraits.identifiedArray != 0 {
    return (ValueBox(_IdentifiedArraySnapshot(old)), ValueBox(_IdentifiedArraySnapshot(new)))
  }
  return (ValueBox(old), ValueBox(new))
}

/// An identified array as a write's record keeps it: its version, and the value itself where the
/// write had it (a setter has the old value; an in-place mutation has only the version it began
/// with, the old value being gone). Equal when the versions are equal (the very value, the same
/// copies of the same elements), or, both values known, when they hold the same thing (see
/// `_holdsSameValue`): so a field changed in place and assigned back the value its readers read
/// within one transaction is recognized as set back.
@usableFromInline
internal struct _IdentifiedArraySnapshot<Value>: Equatable, CustomStringConvertible {
  @usableFromInline let version: UInt64
  @usableFromInline let count: Int
  @usableFromInline let value: Value?

  @inlinable
  init(version: UInt64, count: Int) {
    self.version = version
    self.count = count
    self.value = nil
  }

  @inlinable
  init(_ value: Value) {
    self.version = _contentStamp(of: value) ?? 0
    self.count = (value as? any Collection)?.count ?? 0
    self.value = value
  }

  @inlinable
  static func == (lhs: Self, rhs: Self) -> Bool {
    if lhs.version == rhs.version { return true }
    guard let left = lhs.value, let right = rhs.value else { return false }
    return _holdsSameValue(left, right)
  }

  @usableFromInline var description: String {
    if let value { return String(describing: value) }
    return count == 1 ? "[1 element]" : "[\(count) elements]"
  }
}

/// What identifies a state's content for "set back": its identity and its stamp (`0` and `0` for
/// `nil`).
@usableFromInline
internal struct _ContentToken: Hashable, CustomStringConvertible {
  @usableFromInline let id: UInt64
  @usableFromInline let stamp: UInt64

  @inlinable
  init(id: UInt64, stamp: UInt64) {
    self.id = id
    self.stamp = stamp
  }

  /// The token of a state or an optional state (a generic value of one of those types).
  @usableFromInline
  init<Value>(of value: Value) {
    if let state = value as? any ObservableState {
      self.init(id: state.observableStateID.rawValue, stamp: state._instanceVersion)
    } else {
      self.init(id: 0, stamp: 0)  // nil
    }
  }

  @usableFromInline var description: String { id == 0 ? "nil" : "#\(id)" }
}

/// Whether a field holding `lhs` and then `rhs` holds the same thing: the same identity and the
/// same content for values compared by identity (see `ValueBox.isEqual(to:)`), `==` or `===`
/// otherwise.
@inlinable
internal func _holdsSameValue<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  switch _classifyWrite(lhs, rhs) {
  case .none: return true
  case .slot: return false
  case .content: return _holdsSameCopies(lhs, rhs)
  }
}

/// Whether two identity-equal collections of states hold the same copies of their elements (the
/// same stamps, pairwise): a collection rebuilt from the same elements is the same content, one
/// holding another copy of an element is not. O(*n*); asked only when a transaction ends with a
/// collection back at the identities its readers read. `false` for other types.
@usableFromInline
internal func _holdsSameCopies<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  if let container = Value.self as? any _StateContainer.Type { return container._holdsSameCopies(lhs, rhs) }
  let flags = _TypeTraits.flags(of: Value.self)
  // A state, or an optional one: identity-equal with another stamp is another content.
  if flags & (_TypeTraits.observableState | _TypeTraits.optionalState) != 0 { return false }
  // Enum state and other identity-comparable values: the states they hold, pairwise.
  var left: [any ObservableState] = []
  var right: [any ObservableState] = []
  collectStates(in: lhs, into: &left)
  collectStates(in: rhs, into: &right)
  return left.count == right.count
    && zip(left, right).allSatisfy {
      $0.observableStateID == $1.observableStateID && $0._instanceVersion == $1._instanceVersion
    }
}
