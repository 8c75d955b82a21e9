/// Something installed on registrars that wants to hear about writes: a one-shot `withTracking`
/// scope or a persistent `Reaction`.
///
/// Observers are called after the registrar's lock is released, on the writing thread, before the
/// new value is stored (willSet).
@usableFromInline
internal class TrackingObserver: @unchecked Sendable {
  /// An immediate observer's response to a change of a field it depends on.
  func fire() {}

  /// The reaction behind a deferred observer: it is not called back during the write but
  /// scheduled to re-run when the writing thread's transaction ends.
  var reaction: ReactionCore? { nil }

  /// Whether this observer is deferred (belongs to a reaction).
  var isDeferred: Bool { false }

  /// A registrar this observer was installed on was deallocated (its object is gone).
  func registrarDidDeinit() {}
}

extension UnsafeBufferPointer where Element == Access {
  /// Installs `observer` on every access, one lock per run of accesses to the same object.
  /// Stops early if `shouldStop` turns true after a run was installed; that run is taken back.
  func install(_ observer: TrackingObserver, stoppingWhen shouldStop: () -> Bool) {
    forEachRunOfSameObject { core, run in
      core.add(observer, for: run)
      guard shouldStop() else { return true }
      core.remove(observer, for: run)
      return false
    }
  }

  /// Uninstalls `observer` from every access, one lock per run of accesses to the same object.
  func uninstall(_ observer: TrackingObserver) {
    forEachRunOfSameObject { core, run in
      core.remove(observer, for: run)
      return true
    }
  }

  /// Calls `body` with each maximal run of consecutive accesses to one object, until it returns
  /// `false`.
  private func forEachRunOfSameObject(_ body: (RegistrarCore, UnsafeBufferPointer<Access>) -> Bool) {
    var start = 0
    while start < count {
      let core = self[start].core
      var end = start + 1
      while end < count && self[end].core === core { end += 1 }
      guard body(core, UnsafeBufferPointer(rebasing: self[start..<end])) else { return }
      start = end
    }
  }
}

extension ContiguousArray where Element == Access {
  func install(_ observer: TrackingObserver, stoppingWhen shouldStop: () -> Bool) {
    withUnsafeBufferPointer { $0.install(observer, stoppingWhen: shouldStop) }
  }

  func uninstall(_ observer: TrackingObserver) {
    withUnsafeBufferPointer { $0.uninstall(observer) }
  }
}

extension Access {
  func uninstall(_ observer: TrackingObserver) {
    withUnsafePointer(to: self) { UnsafeBufferPointer(start: $0, count: 1).uninstall(observer) }
  }
}
