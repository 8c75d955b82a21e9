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
  case slot(WriteValues)
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
/// _IdentifiedArrayVersions.Type`) fold away, where generic code would look the conformance and the
/// type's metadata up at run time, several hundred instructions each. The value is read where it
/// is (`at:`): passed by value, a caller holding it in storage would copy all of it (retaining
/// everything it holds) to have three of its words read.
///
/// Trivially copyable (the tokens a collection's mutation captures are held unmanaged): the
/// accessors keep it in an optional across their yield, and an optional of a struct this large
/// that holds a reference is copied and destroyed through its value witnesses, a few hundred
/// instructions per in-place mutation. `finish` must be called exactly once (it releases them).
@usableFromInline
internal struct _InPlaceModification<Value> {
  @usableFromInline let strategy: _ModifyStrategy
  @usableFromInline let identityBefore: UInt64
  @usableFromInline let stampBefore: UInt64
  /// The element count before the mutation (identified arrays only), to describe the change.
  @usableFromInline let countBefore: Int
  /// The latest version stamp handed out when the mutation began (identified arrays only): a
  /// version no greater at the end, and not the one before, is a copy's that existed before (see
  /// `_identifiedArrayVersionClock()`).
  @usableFromInline let clockBefore: UInt64
  /// The tokens of the `.stateCollection` strategy, retained until `finish` takes them.
  @usableFromInline let capture: Unmanaged<_CapturedTokens>?

  /// Starts the mutation of `current`.
  ///
  /// - Parameter anchored: the storage is live state (a class's property, a store's root, or a
  ///   field of a value whose own in-place mutation is anchored).
  @inlinable
  init(_ strategy: _ModifyStrategy, current: Value, anchored: Bool, place: UInt64) {
    self = withUnsafePointer(to: current) { _InPlaceModification(strategy, at: $0, anchored: anchored, place: place) }
  }

  /// Starts the mutation of the value at `current`.
  ///
  /// - Parameter place: where the value is stored (see `_WritePlace`), 0 if not known.
  @inlinable @inline(never)
  init(_ strategy: _ModifyStrategy, at current: UnsafePointer<Value>, anchored: Bool, place: UInt64) {
    self.strategy = strategy
    switch strategy {
    case .state:
      let token = _stateToken(at: current)
      identityBefore = token.id
      stampBefore = token.stamp
      countBefore = 0
      clockBefore = 0
      capture = nil
      _beginInPlaceFrame(
        token.registrar, stamp: token.stamp, anchored: anchored, address: UnsafeRawPointer(current), place: place)
    case .identifiedArray:
      let tokens = _identifiedArrayTokens(at: current)
      identityBefore = tokens.structural
      stampBefore = tokens.version
      countBefore = tokens.count
      clockBefore = _identifiedArrayVersionClock()
      capture = nil
      _beginInPlaceFrame(nil, stamp: 0, anchored: anchored, place: place)
    case .stateCollection:
      identityBefore = 0
      stampBefore = 0
      countBefore = 0
      clockBefore = 0
      capture = (Value.self as? any _StateContainer.Type)?._captureTokens(of: current.pointee).map {
        Unmanaged.passRetained(_CapturedTokens($0))
      }
      _beginInPlaceFrame(nil, stamp: 0, anchored: anchored, place: place)
    case .announce, .trivial, .identityComparable:
      identityBefore = 0
      stampBefore = 0
      countBefore = 0
      clockBefore = 0
      capture = nil
      _beginInPlaceFrame(nil, stamp: 0, anchored: anchored, place: place)
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
      if token.id == identityBefore && !_innermostFrameExpects(token.stamp) {
        // Replaced by a copy with the same identity (`self = saved`): the readers of what differs
        // have not heard of it. Reconciled before the frame closes, while the frame still tells
        // which of this transaction's writes were made in this storage (a field of the copy may be
        // back where its readers read it).
        _reconcile(current.pointee, restoredAt: UnsafeRawPointer(current), size: MemoryLayout<Value>.size)
        _endInPlaceFrame(stamp: token.stamp, sameIdentity: true)
        return token.stamp == stampBefore ? .unchanged : .content
      }
      let verified = _endInPlaceFrame(stamp: token.stamp, sameIdentity: token.id == identityBefore)
      if token.id != identityBefore {
        // Another state arrived (an older copy of a value coming back): its readers hear what it
        // holds that they did not read.
        if token.id != 0 { _reconcile(current.pointee) }
        return .slot(
          (
            KeptValue(_ContentToken(id: identityBefore, stamp: stampBefore)),
            KeptValue(_ContentToken(id: token.id, stamp: token.stamp))
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
      if tokens.version != stampBefore && tokens.version <= clockBefore {
        // Replaced by a copy that existed before (`swap(&a, &b)`, `self = saved`): no element
        // accessor told the readers of the elements' fields what differs.
        _noteReplacementByCopy(current.pointee)
      }
      if tokens.structural != identityBefore {
        // Boxed as a setter boxes them (see `_changeValues`): by version, the old value is gone.
        return .slot(
          (
            KeptValue(_IdentifiedArraySnapshot<Value>(version: stampBefore, count: countBefore)),
            KeptValue(_IdentifiedArraySnapshot<Value>(version: tokens.version, count: tokens.count))
          ))
      }
      return tokens.version != stampBefore ? .content : .unchanged
    case .stateCollection:
      _endInPlaceFrame(stamp: 0, sameIdentity: true)
      let captured = capture?.takeRetainedValue().tokens
      guard let collection = Value.self as? any _StateContainer.Type, let captured else { return .announced }
      var reconciling = _Reconciling()
      switch collection._compareTokens(of: current.pointee, since: captured, &reconciling) {
      case .unknown: return .announced
      case .otherIdentities(let values): return .slot(values)
      case .sameIdentities(let changed): return changed ? .content : .unchanged
      }
    case .announce, .trivial, .identityComparable:
      _endInPlaceFrame(stamp: 0, sameIdentity: true)
      return .announced
    }
  }
}

/// The tokens an in-place mutation of a collection of states captured (see
/// `_StateContainer._captureTokens`), boxed so that `_InPlaceModification` can hold them unmanaged.
@usableFromInline
internal final class _CapturedTokens {
  @usableFromInline let tokens: Any

  @usableFromInline
  init(_ tokens: Any) {
    self.tokens = tokens
  }
}

/// An identified array was replaced through `inout` by a copy that existed before its in-place
/// mutation began: the readers of its elements' fields that read something it no longer holds are
/// told, and the transaction's writes are no longer trusted as live (as for any value replaced
/// other than through its accessors).
@usableFromInline
internal func _noteReplacementByCopy<Value>(_ value: Value) {
  TransactionContext.current.noteUnverifiedReplacement()
  _reconcile(value)
}

/// Opens an in-place frame (see `InPlaceFrames.begin`), for inlinable code.
@usableFromInline
internal func _beginInPlaceFrame(
  _ registrar: UnsafeMutableRawPointer?, stamp: UInt64, anchored: Bool, address: UnsafeRawPointer? = nil,
  place: UInt64
) {
  InPlaceFrames.begin(registrarAddress: registrar, stamp: stamp, anchored: anchored, address: address, place: place)
}

/// Whether the innermost frame's value carries `stamp` (see `InPlaceFrames.innermostExpects`).
@usableFromInline
internal func _innermostFrameExpects(_ stamp: UInt64) -> Bool {
  InPlaceFrames.innermostExpects(stamp)
}

/// Closes the innermost in-place frame (see `InPlaceFrames.end`), for inlinable code.
@usableFromInline @discardableResult
internal func _endInPlaceFrame(stamp: UInt64, sameIdentity: Bool) -> Bool {
  InPlaceFrames.end(stamp: stamp, sameIdentity: sameIdentity)
}

@inlinable
internal func _stateToken<Value>(at value: UnsafePointer<Value>) -> _StateToken {
  let flags = _TypeTraits.flags(of: Value.self)
  if flags & _TypeTraits.observableState != 0, let type = Value.self as? any ObservableState.Type {
    return _openStateToken(type, at: value)
  }
  if flags & _TypeTraits.optionalState != 0, let container = Value.self as? any _StateContainer.Type {
    return container._stateToken(at: value)
  }
  return .none
}

/// The token of the state at `value` (a `State`: the caller opened its type).
@inlinable
internal func _openStateToken<State: ObservableState, Value>(_: State.Type, at value: UnsafePointer<Value>)
  -> _StateToken
{
  // Field by field through the pointer: copying the registrar out would retain its object.
  let state = UnsafeRawPointer(value).assumingMemoryBound(to: State.self)
  return _StateToken(
    registrar: Unmanaged.passUnretained(state.pointee.registrar.tracking).toOpaque(),
    id: state.pointee.registrar.id.rawValue, stamp: state.pointee.registrar.stamp)
}

/// What the `.identifiedArray` strategy reads: see `_IdentifiedArrayVersions`.
@inlinable
internal func _identifiedArrayTokens<Value>(at value: UnsafePointer<Value>) -> (
  structural: UInt64, version: UInt64, count: Int
) {
  (Value.self as! any _IdentifiedArrayVersions.Type)._tokens(at: value)
}

/// Reconciles the states an in-place mutation of a collection left with other stamps, and those
/// that arrived in it (see `_StateContainer._compareTokens`), when any state in them has readers.
@usableFromInline
internal struct _Reconciling: _StateVisitor {
  /// Never read: gives the visitor storage. A variable of an empty type has none of its own, and
  /// optimized code hands one shared address to every `inout` access of it, which the thread
  /// sanitizer reports as two threads modifying one variable.
  @usableFromInline var _storage: UInt8 = 0

  @inlinable init() {}

  @usableFromInline
  mutating func visit<State: ObservableState>(_ state: State) {
    _reconcileArrival(state)
  }
}

/// Stores `newValue` in `slot`, destroying the old value only once the new one is in place.
///
/// A plain assignment in generic code may destroy the old value first (a value witness assigns by
/// destroying, then initializing): a deinit it triggers (the last reference to an object going
/// away, whose readers are told, and may read the field) would find the old value still stored,
/// an object in the middle of being deallocated.
@inlinable @inline(__always)
internal func _replaceValue<Value>(_ slot: inout Value, with newValue: Value) {
  var outgoing = newValue
  swap(&slot, &outgoing)
  // `outgoing`, the old value now, is destroyed when it goes out of scope, after the store.
}
