/// Which ids disappeared from a collection scope's array at recent commits, so that a
/// `StoreCollection` snapshot taken before can tell the row it showed from a new row that came
/// back under the same id.
///
/// Epochs count the commits that changed the array's structure; a snapshot remembers the epoch it
/// was taken at. The log keeps a bounded window of commits; older questions answer `nil`, and so
/// do questions about a commit that could not tell what it removed (an array rebuilt when the
/// scope had not kept the ids before it; see `CollectionScope.knownIDs`). An id removed and added
/// back within one commit is not recorded: like a row replaced by a new value, it is still there.
internal struct RemovalLog<ID: Hashable> {
  /// How many commits that removed ids (or whose removals are unknown) are kept.
  static var capacity: Int { 64 }

  /// The number of commits so far that changed the array's structure.
  private(set) var epoch = 0
  /// Commits that removed ids, oldest first; `removed == nil` when the commit could not tell.
  private var entries: [(epoch: Int, removed: Set<ID>?)] = []
  /// Commits up to this epoch fell out of the window.
  private var forgottenThrough = 0

  /// Records a commit that changed the structure and removed `removed` (`nil`: unknown).
  mutating func record(_ removed: Set<ID>?) {
    epoch += 1
    if let removed, removed.isEmpty { return }
    entries.append((epoch, removed))
    if entries.count > Self.capacity {
      forgottenThrough = entries.removeFirst().epoch
    }
  }

  /// Whether `id` was removed at a commit after epoch `since`; `nil` when the log cannot tell (the
  /// commit is older than the window, or a commit since could not tell what it removed).
  ///
  /// - Complexity: O(1) when nothing changed since; otherwise O(*c*), *c* the commits in the window.
  func wasRemoved(_ id: ID, since: Int) -> Bool? {
    guard since != epoch else { return false }
    guard since >= forgottenThrough else { return nil }
    var isKnown = true
    for entry in entries.reversed() {
      guard entry.epoch > since else { break }
      guard let removed = entry.removed else {
        isKnown = false
        continue
      }
      if removed.contains(id) { return true }
    }
    return isKnown ? false : nil
  }
}
