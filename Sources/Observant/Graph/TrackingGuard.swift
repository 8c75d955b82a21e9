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

  package init() {}

  /// Whether the guard is still valid.
  package var isValid: Bool { valid.load(ordering: .acquiring) }

  /// Invalidates the guard for good.
  package func invalidate() { valid.store(false, ordering: .releasing) }
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
