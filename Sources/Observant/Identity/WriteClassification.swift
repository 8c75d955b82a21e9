/// What writing a new value over an old one changes (the tracking contract's rule 4, with copies).
///
/// Everything here is generic and decides by the value's type, answered from `_TypeTraits`:
/// identity rules first (their answer is final for the slot), then object identity for observable
/// objects (`Trackable`, optional, in a collection or a dictionary: an equal but different object
/// would leave the slot's readers depending on the old object's fields), then `==` for `Equatable`
/// values, then `===` for class references, optional or not; any other value always counts as
/// changed. Accessors are generic over the field type and inlinable, so in optimized builds each
/// call site is specialized to the concrete field type.
@usableFromInline
internal enum _WriteChange {
  /// Nothing changed: equal, identical, or the same reference.
  case none
  /// The slot holds the same identity, but what it holds changed inside (an edited copy assigned
  /// back): the slot's readers need not hear it, the readers of the inner fields that differ do.
  case content
  /// The slot changed: its readers must hear it.
  case slot
}

/// Classifies writing `new` over `old`.
@inlinable
internal func _classifyWrite<Value>(_ old: Value, _ new: Value) -> _WriteChange {
  let flags = _TypeTraits.flags(of: Value.self)
  if flags & (_TypeTraits.identityComparable | _TypeTraits.collectionOfStates) != 0 {
    guard _isIdentityEqual(old, new) else { return .slot }
    if let before = _contentStamp(of: old), let after = _contentStamp(of: new), before == after { return .none }
    return .content
  }
  if flags & _TypeTraits.objects != 0 {
    return _sameObjects(old, new, flags: flags) ? .none : .slot
  }
  if flags & _TypeTraits.equatable != 0, let equatable = _EquatableProbe<Value>.self as? any _EquatableProbing.Type {
    return equatable._areEqual(old, new) ? .none : .slot
  }
  if flags & _TypeTraits.reference != 0 {
    return (old as AnyObject) === (new as AnyObject) ? .none : .slot
  }
  if flags & _TypeTraits.optionalReference != 0, let optional = Value.self as? any _OptionalObjects.Type {
    return _openSameOptional(optional, old, new) ? .none : .slot
  }
  return .slot
}

/// Whether writing `new` over `old` may skip notifying the slot's readers (identity, `==`, `===`).
/// The comparison used for reverted writes, render inputs and anything else that asks "did the
/// slot change?".
@inlinable
package func _isUnchanged<Value>(_ old: Value, _ new: Value) -> Bool {
  _classifyWrite(old, new) != .slot
}

/// Whether `_isUnchanged` can ever answer `true` for this type (otherwise a reverted write cannot
/// be recognized and nothing is boxed for it).
@inlinable
internal func _isComparable<Value>(_: Value.Type) -> Bool {
  _TypeTraits.flags(of: Value.self)
    & (_TypeTraits.identityComparable | _TypeTraits.collectionOfStates | _TypeTraits.equatable | _TypeTraits.reference
      | _TypeTraits.objects | _TypeTraits.optionalReference) != 0
}

/// A number that is equal for two values of the same lineage exactly when their content is
/// identical, where one is known in O(1): an `ObservableState`'s stamp, an optional one's (0 for
/// `nil`), an identified array's version. `nil` for other types.
@inlinable
internal func _contentStamp<Value>(of value: Value) -> UInt64? {
  let flags = _TypeTraits.flags(of: Value.self)
  if flags & _TypeTraits.observableState != 0, let type = Value.self as? any InstanceIdentifiable.Type {
    return _openInstanceVersion(type, value)
  }
  if flags & _TypeTraits.optionalState != 0, let container = Value.self as? any _StateContainer.Type {
    return container._contentVersion(of: value)
  }
  if flags & _TypeTraits.identifiedArray != 0, let type = Value.self as? any _IdentifiedArrayVersions.Type {
    return _openContentVersion(type, value)
  }
  return nil
}

@inlinable
internal func _openInstanceVersion<Identified: InstanceIdentifiable, Value>(_: Identified.Type, _ value: Value)
  -> UInt64
{
  (value as! Identified)._instanceVersion
}

@inlinable
internal func _openContentVersion<Versioned: _IdentifiedArrayVersions, Value>(_: Versioned.Type, _ value: Value)
  -> UInt64
{
  (value as! Versioned)._contentVersion
}

/// Whether two values flagged `_TypeTraits.objects` hold the same objects: the same instance, both
/// `nil` or the same instance, collections of the same count with the same instance at each
/// position, or dictionaries with the same keys and the same instance under each. `flags` (the
/// type's) say which: only the cast that succeeds is made (one that fails is a conformance look-up
/// at run time, even in specialized code).
@usableFromInline
internal func _sameObjects<Value>(_ old: Value, _ new: Value, flags: UInt32) -> Bool {
  if flags & _TypeTraits.reference != 0 { return (old as AnyObject) === (new as AnyObject) }
  if flags & _TypeTraits.optionalObject != 0, let optional = Value.self as? any _OptionalObjects.Type {
    return _openSameOptional(optional, old, new)
  }
  if flags & _TypeTraits.dictionaryOfObjects != 0, let dictionary = Value.self as? any _DictionaryObjects.Type {
    return _openSameValues(dictionary, old, new)
  }
  if let collection = Value.self as? any Collection.Type { return _openSameElements(collection, old, new) }
  return false
}

@usableFromInline
internal func _openSameOptional<Wrapping: _OptionalObjects, Value>(_: Wrapping.Type, _ old: Value, _ new: Value) -> Bool
{
  (old as! Wrapping)._wrappedObject === (new as! Wrapping)._wrappedObject
}

private func _openSameElements<Elements: Collection, Value>(_: Elements.Type, _ old: Value, _ new: Value) -> Bool {
  let old = old as! Elements
  let new = new as! Elements
  guard old.count == new.count else { return false }
  for (left, right) in zip(old, new) where (left as AnyObject) !== (right as AnyObject) { return false }
  return true
}

private func _openSameValues<Objects: _DictionaryObjects, Value>(_: Objects.Type, _ old: Value, _ new: Value) -> Bool {
  (old as! Objects)._hasSameValueObjects(as: new as! Objects)
}

/// A dictionary, seen from code generic over it: its value type, and whether another dictionary of
/// its type has the same keys with the same instance under each.
@usableFromInline
internal protocol _DictionaryObjects {
  static var _valueType: Any.Type { get }
  func _hasSameValueObjects(as other: Self) -> Bool
}

extension Dictionary: _DictionaryObjects {
  @usableFromInline static var _valueType: Any.Type { Value.self }

  @usableFromInline func _hasSameValueObjects(as other: Self) -> Bool {
    guard count == other.count else { return false }
    for (key, value) in self {
      guard let otherValue = other[key], (value as AnyObject) === (otherValue as AnyObject) else { return false }
    }
    return true
  }
}

/// An optional, seen from code generic over it: its wrapped type, and its object if it holds one.
@usableFromInline
internal protocol _OptionalObjects {
  static var _wrappedType: Any.Type { get }
  var _wrappedObject: AnyObject? { get }
}

extension Optional: _OptionalObjects {
  @usableFromInline static var _wrappedType: Any.Type { Wrapped.self }
  @usableFromInline var _wrappedObject: AnyObject? { self.map { $0 as AnyObject } }
}
