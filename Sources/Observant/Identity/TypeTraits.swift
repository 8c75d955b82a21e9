@_spi(Reflection) import Swift
import _ObservantShims

/// Cached answers to "what kind of value is this?" for the questions change detection asks.
///
/// In specialized code a cast to a protocol the type conforms to folds away at compile time, but
/// the compiler can never prove that a type does *not* conform (a conformance could be added
/// elsewhere), so `Int.self as? any IdentityComparable.Type` stays a runtime conformance lookup:
/// several hundred instructions on every observed write of an `Int`. This table answers it in a
/// few: one relaxed load of a word that holds the type's metadata address and its flags.
///
/// Direct-mapped and lock-free, in the shims (C, so that a look-up is a few inline loads): a slot
/// is two words, the type's metadata address and its flags (with the address's low 32 bits
/// repeated, so a reader that catches two writers racing on one slot notices the mismatch and
/// computes the answer itself). A collision recomputes and overwrites.
@usableFromInline
internal enum _TypeTraits {
  /// The flags have been computed (never 0 for a computed entry).
  @usableFromInline static var computed: UInt32 { 1 << 0 }
  /// `IdentityComparable` (which covers `ObservableState`, optionals and collections of it).
  @usableFromInline static var identityComparable: UInt32 { 1 << 1 }
  /// `Equatable`.
  @usableFromInline static var equatable: UInt32 { 1 << 2 }
  /// `ObservableState`.
  @usableFromInline static var observableState: UInt32 { 1 << 3 }
  /// `Optional` of `ObservableState`.
  @usableFromInline static var optionalState: UInt32 { 1 << 4 }
  /// `IdentifiedArray` of any element (its versions are O(1) change tokens).
  @usableFromInline static var identifiedArray: UInt32 { 1 << 5 }
  /// Elements are `ObservableState` (an identified array, or any other collection).
  @usableFromInline static var collectionOfStates: UInt32 { 1 << 6 }
  /// A `Dictionary` whose values are `ObservableState`.
  @usableFromInline static var dictionaryOfStates: UInt32 { 1 << 7 }
  /// A class.
  @usableFromInline static var reference: UInt32 { 1 << 8 }
  /// Trivially copyable (`_isPOD`).
  @usableFromInline static var trivial: UInt32 { 1 << 9 }
  /// Values may hold observable state whose content a copy can change: walked by content diffs.
  @usableFromInline static var mayHoldState: UInt32 { 1 << 10 }
  /// `ObservableState` with a tracked field whose value may hold observable state (a nested
  /// state, an optional or a collection of states): what happens to the value concerns the
  /// readers of other registrars than its own.
  @usableFromInline static var holdsNestedState: UInt32 { 1 << 11 }
  /// An observable object (`Trackable`), an optional one, a collection or a dictionary of them:
  /// compared by identity, also when `Equatable` (readers depend on the object's own fields, which
  /// an equal object does not share). With `reference` for the object itself; with one of the two
  /// flags below for an optional or a dictionary; otherwise a collection.
  @usableFromInline static var objects: UInt32 { 1 << 12 }
  /// `Optional` of an observable object (with `objects`).
  @usableFromInline static var optionalObject: UInt32 { 1 << 13 }
  /// A `Dictionary` whose values are observable objects (with `objects`).
  @usableFromInline static var dictionaryOfObjects: UInt32 { 1 << 14 }
  /// `Optional` of a class that is not an observable object: compared with `===` (both `nil`, or
  /// the same instance) when not `Equatable`, as the class itself is.
  @usableFromInline static var optionalReference: UInt32 { 1 << 15 }

  /// The flags of `Value`: a look-up in the shims' table (see `observant_type_traits_get`), which
  /// a miss fills.
  /// Inlinable: a hit is a few loads where the type is known.
  @inlinable @inline(__always)
  static func flags<Value>(of _: Value.Type) -> UInt32 {
    let cached = observant_type_traits_get(UInt(bitPattern: ObjectIdentifier(Value.self)))
    return cached != 0 ? cached : computeAndCache(Value.self)
  }

  @usableFromInline @inline(never)
  static func computeAndCache<Value>(_: Value.Type) -> UInt32 {
    let flags = compute(Value.self)
    observant_type_traits_set(UInt(bitPattern: ObjectIdentifier(Value.self)), flags)
    return flags
  }

  private static func compute<Value>(_: Value.Type) -> UInt32 {
    var flags = computed
    if Value.self is any IdentityComparable.Type { flags |= identityComparable }
    if _EquatableProbe<Value>.self is any _EquatableProbing.Type { flags |= equatable }
    if Value.self is any ObservableState.Type { flags |= observableState }
    if Value.self is any _IdentifiedArrayVersions.Type { flags |= identifiedArray }
    if let container = Value.self as? any _StateContainer.Type {
      switch container._stateContainerKind {
      case .optional: flags |= optionalState
      case .collection: flags |= collectionOfStates
      case .dictionary: flags |= dictionaryOfStates
      }
    } else if let collection = Value.self as? any Collection.Type, _elementsAreStates(collection) {
      flags |= collectionOfStates
    }
    // A class, or a class-bound existential (`AnyObject`, `any Delegate` of a protocol
    // `Delegate: AnyObject`): a reference, compared with `===`.
    if _isReference(Value.self) { flags |= reference }
    if Value.self is any Trackable.Type {
      flags |= objects
    } else if let optional = Value.self as? any _OptionalObjects.Type, optional._wrappedType is any Trackable.Type {
      flags |= objects | optionalObject
    } else if let dictionary = Value.self as? any _DictionaryObjects.Type, dictionary._valueType is any Trackable.Type {
      flags |= objects | dictionaryOfObjects
    } else if let collection = Value.self as? any Collection.Type, _elementsAreObjects(collection) {
      flags |= objects
    } else if let optional = Value.self as? any _OptionalObjects.Type, _isReference(optional._wrappedType) {
      flags |= optionalReference
    }
    if _isPOD(Value.self) { flags |= trivial }
    if flags & (identityComparable | observableState | optionalState | collectionOfStates | dictionaryOfStates) != 0 {
      flags |= mayHoldState
    }
    if flags & observableState != 0, _fieldsMayHoldState(Value.self) { flags |= holdsNestedState }
    return flags
  }

  /// Whether values of `type` are references: a class, or a class-bound existential.
  private static func _isReference(_ type: Any.Type) -> Bool {
    type is AnyObject.Type || _TypeMetadata.isClassBoundExistential(type)
  }

  /// Whether a tracked field of the state type `type` holds a value that may hold observable
  /// state: found by reflection, once per type (the answer is cached with the flags).
  private static func _fieldsMayHoldState(_ type: Any.Type) -> Bool {
    var holds = false
    _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 0)) { _, _, fieldType, _ in
      guard let field = fieldType as? any _StateFieldValueType.Type else { return true }
      func mayHoldState<Value>(_: Value.Type) -> Bool { flags(of: Value.self) & _TypeTraits.mayHoldState != 0 }
      holds = _openExistential(field._valueType, do: mayHoldState)
      return !holds
    }
    return holds
  }
}

/// `_EquatableProbe<T>` conforms to `_EquatableProbing` exactly when `T: Equatable`, which lets
/// generic code ask "is `T` Equatable?" and compare two `T`s without boxing them in existentials.
@usableFromInline
internal protocol _EquatableProbing {
  static func _areEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool
}

@usableFromInline
internal enum _EquatableProbe<T> {}

extension _EquatableProbe: _EquatableProbing where T: Equatable {
  @inlinable
  static func _areEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
    (lhs as! T) == (rhs as! T)
  }
}

private func _elementsAreStates<Elements: Collection>(_: Elements.Type) -> Bool {
  Elements.Element.self is any ObservableState.Type
}

private func _elementsAreObjects<Elements: Collection>(_: Elements.Type) -> Bool {
  Elements.Element.self is any Trackable.Type
}

/// Whether a state that arrived somewhere (inserted, stored over another identity, an older copy
/// coming back) may have readers to tell: its own registrar has readers, or it holds nested state,
/// whose readers only a walk finds (see `Reconciliation.reconcileArrival`). O(1).
@inlinable @inline(__always)
internal func _isArrivalObservable<State: ObservableState>(_ state: State) -> Bool {
  state.registrar.tracking.hasObservers
    || _TypeTraits.flags(of: State.self) & _TypeTraits.holdsNestedState != 0
}

/// What a type's metadata record says of it, read as Swift's ABI lays it out (the same on every
/// platform Swift runs on): the first word is the kind; an existential's next 32 bits are its
/// flags, whose top bit is clear when the existential is class-bound.
internal enum _TypeMetadata {
  static let structKind: UInt = 0x200
  static let tupleKind: UInt = 0x301
  static let existentialKind: UInt = 0x303

  /// The kind of `type`'s metadata (0 for a Swift class without Objective-C interoperability).
  static func kind(of type: Any.Type) -> UInt {
    unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self)
  }

  /// Whether `type` is an existential whose values are class references: `AnyObject`, or
  /// `any Delegate` of a protocol `Delegate: AnyObject` (possibly composed with others).
  static func isClassBoundExistential(_ type: Any.Type) -> Bool {
    guard kind(of: type) == existentialKind else { return false }
    let flags = unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 8, as: UInt32.self)
    return flags & 0x8000_0000 == 0
  }
}
