/// A tracked source whose value is computed from other fields: a derived value.
///
/// Its readers are told "may have changed" when one of its inputs changes, not "changed". Before
/// such a reader runs, it asks each computed source it read to bring itself up to date and compares
/// the version it read (the `seen` stamp of its dependency) with the current one: only a
/// different version is a change. Reached from a dependency through its table
/// (`ObserverTable.computedSource`).
internal protocol ComputedSource: AnyObject {
  /// Brings the value up to date (recomputing it only if one of its inputs really changed) and
  /// returns the version of the value: a stamp that changes exactly when the value does.
  func refreshedVersion() -> UInt64

  /// Describes the change of the value since the reader read version `seen`, for the causes of
  /// the reader's run.
  func changeDescription(since seen: UInt64) -> RunCause
}
