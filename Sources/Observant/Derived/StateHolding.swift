@_spi(Reflection) import Swift
import Synchronization

/// Whether values of a type can hold observable state, looking through the types a value is
/// built of: a state, an optional or a collection of states (what `_TypeTraits.mayHoldState`
/// tells), and also a plain struct or tuple with such a field, an array of those, an enum with a
/// payload, an existential. Found once per type, by reflection, and cached.
///
/// A derived value of such a type hands its readers copies whose fields can change in place
/// without the derived value hearing of it (see `DerivedCore`).
internal enum _StateHolding {
  private static let cache = Mutex<[ObjectIdentifier: Bool]>([:])

  /// Whether a value of `type` can hold observable state. Conservative: `true` for types
  /// reflection cannot see into (enums with payloads, existentials, functions).
  static func canHoldState(_ type: Any.Type) -> Bool {
    let id = ObjectIdentifier(type)
    if let known = cache.withLock({ $0[id] }) { return known }
    var visiting: Set<ObjectIdentifier> = []
    let answer = compute(type, &visiting)
    cache.withLock { $0[id] = answer }
    return answer
  }

  private static func compute(_ type: Any.Type, _ visiting: inout Set<ObjectIdentifier>) -> Bool {
    func traits<Value>(_: Value.Type) -> UInt32 { _TypeTraits.flags(of: Value.self) }
    let flags = _openExistential(type, do: traits)
    if flags & _TypeTraits.mayHoldState != 0 { return true }
    // Trivial values hold no references, so no state (whose registrar is one); a class reference
    // leads to fields its own registrar tracks, read live.
    if flags & (_TypeTraits.trivial | _TypeTraits.reference) != 0 { return false }
    if type == String.self || type == Substring.self || type == Character.self { return false }
    // A type met again on the way down (a recursive type): what it holds is found where it is met
    // first.
    guard visiting.insert(ObjectIdentifier(type)).inserted else { return false }
    if let optional = type as? any _OptionalObjects.Type { return compute(optional._wrappedType, &visiting) }
    if let collection = type as? any Collection.Type {
      func element<Elements: Collection>(_: Elements.Type) -> Any.Type { Elements.Element.self }
      return compute(_openExistential(collection, do: element), &visiting)
    }
    // Only a struct's or a tuple's fields are listed; reflection must not be asked for the fields
    // of an existential (the runtime dereferences a value that is not there and the program
    // crashes), and an enum's payloads or a function's captures are not listed.
    guard isStructOrTuple(type) else { return true }
    var holds = false
    var fields = 0
    let walkedAll = _forEachField(of: type, options: _EachFieldOptions(rawValue: 0)) { _, _, fieldType, _ in
      fields += 1
      holds = compute(fieldType, &visiting)
      return !holds
    }
    // No fields listed for a value that is not trivial: it may hold anything.
    return holds || !walkedAll || fields == 0
  }

  /// Whether `type` is a struct or a tuple.
  private static func isStructOrTuple(_ type: Any.Type) -> Bool {
    let kind = _TypeMetadata.kind(of: type)
    return kind == _TypeMetadata.structKind || kind == _TypeMetadata.tupleKind
  }
}
