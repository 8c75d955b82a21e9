import Synchronization

/// The bridge's observer of one state of one field: it is linked like any Observant observer, so
/// Observant's own change detection (equal writes, identity rules, copies, a transaction that sets
/// a field back) decides when the external system hears of a change; and it holds that system's
/// handle for the state, to which every read of it outside Observant's scopes is reported.
///
/// A watcher runs as a scheduled observer, like a reaction: when the transaction that changed its
/// field ends, on the writing thread. So the external system hears a change after the value
/// changed, once per transaction, and not at all for a field set and set back.
///
/// What a watcher watches, and how long it lives:
///
/// - `state`: one state of a value-type field (or one version of a derived value). Copies of a
///   value share a state until one of them changes it: the watcher hears the first write that
///   replaces the state, from whichever copy, and reports it. So a write to a draft disturbs the
///   readers of the live value at most once, as it does Observant's own readers. A read of the new
///   state makes a new watcher.
/// - `field`: a field without states (a class's stored property, a runtime field): one watcher
///   per field, reporting every change until the object goes away. A value-type field with more
///   than `maximumStatesPerField` states watched at once gets one too, for its further reads:
///   it hears every write of the field, so entries stay bounded and nothing is missed.
/// - `afterWrite`: a field without states read inside a transaction that already wrote it: the
///   reader saw an intermediate value, so it must hear the transaction even if it ends where it
///   began.
///
/// **Retired watchers.** Once a `state` or `afterWrite` watcher has reported, new reads never use
/// it. But an external observer may still come to depend on it: Apple's `withObservationTracking`
/// installs its observers after its closure returns, so a scope that read the state just before
/// the write installs on the retired watcher's handle just after. So a retired watcher stays
/// linked and reports every later write of its field (from any copy), until the external system
/// no longer holds the handle's keeper (for Apple's: the key path, in access lists and installed
/// observations), which the watcher then holds only weakly. When that reference is gone, the
/// watcher unlinks itself at its next report or at the next read of the field, and lets go of the
/// handle. The keeper does not reach the handle, so an observation the external system never
/// lets go of (see `ExternalObservationSystem.makeField()`) keeps the watcher and its handle only
/// as long as the object.
///
/// Watchers are found through the field's list in the object's observer table (no other index),
/// and go away with the object: its registrar's `deinit` reports a last change and releases them.
internal final class BridgeWatcher: ScheduledObserver, @unchecked Sendable {
  enum Kind {
    case state, field, afterWrite
  }

  /// How many states of one value-type field are watched separately before further reads share
  /// one watcher of the whole field.
  static var maximumStatesPerField: Int { 8 }

  let kind: Kind
  /// The state read (`Stamp.none` for a `field` watcher).
  let seen: UInt64

  private struct State {
    /// The edge in the field's list. Held strongly, and it holds the watcher: the pair stays
    /// installed until the watcher lets go (its keeper gone, or its object).
    var dependency: Dependency?
    /// The external handle, held until the watcher lets go.
    var field: (any ExternalObservedField)?
    /// What the external system's observers hold (see `ExternalObservationSystem`): held here
    /// while the state can be read again (cleared when retired).
    var keeper: (any AnyObject & Sendable)?
    /// The keeper once retired: alive only while the external system holds it.
    weak var retiredKeeper: (any AnyObject & Sendable)?
    var isRetired = false
  }

  private let state: Mutex<State>

  private init(kind: Kind, seen: UInt64, field: any ExternalObservedField, keeper: any AnyObject & Sendable) {
    self.kind = kind
    self.seen = seen
    state = Mutex(State(field: field, keeper: keeper))
    super.init()
  }

  override var diagnosticName: String { "Observation bridge" }

  /// The handle for a read, unless the watcher is retired.
  private var fieldForReads: (any ExternalObservedField)? { state.withLock { $0.isRetired ? nil : $0.field } }

  // MARK: Reads

  /// Reports a read of `key` (resolved) in the state `seen` to the external system, installing a
  /// watcher for it if none is installed yet.
  static func reportRead(
    _ registrar: TrackingRegistrar, _ key: FieldKey, _ name: FieldName, seen: UInt64,
    to system: any ExternalObservationSystem
  ) {
    guard key.isResolved else { return }
    reportRead(in: registrar.table, key, name, seen: seen, to: system)
  }

  /// `reportRead(_:_:_:seen:to:)` of a field of the object whose observer table is `table`, `key`
  /// resolved (a read a tracking scope recorded, handed on; see `withScopeRecorder`).
  static func reportRead(
    in table: ObserverTable, _ key: FieldKey, _ name: FieldName, seen: UInt64,
    to system: any ExternalObservationSystem
  ) {
    let resolved = key
    var kind = Kind.state
    if seen == Stamp.none {
      kind = .field
      if let context = TransactionContext.existing, context.isInTransaction,
        context.hasRecord(table: table, key: resolved, latestSeen: Stamp.none)
      {
        kind = .afterWrite
      }
    }
    var found: (any ExternalObservedField)?
    if kind != .afterWrite {
      var exact: (any ExternalObservedField)?
      var wholeField: (any ExternalObservedField)?
      var statesWatched = 0
      var gone: [Dependency] = []
      var existing = table.dependencies(of: resolved, overwriting: Stamp.none)
      existing.forEach { dependency in
        guard let observer = dependency.observer,
          ObjectIdentifier(type(of: observer)) == ObjectIdentifier(BridgeWatcher.self)
        else { return }
        let watcher = unsafeDowncast(observer, to: BridgeWatcher.self)
        guard let field = watcher.fieldForReads else {
          if watcher.releaseIfUnobserved() { gone.append(dependency) }
          return
        }
        if watcher.kind == .state { statesWatched += 1 }
        if watcher.kind == kind && watcher.seen == seen { exact = field }
        if watcher.kind == .field { wholeField = field }
      }
      existing.recycle()
      if !gone.isEmpty { table.unlink(gone) }
      found = exact ?? (kind == .state ? wholeField : nil)
      if found == nil && kind == .state && statesWatched >= maximumStatesPerField { kind = .field }
    }
    let field =
      found
      ?? install(
        kind, seen: kind == .field ? Stamp.none : seen, table: table, key: resolved, name: name, system: system)
    field?.reportAccess()
  }

  /// Makes and links a watcher; returns its handle, or `nil` if the object is gone.
  private static func install(
    _ kind: Kind, seen: UInt64, table: ObserverTable, key: FieldKey, name: FieldName,
    system: any ExternalObservationSystem
  ) -> (any ExternalObservedField)? {
    let (field, keeper) = system.makeField()
    let watcher = BridgeWatcher(kind: kind, seen: seen, field: field, keeper: keeper)
    let dependency = Dependency(table: table, key: key, name: name, seen: seen, generation: 0, guardedBy: nil)
    dependency.observer = watcher
    watcher.state.withLock { $0.dependency = dependency }
    // Before linking: a write that finds the watcher takes its order stamp later, so the flush
    // does not take the watcher for one that already saw it. A `state` or `afterWrite` watcher
    // counts as having read now, so a field set back after this read still reaches it (it read
    // the value in between); a `field` watcher keeps 0 and hears every change.
    if kind != .field { watcher.markRunStarted() }
    // Another thread may have installed the same watcher since this one looked: use it (one
    // watcher per state or field, however many threads read it at once). An `afterWrite` watcher
    // is each reader's own.
    var existingField: (any ExternalObservedField)?
    let result = table.link(dependency) { candidate in
      guard kind != .afterWrite else { return false }
      existingField = candidate.observer.flatMap { watcher.equivalentField(in: $0) }
      return existingField != nil
    }
    switch result {
    case .linked:
      return field
    case .found:
      watcher.state.withLock { $0 = State() }
      return existingField
    case .ownerGone:
      watcher.state.withLock { $0 = State() }
      return nil
    }
  }

  /// The handle of `observer` if it is a watcher of the same kind and state as this one, still
  /// taking reads.
  private func equivalentField(in observer: Observer) -> (any ExternalObservedField)? {
    guard ObjectIdentifier(type(of: observer)) == ObjectIdentifier(BridgeWatcher.self) else { return nil }
    let other = unsafeDowncast(observer, to: BridgeWatcher.self)
    guard other !== self, other.kind == kind, other.seen == seen else { return nil }
    return other.fieldForReads
  }

  // MARK: Changes

  override func runScheduled(in context: TransactionContext, onlyIfInputsChanged: Bool) {
    let (dependency, isRetired) = state.withLock { ($0.dependency, $0.isRetired) }
    guard let dependency else { return }
    if onlyIfInputsChanged && !isRetired {
      // A derived value read may have changed: only a new version is a change.
      guard let source = dependency.table.computedSource, source.refreshedVersion() != seen else { return }
    }
    reportChange(retiring: dependency)
    // Retired, and the external system let go of its handle (its one-shot observers cancel
    // themselves as they are told): nothing can hear this watcher any more.
    if kind != .field && releaseIfUnobserved() { dependency.table.unlink(CollectionOfOne(dependency)) }
  }

  /// Reports the change through the handle; a `state` or `afterWrite` watcher retires (from now
  /// on it hears every write of the field, for observers that installed on its handle after this
  /// report; see the type's documentation). Holds the handle only for the call.
  private func reportChange(retiring dependency: Dependency) {
    let field: (any ExternalObservedField)? = state.withLock { state in
      if state.isRetired { return state.retiredKeeper == nil ? nil : state.field }
      let field = state.field
      if kind != .field {
        state.isRetired = true
        state.retiredKeeper = state.keeper
        state.keeper = nil
        dependency.seen.store(Stamp.none, ordering: .relaxed)
      }
      return field
    }
    field?.reportChange()
  }

  /// For a retired watcher whose keeper the external system let go of: lets go of its edge and
  /// its handle, once (the caller unlinks the edge). `false` otherwise.
  private func releaseIfUnobserved() -> Bool {
    // The handle is taken out and released after the lock (its deinit ends an Apple registrar,
    // which may call back into user code).
    let (released, _) = state.withLock { state -> (Bool, (any ExternalObservedField)?) in
      guard state.isRetired, state.retiredKeeper == nil, state.dependency != nil else { return (false, nil) }
      state.dependency = nil
      return (true, state.field.take())
    }
    return released
  }

  /// The object went away: its readers hear it once more (as Apple's registrar tells its
  /// observers when its object goes away), and the watcher lets go of everything.
  ///
  /// Inside a transaction, when it ends, like any change: the last copy of a state goes away while
  /// a write replaces it (inside a setter, a dictionary's subscript, a store's reducer), before the
  /// new value is stored, and an observer that reads the state when told must find the new value
  /// (and may not read a store while its reducer runs, or a dictionary while it is being written).
  override func registrarDidDeinit() {
    // Not recorded as a write: the deinit may run inside the write records' own bookkeeping (the
    // flush releasing the values it kept), which must not be entered.
    TransactionContext.runOutsideTransaction { [self] in reportObjectGone() }
  }

  /// The last report for an object gone, and the watcher lets go of everything.
  private func reportObjectGone() {
    // What the watcher held is released after the lock (the handle's deinit ends an Apple
    // registrar, which may call back into user code).
    var held = State()
    state.withLock { swap(&$0, &held) }
    if !held.isRetired || held.retiredKeeper != nil { held.field?.reportChange() }
  }
}
