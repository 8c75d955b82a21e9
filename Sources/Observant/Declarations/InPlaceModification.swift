/// How an in-place mutation (`_modify`) of a tracked field tells what changed.
@usableFromInline
internal enum _ModifyStrategy: UInt8 {
  /// Trivially copyable: mutate a copy, then write it like a setter (compare, notify, store).
  case trivial
  /// Observable state, or an optional one: mutate in place; the identity before and after decides
  /// whether the slot changed; the child's own fields report their changes.
  case state
  /// An identified array: mutate in place; its structural version (or, for elements that are not
  /// observable state, its version) decides whether the slot changed.
  case identifiedArray
  /// Another collection of observable state (an array, a dictionary): mutate in place; the ids
  /// before and after (captured in O(*n*)) decide whether the slot changed.
  case stateCollection
  /// Another identity-comparable type (enum state): mutate a copy, then write it like a setter.
  case identityComparable
  /// Anything else: no O(1) check exists without a copy (which would force copy-on-write of the
  /// field's storage); notify before the mutation, unconditionally.
  case announce

  /// Whether the accessor yields a copy (then written like a setter) instead of the storage.
  @inlinable
  var yieldsCopy: Bool { self == .trivial || self == .identityComparable }
}

@inlinable
internal func _modifyStrategy<Value>(_: Value.Type) -> _ModifyStrategy {
  let flags = _TypeTraits.flags(of: Value.self)
  if flags & _TypeTraits.trivial != 0 { return .trivial }
  if flags & (_TypeTraits.observableState | _TypeTraits.optionalState) != 0 { return .state }
  if flags & _TypeTraits.identifiedArray != 0 { return .identifiedArray }
  if flags & (_TypeTraits.collectionOfStates | _TypeTraits.dictionaryOfStates) != 0 { return .stateCollection }
  if flags & _TypeTraits.identityComparable != 0 { return .identityComparable }
  return .announce
}

/// What an in-place mutation changed.
@usableFromInline
internal enum _ModificationOutcome {
  /// Nothing.
  case unchanged
  /// What the slot holds changed inside; the inner registrars told their readers.
  case content
  /// The slot changed; its readers must hear it (after the fact: the old value is gone). The
  /// values are what identifies the slot's content (identities), for recognizing a slot set back
  /// within its transaction.
  case slot(ChangeValues)
  /// The slot's readers were told before the mutation (`.announce`).
  case announced
}

/// The bookkeeping of one in-place mutation of a tracked field that yields the storage itself
/// (the `.state`, `.identifiedArray`, `.stateCollection` and `.announce` strategies), shared by
/// `@Tracked`, the `ObservableState` accessors and the anchors of live state.
///
/// `begin` reads what the strategy needs before the mutation and opens an in-place frame (which
/// defers synchronous observers and checks the value's stamps); `finish` closes it and says what
/// changed. Values replaced wholesale inside the mutation (`self = saved`) are reconciled here.
///
/// Inlinable (but not inlined), so that each accessor gets a copy specialized for its field's type:
/// there the casts that read the tokens (`as? any ObservableState.Type`, `as! any
/// _IdentifiedArrayTokens.Type`) fold away, where generic code would look the conformance and the
/// type's metadata up at run time, several hundred instructions each. The value is read where it
/// is (`at:`): passed by value, a caller holding it in storage would copy all of it (retaining
/// everything it holds) to have three of its words read.
@usableFromInline
internal struct _InPlaceModification<Value> {
  @usableFromInline let strategy: _ModifyStrategy
  @usableFromInline let identityBefore: UInt64
  @usableFromInline let stampBefore: UInt64
  @usableFromInline let capture: Any?

  /// Starts the mutation of `current`.
  ///
  /// - Parameter anchored: the storage is live state (a class's property, a store's root, or a
  ///   field of a value whose own in-place mutation is anchored).
  @inlinable
  init(_ strategy: _ModifyStrategy, current: Value, anchored: Bool) {
    self = withUnsafePointer(to: current) { _InPlaceModification(strategy, at: $0, anchored: anchored) }
  }

  /// Starts the mutation of the value at `current`.
  @inlinable @inline(never)
  init(_ strategy: _ModifyStrategy, at current: UnsafePointer<Value>, anchored: Bool) {
    self.strategy = strategy
    switch strategy {
    case .state:
      let token = _stateToken(at: current)
      identityBefore = token.id
      stampBefore = token.stamp
      capture = nil
      _beginInPlaceFrame(token.registrar, stamp: token.stamp, anchored: anchored)
    case .identifiedArray:
      let tokens = _identifiedArrayTokens(at: current)
      identityBefore = tokens.structural
      stampBefore = tokens.version
      capture = nil
      _beginInPlaceFrame(nil, stamp: 0, anchored: anchored)
    case .stateCollection:
      identityBefore = 0
      stampBefore = 0
      capture = (Value.self as? any _StateCollectionTokens.Type)?._captureTokens(of: current.pointee)
      _beginInPlaceFrame(nil, stamp: 0, anchored: anchored)
    case .announce, .trivial, .identityComparable:
      identityBefore = 0
      stampBefore = 0
      capture = nil
      _beginInPlaceFrame(nil, stamp: 0, anchored: anchored)
    }
  }

  /// Ends the mutation; `current` is the storage's value now.
  @inlinable
  func finish(current: Value) -> _ModificationOutcome {
    withUnsafePointer(to: current) { finish(at: $0) }
  }

  /// Ends the mutation; `current` is the storage's address.
  @inlinable @inline(never)
  func finish(at current: UnsafePointer<Value>) -> _ModificationOutcome {
    switch strategy {
    case .state:
      let token = _stateToken(at: current)
      let verified = _endInPlaceFrame(stamp: token.stamp, sameIdentity: token.id == identityBefore)
      if token.id != identityBefore {
        return .slot(
          (
            ValueBox(_ContentToken(id: identityBefore, stamp: stampBefore)),
            ValueBox(_ContentToken(id: token.id, stamp: token.stamp))
          ))
      }
      guard token.stamp != stampBefore else { return .unchanged }
      // Replaced by a copy with the same identity (`self = saved`): the readers of what differs
      // have not heard of it.
      if !verified { _reconcile(current.pointee) }
      return .content
    case .identifiedArray:
      _endInPlaceFrame(stamp: 0, sameIdentity: true)
      let tokens = _identifiedArrayTokens(at: current)
      if tokens.structural != identityBefore { return .slot(_changeValues(identityBefore, tokens.structural)) }
      return tokens.version != stampBefore ? .content : .unchanged
    case .stateCollection:
      _endInPlaceFrame(stamp: 0, sameIdentity: true)
      guard let collection = Value.self as? any _StateCollectionTokens.Type, let capture else { return .announced }
      return collection._finish(current.pointee, since: capture)
    case .announce, .trivial, .identityComparable:
      _endInPlaceFrame(stamp: 0, sameIdentity: true)
      return .announced
    }
  }
}

/// Opens an in-place frame (see `InPlaceFrames.begin`), for inlinable code.
@usableFromInline
internal func _beginInPlaceFrame(_ registrar: TrackingRegistrar?, stamp: UInt64, anchored: Bool) {
  InPlaceFrames.begin(registrar, stamp: stamp, anchored: anchored)
}

/// Closes the innermost in-place frame (see `InPlaceFrames.end`), for inlinable code.
@usableFromInline @discardableResult
internal func _endInPlaceFrame(stamp: UInt64, sameIdentity: Bool) -> Bool {
  InPlaceFrames.end(stamp: stamp, sameIdentity: sameIdentity)
}

/// What the `.state` strategy reads: the identity and stamp of a state or optional state (0 and 0
/// for `nil`), and its registrar.
@usableFromInline
internal struct _StateToken {
  @usableFromInline let registrar: TrackingRegistrar?
  @usableFromInline let id: UInt64
  @usableFromInline let stamp: UInt64

  @inlinable
  init(registrar: TrackingRegistrar?, id: UInt64, stamp: UInt64) {
    self.registrar = registrar
    self.id = id
    self.stamp = stamp
  }
}

@inlinable
internal func _stateToken<Value>(at value: UnsafePointer<Value>) -> _StateToken {
  let flags = _TypeTraits.flags(of: Value.self)
  if flags & _TypeTraits.observableState != 0, let type = Value.self as? any ObservableState.Type {
    return _openStateToken(type, at: value)
  }
  if flags & _TypeTraits.optionalState != 0, let type = Value.self as? any _OptionalStateToken.Type {
    return type._token(at: value)
  }
  return _StateToken(registrar: nil, id: 0, stamp: 0)
}

/// The token of the state at `value` (a `State`: the caller opened its type).
@inlinable
internal func _openStateToken<State: ObservableState, Value>(_: State.Type, at value: UnsafePointer<Value>)
  -> _StateToken
{
  let registrar = UnsafeRawPointer(value).assumingMemoryBound(to: State.self).pointee.registrar
  return _StateToken(registrar: registrar.tracking, id: registrar.id.rawValue, stamp: registrar.stamp)
}

@usableFromInline
internal protocol _OptionalStateToken {
  static func _token<Value>(at value: UnsafePointer<Value>) -> _StateToken
}

extension Optional: _OptionalStateToken where Wrapped: ObservableState {
  @inlinable
  static func _token<Value>(at value: UnsafePointer<Value>) -> _StateToken {
    guard let registrar = UnsafeRawPointer(value).assumingMemoryBound(to: Self.self).pointee?.registrar else {
      return _StateToken(registrar: nil, id: 0, stamp: 0)
    }
    return _StateToken(registrar: registrar.tracking, id: registrar.id.rawValue, stamp: registrar.stamp)
  }
}

/// What the `.identifiedArray` strategy reads: see `_IdentifiedArrayTokens`.
@inlinable
internal func _identifiedArrayTokens<Value>(at value: UnsafePointer<Value>) -> (structural: UInt64, version: UInt64) {
  (Value.self as! any _IdentifiedArrayTokens.Type)._tokens(at: value)
}

/// What the `.identifiedArray` strategy reads.
@usableFromInline
internal protocol _IdentifiedArrayTokens {
  /// `structural` changes exactly when the slot must notify: the structural version for elements
  /// that report their own changes, the version for any other element.
  static func _tokens<Value>(at value: UnsafePointer<Value>) -> (structural: UInt64, version: UInt64)
}

extension IdentifiedArray: _IdentifiedArrayTokens {
  @inlinable
  static func _tokens<Value>(at value: UnsafePointer<Value>) -> (structural: UInt64, version: UInt64) {
    let array = UnsafeRawPointer(value).assumingMemoryBound(to: Self.self)
    let reportsOwnChanges = _TypeTraits.flags(of: Element.self) & _TypeTraits.observableState != 0
    return (reportsOwnChanges ? array.pointee.structuralVersion : array.pointee.version, array.pointee.version)
  }
}

/// What the `.stateCollection` strategy reads: the identities (and stamps) of the elements before
/// the mutation, compared with the elements after it in O(*n*).
@usableFromInline
internal protocol _StateCollectionTokens {
  static func _captureTokens<Value>(of value: Value) -> Any
  static func _finish<Value>(_ value: Value, since capture: Any) -> _ModificationOutcome
}

extension Array: _StateCollectionTokens where Element: ObservableState {
  @usableFromInline static func _captureTokens<Value>(of value: Value) -> Any { _elementTokens(value as! Self) }
  @usableFromInline static func _finish<Value>(_ value: Value, since capture: Any) -> _ModificationOutcome {
    _finishElements(value as! Self, since: capture)
  }
}

extension ContiguousArray: _StateCollectionTokens where Element: ObservableState {
  @usableFromInline static func _captureTokens<Value>(of value: Value) -> Any { _elementTokens(value as! Self) }
  @usableFromInline static func _finish<Value>(_ value: Value, since capture: Any) -> _ModificationOutcome {
    _finishElements(value as! Self, since: capture)
  }
}

extension ArraySlice: _StateCollectionTokens where Element: ObservableState {
  @usableFromInline static func _captureTokens<Value>(of value: Value) -> Any { _elementTokens(value as! Self) }
  @usableFromInline static func _finish<Value>(_ value: Value, since capture: Any) -> _ModificationOutcome {
    _finishElements(value as! Self, since: capture)
  }
}

extension Dictionary: _StateCollectionTokens where Value: ObservableState {
  @usableFromInline static func _captureTokens<Field>(of value: Field) -> Any {
    (value as! Self).mapValues { _ContentToken(id: $0.observableStateID.rawValue, stamp: $0._instanceVersion) }
  }

  @usableFromInline static func _finish<Field>(_ value: Field, since capture: Any) -> _ModificationOutcome {
    let dictionary = value as! Self
    guard let before = capture as? [Key: _ContentToken] else { return .announced }
    let sameIdentities =
      before.count == dictionary.count
      && before.allSatisfy { key, token in dictionary[key]?.registrar.id.rawValue == token.id }
    guard sameIdentities else {
      // Boxed as a setter boxes them (see `_changeValues`).
      return .slot(
        (
          ValueBox(before),
          ValueBox(
            dictionary.mapValues { _ContentToken(id: $0.observableStateID.rawValue, stamp: $0._instanceVersion) })
        ))
    }
    var changed = false
    for (key, element) in dictionary where before[key]?.stamp != element.registrar.stamp {
      changed = true
      _reconcile(element)
    }
    return changed ? .content : .unchanged
  }
}

/// Same identities in the same order: the slot is unchanged, and elements whose stamps moved are
/// reconciled (an array cannot tell an element edited through its accessors from one replaced by an
/// edited copy; reconciling tells exactly the readers of what differs).
private func _finishElements<States: Collection>(_ states: States, since capture: Any) -> _ModificationOutcome
where States.Element: ObservableState {
  guard let before = capture as? [_ContentToken] else { return .announced }
  guard before.count == states.count,
    zip(before, states).allSatisfy({ $0.id == $1.registrar.id.rawValue })
  else {
    // Boxed as a setter boxes them (see `_changeValues`).
    return .slot((ValueBox(before), ValueBox(_elementTokens(states))))
  }
  var changed = false
  for (token, state) in zip(before, states) where token.stamp != state.registrar.stamp {
    changed = true
    _reconcile(state)
  }
  return changed ? .content : .unchanged
}
