import Observant

/// A child's input as its node stores it, type-erased so one node type serves every input type.
///
/// Whether an input changed is decided exactly as a tracked field decides whether a write changed
/// its slot (one implementation, `Observant`'s): values with an identity rule (`ObservableState`,
/// optionals and collections of it, `IdentityComparable` enums) compare by identity, and that
/// answer is final; other values compare by `==`.
///
/// Identity is what keeps a child's subscriptions right. A child that read fields of an
/// `ObservableState` input depends on that value's registrar, which reports every change to those
/// fields by itself (an edited copy passed again included), so a parent passing the same value
/// (same identity) again has no reason to re-run the child. A new value under the same key
/// (`rows[id: 7] = Row(id: 7)`) has a new registrar nobody subscribed to, so the child must re-run,
/// even if the new value is `==` to the old one.
internal protocol RenderInput {
  /// Whether a child that last received `previous` may skip re-running now that it receives
  /// `self`. An input of another type is always a change.
  func isUnchanged(from previous: any RenderInput) -> Bool
}

/// An input of type `Value`.
internal struct TypedRenderInput<Value>: RenderInput {
  let value: Value

  func isUnchanged(from previous: any RenderInput) -> Bool {
    guard let previous = previous as? Self else { return false }
    return _isUnchanged(previous.value, value)
  }
}

/// Makes inputs of type `Value`.
internal func renderInputMaker<Value: Equatable>(for _: Value.Type) -> (Value) -> any RenderInput {
  { TypedRenderInput(value: $0) }
}

/// Makes inputs of type `Value` for children that get no input otherwise (a `forEach` over
/// elements that are not `Equatable`), if `Value` has an identity to compare: an identity rule
/// (`ObservableState`, optionals and collections of it, `IdentityComparable`), or a class
/// reference (`===`). A kept child then re-runs when its element is a new value, whose registrar
/// its reads never subscribed to. `nil` for other types: nothing to compare, the child is kept.
internal func identityInputMaker<Value>(for _: Value.Type) -> ((Value) -> any RenderInput)? {
  guard Value.self is any IdentityComparable.Type || Value.self is AnyObject.Type else { return nil }
  return { TypedRenderInput(value: $0) }
}
