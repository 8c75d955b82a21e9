/// How the runtime identifies a field within one registrar.
///
/// Three kinds share one identity space, told apart by the two low bits:
/// - a key path object (accessors of `ObservableState`, and the registrar's key-path API): its
///   address (aligned: low bits 00). An accessor's literal is usually one object, but not
///   always: an optimized build may instantiate it once per function it is inlined into. Distinct
///   objects that are `==` are resolved by the observer table, whose slot key is the one identity
///   a transaction records a field's writes under.
/// - a stored property of a class (`@Tracked`): its byte offset in the object (tag 01). The
///   compiler hands `@Tracked` its key paths as arguments it must build on every access (two
///   runtime calls and two releases, even when untracked), so the wrapper never uses them; the
///   storage address is folded to a constant offset.
/// - a numbered field of an owner that tracks fields without key paths (`TrackedField`, tag 10).
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
    self.identity = UInt(bitPattern: offset) << 2 | 1
    self.keyPath = nil
  }

  @inlinable
  init(numberedField number: Int) {
    self.identity = UInt(bitPattern: number) << 2 | 2
    self.keyPath = nil
  }

  /// The byte offset of a `@Tracked` field's storage, if this is one.
  var storedPropertyOffset: Int? {
    identity & 3 == 1 ? Int(bitPattern: identity >> 2) : nil
  }

  func isSameObject(as other: FieldKey) -> Bool { identity == other.identity }

  /// Same field: same identity, or equal key paths.
  func isEqual(to other: FieldKey) -> Bool {
    if identity == other.identity { return true }
    guard let keyPath, let otherKeyPath = other.keyPath else { return false }
    return keyPath == otherKeyPath
  }
}
