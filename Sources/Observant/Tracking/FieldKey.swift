/// How the runtime identifies a field within one registrar.
///
/// Two kinds share one identity space:
/// - a key path object (accessors of `ObservableState`, and the registrar's key-path API): its
///   address, which is even. Equal literals in one module are one object; distinct objects that
///   are `==` are resolved by the observer table.
/// - a stored property of a class (`@Tracked`): its byte offset in the object, tagged odd. The
///   compiler hands `@Tracked` its key paths as arguments it must build on every access (two
///   runtime calls and two releases, even when untracked), so the wrapper never uses them; the
///   storage address is folded to a constant offset.
///
/// `@unchecked Sendable`: key paths are immutable objects the standard library does not mark.
@usableFromInline
internal struct FieldKey: @unchecked Sendable {
  @usableFromInline let identity: UInt
  @usableFromInline let keyPath: AnyKeyPath?

  @inlinable
  init(_ keyPath: AnyKeyPath) {
    self.identity = UInt(bitPattern: ObjectIdentifier(keyPath))
    self.keyPath = keyPath
  }

  @inlinable
  init(storedPropertyOffset offset: Int) {
    self.identity = UInt(bitPattern: offset) << 1 | 1
    self.keyPath = nil
  }

  /// The byte offset of a `@Tracked` field's storage, if this is one.
  var storedPropertyOffset: Int? {
    identity & 1 == 1 ? Int(bitPattern: identity >> 1) : nil
  }

  func isSameObject(as other: FieldKey) -> Bool { identity == other.identity }

  /// Same field: same identity, or equal key paths.
  func isEqual(to other: FieldKey) -> Bool {
    if identity == other.identity { return true }
    guard let keyPath, let otherKeyPath = other.keyPath else { return false }
    return keyPath == otherKeyPath
  }
}
