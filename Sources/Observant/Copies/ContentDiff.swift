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
/// - Complexity: O(fields) per value whose stamps differ; identified arrays are matched by id in
///   O(*n*) when their versions differ, other collections of state pairwise or by identity.
internal struct ContentDiff {
  /// Per observer table, the stamps whose readers must hear.
  private var stale: [ObjectIdentifier: (table: ObserverTable, stamps: Set<UInt64>)] = [:]
  private var depth = 0

  /// Notifies the readers of what differs between `old` and `new`.
  static func notify<Value>(old: Value, new: Value) {
    var diff = ContentDiff()
    diff.compare(old, new)
    diff.deliver()
  }

  /// Compares two values that may hold observable state.
  mutating func compare<Value>(_ old: Value, _ new: Value) {
    let flags = _TypeTraits.flags(of: Value.self)
    guard flags & _TypeTraits.mayHoldState != 0, depth < 64 else { return }
    depth += 1
    defer { depth -= 1 }
    if flags & _TypeTraits.observableState != 0, let type = Value.self as? any ObservableState.Type {
      compareStates(type, old, new)
    } else if let container = Value.self as? any _StateContainer.Type {
      container._diffElements(old, new, into: &self)
    } else {
      compareReflected(old, new)
    }
  }

  private mutating func compareStates<State: ObservableState, Value>(_: State.Type, _ old: Value, _ new: Value) {
    compare(states: old as! State, new as! State)
  }

  /// Compares two copies of one state value, field by field.
  mutating func compare<State: ObservableState>(states old: State, _ new: State) {
    guard old.observableStateID == new.observableStateID, old.registrar.stamp != new.registrar.stamp else { return }
    let layout = StateLayout.of(State.self)
    let table = old.registrar.registrar.existingTable
    withUnsafeBytes(of: old) { oldBytes in
      withUnsafeBytes(of: new) { newBytes in
        for field in layout.fields {
          let oldAddress = oldBytes.baseAddress! + field.offset
          let newAddress = newBytes.baseAddress! + field.offset
          let oldStamp = field.storage._stamp(at: oldAddress)
          if let table, oldStamp != field.storage._stamp(at: newAddress) {
            markStale(table, oldStamp)
          }
          field.storage._diffContent(old: oldAddress, new: newAddress, into: &self)
        }
      }
    }
  }

  /// Values whose type is known only as "may hold state" (an enum with state payloads, say): the
  /// observable states inside, found by reflection, are compared pairwise by identity.
  private mutating func compareReflected<Value>(_ old: Value, _ new: Value) {
    var oldStates: [any ObservableState] = []
    var newStates: [any ObservableState] = []
    Self.collectStates(in: old, into: &oldStates, depth: 0)
    Self.collectStates(in: new, into: &newStates, depth: 0)
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

  static func collectStates(in value: Any, into states: inout [any ObservableState], depth: Int) {
    guard depth < 16 else { return }
    if let state = value as? any ObservableState {
      states.append(state)
      return
    }
    for child in Mirror(reflecting: value).children {
      collectStates(in: child.value, into: &states, depth: depth + 1)
    }
  }

  private mutating func markStale(_ table: ObserverTable, _ stamp: UInt64) {
    let id = ObjectIdentifier(table)
    if stale[id] == nil { stale[id] = (table, []) }
    stale[id]!.stamps.insert(stamp)
  }

  /// Notifies every dependency that read a stale stamp.
  func deliver() {
    guard !stale.isEmpty else { return }
    var dependencies: [Dependency] = []
    for (_, entry) in stale {
      for dependency in entry.table.allDependencies()
      where entry.stamps.contains(dependency.seen.load(ordering: .relaxed)) {
        dependencies.append(dependency)
      }
    }
    Notifications.deliverReplacement(dependencies)
  }
}

/// Containers of observable state the content diff and the reconciliation know how to enter.
internal protocol _StateContainer {
  static func _diffElements<Value>(_ old: Value, _ new: Value, into diff: inout ContentDiff)
  static func _collectElements<Value>(_ value: Value, into reconciliation: inout Reconciliation)
}

extension Optional: _StateContainer where Wrapped: ObservableState {
  static func _diffElements<Value>(_ old: Value, _ new: Value, into diff: inout ContentDiff) {
    guard let old = old as? Wrapped?, let new = new as? Wrapped?, let old, let new else { return }
    diff.compare(states: old, new)
  }

  static func _collectElements<Value>(_ value: Value, into reconciliation: inout Reconciliation) {
    guard let value = value as? Wrapped?, let value else { return }
    reconciliation.collect(state: value)
  }
}

extension IdentifiedArray: _StateContainer where Element: ObservableState {
  static func _diffElements<Value>(_ old: Value, _ new: Value, into diff: inout ContentDiff) {
    guard let old = old as? Self, let new = new as? Self, !old.isIdentical(to: new) else { return }
    if old.hasSameStructure(as: new) {
      for (oldElement, newElement) in zip(old, new) { diff.compare(states: oldElement, newElement) }
    } else {
      for (position, newElement) in new.enumerated() {
        guard let oldElement = old[id: new.ids[position]] else { continue }
        diff.compare(states: oldElement, newElement)
      }
    }
  }

  static func _collectElements<Value>(_ value: Value, into reconciliation: inout Reconciliation) {
    guard let value = value as? Self else { return }
    for element in value { reconciliation.collect(state: element) }
  }
}

extension Array: _StateContainer where Element: ObservableState {
  static func _diffElements<Value>(_ old: Value, _ new: Value, into diff: inout ContentDiff) {
    guard let old = old as? Self, let new = new as? Self else { return }
    diffByIdentity(old, new, into: &diff)
  }

  static func _collectElements<Value>(_ value: Value, into reconciliation: inout Reconciliation) {
    guard let value = value as? Self else { return }
    for element in value { reconciliation.collect(state: element) }
  }
}

extension ContiguousArray: _StateContainer where Element: ObservableState {
  static func _diffElements<Value>(_ old: Value, _ new: Value, into diff: inout ContentDiff) {
    guard let old = old as? Self, let new = new as? Self else { return }
    diffByIdentity(old, new, into: &diff)
  }

  static func _collectElements<Value>(_ value: Value, into reconciliation: inout Reconciliation) {
    guard let value = value as? Self else { return }
    for element in value { reconciliation.collect(state: element) }
  }
}

extension ArraySlice: _StateContainer where Element: ObservableState {
  static func _diffElements<Value>(_ old: Value, _ new: Value, into diff: inout ContentDiff) {
    guard let old = old as? Self, let new = new as? Self else { return }
    diffByIdentity(old, new, into: &diff)
  }

  static func _collectElements<Value>(_ value: Value, into reconciliation: inout Reconciliation) {
    guard let value = value as? Self else { return }
    for element in value { reconciliation.collect(state: element) }
  }
}

extension Dictionary: _StateContainer where Value: ObservableState {
  static func _diffElements<Field>(_ old: Field, _ new: Field, into diff: inout ContentDiff) {
    guard let old = old as? Self, let new = new as? Self else { return }
    for (key, newValue) in new {
      guard let oldValue = old[key] else { continue }
      diff.compare(states: oldValue, newValue)
    }
  }

  static func _collectElements<Field>(_ value: Field, into reconciliation: inout Reconciliation) {
    guard let value = value as? Self else { return }
    for (_, element) in value { reconciliation.collect(state: element) }
  }
}

/// Pairwise by position when the ids line up, otherwise by identity.
private func diffByIdentity<States: Collection>(_ old: States, _ new: States, into diff: inout ContentDiff)
where States.Element: ObservableState {
  if old.count == new.count && zip(old, new).allSatisfy({ $0.observableStateID == $1.observableStateID }) {
    for (oldElement, newElement) in zip(old, new) { diff.compare(states: oldElement, newElement) }
    return
  }
  var byIdentity: [ObservableStateID: States.Element] = [:]
  for element in old { byIdentity[element.observableStateID] = element }
  for element in new {
    guard let previous = byIdentity[element.observableStateID] else { continue }
    diff.compare(states: previous, element)
  }
}
