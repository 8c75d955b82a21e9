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
  var reaction: Reaction? { nil }

  /// Whether this observer is deferred (belongs to a reaction).
  var isDeferred: Bool { false }

  /// A registrar this observer was installed on was deallocated (its object is gone).
  func registrarDidDeinit() {}
}

/// A dependency as an observer keeps it, to uninstall itself later. The registrar is weak so an
/// observer never keeps an observed object's registrar alive: when the object goes away its
/// registrar goes with it, and with it every observer entry.
internal struct Dependency {
  weak var registrar: TrackingRegistrar?
  let key: FieldKey
}

extension Sequence where Element == Dependency {
  /// Uninstalls `observer` from every registrar still alive, one lock per registrar run.
  func uninstall(_ observer: TrackingObserver) {
    var batch: [FieldKey] = []
    var current: TrackingRegistrar?
    for dependency in self {
      guard let registrar = dependency.registrar else { continue }
      if current !== registrar {
        if let current, !batch.isEmpty { current.removeObserver(observer, for: batch) }
        batch.removeAll(keepingCapacity: true)
        current = registrar
      }
      batch.append(dependency.key)
    }
    if let current, !batch.isEmpty { current.removeObserver(observer, for: batch) }
  }
}
