import Synchronization

/// A validity flag that reads can be recorded under: a reaction whose every dependency was read
/// under guards that have since been invalidated does not re-run.
///
/// A store guards the reads made through it, so that once the store becomes invalid (its row was
/// removed, its enum case switched), what was read through it stops driving its readers — even if
/// the removed value lives on elsewhere in the state and keeps changing, and even if it changed in
/// the same transaction that removed it. A reaction that also read something unguarded, or
/// through a store that is still valid, runs as usual: guards never hide a change that a valid
/// path would show.
package final class TrackingGuard: Sendable {
  private let valid = Atomic<Bool>(true)
  /// Observers told when the guard is invalidated (see `notifyOnInvalidation(_:)`); emptied then.
  private let watchers = Mutex<[WeakObserver]>([])

  package init() {}

  /// Whether the guard is still valid.
  package var isValid: Bool { valid.load(ordering: .acquiring) }

  /// Invalidates the guard for good, and tells the observers waiting for it.
  package func invalidate() {
    valid.store(false, ordering: .releasing)
    let told = watchers.withLock { watchers in
      defer { watchers = [] }
      return watchers
    }
    for watcher in told { watcher.observer?.guardInvalidated() }
  }

  /// Calls `observer.guardInvalidated()` once when the guard is invalidated (on the invalidating
  /// thread, outside every lock), or returns `false` at once if it already is. For observers that
  /// must act when everything they read went invalid (`TrackedValues`; reactions just find out at
  /// their next run). Registering an observer again adds nothing; the guard holds it weakly.
  func notifyOnInvalidation(_ observer: Observer) -> Bool {
    watchers.withLock { watchers in
      // Under the lock: `invalidate()` stores `false` before it empties the list.
      guard valid.load(ordering: .acquiring) else { return false }
      watchers.removeAll { $0.observer == nil }
      if !watchers.contains(where: { $0.observer === observer }) { watchers.append(WeakObserver(observer: observer)) }
      return true
    }
  }
}

private struct WeakObserver: @unchecked Sendable {
  weak var observer: Observer?
}

/// Runs `body`, recording the tracked reads it makes (in the current tracking scope, if any) as
/// guarded by `guard`. Reads already recorded unguarded in the same run stay unguarded.
package func withTrackingGuard<Result>(_ guard: TrackingGuard, _ body: () throws -> Result) rethrows -> Result {
  guard let recorder = ThreadLocal.recorder else { return try body() }
  let previous = recorder._withUnsafeGuaranteedRef { $0.swapGuard(`guard`) }
  defer { recorder._withUnsafeGuaranteedRef { _ = $0.swapGuard(previous) } }
  return try body()
}

/// `withTrackingGuard` in two halves, for code that reads without a closure (a store's inlinable
/// read path): makes `guard` the current scope's guard and returns the one to restore with
/// `_restoreTrackingGuard(_:)` (the caller's `defer`). Nothing happens outside a tracking scope.
package func _enterTrackingGuard(_ guard: TrackingGuard) -> TrackingGuard? {
  guard let recorder = ThreadLocal.recorder else { return nil }
  return recorder._withUnsafeGuaranteedRef { $0.swapGuard(`guard`) }
}

/// Restores the guard `_enterTrackingGuard(_:)` returned (inside the same tracking scope).
package func _restoreTrackingGuard(_ previous: TrackingGuard?) {
  guard let recorder = ThreadLocal.recorder else { return }
  _ = recorder._withUnsafeGuaranteedRef { $0.swapGuard(previous) }
}
