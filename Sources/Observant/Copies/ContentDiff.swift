/// Notifies the readers of what differs between two copies of the same value (same identity), after
/// an edited copy was assigned over the value it was copied from: a draft saved, an undo snapshot
/// restored, a copy mutated and assigned back.
///
/// The copies share their registrars, so identity alone cannot tell that anything changed; stamps
/// can. For each field whose stamp differs, the dependencies that read the old state of the field
/// are notified. Fields that hold observable state are compared inside, whatever their own stamps,
/// so that readers of nested fields hear nested differences; values with equal stamps are
/// identical and are not entered.
///
/// When the new value is stored inline where the diff can reach it (the value itself and the child
/// states stored in its fields, not the elements of collections), a field whose content equals the
/// old one takes the old one's stamp back instead of notifying: a copy that was changed and changed
/// back, or a snapshot whose field is equal to the current one, disturbs nobody.
///
/// - Complexity: O(fields) per value whose stamps differ; identified arrays are matched by id in
///   O(*n*) when their versions differ, other collections of state pairwise or by identity.
internal struct ContentDiff {
  /// The assignment is to live state (see `WriteRecord.isLive`).
  private let live: Bool
  private var depth = 0
  /// Comparisons of values nested deeper than `maximumDepth`, left for after the current walk has
  /// unwound (each starts a walk of its own): the stack stays bounded however deep a recursive
  /// state (a folder tree) is, and readers of its deepest fields still hear their changes.
  private var deferred: [(inout ContentDiff) -> Void] = []
  /// How deep one walk goes before it leaves the rest for later.
  static var maximumDepth: Int { 64 }
  /// Where the value the next `compare(states:adopting:)` compares will be stored, when known:
  /// the writes found for its fields are recorded as made there (see `WriteRecord.slot`).
  private var pendingPlace: UnsafeRawPointer?
  /// The place (see `_WritePlace`) of the value the next comparison of two states compares, 0 if
  /// not known.
  private var pendingWritePlace: UInt64 = 0
  /// The place of the value whose fields are being compared: the place of the writes found.
  private var currentWritePlace: UInt64 = 0
  /// The place of the container whose states are being visited: an optional's (its payload is
  /// where it is), or a container's whose elements are distinct states (see
  /// `_StateContainer._elementsAreDistinctStates`); otherwise 0.
  private var currentContainerPlace: UInt64 = 0
  /// The states being visited are elements named by their identity in the container.
  private var containerNamesElements = false

  private init(live: Bool) {
    self.live = live
  }

  /// Notifies the readers of what differs between `old` and `new` (neither can be updated).
  static func notify<Value>(old: Value, new: Value, live: Bool) {
    TransactionContext.current.begin()
    defer { TransactionContext.current.end() }
    var diff = ContentDiff(live: live)
    diff.compare(old, new)
    diff.compareDeferred()
  }

  /// Notifies the readers of what differs between `old` and `new`, and gives the fields of `new`
  /// whose content equals `old`'s the old stamps (see the type's documentation). `new` is about to
  /// be stored over `old`.
  ///
  /// - Parameters:
  ///   - storedAt: the address `new` is about to be stored at, if known.
  ///   - writePlace: the place of that storage (see `_WritePlace`), 0 if not known.
  static func apply<Value>(
    old: Value, new: inout Value, live: Bool, storedAt place: UnsafeRawPointer? = nil, writePlace: UInt64 = 0
  ) {
    TransactionContext.current.begin()
    defer { TransactionContext.current.end() }
    var diff = ContentDiff(live: live)
    diff.pendingPlace = live ? place : nil
    diff.pendingWritePlace = live ? writePlace : 0
    diff.compare(old, adopting: &new)
    diff.compareDeferred()
  }

  /// Runs the comparisons left for later, each from the top of the stack, where nothing is known
  /// of the place of the values compared (their writes are recorded without one).
  private mutating func compareDeferred() {
    while let next = deferred.popLast() {
      pendingPlace = nil
      pendingWritePlace = 0
      currentWritePlace = 0
      currentContainerPlace = 0
      containerNamesElements = false
      next(&self)
    }
  }

  /// The place of the field stored `offset` bytes into a value of this layout at `place`.
  private static func fieldPlace(_ place: UInt64, _ layout: StateLayout, offset: Int) -> UInt64 {
    guard let registrarOffset = layout.registrarOffset else { return 0 }
    return _WritePlace.field(of: place, offset: offset - registrarOffset)
  }

  /// Compares, adopting old stamps where `new` is reachable inline. Returns whether `new` is now
  /// identical to `old` (same stamps all the way down).
  @discardableResult
  mutating func compare<Value>(_ old: Value, adopting new: inout Value) -> Bool {
    let flags = _TypeTraits.flags(of: Value.self)
    guard flags & _TypeTraits.mayHoldState != 0 else { return false }
    guard depth < Self.maximumDepth else {
      // Too deep to go on here: compared later without adopting stamps (at worst its readers run
      // once more than needed; none is left out).
      let new = new
      deferred.append { $0.compare(old, new) }
      return false
    }
    if flags & _TypeTraits.observableState != 0, let type = Value.self as? any ObservableState.Type {
      return compareStates(type, old, adopting: &new)
    }
    if flags & _TypeTraits.optionalState != 0, let container = Value.self as? any _StateContainer.Type,
      let identical = container._visitInlineState(old, adopting: &new, &self)
    {
      return identical
    }
    compare(old, new)
    return _contentStamp(of: old).map { $0 == _contentStamp(of: new) } ?? false
  }

  private mutating func compareStates<State: ObservableState, Value>(
    _: State.Type, _ old: Value, adopting new: inout Value
  ) -> Bool {
    var state = new as! State
    let identical = compare(states: old as! State, adopting: &state)
    new = state as! Value
    return identical
  }

  /// Compares two copies of one state value field by field, adopting old stamps into `new`.
  @discardableResult
  mutating func compare<State: ObservableState>(states old: State, adopting new: inout State) -> Bool {
    let place = pendingPlace
    pendingPlace = nil
    let writePlace = pendingWritePlace
    pendingWritePlace = 0
    guard old.observableStateID == new.observableStateID else { return false }
    guard old.registrar.stamp != new.registrar.stamp else { return true }
    depth += 1
    let outerWritePlace = currentWritePlace
    currentWritePlace = writePlace
    defer {
      depth -= 1
      currentWritePlace = outerWritePlace
    }
    let layout = StateLayout.of(State.self)
    let table = old.registrar.tracking.existingTable
    var identical = true
    // The writes found for this value's fields are made where it will be stored.
    if let place {
      InPlaceFrames.beginPlace(
        of: Unmanaged.passUnretained(old.registrar.tracking).toOpaque(), at: place, place: writePlace)
    }
    withUnsafeBytes(of: old) { oldBytes in
      withUnsafeMutableBytes(of: &new) { newBytes in
        for field in layout.fields {
          // A state stored inline in this field is stored at the field's offset (a field's value
          // is the first thing in its storage).
          pendingPlace = place.map { $0 + field.offset }
          pendingWritePlace = Self.fieldPlace(writePlace, layout, offset: field.offset)
          let adopted = field.storage._adopt(
            old: oldBytes.baseAddress! + field.offset, new: newBytes.baseAddress! + field.offset, table: table,
            into: &self)
          pendingPlace = nil
          pendingWritePlace = 0
          if !adopted { identical = false }
        }
      }
    }
    if place != nil { InPlaceFrames.endPlace() }
    // Identical all the way down: the value is the old one again, stamp included. Otherwise its
    // content (fields adopted from `old`, fields that changed with stamps of their own) is what no
    // other copy holds, so it needs a stamp of its own: keeping the one it was copied with (a
    // draft's, say) would make a later comparison with that copy take them for identical, and
    // skip the fields whose stamps differ (readers of the live value would miss their writes).
    new.registrar.stamp = identical ? old.registrar.stamp : Stamp.next()
    return identical
  }

  /// Compares two values that may hold observable state, neither of which can be updated (the
  /// elements of a collection).
  mutating func compare<Value>(_ old: Value, _ new: Value) {
    let flags = _TypeTraits.flags(of: Value.self)
    guard flags & _TypeTraits.mayHoldState != 0 else { return }
    guard depth < Self.maximumDepth else {
      deferred.append { $0.compare(old, new) }
      return
    }
    depth += 1
    defer { depth -= 1 }
    if flags & _TypeTraits.observableState != 0, let type = Value.self as? any ObservableState.Type {
      compareStates(type, old, new)
    } else if let container = Value.self as? any _StateContainer.Type {
      // The elements' places, where the container can name them (see `_WritePlace`).
      let outer = (currentContainerPlace, containerNamesElements)
      let isOptional = container._stateContainerKind == .optional
      currentContainerPlace = isOptional || container._elementsAreDistinctStates ? pendingWritePlace : 0
      containerNamesElements = !isOptional
      pendingWritePlace = 0
      container._visitStatePairs(old, new, &self)
      (currentContainerPlace, containerNamesElements) = outer
    } else {
      pendingWritePlace = 0
      compareReflected(old, new)
    }
  }

  private mutating func compareStates<State: ObservableState, Value>(_: State.Type, _ old: Value, _ new: Value) {
    compare(states: old as! State, new as! State)
  }

  /// Compares two copies of one state value, field by field (no stamps adopted).
  mutating func compare<State: ObservableState>(states old: State, _ new: State) {
    let writePlace = pendingWritePlace
    pendingWritePlace = 0
    guard old.observableStateID == new.observableStateID, old.registrar.stamp != new.registrar.stamp else { return }
    var copy = new
    let layout = StateLayout.of(State.self)
    let table = old.registrar.tracking.existingTable
    let outerWritePlace = currentWritePlace
    currentWritePlace = writePlace
    defer { currentWritePlace = outerWritePlace }
    withUnsafeBytes(of: old) { oldBytes in
      withUnsafeMutableBytes(of: &copy) { newBytes in
        for field in layout.fields {
          pendingWritePlace = Self.fieldPlace(writePlace, layout, offset: field.offset)
          field.storage._adopt(
            old: oldBytes.baseAddress! + field.offset, new: newBytes.baseAddress! + field.offset, table: table,
            fixed: true, into: &self)
          pendingWritePlace = 0
        }
      }
    }
  }

  /// Values whose type is known only as "may hold state" (an enum with state payloads, say): the
  /// observable states inside, found by reflection, are compared pairwise by identity.
  private mutating func compareReflected<Value>(_ old: Value, _ new: Value) {
    var oldStates: [any ObservableState] = []
    var newStates: [any ObservableState] = []
    collectStates(in: old, into: &oldStates)
    collectStates(in: new, into: &newStates)
    guard !oldStates.isEmpty, !newStates.isEmpty else { return }
    var byIdentity: [ObservableStateID: any ObservableState] = [:]
    for state in oldStates { byIdentity[state.observableStateID] = state }
    for state in newStates {
      guard let previous = byIdentity[state.observableStateID] else { continue }
      compareOpened(previous, state)
    }
  }

  private mutating func compareOpened(_ old: any ObservableState, _ new: any ObservableState) {
    func open<State: ObservableState>(_ old: State) {
      guard let new = new as? State else { return }
      compare(states: old, new)
    }
    open(old)
  }

  /// A field of `table` changed from the state `old` to the state `new`: its readers hear it as a
  /// write (so that a transaction sees it set back, too). `new` becomes the stamp the field should
  /// carry, unless it is `fixed` (stored where the diff cannot update it).
  mutating func fieldChanged(
    _ table: ObserverTable?, from old: UInt64, to new: inout UInt64, fixed: Bool, values: () -> WriteValues?
  ) {
    guard let table else { return }
    // The new state's stamp is an old one, which other copies may carry too. A transaction
    // follows one storage through the stamps it writes; to keep following this one, it gets a
    // stamp of its own, unless it goes back to the very state the field's readers read (a set-back,
    // which any copy at that stamp shares). Where the stamp cannot be changed, the write is not
    // trusted as a set-back.
    let backToOriginal = TransactionContext.existing?.originalSeen(table: table, latestSeen: old) == new
    var proposed = new
    var live = self.live
    if !backToOriginal {
      if fixed { live = false } else { proposed = Stamp.next() }
    }
    var dependencies = table.dependencies(overwritingAnyField: old)
    let name = Self.name(of: dependencies)
    let (seen, opened) = Notifications.deliver(
      &dependencies, table: table, key: .unresolved, name: name, from: old, to: proposed,
      isLive: live, canRestoreStamp: !fixed, place: currentWritePlace, values: values)
    if !fixed { new = seen }
    // The diff runs inside a transaction of its own (see `apply`): the level the write opened
    // closes at once, without flushing.
    if opened { TransactionContext.current.end() }
  }

  /// A field of `table` now carries the state `new`, equal to the state `old` its readers read:
  /// they take `new` as an alias instead of running (those that already have one are notified).
  mutating func fieldAliased(_ table: ObserverTable?, from old: UInt64, to new: UInt64) {
    guard let table else { return }
    Notifications.deliverReplacement(table.alias(old, as: new))
  }

  /// The name of the field whose readers are `dependencies` (they read one state, so one field),
  /// with its text: the write is delivered without a key (the diff does not know which field of
  /// the value it found), and a run cause or a diagnostic names the field by the name alone.
  private static func name(of dependencies: DependencySnapshot) -> FieldName {
    var found: (name: FieldName, key: FieldKey)?
    dependencies.forEach { dependency in
      if found == nil { found = (dependency.name, dependency.key) }
    }
    guard let (name, key) = found else { return FieldName.custom("?", owner: "?") }
    guard case .field(let owner) = name else { return name }
    return .keyed(KeyedFieldName(owner: owner, key: key))
  }
}

/// The states of a container are compared pair by pair (see `_StateContainer`).
extension ContentDiff: _StatePairVisitor {
  mutating func arrived<State: ObservableState>(_ new: State) {
    // An older copy of a value coming back: its readers may have read newer states.
    Reconciliation.reconcileArrival(new)
  }

  mutating func visit<State: ObservableState>(_ old: State, _ new: State) {
    guard old.observableStateID == new.observableStateID else { return arrived(new) }
    // An optional's payload is where the optional is; an element of a container of distinct
    // states is named by its identity in it.
    pendingWritePlace =
      containerNamesElements
      ? _WritePlace.element(of: currentContainerPlace, identity: old.registrar.id.rawValue) : currentContainerPlace
    compare(states: old, new)
  }

  mutating func visit<State: ObservableState>(_ old: State, adopting new: inout State) -> Bool {
    compare(states: old, adopting: &new)
  }
}
