import Observant

/// A child's input as its node stores it, type-erased so one node type serves every input type.
///
/// Whether an input changed follows the rule a tracked field applies to a write (the design's
/// identity table): values with an identity rule (`IdentityComparable`: `ObservableState`,
/// optionals and identified arrays of it, enums that opt in) compare by identity, and that answer
/// is final; other values compare by `==`.
///
/// Identity is what keeps a child's subscriptions right. A child that read fields of an
/// `ObservableState` input is subscribed to that value's registrar, which reports every change to
/// those fields by itself, so a parent passing the same value (same identity) again has no reason
/// to re-run the child, even if the copy it passes differs by `==`. A new value under the same key
/// (`rows[id: 7] = Row(id: 7)`) has a new registrar nobody subscribed to, so the child must
/// re-run, even if the new value is `==` to the old one.
internal protocol RenderInput {
  /// Whether a child that last received `previous` may skip re-running now that it receives
  /// `self`. An input of another type is always a change.
  func isUnchanged(from previous: any RenderInput) -> Bool
}

/// An input compared by `==`.
internal struct EquatableRenderInput<Value: Equatable>: RenderInput {
  let value: Value

  func isUnchanged(from previous: any RenderInput) -> Bool {
    guard let previous = previous as? Self else { return false }
    return previous.value == value
  }
}

/// An input compared by its type's identity rule.
internal struct IdentityRenderInput<Value: IdentityComparable>: RenderInput {
  let value: Value

  func isUnchanged(from previous: any RenderInput) -> Bool {
    guard let previous = previous as? Self else { return false }
    return Value.isIdentityEqual(previous.value, value)
  }
}

/// Makes inputs of type `Value`, choosing the comparison once per type rather than per value: a
/// `forEach` over 100,000 rows asks the runtime whether its element type has an identity rule
/// once, not 100,000 times.
internal func renderInputMaker<Value: Equatable>(for _: Value.Type) -> (Value) -> any RenderInput {
  if let identityType = Value.self as? any IdentityComparable.Type {
    return identityInputMaker(identityType, Value.self)
  }
  return { EquatableRenderInput(value: $0) }
}

private func identityInputMaker<Comparable: IdentityComparable, Value>(
  _: Comparable.Type, _: Value.Type
) -> (Value) -> any RenderInput {
  // `Value` is `Comparable`, as the caller's cast proved; the cast below only restates it.
  { IdentityRenderInput(value: $0 as! Comparable) }
}
