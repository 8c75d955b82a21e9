import Synchronization

/// Which ids left an identified array, and which ids now hold a different element, between two of
/// its structural versions.
///
/// An id can appear in `removed` and be present again (it was removed and re-inserted, which makes
/// its element a different one); treat such an id as replaced.
public struct StructuralChanges<ID: Hashable> {
  /// Ids removed, in the order of removal (possibly repeated).
  public var removed: [ID] = []
  /// Ids whose element was replaced by a value with another instance identity (for elements that
  /// are not `InstanceIdentifiable`, every element write), possibly repeated.
  public var replaced: [ID] = []

  public init(removed: [ID] = [], replaced: [ID] = []) {
    self.removed = removed
    self.replaced = replaced
  }

  /// No id was removed or replaced (insertions and reorderings are not listed).
  public var isEmpty: Bool { removed.isEmpty && replaced.isEmpty }
}

extension StructuralChanges: Equatable where ID: Equatable {}
extension StructuralChanges: Sendable where ID: Sendable {}

extension IdentifiedArray {
  /// Starts recording which ids structural changes remove or replace, so that
  /// ``structuralChanges(since:)`` can answer without comparing arrays.
  ///
  /// Meant for owners that keep something per element (a store per row, a cell per row) and must
  /// drop or refresh exactly the entries whose element went away or was replaced, at a cost that
  /// depends on the change, not on the number of elements. Copies share the record. Starting it
  /// again does nothing; it changes neither ``version`` nor ``structuralVersion``.
  ///
  /// The record keeps the most recent changes only (a bounded window); asking about older ones
  /// answers `nil`.
  ///
  /// - Complexity: O(1).
  @inlinable
  public mutating func recordStructuralChanges() {
    if _journal == nil { _journal = _StructuralJournal() }
  }

  /// Whether structural changes are being recorded (see ``recordStructuralChanges()``).
  @inlinable
  public var isRecordingStructuralChanges: Bool { _journal != nil }

  /// The ids removed or replaced since this array (or the array it was copied from) had the
  /// structural version `version`, or `nil` if the record cannot tell: recording was not started
  /// then, the change is older than the record keeps, or `version` belongs to another lineage.
  /// Asked with the array's current structural version, the answer is always "nothing" (empty
  /// lists), recording or not: nothing changed since.
  ///
  /// - Complexity: O(*c*) where *c* is the number of recorded changes in the window.
  public func structuralChanges(since version: UInt64) -> StructuralChanges<ID>? {
    if version == _structuralVersion { return StructuralChanges() }
    return _journal?.changes(from: version, to: _structuralVersion)
  }

  /// Records a structural change in the journal, if one is kept. `removed` and `replaced` are
  /// evaluated only then.
  @inlinable
  internal func _journal(
    from oldVersion: UInt64,
    removed: @autoclosure () -> [ID],
    replaced: @autoclosure () -> [ID]
  ) {
    guard let journal = _journal else { return }
    journal.record(from: oldVersion, to: _structuralVersion, removed: removed(), replaced: replaced())
  }
}

/// The record behind ``IdentifiedArray/recordStructuralChanges()``: a bounded ring of structural
/// changes, each from one structural version to the next. Copies of an array share it; copies
/// that diverge interleave their entries, and a query follows the chain of versions that leads to
/// the asking array, so entries of other lineages are ignored.
@usableFromInline
internal final class _StructuralJournal<ID: Hashable>: @unchecked Sendable {
  // `@unchecked`: ids are only copied in and out under the lock.
  struct Entry: @unchecked Sendable {
    let from: UInt64
    let to: UInt64
    let removed: [ID]
    let replaced: [ID]
  }

  private struct Ring: @unchecked Sendable {
    var entries: [Entry] = []
    var next = 0
  }

  /// How many changes are kept.
  static var capacity: Int { 256 }

  private let ring = Mutex(Ring())

  @usableFromInline
  init() {}

  @usableFromInline
  func record(from: UInt64, to: UInt64, removed: [ID], replaced: [ID]) {
    let entry = Entry(from: from, to: to, removed: removed, replaced: replaced)
    ring.withLock { ring in
      if ring.entries.count < Self.capacity {
        ring.entries.append(entry)
      } else {
        ring.entries[ring.next] = entry
      }
      ring.next = (ring.next + 1) % Self.capacity
    }
  }

  /// Follows the entries backwards from `to` until `from`; `nil` if the chain breaks first.
  func changes(from: UInt64, to: UInt64) -> StructuralChanges<ID>? {
    ring.withLock { ring in
      var chain: [Entry] = []
      var target = to
      let count = ring.entries.count
      // Newest first: entries of one lineage are recorded in order, so one backward pass finds
      // its chain (entries of other lineages do not end at our versions and are skipped).
      for step in 0..<count {
        let entry = ring.entries[(ring.next - 1 - step + 2 * count) % count]
        guard entry.to == target else { continue }
        chain.append(entry)
        target = entry.from
        if target == from { break }
      }
      guard target == from else { return nil }
      var changes = StructuralChanges<ID>()
      for entry in chain.reversed() {
        changes.removed.append(contentsOf: entry.removed)
        changes.replaced.append(contentsOf: entry.replaced)
      }
      return changes
    }
  }
}
