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
package enum ExternalObservation {
  private struct Installation {
    var system: (any ExternalObservationSystem)?
    var onlyInMarkedTasks = false
  }

  private static let installation = Mutex(Installation())
  /// Mirrors `Installation.onlyInMarkedTasks` for the read path (no lock there).
  private static let onlyInMarkedTasks = Atomic<Bool>(false)

  /// Reads made by code running under `withMarkedTask` (when reporting is restricted to marked
  /// tasks: the bridge's own tests, which share a process with tests that expect no bridge).
  @TaskLocal package static var isMarkedTask = false

  /// Starts reporting reads to `system` (replacing any system started before).
  ///
  /// - Parameter onlyInMarkedTasks: report only the reads of code running under
  ///   `withMarkedTask` (for tests); otherwise every read outside Observant's scopes, on every
  ///   thread.
  package static func start(_ system: any ExternalObservationSystem, onlyInMarkedTasks: Bool) {
    installation.withLock { installation in
      installation.system = system
      installation.onlyInMarkedTasks = onlyInMarkedTasks
      Self.onlyInMarkedTasks.store(onlyInMarkedTasks, ordering: .sequentiallyConsistent)
      observant_bridge_set_enabled(1)
    }
  }

  /// Stops reporting new reads. Fields already reported keep reporting their next change (or
  /// every change, for a class's fields) until the objects holding them go away.
  package static func stop() {
    installation.withLock { installation in
      observant_bridge_set_enabled(0)
      installation.system = nil
    }
  }

  /// Whether reads are being reported (on all threads, or in marked tasks).
  package static var isStarted: Bool { observant_bridge_enabled() != 0 }

  /// Whether reads are reported only in marked tasks.
  package static var isRestrictedToMarkedTasks: Bool { onlyInMarkedTasks.load(ordering: .relaxed) }

  /// The system to report to, if reads made on this thread right now are reported: started,
  /// not suspended by `withoutTracking`, and (when restricted) in a marked task.
  static var systemForReadsHere: (any ExternalObservationSystem)? {
    guard readsHereAreReported else { return nil }
    return installation.withLock { $0.system }
  }

  /// `systemForReadsHere != nil`, without the lock.
  static var readsHereAreReported: Bool {
    guard observant_bridge_enabled() != 0, observant_bridge_suspended() == 0 else { return false }
    return !onlyInMarkedTasks.load(ordering: .relaxed) || isMarkedTask
  }
}

// MARK: Hooks of the read path

/// Whether the bridge is on at all: one relaxed load of a process-wide word (the only cost of
/// the bridge on an untracked read while it is off).
@inlinable @inline(__always)
internal var _bridgeIsOn: Bool { observant_bridge_enabled() != 0 }

/// A read made outside every Observant tracking scope while the bridge is on: reported to the
/// external system, which is then told when the state read changes. Out of line: the accessors
/// only test `_bridgeIsOn`.
@usableFromInline @inline(never)
internal func _bridgeRead(_ registrar: TrackingRegistrar, _ key: FieldKey, _ name: FieldName, seen: UInt64) {
  BridgeWatcher.reportRead(registrar, key, name, seen: seen)
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
