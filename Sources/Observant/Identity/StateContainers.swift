/// The containers of observable state the runtime looks into: an optional state, the arrays
/// (`Array`, `ContiguousArray`, `ArraySlice`) and identified arrays of states, and the
/// dictionaries whose values are states. Each conforms once, here, on the condition that what it
/// holds is observable state, and every layer that looks inside a container goes through this
/// conformance: the type table (`_TypeTraits`), the boxes of set-backs and causes, the content
/// diff and the reconciliation of copies (through visitors, so that this layer names nothing above
/// it), and the in-place mutations of state fields (through tokens).
///
/// Two protocols stay beside it, for reasons of their own: the identity rule itself is the public
/// `IdentityComparable` (API, and `Optional` follows it for any identity-comparable payload, not
/// only for states), and an identified array answers its versions for any element
/// (`_IdentifiedArrayVersions`), states or not.
@usableFromInline
internal protocol _StateContainer {
  /// What kind of container this is, for the type table.
  static var _stateContainerKind: _StateContainerKind { get }

  /// Whether no two elements can be copies of one state (an identified array: a copy keeps its
  /// `id`), so that an element's identity names its place in the container (see `_WritePlace`).
  static var _elementsAreDistinctStates: Bool { get }

  /// The old and the new value of a write, boxed as the content tokens of the states they hold
  /// (see `_changeValues`); `nil` for a container boxed otherwise (an optional state as one token,
  /// an identified array as itself).
  static func _tokenValues<Value>(_ old: Value, _ new: Value) -> WriteValues?

  /// Whether two identity-equal containers hold the same copies of their states (the same stamps,
  /// pairwise); `false` for an optional state (identity-equal with another stamp is another
  /// content).
  static func _holdsSameCopies<Value>(_ lhs: Value, _ rhs: Value) -> Bool

  /// The version of the content, when one is known in O(1) (an optional state's stamp, 0 for
  /// `nil`); `nil` otherwise.
  static func _contentVersion<Value>(of value: Value) -> UInt64?

  /// Hands `visitor` the pairs of states the two containers both hold (by position when the
  /// identities line up, otherwise by identity or by key): what the content diff compares.
  static func _visitStatePairs<Value, Visitor: _StatePairVisitor>(_ old: Value, _ new: Value, _ visitor: inout Visitor)

  /// Hands `visitor` the state stored inline in `new` and the one in `old`, to compare and adopt
  /// stamps into (an optional state: both present); returns what the visitor returned, `false` if
  /// one is `nil` and the other not, `true` if both are. `nil` for containers whose states are not
  /// stored inline (collections).
  static func _visitInlineState<Value, Visitor: _StatePairVisitor>(
    _ old: Value, adopting new: inout Value, _ visitor: inout Visitor
  ) -> Bool?

  /// Hands `visitor` every state the container holds.
  static func _visitStates<Value, Visitor: _StateVisitor>(in value: Value, _ visitor: inout Visitor)

  /// The identity, stamp and registrar of the state at `value` (an optional state; `nil` gives
  /// zeros), read where it is stored; zeros for collections.
  static func _stateToken<Value>(at value: UnsafePointer<Value>) -> _StateToken

  /// The content tokens of the states a collection holds, taken before an in-place mutation;
  /// `nil` for an optional state and an identified array (their strategies read other tokens).
  static func _captureTokens<Value>(of value: Value) -> Any?

  /// What an in-place mutation did to a collection, given the tokens taken before it: other
  /// identities (boxed like a setter's values), or the same identities, with `visitor` handed the
  /// states whose stamps moved (the caller reconciles them).
  static func _compareTokens<Value, Visitor: _StateVisitor>(
    of value: Value, since capture: Any, _ visitor: inout Visitor
  ) -> _TokenComparison
}

extension _StateContainer {
  @usableFromInline static var _elementsAreDistinctStates: Bool { false }
}

/// What kind of container a `_StateContainer` is.
@usableFromInline
internal enum _StateContainerKind {
  case optional, collection, dictionary
}

/// Receives the states a container holds, one by one.
@usableFromInline
internal protocol _StateVisitor {
  mutating func visit<State: ObservableState>(_ state: State)
}

/// Receives pairs of states, the one a container held and the one it holds now.
@usableFromInline
internal protocol _StatePairVisitor {
  mutating func visit<State: ObservableState>(_ old: State, _ new: State)
  /// The pair of states stored inline, with stamps adopted into `new`; returns whether `new` is
  /// now identical to `old`.
  mutating func visit<State: ObservableState>(_ old: State, adopting new: inout State) -> Bool
  /// A state of the new value with no partner of its identity in the old one: it arrived.
  mutating func arrived<State: ObservableState>(_ new: State)
}

/// What an in-place mutation of a collection of states did (see `_compareTokens`).
@usableFromInline
internal enum _TokenComparison {
  /// The tokens were not the container's own (nothing can be said).
  case unknown
  /// Other identities: the slot changed, from and to these tokens.
  case otherIdentities(WriteValues)
  /// The same identities; whether any state's stamp moved.
  case sameIdentities(changed: Bool)
}

/// What the in-place strategy of observable state reads: the identity and stamp of a state or
/// optional state (0 and 0 for `nil`), and its registrar.
@usableFromInline
internal struct _StateToken {
  /// The address of the state's registrar object (for the in-place frame, which keeps the address
  /// alone): no reference is taken, the state being read keeps it alive.
  @usableFromInline let registrar: UnsafeMutableRawPointer?
  @usableFromInline let id: UInt64
  @usableFromInline let stamp: UInt64

  @inlinable
  init(registrar: UnsafeMutableRawPointer?, id: UInt64, stamp: UInt64) {
    self.registrar = registrar
    self.id = id
    self.stamp = stamp
  }

  @inlinable
  static var none: _StateToken { _StateToken(registrar: nil, id: 0, stamp: 0) }
}

// MARK: Optional

extension Optional: _StateContainer where Wrapped: ObservableState {
  @usableFromInline static var _stateContainerKind: _StateContainerKind { .optional }

  @usableFromInline static func _tokenValues<Value>(_ old: Value, _ new: Value) -> WriteValues? { nil }

  @usableFromInline static func _holdsSameCopies<Value>(_ lhs: Value, _ rhs: Value) -> Bool { false }

  @inlinable
  static func _contentVersion<Value>(of value: Value) -> UInt64? { (value as! Self)?.registrar.stamp ?? 0 }

  @usableFromInline
  static func _visitStatePairs<Value, Visitor: _StatePairVisitor>(
    _ old: Value, _ new: Value, _ visitor: inout Visitor
  ) {
    guard let old = old as? Wrapped?, let new = new as? Wrapped?, let new else { return }
    guard let old else { return visitor.arrived(new) }
    visitor.visit(old, new)
  }

  @usableFromInline
  static func _visitInlineState<Value, Visitor: _StatePairVisitor>(
    _ old: Value, adopting new: inout Value, _ visitor: inout Visitor
  ) -> Bool? {
    guard let old = old as! Wrapped?, var state = new as! Wrapped? else {
      return (old as! Wrapped?) == nil && (new as! Wrapped?) == nil
    }
    let identical = visitor.visit(old, adopting: &state)
    new = Optional(state) as! Value
    return identical
  }

  @usableFromInline
  static func _visitStates<Value, Visitor: _StateVisitor>(in value: Value, _ visitor: inout Visitor) {
    guard let value = value as? Wrapped?, let value else { return }
    visitor.visit(value)
  }

  @inlinable
  static func _stateToken<Value>(at value: UnsafePointer<Value>) -> _StateToken {
    guard let registrar = UnsafeRawPointer(value).assumingMemoryBound(to: Self.self).pointee?.registrar else {
      return .none
    }
    return _StateToken(
      registrar: Unmanaged.passUnretained(registrar.tracking).toOpaque(), id: registrar.id.rawValue,
      stamp: registrar.stamp)
  }

  @usableFromInline static func _captureTokens<Value>(of value: Value) -> Any? { nil }

  @usableFromInline
  static func _compareTokens<Value, Visitor: _StateVisitor>(
    of value: Value, since capture: Any, _ visitor: inout Visitor
  ) -> _TokenComparison { .unknown }
}

// MARK: Collections of states

/// The witnesses of the arrays of states (`Array`, `ContiguousArray`, `ArraySlice`); an identified
/// array has its own.
extension _StateContainer where Self: RandomAccessCollection, Element: ObservableState {
  @usableFromInline static var _stateContainerKind: _StateContainerKind { .collection }

  @usableFromInline
  static func _tokenValues<Value>(_ old: Value, _ new: Value) -> WriteValues? {
    (KeptValue(_elementTokens(old as! Self)), KeptValue(_elementTokens(new as! Self)))
  }

  @usableFromInline
  static func _holdsSameCopies<Value>(_ lhs: Value, _ rhs: Value) -> Bool { _sameCopies(lhs as! Self, rhs as! Self) }

  @usableFromInline static func _contentVersion<Value>(of value: Value) -> UInt64? { nil }

  @usableFromInline
  static func _visitStatePairs<Value, Visitor: _StatePairVisitor>(
    _ old: Value, _ new: Value, _ visitor: inout Visitor
  ) {
    guard let old = old as? Self, let new = new as? Self else { return }
    _visitPairsByIdentity(old, new, &visitor)
  }

  @usableFromInline
  static func _visitInlineState<Value, Visitor: _StatePairVisitor>(
    _ old: Value, adopting new: inout Value, _ visitor: inout Visitor
  ) -> Bool? { nil }

  @usableFromInline
  static func _visitStates<Value, Visitor: _StateVisitor>(in value: Value, _ visitor: inout Visitor) {
    guard let value = value as? Self else { return }
    for element in value { visitor.visit(element) }
  }

  @usableFromInline static func _stateToken<Value>(at value: UnsafePointer<Value>) -> _StateToken { .none }

  @usableFromInline static func _captureTokens<Value>(of value: Value) -> Any? { _elementTokens(value as! Self) }

  /// Same identities in the same order: the slot is unchanged, and elements whose stamps moved are
  /// handed to `visitor` (an array cannot tell an element edited through its accessors from one
  /// replaced by an edited copy; reconciling tells exactly the readers of what differs).
  @usableFromInline
  static func _compareTokens<Value, Visitor: _StateVisitor>(
    of value: Value, since capture: Any, _ visitor: inout Visitor
  ) -> _TokenComparison {
    let states = value as! Self
    guard let before = capture as? [_ContentToken] else { return .unknown }
    guard before.count == states.count,
      zip(before, states).allSatisfy({ $0.id == $1.registrar.id.rawValue })
    else {
      // The states that arrived (an older copy of a value coming back) bring their readers up to
      // date.
      let known = Set(before.lazy.map(\.id))
      for state in states where !known.contains(state.registrar.id.rawValue) {
        visitor.visit(state)
      }
      // Boxed as a setter boxes them (see `_changeValues`).
      return .otherIdentities((KeptValue(before), KeptValue(_elementTokens(states))))
    }
    var changed = false
    for (token, state) in zip(before, states) where token.stamp != state.registrar.stamp {
      changed = true
      visitor.visit(state)
    }
    return .sameIdentities(changed: changed)
  }
}

extension Array: _StateContainer where Element: ObservableState {}
extension ContiguousArray: _StateContainer where Element: ObservableState {}
extension ArraySlice: _StateContainer where Element: ObservableState {}

extension IdentifiedArray: _StateContainer where Element: ObservableState {
  @usableFromInline static var _stateContainerKind: _StateContainerKind { .collection }

  @usableFromInline static var _elementsAreDistinctStates: Bool { true }

  /// Boxed as itself (its versions decide what changed).
  @usableFromInline static func _tokenValues<Value>(_ old: Value, _ new: Value) -> WriteValues? { nil }

  @usableFromInline
  static func _holdsSameCopies<Value>(_ lhs: Value, _ rhs: Value) -> Bool { _sameCopies(lhs as! Self, rhs as! Self) }

  /// Known for any element (see `_IdentifiedArrayVersions`).
  @usableFromInline static func _contentVersion<Value>(of value: Value) -> UInt64? { nil }

  @usableFromInline
  static func _visitStatePairs<Value, Visitor: _StatePairVisitor>(
    _ old: Value, _ new: Value, _ visitor: inout Visitor
  ) {
    guard let old = old as? Self, let new = new as? Self, !old.isIdentical(to: new) else { return }
    if old.hasSameStructure(as: new) {
      for (oldElement, newElement) in zip(old, new) { visitor.visit(oldElement, newElement) }
    } else {
      for (position, newElement) in new.enumerated() {
        guard let oldElement = old[id: new.ids[position]] else {
          visitor.arrived(newElement)
          continue
        }
        visitor.visit(oldElement, newElement)
      }
    }
  }

  @usableFromInline
  static func _visitInlineState<Value, Visitor: _StatePairVisitor>(
    _ old: Value, adopting new: inout Value, _ visitor: inout Visitor
  ) -> Bool? { nil }

  @usableFromInline
  static func _visitStates<Value, Visitor: _StateVisitor>(in value: Value, _ visitor: inout Visitor) {
    guard let value = value as? Self else { return }
    for element in value { visitor.visit(element) }
  }

  @usableFromInline static func _stateToken<Value>(at value: UnsafePointer<Value>) -> _StateToken { .none }

  /// Its in-place strategy reads its versions instead (see `_IdentifiedArrayVersions`).
  @usableFromInline static func _captureTokens<Value>(of value: Value) -> Any? { nil }

  @usableFromInline
  static func _compareTokens<Value, Visitor: _StateVisitor>(
    of value: Value, since capture: Any, _ visitor: inout Visitor
  ) -> _TokenComparison { .unknown }
}

extension Dictionary: _StateContainer where Value: ObservableState {
  @usableFromInline static var _stateContainerKind: _StateContainerKind { .dictionary }

  @usableFromInline
  static func _tokenValues<Field>(_ old: Field, _ new: Field) -> WriteValues? {
    (KeptValue(_tokens(of: old as! Self)), KeptValue(_tokens(of: new as! Self)))
  }

  @usableFromInline
  static func _holdsSameCopies<Field>(_ lhs: Field, _ rhs: Field) -> Bool {
    let lhs = lhs as! Self
    let rhs = rhs as! Self
    return lhs.count == rhs.count
      && lhs.allSatisfy { key, value in
        guard let other = rhs[key] else { return false }
        return value.observableStateID == other.observableStateID && value.registrar.stamp == other.registrar.stamp
      }
  }

  @usableFromInline static func _contentVersion<Field>(of value: Field) -> UInt64? { nil }

  @usableFromInline
  static func _visitStatePairs<Field, Visitor: _StatePairVisitor>(
    _ old: Field, _ new: Field, _ visitor: inout Visitor
  ) {
    guard let old = old as? Self, let new = new as? Self else { return }
    for (key, newValue) in new {
      guard let oldValue = old[key] else {
        visitor.arrived(newValue)
        continue
      }
      visitor.visit(oldValue, newValue)
    }
  }

  @usableFromInline
  static func _visitInlineState<Field, Visitor: _StatePairVisitor>(
    _ old: Field, adopting new: inout Field, _ visitor: inout Visitor
  ) -> Bool? { nil }

  @usableFromInline
  static func _visitStates<Field, Visitor: _StateVisitor>(in value: Field, _ visitor: inout Visitor) {
    guard let value = value as? Self else { return }
    for (_, element) in value { visitor.visit(element) }
  }

  @usableFromInline static func _stateToken<Field>(at value: UnsafePointer<Field>) -> _StateToken { .none }

  @usableFromInline static func _captureTokens<Field>(of value: Field) -> Any? { _tokens(of: value as! Self) }

  @usableFromInline
  static func _compareTokens<Field, Visitor: _StateVisitor>(
    of value: Field, since capture: Any, _ visitor: inout Visitor
  ) -> _TokenComparison {
    let dictionary = value as! Self
    guard let before = capture as? [Key: _ContentToken] else { return .unknown }
    let sameIdentities =
      before.count == dictionary.count
      && before.allSatisfy { key, token in dictionary[key]?.registrar.id.rawValue == token.id }
    guard sameIdentities else {
      // The states that arrived (an older copy of a value coming back) bring their readers up to
      // date.
      for (key, element) in dictionary
      where before[key]?.id != element.registrar.id.rawValue {
        visitor.visit(element)
      }
      // Boxed as a setter boxes them (see `_changeValues`).
      return .otherIdentities((KeptValue(before), KeptValue(_tokens(of: dictionary))))
    }
    var changed = false
    for (key, element) in dictionary where before[key]?.stamp != element.registrar.stamp {
      changed = true
      visitor.visit(element)
    }
    return .sameIdentities(changed: changed)
  }

  /// The tokens of the states, by key.
  private static func _tokens(of dictionary: Self) -> [Key: _ContentToken] {
    dictionary.mapValues { _ContentToken(id: $0.observableStateID.rawValue, stamp: $0._instanceVersion) }
  }
}

// MARK: Helpers

/// The tokens of a collection's states, in order.
@usableFromInline
internal func _elementTokens<States: Collection>(_ states: States) -> [_ContentToken]
where States.Element: ObservableState {
  states.map { _ContentToken(id: $0.observableStateID.rawValue, stamp: $0._instanceVersion) }
}

/// Same count and pairwise the same identities and stamps.
private func _sameCopies<States: Collection>(_ lhs: States, _ rhs: States) -> Bool
where States.Element: ObservableState {
  lhs.count == rhs.count
    && zip(lhs, rhs).allSatisfy {
      $0.observableStateID == $1.observableStateID && $0.registrar.stamp == $1.registrar.stamp
    }
}

/// Pairwise by position when the ids line up, otherwise by identity.
private func _visitPairsByIdentity<States: Collection, Visitor: _StatePairVisitor>(
  _ old: States, _ new: States, _ visitor: inout Visitor
) where States.Element: ObservableState {
  if old.count == new.count && zip(old, new).allSatisfy({ $0.observableStateID == $1.observableStateID }) {
    for (oldElement, newElement) in zip(old, new) { visitor.visit(oldElement, newElement) }
    return
  }
  var byIdentity: [ObservableStateID: States.Element] = [:]
  for element in old { byIdentity[element.observableStateID] = element }
  for element in new {
    guard let previous = byIdentity[element.observableStateID] else {
      visitor.arrived(element)
      continue
    }
    visitor.visit(previous, element)
  }
}

// MARK: Identified arrays of any element

/// What an identified array keeps in O(1), whatever its elements: its versions.
@usableFromInline
internal protocol _IdentifiedArrayVersions {
  /// The version: changes with every change of the content.
  var _contentVersion: UInt64 { get }
  /// What the in-place strategy of identified arrays reads: `structural` changes exactly when the
  /// slot must notify (the structural version for elements that report their own changes, the
  /// version for any other element).
  static func _tokens<Value>(at value: UnsafePointer<Value>) -> (structural: UInt64, version: UInt64, count: Int)
}

extension IdentifiedArray: _IdentifiedArrayVersions {
  @usableFromInline var _contentVersion: UInt64 { version }

  @inlinable
  static func _tokens<Value>(at value: UnsafePointer<Value>) -> (structural: UInt64, version: UInt64, count: Int) {
    let array = UnsafeRawPointer(value).assumingMemoryBound(to: Self.self)
    let reportsOwnChanges = _TypeTraits.flags(of: Element.self) & _TypeTraits.observableState != 0
    return (
      reportsOwnChanges ? array.pointee.structuralVersion : array.pointee.version, array.pointee.version,
      array.pointee.count
    )
  }
}
