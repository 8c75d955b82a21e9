/// Dirty observers of one round in creation order, each at most once (merging stamps). Kept sorted
/// by descending `sequence` (unique per observer), so the next to run is the last element and
/// membership is a binary search. Its storage is handed in and taken back, for reuse.
internal struct ObserverQueue {
  private var entries: [DirtyObserver]

  /// A queue over `storage` (emptied first). Entries appended to `unsorted` wait for `sort()`.
  init(storage: [DirtyObserver]) {
    entries = storage
    entries.empty()
  }

  /// Unsorted entries, appended before `sort()`.
  var unsorted: [DirtyObserver] {
    get { entries }
    _modify { yield &entries }
  }

  /// Sorts the entries appended to `unsorted` and merges repeats.
  mutating func sort() {
    guard entries.count > 1 else { return }
    // Usually in order already (a field's readers are listed newest first, and dirtied in that
    // order): checked first, since the standard library's sort allocates a scratch buffer for
    // more than a few elements (a write read by 100 reactions allocated on every flush).
    if !isInOrder { entries.sort { $0.observer.sequence > $1.observer.sequence } }
    var kept = 0
    for index in entries.indices {
      if kept > 0, entries[kept - 1].observer === entries[index].observer {
        entries[kept - 1].order = max(entries[kept - 1].order, entries[index].order)
        entries[kept - 1].onlyIfInputsChanged =
          entries[kept - 1].onlyIfInputsChanged && entries[index].onlyIfInputsChanged
      } else {
        entries[kept] = entries[index]
        kept += 1
      }
    }
    entries.removeLast(entries.count - kept)
    if _internalChecksEnabled { _checkInvariants() }
  }

  var isEmpty: Bool { entries.isEmpty }

  /// Whether the entries are in descending `sequence` order (repeats side by side).
  private var isInOrder: Bool {
    var previous = UInt64.max
    for entry in entries {
      let sequence = entry.observer.sequence
      if sequence > previous { return false }
      previous = sequence
    }
    return true
  }

  /// The observers still queued, in no particular order.
  var observers: [ScheduledObserver] { entries.map(\.observer) }

  /// The position of `sequence`, or where it would be inserted.
  private func search(_ sequence: UInt64) -> Int {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].observer.sequence > sequence { low = middle + 1 } else { high = middle }
    }
    return low
  }

  func contains(_ observer: ScheduledObserver) -> Bool {
    let position = search(observer.sequence)
    return position < entries.count && entries[position].observer === observer
  }

  mutating func insert(_ entry: DirtyObserver) {
    let position = search(entry.observer.sequence)
    if position < entries.count && entries[position].observer === entry.observer {
      entries[position].order = max(entries[position].order, entry.order)
      entries[position].onlyIfInputsChanged = entries[position].onlyIfInputsChanged && entry.onlyIfInputsChanged
    } else {
      entries.insert(entry, at: position)
    }
    if _internalChecksEnabled { checkAround(position) }
  }

  mutating func popFirst() -> DirtyObserver? {
    entries.popLast()
  }

  /// Gives the storage back (emptied, its capacity kept).
  mutating func release() -> [DirtyObserver] {
    entries.empty()
    return entries
  }

  // MARK: Invariants

  /// Checks the order: strictly descending sequences (sorted, each observer once). With internal
  /// checks on, after `sort()` and (around the entry) after `insert(_:)`; tests call it directly.
  /// Not meaningful while entries appended to `unsorted` wait for `sort()`.
  ///
  /// - Complexity: O(*n*).
  func _checkInvariants() {
    for position in entries.indices.dropFirst() { checkOrder(position - 1, position) }
  }

  /// After an insertion at `position`: in full while the queue is short, otherwise the inserted
  /// entry against its neighbours.
  private func checkAround(_ position: Int) {
    if entries.count <= _fullCheckLimit { return _checkInvariants() }
    if position > 0 { checkOrder(position - 1, position) }
    if position + 1 < entries.count { checkOrder(position, position + 1) }
  }

  private func checkOrder(_ earlier: Int, _ later: Int) {
    if entries[earlier].observer.sequence <= entries[later].observer.sequence {
      _invariantViolated(
        "observer queue out of order at \(earlier): sequence \(entries[earlier].observer.sequence) before \(entries[later].observer.sequence)"
      )
    }
  }
}

/// A scheduled observer to run, with the order stamp of the latest change that made it dirty.
internal struct DirtyObserver {
  let observer: ScheduledObserver
  var order: UInt64
  /// Only computed values the observer read may have changed (see `ComputedSource`): it runs only
  /// if one of them did. A field write that dirties it too clears this.
  var onlyIfInputsChanged = false
}
