/// Whether a slot changing from `lhs` to `rhs` may skip notifying: the identity table of the
/// design, as overloads picked at compile time by the static types of the arguments.
///
/// | type | identity-equal when |
/// |---|---|
/// | `ObservableState` | same `ObservableStateID` |
/// | `Optional<ObservableState>` | both `nil`, or same id |
/// | `IdentifiedArray<ID, ObservableState>` | same elements by id, same order — O(1) |
/// | `Collection` of `ObservableState` | same count and pairwise same ids |
/// | `IdentityComparable` (e.g. enum state) | its own `isIdentityEqual` |
/// | anything else | never |
///
/// "Never" does not mean "always notify": accessors fall back to `==` for `Equatable` values and
/// `===` for class references before notifying.

/// Same `ObservableStateID`.
///
/// - Complexity: O(1).
@inlinable
public func isIdentityEqual<State: ObservableState>(_ lhs: State, _ rhs: State) -> Bool {
  lhs.observableStateID == rhs.observableStateID
}

/// Both `nil`, or the same `ObservableStateID`.
///
/// - Complexity: O(1).
@inlinable
public func isIdentityEqual<State: ObservableState>(_ lhs: State?, _ rhs: State?) -> Bool {
  lhs?.observableStateID == rhs?.observableStateID
}

/// Same elements, by `ObservableStateID`, in the same order.
///
/// - Complexity: O(1) (structural versions, see `IdentifiedArray.hasSameStructure(as:)`).
@inlinable
public func isIdentityEqual<ID: Hashable, State: ObservableState>(
  _ lhs: IdentifiedArray<ID, State>, _ rhs: IdentifiedArray<ID, State>
) -> Bool {
  lhs.hasSameStructure(as: rhs)
}

/// Same count and pairwise the same `ObservableStateID`.
///
/// - Complexity: O(*n*).
@inlinable
public func isIdentityEqual<States: Collection>(_ lhs: States, _ rhs: States) -> Bool
where States.Element: ObservableState {
  lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.observableStateID == $1.observableStateID }
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

/// The runtime fallback for generic code: applies the rule of the dynamic type when it is
/// `IdentityComparable` (which covers `ObservableState`, optionals and identified arrays of it),
/// and answers `false` (never identity-equal) otherwise.
///
/// In optimized builds a call with a concrete type is specialized and the type test folds away.
@inlinable
public func isIdentityEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  guard let comparable = Value.self as? any IdentityComparable.Type else { return false }
  return _isIdentityEqual(comparable, lhs, rhs)
}

@inlinable
internal func _isIdentityEqual<Comparable: IdentityComparable, Value>(
  _: Comparable.Type, _ lhs: Value, _ rhs: Value
) -> Bool {
  Comparable.isIdentityEqual(lhs as! Comparable, rhs as! Comparable)
}
