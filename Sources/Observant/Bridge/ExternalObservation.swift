import Synchronization
import _ObservantShims

// Reporting Observant's reads and changes to another observation system: Apple's Observation,
// installed by the `ObservantObservationBridge` product. The runtime knows only the two
// protocols below; it never imports that system.
//
// Off (the default) it costs the untracked read one load of a process-wide word and a branch;
// tracked reads and writes do not look at it.

/// Another observation system that reads of Observant fields are reported to, and that hears
/// when what was read changes.
package protocol ExternalObservationSystem: Sendable {
  /// A handle for one observed state of one field, and what keeps the handle alive.
  ///
  /// Every read of the state outside Observant's tracking scopes is reported to the handle
  /// (`reportAccess`), and its changes (`reportChange`). The runtime holds `keeper` while the
  /// state can still be read; after that it keeps only a weak reference to the handle, which must
  /// then stay alive exactly as long as the external system's observers can still be told through
  /// it (whatever they hold must keep it alive: for Apple's Observation, the key path given to
  /// `access`, which access lists and installed observations keep).
  func makeField() -> (field: any ExternalObservedField, keeper: any AnyObject & Sendable)
}

/// One observed state of one field, as the external system sees it (for Apple's Observation: a
/// registrar of its own and a key path).
package protocol ExternalObservedField: AnyObject, Sendable {
  /// A read of the state, outside Observant's tracking scopes, on the reading thread.
  func reportAccess()
  /// The state changed (or the object holding it went away), once the writing transaction
  /// ended, on the writing thread.
  func reportChange()
}

/// Starting and stopping the reports (for the bridge module).
///
/// The switch the accessors test (`_observant_bridge_enabled`) is only the first gate: a read
/// outside Observant's scopes with the switch on comes here, and is reported only if a system is
/// installed (`mode`), this thread is not inside `withoutTracking`, and (when reports are
/// restricted to marked tasks) the read runs in one.
package enum ExternalObservation {
  private enum Mode: UInt8 {
    case off, everywhere, markedTasks
  }

  private static let system = Mutex<(any ExternalObservationSystem)?>(nil)
  private static let mode = Atomic<UInt8>(Mode.off.rawValue)

  /// Whether code runs in a marked task (see `start(_:onlyInMarkedTasks:)`).
  @TaskLocal package static var isMarkedTask = false

  /// Starts reporting reads to `system` (replacing any system started before).
  ///
  /// The accessors' switch is set here only if it is off: it is read with plain loads, so it must
  /// change only while no other thread reads tracked fields (at launch). A process whose threads
  /// already run sets it before they start (the bridge's tests do, in a constructor).
  ///
  /// - Parameter onlyInMarkedTasks: report only the reads of code running with `isMarkedTask`
  ///   set (the bridge's own tests, which share a process with tests that expect no bridge);
  ///   otherwise every read outside Observant's scopes, on every thread.
  package static func start(_ system: any ExternalObservationSystem, onlyInMarkedTasks: Bool) {
    self.system.withLock { $0 = system }
    mode.store((onlyInMarkedTasks ? Mode.markedTasks : .everywhere).rawValue, ordering: .sequentiallyConsistent)
    if observant_bridge_enabled() == 0 { observant_bridge_set_enabled(1) }
  }

  /// Stops reporting new reads, and turns the accessors' switch off (see `start`). Fields
  /// already reported keep reporting their next change (a class's fields: every change) until
  /// the objects holding them go away.
  package static func stop() {
    mode.store(Mode.off.rawValue, ordering: .sequentiallyConsistent)
    system.withLock { $0 = nil }
    observant_bridge_set_enabled(0)
  }

  /// Whether reads are reported (on all threads, or in marked tasks).
  package static var isStarted: Bool { mode.load(ordering: .relaxed) != Mode.off.rawValue }

  /// Whether reads are reported only in marked tasks.
  package static var isRestrictedToMarkedTasks: Bool { mode.load(ordering: .relaxed) == Mode.markedTasks.rawValue }

  /// The system to report to, if a read made on this thread right now is reported.
  static var systemForReadsHere: (any ExternalObservationSystem)? {
    guard readsHereAreReported else { return nil }
    return system.withLock { $0 }
  }

  /// Whether a read made on this thread right now is reported (`systemForReadsHere != nil`,
  /// without the lock).
  static var readsHereAreReported: Bool {
    switch Mode(rawValue: mode.load(ordering: .relaxed)) {
    case .everywhere: return observant_bridge_suspended() == 0
    case .markedTasks: return observant_bridge_suspended() == 0 && isMarkedTask
    case .off, nil: return false
    }
  }
}

// MARK: Hooks of the read path

/// Whether the bridge is on at all: one plain load of a process-wide word, on the untracked read
/// path only (the whole cost of the bridge while it is off; see `_observant_bridge_enabled`).
@inlinable @inline(__always)
internal var _bridgeIsOn: Bool { _observant_bridge_enabled != 0 }

/// A read made outside every Observant tracking scope while the bridge is on: reported to the
/// external system, which is then told when the state read changes. Out of line: the accessors
/// only test `_bridgeIsOn`.
@usableFromInline @inline(never)
internal func _bridgeRead(
  _ registrar: TrackingRegistrar, _ key: FieldKey, _ name: FieldName, text: StaticString, seen: UInt64
) {
  guard let system = ExternalObservation.systemForReadsHere else { return }
  // A field keyed by name and not resolved yet: its name (`#function` in the accessor) is interned.
  let resolved = key.isResolved ? key : FieldNames.key(for: text)
  BridgeWatcher.reportRead(registrar, resolved, name, seen: seen, to: system)
}

/// `_bridgeRead` for a `@Tracked` property whose storage is at `storage` inside `object`: the
/// accessor passes only what it has at hand, so that its bridge branch stays a load, a branch and
/// a call (a larger accessor would no longer be inlined into its callers).
@usableFromInline @inline(never)
internal func _bridgeReadStoredProperty(_ object: any Trackable, at storage: UnsafeMutableRawPointer) {
  guard let system = ExternalObservation.systemForReadsHere else { return }
  let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object as AnyObject).toOpaque())
  let key = FieldKey(storedPropertyOffset: storage - base)
  BridgeWatcher.reportRead(object.trackingRegistrar, key, .storedProperty(type(of: object)), seen: Stamp.none, to: system)
}

/// Whether a read made here now would be reported to the bridge (for owners that build something
/// only for a recorded read; see `isTrackingAccesses`).
@usableFromInline @inline(never)
internal func _bridgeReportsReadsHere() -> Bool {
  ExternalObservation.readsHereAreReported
}

/// Runs `body` with this thread's reads not reported to the bridge (`withoutTracking`).
@inline(__always)
internal func _withoutBridgeReports<Result>(_ body: () throws -> Result) rethrows -> Result {
  guard _bridgeIsOn else { return try body() }
  let previous = observant_bridge_suspended()
  observant_bridge_set_suspended(1)
  defer { observant_bridge_set_suspended(previous) }
  return try body()
}
