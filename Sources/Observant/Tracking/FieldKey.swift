/// A field's key path as the runtime stores it.
///
/// Key paths are immutable objects, but the standard library does not mark `AnyKeyPath`
/// `Sendable`; this wrapper carries one across the registrar's lock and between threads.
internal struct FieldKey: @unchecked Sendable {
  let keyPath: AnyKeyPath

  init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }

  /// Identity of the key path object: equal literals in one module share one object.
  var identity: ObjectIdentifier { ObjectIdentifier(keyPath) }

  func isSameObject(as other: FieldKey) -> Bool { keyPath === other.keyPath }

  func isEqual(to other: FieldKey) -> Bool { keyPath == other.keyPath }
}
