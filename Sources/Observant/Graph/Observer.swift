/// Something installed on registrars that wants to hear about writes to the fields it read: a
/// one-shot `withTracking` scope, a persistent `ChangeObserver`, a `Reaction`, a derived value.
///
/// The graph only knows this base: it links an observer's dependencies into the fields' lists and
/// tells it when one of them changes. What happens then (a callback now, a re-run after the
/// transaction) is the subclass's business, decided in the layers above.
@usableFromInline
internal class Observer: @unchecked Sendable {
  // No stored properties: a subclass's own state starts right after the object header (a one-shot
  // observer fits a 48-byte block that way). What the graph asks of every observer is answered
  // by the class.

  init() {}

  /// Scheduled observers run when the writing thread's transaction ends; the others are called
  /// back during the write.
  var isScheduled: Bool { false }

  /// A synchronous observer that only marks state when told of a change (a derived value marking
  /// itself out of date): it reads nothing and runs no user code, so it is told at once even
  /// while an in-place mutation is open, and inside a transaction the write opens for it (so that
  /// what it schedules runs after the value is stored).
  var marksDuringWrites: Bool { false }

  /// A field behind `dependency` is being written (or, for a wholesale replacement detected
  /// afterwards, was written). Called on the writing thread, outside every lock of the runtime.
  ///
  /// - Parameter change: what changed, for observers that report causes.
  func dependencyChanged(_ dependency: Dependency, _ change: FieldChange) {}

  /// A registrar this observer depends on went away with its object or value.
  func registrarDidDeinit() {}

  /// A guard this observer asked to hear about was invalidated (see
  /// `TrackingGuard.notifyOnInvalidation(_:)`).
  func guardInvalidated() {}
}

/// What a notification is about, for observers that record why they re-ran.
internal struct FieldChange {
  /// The values before and after the write, boxed only for the recorded causes and for
  /// recognizing a field that ends its transaction where it began; `nil` where they are not known
  /// (a wholesale replacement, an in-place mutation of a field that cannot be compared).
  let values: ChangeValues?

  static var unknown: FieldChange { FieldChange(values: nil) }
}

/// The old and new value of one write.
@usableFromInline
internal typealias ChangeValues = (old: ComparableBox, new: ComparableBox)

/// A value kept by a transaction to recognize a field that ends it where it began, or to describe
/// a change.
@usableFromInline
internal class ComparableBox: @unchecked Sendable, CustomStringConvertible {
  @usableFromInline init() {}
  func isEqual(to other: ComparableBox) -> Bool { false }
  @usableFromInline var description: String { "?" }
}
