import Observant
import Synchronization

/// Something a commit may need to re-check because a slot it was read from changed: a scoped
/// store, or the cache of a collection scope.
@MainActor
internal protocol Examinable: AnyObject {
  /// Creation order within the tree: parents are created (and examined) before their children.
  var examinationOrder: Int { get }
  /// Re-checks against the current state. Returns how many stores were examined.
  func examine() -> Int
}

/// Part of a store tree that can be invalidated along with its parent.
@MainActor
internal protocol StoreNode: AnyObject {
  /// Marks this node and everything scoped from it invalid (for good).
  func invalidate()
}

/// What every store of one tree shares: the diagnostics, the creation order, and the set of
/// scopes whose parent slot changed since the last commit.
///
/// Scopes learn that their slot changed from a `ChangeObserver` installed on exactly the fields
/// their state was read from, so a commit examines those and nothing else: its cost does not grow
/// with the number of live stores.
@MainActor
internal final class StoreTree {
  let diagnostics: StoreDiagnostics
  private var nextOrder = 0
  /// Filled by change observers, possibly from another thread (a copy of the state mutated
  /// elsewhere shares registrars); drained by `commit()` on the main actor.
  private let pending = Mutex<[PendingExamination]>([])

  init(diagnostics: StoreDiagnostics) {
    self.diagnostics = diagnostics
  }

  func makeOrder() -> Int {
    nextOrder += 1
    return nextOrder
  }

  /// An observer callback for `target`: queues it for the next commit.
  nonisolated func enqueueHandler(for target: any Examinable) -> @Sendable () -> Void {
    let entry = PendingExamination(target)
    return { [weak self] in self?.enqueue(entry) }
  }

  private nonisolated func enqueue(_ entry: PendingExamination) {
    pending.withLock { $0.append(entry) }
  }

  /// Examines every queued scope once, parents first. Returns how many stores were examined.
  func commit() -> Int {
    var examined = 0
    var seen = Set<ObjectIdentifier>()
    // Examining can queue more (a replaced child re-reads its slots); loop until settled.
    while true {
      let batch = pending.withLock { pending in
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
      }
      let targets = batch.compactMap(\.target).filter { seen.insert(ObjectIdentifier($0)).inserted }
      if targets.isEmpty { break }
      for target in targets.sorted(by: { $0.examinationOrder < $1.examinationOrder }) {
        examined += target.examine()
      }
    }
    return examined
  }
}

/// A weak reference to a queued scope, safe to pass between threads.
internal struct PendingExamination: @unchecked Sendable {
  // `@unchecked`: only dereferenced on the main actor (in `StoreTree.commit`).
  weak var target: (any Examinable)?

  init(_ target: any Examinable) { self.target = target }
}
