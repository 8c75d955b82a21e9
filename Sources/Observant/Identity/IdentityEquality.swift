/// Whether a slot changing from `lhs` to `rhs` may skip notifying its readers: the identity table,
/// as overloads picked at compile time by the static types of the arguments.
///
/// | type | identity-equal when |
/// |---|---|
/// | `ObservableState` | same `ObservableStateID` |
/// | `Optional<ObservableState>` | both `nil`, or same id |
/// | `IdentifiedArray<ID, ObservableState>` | same structure version — O(1); a rebuilt array is not |
/// | a collection of `ObservableState` (`Array`, `ContiguousArray`, `ArraySlice`, any other) | same count and pairwise same ids — O(*n*) |
/// | `Dictionary<Key, ObservableState>` | same keys, each with the same id — O(*n*) |
/// | `IdentityComparable` (e.g. enum state) | its own `isIdentityEqual` |
/// | anything else | never |
///
/// "Never" does not mean "always notify": accessors fall back to `===` for observable objects
/// (`Trackable`, optional, in a collection or a dictionary, even when `Equatable`), `==` for other
/// `Equatable` values and `===` for other class references before notifying. "Identity-equal" does
/// not mean "unchanged" either: when an edited copy is assigned over the value it was copied from,
/// the fields that differ notify their own readers.
///
/// All overloads give the answer of the one runtime implementation (`isIdentityEqual<Value>`),
/// which generic code and the accessors use.
///
/// - Complexity: O(1).
@inlinable
public func isIdentityEqual<State: ObservableState>(_ lhs: State, _ rhs: State) -> Bool {
  State.isIdentityEqual(lhs, rhs)
}

/// Both `nil`, or the same `ObservableStateID`.
///
/// - Complexity: O(1).
@inlinable
public func isIdentityEqual<State: ObservableState>(_ lhs: State?, _ rhs: State?) -> Bool {
  State?.isIdentityEqual(lhs, rhs)
}

/// The same structure version (`IdentifiedArray.hasSameStructure(as:)`): copies of one array, with
/// no insertion, removal, move or replacement of an element by a new value since. An array rebuilt
/// from the same elements is conservatively not identity-equal.
///
/// - Complexity: O(1).
@inlinable
public func isIdentityEqual<ID: Hashable, State: ObservableState>(
  _ lhs: IdentifiedArray<ID, State>, _ rhs: IdentifiedArray<ID, State>
) -> Bool {
  IdentifiedArray<ID, State>.isIdentityEqual(lhs, rhs)
}

/// Same count and pairwise the same `ObservableStateID`.
///
/// - Complexity: O(*n*).
@inlinable
public func isIdentityEqual<State: ObservableState>(_ lhs: [State], _ rhs: [State]) -> Bool {
  [State].isIdentityEqual(lhs, rhs)
}

/// The type's own rule, e.g. an enum comparing cases and payloads.
@inlinable
public func isIdentityEqual<Value: IdentityComparable>(_ lhs: Value, _ rhs: Value) -> Bool {
  Value.isIdentityEqual(lhs, rhs)
}

/// The runtime implementation for generic code and for collections without an overload of their
/// own: the rule of the dynamic type when it has one (`IdentityComparable`, which covers
/// `ObservableState`, optionals, arrays and dictionaries of it; or any other collection whose
/// elements are `ObservableState`, compared pairwise), and `false` (never identity-equal)
/// otherwise.
///
/// In optimized builds a call with a concrete type is specialized, and the type tests are answered
/// from a per-type cache.
@inlinable
public func isIdentityEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  _isIdentityEqual(lhs, rhs)
}

/// The identity table's one implementation (see `isIdentityEqual`).
@inlinable
internal func _isIdentityEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  let flags = _TypeTraits.flags(of: Value.self)
  if flags & _TypeTraits.identityComparable != 0, let comparable = Value.self as? any IdentityComparable.Type {
    return _openIdentityEqual(comparable, lhs, rhs)
  }
  if flags & _TypeTraits.collectionOfStates != 0 {
    return _openCollectionIdentityEqual(lhs, rhs)
  }
  return false
}

@inlinable
internal func _openIdentityEqual<Comparable: IdentityComparable, Value>(
  _: Comparable.Type, _ lhs: Value, _ rhs: Value
) -> Bool {
  Comparable.isIdentityEqual(lhs as! Comparable, rhs as! Comparable)
}

/// Pairwise ids for a collection of states whose type has no `IdentityComparable` conformance.
@usableFromInline
internal func _openCollectionIdentityEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  guard let lhs = lhs as? any Collection else { return false }
  return _pairwiseIdentity(lhs, rhs)
}

private func _pairwiseIdentity<Elements: Collection>(_ lhs: Elements, _ rhs: Any) -> Bool {
  guard let rhs = rhs as? Elements, lhs.count == rhs.count else { return false }
  for (left, right) in zip(lhs, rhs) {
    guard let left = left as? any ObservableState, let right = right as? any ObservableState,
      left.instanceIdentity == right.instanceIdentity
    else { return false }
  }
  return true
}
