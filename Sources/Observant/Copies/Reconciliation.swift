/// Brings readers up to date after a value was replaced wholesale inside an in-place mutation,
/// where the value it replaced is gone: `self = saved` in a mutating method, an edited copy
/// assigned through an `inout` parameter, `state = snapshot` in a store's reducer.
///
/// Every dependency records the stamp of the field state it read. After the replacement, the
/// value's subtree holds the current stamps; a dependency of a registrar in the subtree whose stamp
/// is not the current one (in every place the subtree holds that value) read something that
/// changed, and hears about it. Dependencies that read what is still there stay quiet.
///
/// - Complexity: O(*n*) in the size of the subtree, plus the dependencies of its registrars.
internal struct Reconciliation {
  /// Per registrar found in the subtree: its table and the field stamps of each place it occurs.
  private var found: [ObjectIdentifier: (table: ObserverTable, occurrences: [Set<UInt64>])] = [:]
  private var depth = 0
  /// Walks of values nested deeper than `ContentDiff.maximumDepth`, left for after the current
  /// walk has unwound: the stack stays bounded however deep a recursive state is, and no registrar
  /// of the subtree is left out.
  private var deferred: [(inout Reconciliation) -> Void] = []
  /// Only looking for a registrar with observers (see `reconcileArrival`): nothing is collected.
  private var probing = false
  /// While probing: a registrar with observers was found (the walk stops).
  private var observed = false

  /// Reconciles the readers of `value`'s subtree.
  static func reconcile<Value>(_ value: Value) {
    var reconciliation = Reconciliation()
    reconciliation.collect(value)
    reconciliation.collectDeferred()
    reconciliation.deliver()
  }

  /// Runs the walks left for later, each from the top of the stack (while probing, until a
  /// registrar with observers is found).
  private mutating func collectDeferred() {
    while !observed, let next = deferred.popLast() { next(&self) }
  }

  /// Reconciles the readers of a value that arrived where another value (or none) was (an element
  /// inserted, a state stored over another identity, an older copy of a value coming back), if any
  /// state in its subtree has readers: those may have read newer states of its fields than it
  /// holds. A reader of a nested state only (a store scoped from a row store to the row's child)
  /// depends on the nested registrar alone, so the whole subtree is asked, not only the value's own
  /// registrar.
  ///
  /// - Complexity: O(1) when the value holds no state or its own registrar has readers; otherwise
  ///   a walk of its subtree that stops at the first state with readers.
  static func reconcileArrival<Value>(_ value: Value) {
    if isObserved({ $0.collect(value) }) { reconcile(value) }
  }

  /// `reconcileArrival(_:)` of a state, without asking what kind of value it is.
  static func reconcileArrival<State: ObservableState>(_ state: State) {
    if isObserved({ $0.collect(state: state) }) { reconcile(state) }
  }

  /// Whether a registrar with observers is found by `walk` (which stops at the first).
  private static func isObserved(_ walk: (inout Reconciliation) -> Void) -> Bool {
    var probe = Reconciliation()
    probe.probing = true
    walk(&probe)
    probe.collectDeferred()
    return probe.observed
  }

  /// Reconciles the readers of `value`'s subtree, which replaced the value stored at `address`
  /// (`size` bytes) inside an in-place mutation of live state: first, the writes of the current
  /// transaction made in that storage (see `WriteRecord.slot`) whose field the new value holds in
  /// the state its readers read are set back (an undo within the transaction that changed it).
  static func reconcile<Value>(_ value: Value, restoredAt address: UnsafeRawPointer, size: Int) {
    var reconciliation = Reconciliation()
    reconciliation.collect(value)
    reconciliation.collectDeferred()
    if InPlaceFrames.innermostIsAnchored, let context = TransactionContext.existing {
      let found = reconciliation.found
      context.noteRestored(in: address..<address + size) { table, stamp in
        guard let entry = found[ObjectIdentifier(table)] else { return false }
        return entry.occurrences.allSatisfy { $0.contains(stamp) }
      }
    }
    reconciliation.deliver()
  }

  mutating func collect<Value>(_ value: Value) {
    let flags = _TypeTraits.flags(of: Value.self)
    guard flags & _TypeTraits.mayHoldState != 0, !observed else { return }
    guard depth < ContentDiff.maximumDepth else {
      deferred.append { $0.collect(value) }
      return
    }
    depth += 1
    defer { depth -= 1 }
    if flags & _TypeTraits.observableState != 0, let type = Value.self as? any ObservableState.Type {
      collectOpened(type, value)
    } else if let container = Value.self as? any _StateContainer.Type {
      container._visitStates(in: value, &self)
    } else {
      var states: [any ObservableState] = []
      collectStates(in: value, into: &states)
      for state in states { collectExistential(state) }
    }
  }

  private mutating func collectOpened<State: ObservableState, Value>(_: State.Type, _ value: Value) {
    collect(state: value as! State)
  }

  private mutating func collectExistential(_ state: any ObservableState) {
    func open<State: ObservableState>(_ state: State) { collect(state: state) }
    open(state)
  }

  /// Collects one state value and everything it holds.
  mutating func collect<State: ObservableState>(state: State) {
    if probing {
      if state.registrar.tracking.hasObservers { observed = true }
      if observed { return }
    } else if let table = state.registrar.tracking.existingTable {
      let id = ObjectIdentifier(table)
      if found[id] == nil { found[id] = (table, []) }
      found[id]!.occurrences.append(Set(state._fieldStamps))
    }
    // Nothing below it to walk: no field holds state.
    guard _TypeTraits.flags(of: State.self) & _TypeTraits.holdsNestedState != 0 else { return }
    let layout = StateLayout.of(State.self)
    withUnsafeBytes(of: state) { bytes in
      for field in layout.fields { field.storage._collect(at: bytes.baseAddress! + field.offset, into: &self) }
    }
  }

  /// Notifies the dependencies whose stamp is not current everywhere their value occurs.
  ///
  /// A dependency whose field was written through its accessors in the current transaction is left
  /// to that write's record: the record already dirties it, and knows whether the field ends the
  /// transaction where it began (a second, after-the-fact notification would defeat that).
  func deliver() {
    var stale: [Dependency] = []
    let context = TransactionContext.existing
    for (_, entry) in found {
      for dependency in entry.table.allDependencies() {
        let seen = dependency.seen.load(ordering: .relaxed)
        guard seen != Stamp.none else { continue }  // not a value-type field read
        let alias = dependency.alias.load(ordering: .relaxed)
        let current =
          entry.occurrences.allSatisfy { $0.contains(seen) }
          || (alias != 0 && entry.occurrences.allSatisfy { $0.contains(alias) })
        if current { continue }
        if let context, isRecorded(seen, in: entry, context: context) { continue }
        stale.append(dependency)
      }
    }
    Notifications.deliverReplacement(stale)
  }

  /// Whether a write of the current transaction took a field from the state `seen` to a state every
  /// occurrence of the value now holds.
  private func isRecorded(
    _ seen: UInt64, in entry: (table: ObserverTable, occurrences: [Set<UInt64>]), context: TransactionContext
  ) -> Bool {
    guard let first = entry.occurrences.first else { return false }
    for stamp in first where context.originalSeen(table: entry.table, latestSeen: stamp) == seen {
      if entry.occurrences.allSatisfy({ $0.contains(stamp) }) {
        context.markReliedOn(table: entry.table, latestSeen: stamp)
        return true
      }
    }
    return false
  }
}

/// The states of a container are collected one by one (see `_StateContainer`).
extension Reconciliation: _StateVisitor {
  mutating func visit<State: ObservableState>(_ state: State) {
    collect(state: state)
  }
}
