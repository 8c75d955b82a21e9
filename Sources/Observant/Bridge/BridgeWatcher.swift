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
///   replaces the state, from whichever copy, reports it, and is dropped (the state is gone; a
///   read of the new state makes a new watcher). So a write to a draft disturbs readers of the
///   live value at most once, as it does Observant's own readers.
/// - `field`: a field without states (a class's stored property, a runtime field): one watcher
///   per field, reporting every change until the object goes away. A value-type field with more
///   than `maximumStatesPerField` states watched at once gets one too, for its further reads:
///   it hears every write of the field, so entries stay bounded and nothing is missed.
/// - `afterWrite`: a field without states read inside a transaction that already wrote it: the
///   reader saw an intermediate value, so it must hear the transaction even if it ends where it
///   began. Dropped after its first report.
///
/// Watchers are found through the field's list in the object's observer table (no other index),
/// and go away with the object: its registrar's `deinit` reports a last change and releases them.
internal final class BridgeWatcher: ScheduledObserver, @unchecked Sendable {
  enum Kind {
    case state, field, afterWrite

    /// Dropped after its first report.
    var isOneShot: Bool { self != .field }
  }

  /// How many states of one value-type field are watched separately before further reads share
  /// one watcher of the whole field.
  static var maximumStatesPerField: Int { 8 }

  let kind: Kind
  /// The state read (`Stamp.none` for a `field` watcher).
  let seen: UInt64
  let external: any ExternalObservedField

  private struct State {
    /// The edge in the field's list. Held strongly, and it holds the watcher: the pair stays
    /// installed until the watcher lets go (spent, or its object gone).
    var dependency: Dependency?
    var isSpent = false
  }

  private let state = Mutex(State())

  private init(kind: Kind, seen: UInt64, external: any ExternalObservedField) {
    self.kind = kind
    self.seen = seen
    self.external = external
    super.init()
  }

  override var diagnosticName: String { "Observation bridge" }

  var isSpent: Bool { state.withLock { $0.isSpent } }

  // MARK: Reads

  /// Reports a read of `key` in the state `seen` to the external system, installing a watcher
  /// for it if none is installed yet.
  static func reportRead(_ registrar: TrackingRegistrar, _ key: FieldKey, _ name: FieldName, seen: UInt64) {
    guard let system = ExternalObservation.systemForReadsHere else { return }
    let resolved = key.isResolved ? key : resolve(name)
    guard resolved.isResolved else { return }
    let table = registrar.table
    var kind = Kind.state
    if seen == Stamp.none {
      kind = .field
      if let context = TransactionContext.existing, context.isInTransaction,
        context.hasRecord(table: table, key: resolved, latestSeen: Stamp.none)
      {
        kind = .afterWrite
      }
    }
    var watcher: BridgeWatcher?
    var statesWatched = 0
    if kind != .afterWrite {
      var existing = table.dependencies(of: resolved, overwriting: Stamp.none)
      existing.forEach { dependency in
        guard watcher == nil, let observer = dependency.observer,
          ObjectIdentifier(type(of: observer)) == ObjectIdentifier(BridgeWatcher.self)
        else { return }
        let candidate = unsafeDowncast(observer, to: BridgeWatcher.self)
        if candidate.kind == .state { statesWatched += 1 }
        if candidate.kind == kind && candidate.seen == seen && !candidate.isSpent { watcher = candidate }
        if kind == .state && candidate.kind == .field && watcher == nil { watcher = candidate }
      }
      existing.recycle()
      if watcher == nil && kind == .state && statesWatched >= maximumStatesPerField { kind = .field }
    }
    let made = watcher == nil
    let reported =
      watcher ?? install(kind, seen: kind == .field ? Stamp.none : seen, table: table, key: resolved, name: name, system: system)
    guard let reported else { return }
    reported.external.reportAccess()
    // A one-shot watcher found just as it reports its change: the reader may hold a copy that
    // still has the state, whose next write must be heard. Watch it afresh.
    if !made && reported.kind.isOneShot && reported.isSpent {
      install(kind, seen: seen, table: table, key: resolved, name: name, system: system)?.external.reportAccess()
    }
  }

  private static func resolve(_ name: FieldName) -> FieldKey {
    guard case .field(let text, _) = name else { return .unresolved }
    return FieldNames.key(for: text)
  }

  /// Makes and links a watcher; `nil` if the object is gone.
  private static func install(
    _ kind: Kind, seen: UInt64, table: ObserverTable, key: FieldKey, name: FieldName,
    system: any ExternalObservationSystem
  ) -> BridgeWatcher? {
    let watcher = BridgeWatcher(kind: kind, seen: seen, external: system.makeField())
    let dependency = Dependency(table: table, key: key, name: name, seen: seen, generation: 0, guardedBy: nil)
    dependency.observer = watcher
    watcher.state.withLock { $0.dependency = dependency }
    // Before linking: a write that finds the watcher takes its order stamp later, so the flush
    // does not take the watcher for one that already saw it. A one-shot watcher counts as having
    // read now, so a field set back after this read still reaches it (it read the value in
    // between); a `field` watcher keeps 0 and hears every change.
    if kind.isOneShot { watcher.markRunStarted() }
    guard table.link(dependency) else {
      watcher.release()
      return nil
    }
    return watcher
  }

  // MARK: Changes

  override func runScheduled(in context: TransactionContext, onlyIfInputsChanged: Bool) {
    if onlyIfInputsChanged {
      // A derived value read may have changed: only a new version is a change.
      guard let dependency = state.withLock({ $0.dependency }), let source = dependency.table.computedSource,
        source.refreshedVersion() != seen
      else { return }
    }
    if kind.isOneShot {
      guard let dependency = spend() else { return }
      dependency.table.unlink(CollectionOfOne(dependency))
    }
    external.reportChange()
  }

  /// The object went away: its readers hear it once more (as Apple's registrar tells its
  /// observers when its object goes away), and the watcher lets go of its edge.
  override func registrarDidDeinit() {
    let wasInstalled = state.withLock { state -> Bool in
      defer {
        state.isSpent = true
        state.dependency = nil
      }
      return state.dependency != nil
    }
    if wasInstalled { external.reportChange() }
  }

  /// Marks a one-shot watcher spent and hands out its edge, once.
  private func spend() -> Dependency? {
    state.withLock { state in
      guard !state.isSpent else { return nil }
      state.isSpent = true
      defer { state.dependency = nil }
      return state.dependency
    }
  }

  /// Lets go of the edge of a watcher that was never linked.
  private func release() {
    state.withLock { $0.dependency = nil }
  }
}
