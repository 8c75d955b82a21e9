import _ObservantShims

// Values kept for reverted writes and causes: a transaction keeps the old and new value of a write
// that could still be set back (or whose reader records causes), and compares them when it ends.
// Fields that hold observable state are kept as content tokens (identity and stamp).

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

/// The old and new value of one write, as its record keeps them (see `KeptValue`).
@usableFromInline
internal typealias WriteValues = (old: KeptValue, new: KeptValue)

/// Keeps a write's values (inlinable: their comparison is specialized where they are made).
///
/// Fields holding observable state are kept as tokens (identity and stamp of each state they
/// hold), the same tokens an in-place mutation records without a copy of the old value: a field
/// written both ways in one transaction compares like with like, and "set back" means the same
/// copies of the same states.
@inlinable
internal func _changeValues<Value>(_ old: Value, _ new: Value) -> WriteValues {
  // Trivially copyable values (`Int`, `Bool`, small enums and structs) hold no state: decided at
  // compile time, before any look-up.
  if _isPOD(Value.self) { return KeptValue.pair(old, new) }
  let flags = _TypeTraits.flags(of: Value.self)
  if flags & (_TypeTraits.observableState | _TypeTraits.optionalState) != 0 {
    return (KeptValue(_ContentToken(of: old)), KeptValue(_ContentToken(of: new)))
  }
  if flags & (_TypeTraits.collectionOfStates | _TypeTraits.dictionaryOfStates) != 0,
    let container = Value.self as? any _StateContainer.Type, let values = container._tokenValues(old, new)
  {
    return values
  }
  if flags & _TypeTraits.identifiedArray != 0 {
    return (KeptValue(_IdentifiedArraySnapshot(old)), KeptValue(_IdentifiedArraySnapshot(new)))
  }
  return (KeptValue(old), KeptValue(new))
}

/// A value kept by a write record, to recognize a field that ends its transaction where it began
/// (and to describe the write in a run's causes).
///
/// A trivially copyable value of at most 16 bytes (an `Int`, a `Bool`, a content token) is kept
/// inline, with the kind of its type (its comparison, specialized where the kind was made, one per
/// type for the process's life): keeping it allocates nothing. Anything else is boxed.
@usableFromInline
internal struct KeptValue {
  @usableFromInline
  internal enum Storage {
    case boxed(ComparableBox)
    /// The value's bytes, and its type's kind (never released: see `InlineValueKind`).
    case inline(Unmanaged<InlineValueKind>, UInt64, UInt64)
  }

  @usableFromInline let storage: Storage

  /// Keeps `value`: inline when its type allows, otherwise boxed.
  @inlinable
  init<Value>(_ value: Value) {
    if Self.fitsInline(Value.self), let kind = InlineValueKind.kind(of: Value.self) {
      self.init(value, kind: kind)
    } else {
      self.init(boxed: ValueBox(value))
    }
  }

  /// Keeps a write's old and new value (one look-up of their kind).
  @inlinable
  static func pair<Value>(_ old: Value, _ new: Value) -> WriteValues {
    guard fitsInline(Value.self), let kind = InlineValueKind.kind(of: Value.self) else {
      return (KeptValue(boxed: ValueBox(old)), KeptValue(boxed: ValueBox(new)))
    }
    return (KeptValue(old, kind: kind), KeptValue(new, kind: kind))
  }

  /// Whether values of `Value` can be kept inline (decided at compile time where it is known).
  @inlinable @inline(__always)
  static func fitsInline<Value>(_: Value.Type) -> Bool {
    _isPOD(Value.self) && MemoryLayout<Value>.size <= 16 && MemoryLayout<Value>.alignment <= 8
  }

  /// Keeps `value` inline, with its type's `kind`.
  @inlinable @inline(__always)
  init<Value>(_ value: Value, kind: Unmanaged<InlineValueKind>) {
    var bytes: (UInt64, UInt64) = (0, 0)
    withUnsafeMutableBytes(of: &bytes) { $0.storeBytes(of: value, as: Value.self) }
    storage = .inline(kind, bytes.0, bytes.1)
  }

  /// Keeps a value already boxed.
  @inlinable
  init(boxed box: ComparableBox) {
    storage = .boxed(box)
  }

  /// Whether the field holds the same thing (see `ValueBox.isEqual(to:)`): values of one type,
  /// compared by that type's rule.
  func isEqual(to other: KeptValue) -> Bool {
    switch (storage, other.storage) {
    case (.boxed(let box), .boxed(let otherBox)):
      return box.isEqual(to: otherBox)
    case (.inline(let kind, let first, let second), .inline(let otherKind, let otherFirst, let otherSecond)):
      // One kind per type: another kind is another type.
      guard kind.toOpaque() == otherKind.toOpaque() else { return false }
      var value = (first, second)
      var otherValue = (otherFirst, otherSecond)
      return withUnsafeBytes(of: &value) { value in
        withUnsafeBytes(of: &otherValue) { otherValue in
          kind._withUnsafeGuaranteedRef { $0.areEqual(value.baseAddress!, otherValue.baseAddress!) }
        }
      }
    default:
      // A value kept inline and one boxed (a type whose kind could not be cached is always boxed;
      // this is for values boxed on purpose elsewhere): compared boxed.
      return box.isEqual(to: other.box)
    }
  }

  /// The value boxed (made now for a value kept inline): for describing a write.
  var box: ComparableBox {
    switch storage {
    case .boxed(let box):
      return box
    case .inline(let kind, let first, let second):
      var value = (first, second)
      return withUnsafeBytes(of: &value) { value in kind._withUnsafeGuaranteedRef { $0.box(value.baseAddress!) } }
    }
  }
}

/// What `KeptValue` needs of a type whose values it keeps inline: the comparison of two values
/// and their boxing, made where the type is known (so that they run specialized), one per type.
///
/// Kinds are cached in a process-wide direct-mapped table of a few hundred slots (in the shims),
/// and never released. A slot taken by another type stays taken: values of a type whose slot is
/// taken are boxed instead (so at most one kind per slot is ever made and kept).
@usableFromInline
internal final class InlineValueKind: @unchecked Sendable {
  /// The type whose values this kind describes (`ObjectIdentifier` of its metatype).
  @usableFromInline let type: UInt
  let areEqual: (UnsafeRawPointer, UnsafeRawPointer) -> Bool
  let box: (UnsafeRawPointer) -> ComparableBox

  @usableFromInline
  init(
    type: UInt, areEqual: @escaping (UnsafeRawPointer, UnsafeRawPointer) -> Bool,
    box: @escaping (UnsafeRawPointer) -> ComparableBox
  ) {
    self.type = type
    self.areEqual = areEqual
    self.box = box
  }

  /// The kind of `Value` (a trivially copyable type of at most 16 bytes), made on first use;
  /// `nil` when its slots are all other types'. Inlinable: a hit is two loads and a compare.
  @inlinable
  static func kind<Value>(of _: Value.Type) -> Unmanaged<InlineValueKind>? {
    let type = UInt(bitPattern: ObjectIdentifier(Value.self))
    if let word = observant_inline_kind_get(type) {
      let kind = Unmanaged<InlineValueKind>.fromOpaque(word)
      return kind._withUnsafeGuaranteedRef { $0.type } == type ? kind : nil
    }
    return register(
      InlineValueKind(
        type: type,
        areEqual: { _holdsSameValue($0.loadUnaligned(as: Value.self), $1.loadUnaligned(as: Value.self)) },
        box: { ValueBox($0.loadUnaligned(as: Value.self)) }))
  }

  /// Caches `kind` in a free slot of its type's; returns the kind cached for the type, or `nil`
  /// when its slots are all other types' (or another thread is still filling the type's).
  @usableFromInline @inline(never)
  static func register(_ kind: InlineValueKind) -> Unmanaged<InlineValueKind>? {
    let retained = Unmanaged.passRetained(kind)
    if observant_inline_kind_install(kind.type, retained.toOpaque()) != 0 { return retained }
    retained.release()
    // Another thread claimed a slot for this type first (its kind is used, once stored there), or
    // the type's slots are all other types'.
    guard let word = observant_inline_kind_get(kind.type) else { return nil }
    let cached = Unmanaged<InlineValueKind>.fromOpaque(word)
    return cached._withUnsafeGuaranteedRef { $0.type } == kind.type ? cached : nil
  }
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
