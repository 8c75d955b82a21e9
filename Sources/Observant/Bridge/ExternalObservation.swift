import Synchronization
import _ObservantShims

// Reporting Observant's reads and changes to another observation system: Apple's Observation,
// installed by the `ObservantObservationBridge` product. The runtime knows only the two
// protocols below; it never imports that system.
//
// Off (the default) it costs an untracked read one load of a process-wide word, inside the one
// call the accessor makes anyway (`ThreadLocal.recorderForReads`); tracked reads and writes do not
// look at it.

/// Another observation system that reads of Observant fields are reported to, and that hears
/// when what was read changes.
package protocol ExternalObservationSystem: Sendable {
  /// A handle for one observed state of one field, and what tells whether the external system
  /// still holds it.
  ///
  /// Every read of the state outside Observant's tracking scopes is reported to the handle
  /// (`reportAccess`), and its changes (`reportChange`). The runtime holds the handle until the
  /// state cannot be read any more and the external system let go of `keeper`; it holds `keeper`
  /// only while the state can still be read, then weakly. So `keeper` must be what the external
  /// system's observers hold (for Apple's Observation, the key path given to `access`, which
  /// access lists and installed observations keep), and it must not reach the handle: an
  /// observation the external system never lets go of (Apple's, when a scope fires on one thread
  /// while it is being installed on another) then keeps only `keeper`, and the handle with all it
  /// holds goes when its object does.
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
/// While the bridge is on, a read outside Observant's scopes goes to the thread's bridge recorder
/// (see `ThreadLocal.recorderForReads`) and comes here; it is reported if this thread is not inside
/// `withoutTracking`, and (when reports are restricted to marked tasks) the read runs in one.
package enum ExternalObservation {
  private enum Mode: UInt8 {
    case off, everywhere, markedTasks
  }

  private static let system = Mutex<(any ExternalObservationSystem)?>(nil)
  private static let mode = Atomic<UInt8>(Mode.off.rawValue)

  /// Whether code runs in a marked task (see `start(_:onlyInMarkedTasks:)`).
  @TaskLocal package static var isMarkedTask = false

  /// Starts reporting reads to `system` (replacing any system started before). May be called
  /// at any time, from any thread.
  ///
  /// - Parameter onlyInMarkedTasks: report only the reads of code running with `isMarkedTask`
  ///   set (the bridge's own tests, which share a process with tests that expect no bridge);
  ///   otherwise every read outside Observant's scopes, on every thread.
  package static func start(_ system: any ExternalObservationSystem, onlyInMarkedTasks: Bool) {
    self.system.withLock { $0 = system }
    mode.store((onlyInMarkedTasks ? Mode.markedTasks : .everywhere).rawValue, ordering: .sequentiallyConsistent)
    observant_bridge_turn_on(makeBridgeRecorder, releaseBridgeRecorder)
  }

  /// Stops reporting new reads. Fields already reported keep reporting their next change (a
  /// class's fields: every change) until the objects holding them go away.
  package static func stop() {
    observant_bridge_turn_off()
    mode.store(Mode.off.rawValue, ordering: .sequentiallyConsistent)
    system.withLock { $0 = nil }
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

/// The bridge's side of the graph's read hook: a read that reached a thread's bridge recorder
/// (see `ThreadLocal.recorderForReads`) is reported to the bridge.
private final class BridgeReadForwarding: ReadForwarding, @unchecked Sendable {
  static let shared = BridgeReadForwarding()

  override func forwardRead(_ registrar: TrackingRegistrar, _ key: FieldKey, _ name: FieldName, seen: UInt64) {
    guard let system = ExternalObservation.systemForReadsHere else { return }
    BridgeWatcher.reportRead(registrar, key, name, seen: seen, to: system)
  }
}

/// A new bridge recorder for the calling thread (+1), made the first time it reads with the bridge
/// on; released when the thread exits.
private func makeBridgeRecorder() -> UnsafeMutableRawPointer {
  Unmanaged.passRetained(Recorder(forwardingReadsTo: BridgeReadForwarding.shared)).toOpaque()
}

private func releaseBridgeRecorder(_ recorder: UnsafeMutableRawPointer) {
  Unmanaged<Recorder>.fromOpaque(recorder).release()
}

/// Whether the bridge is on at all: one load.
@inlinable @inline(__always)
internal var _bridgeIsOn: Bool { observant_bridge_is_on() != 0 }

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

// MARK: Scopes that propagate their reads

/// `withRecorder(_:propagating:_:)` for the tracking scopes of the public entry points
/// (`withTracking`, `recordAccesses`): a scope that propagates its reads while no Observant scope
/// encloses it hands them, when it ends, to the bridge (if reads made here are reported), as the
/// bridge reports reads made outside scopes. So an enclosing Apple `withObservationTracking` (the
/// bridge's "outer scope") hears them, as it would hear the reads of a nested Apple scope.
@inline(__always)
internal func withScopeRecorder<Result>(
  _ recorder: Recorder, propagating: Bool, _ body: () throws -> Result
) rethrows -> Result {
  guard propagating, _bridgeIsOn, !ThreadLocal.isTracking else {
    return try withRecorder(recorder, propagating: propagating, body)
  }
  defer { reportPropagatedReads(of: recorder) }
  return try withRecorder(recorder, propagating: true, body)
}

/// Reports what `recorder`'s scope read to the bridge, if reads made here are reported.
@inline(never)
private func reportPropagatedReads(of recorder: Recorder) {
  guard let system = ExternalObservation.systemForReadsHere else { return }
  for dependency in recorder.currentDependencies {
    BridgeWatcher.reportRead(
      in: dependency.table, dependency.key, dependency.name, seen: dependency.seen.load(ordering: .relaxed),
      to: system)
  }
}
