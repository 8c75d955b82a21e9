import Observant
import Synchronization

/// Something a commit may need to re-check because a slot it was read from changed: a child
/// scope, or a collection scope.
@MainActor
internal protocol Examinable: AnyObject {
  /// Creation order within the tree: parents are created (and examined) before their children.
  var examinationOrder: Int { get }
  /// Re-checks against the current state. Returns how many stores were examined.
  func examine() -> Int
}

/// A scope that a store re-examines when its own state is replaced, and invalidates with itself:
/// a child scope, or a collection scope.
@MainActor
internal protocol StoreDependent: Examinable {
  /// Marks this scope and everything scoped from it invalid (for good).
  func invalidate()
}

/// What the stores of a tree need from its root: the live state, and what the reducer is doing.
@MainActor
internal protocol StoreRoot: AnyObject {
  /// Runs `body` on the value at `path` (a `WritableKeyPath` from the root state) inside the live
  /// root state, in place. Returns `false` if `path` does not lead to a `Value` from the root.
  func modifyLiveState<Value>(at path: AnyKeyPath, _ body: (inout Value) -> Void) -> Bool
  /// The action the reducer is processing, for diagnostics.
  var actionBeingReduced: String { get }
}

/// What every store of one tree shares: the diagnostics, the creation order, the set of scopes
/// whose parent slot changed since the last commit, and the state's generation.
///
/// Scopes learn that their slot changed from a `ChangeObserver` installed on exactly the fields
/// their state was read from, so a commit examines those and nothing else: its cost does not grow
/// with the number of live stores.
@MainActor
@usableFromInline
internal final class StoreTree {
  @usableFromInline let diagnostics: StoreDiagnostics
  /// The root, for the structural journal hook and diagnostics. Every store of the tree holds its
  /// parent, so the root outlives anything that asks.
  weak var root: (any StoreRoot)?
  private var nextOrder = 0
  /// Filled by change observers, possibly from another thread (a copy of the state mutated
  /// elsewhere shares registrars); drained by `commit()` on the main actor.
  private let pending = Mutex<[PendingExamination]>([])
  /// Whether `pending` may hold something: set after an append, cleared before a commit drains
  /// it, so that a commit with nothing queued (most) takes no lock.
  private let mayHavePending = Atomic<Bool>(false)
  /// Changes whenever the root's reducer runs: a scoped store's state read at an older generation
  /// may be out of date; one read at this generation is current (nothing else mutates the state).
  @usableFromInline @exclusivity(unchecked) internal var stateGeneration: UInt64 = 1
  /// Whether the root's reducer is running (holding the root state for an in-place mutation).
  @usableFromInline @exclusivity(unchecked) internal var isReducing = false
  /// The scoped stores that kept the state they read since the reducer last ran (see
  /// `ScopedCore`): it lets go of them before it runs again. Weak: a store may go first.
  @usableFromInline @exclusivity(unchecked) internal var readStates: [WeakCore] = []

  init(diagnostics: StoreDiagnostics) {
    self.diagnostics = diagnostics
  }

  func makeOrder() -> Int {
    nextOrder += 1
    return nextOrder
  }

  /// The reducer starts mutating the state: every state read before is out of date, and the
  /// copies the stores keep of it are let go of, so that the reducer's in-place mutations of the
  /// collections inside it stay in place.
  @inlinable
  func reducerWillRun() {
    isReducing = true
    stateGeneration &+= 1
    if !readStates.isEmpty { releaseReadStates() }
  }

  /// Lists `core`, which keeps the state it read, for `reducerWillRun`.
  @usableFromInline
  func releaseBeforeReducing(_ core: AnyStoreCore) {
    readStates.append(WeakCore(core: core))
  }

  @usableFromInline
  func releaseReadStates() {
    for entry in readStates { entry.core?.releaseReadState() }
    readStates.removeAll(keepingCapacity: true)
  }

  @inlinable
  func reducerDidRun() {
    isReducing = false
  }

  /// Stops the program if the reducer is running: reading the state then would be a simultaneous
  /// access to what the reducer is mutating (Swift's exclusivity check would stop the program with
  /// no word about stores). `store` names the store being read.
  @inlinable
  func checkNotReducing(_ store: @autoclosure () -> String) {
    if isReducing { stopReadWhileReducing(store()) }
  }

  @usableFromInline
  func stopReadWhileReducing(_ store: String) -> Never {
    let action = root?.actionBeingReduced ?? "an action"
    observantFatalError(
      "Observant: store \(store) was read while its root store's reducer was processing \(action). "
        + "A reducer must not read its store (or any store of its tree): use the `inout` state the "
        + "reducer receives. The reducer holds that state for an in-place mutation, so reading it "
        + "through a store would be a simultaneous access.")
  }

  /// An observer callback for `target`: queues it for the next commit.
  nonisolated func enqueueHandler(for target: any Examinable) -> @Sendable () -> Void {
    let entry = PendingExamination(target)
    return { [weak self] in self?.enqueue(entry) }
  }

  /// Queues `entry` unless it is queued already: a scope's observer fires for every copy of the
  /// state written (drafts, undo snapshots), and code that works on copies for a long time without
  /// sending would otherwise grow the queue by one entry per copy until the next commit.
  private nonisolated func enqueue(_ entry: PendingExamination) {
    guard !entry.queued.set() else { return }
    pending.withLock { $0.append(entry) }
    mayHavePending.store(true, ordering: .releasing)
  }

  /// How many scopes are queued for the next commit (for tests).
  nonisolated var pendingCount: Int { pending.withLock { $0.count } }

  /// Examines every queued scope once, parents first. Returns how many stores were examined.
  @usableFromInline
  func commit() -> Int {
    guard mayHavePending.load(ordering: .acquiring) else { return 0 }
    var examined = 0
    var seen = Set<ObjectIdentifier>()
    // Examining can queue more (a replaced child re-reads its slots); loop until settled.
    while true {
      // Cleared before the batch is taken: an entry queued after it sets the flag again.
      mayHavePending.store(false, ordering: .releasing)
      let batch = pending.withLock { pending in
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
      }
      // Taken out of the queue, so queued again by their next change: cleared before they are
      // examined, so a change made meanwhile (on another thread) is queued, not lost.
      for entry in batch { entry.queued.clear() }
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
  /// Whether the entry is in the tree's queue (shared by the copies of the entry).
  let queued: QueuedFlag

  init(_ target: any Examinable) {
    self.target = target
    queued = QueuedFlag()
  }
}

/// Whether a `PendingExamination` is queued.
internal final class QueuedFlag: Sendable {
  private let flag = Atomic<Bool>(false)

  /// Sets the flag; returns whether it was set already.
  func set() -> Bool { flag.exchange(true, ordering: .acquiringAndReleasing) }
  func clear() { flag.store(false, ordering: .releasing) }
}

/// A weak reference to a store's core, in the tree's list of read states.
@usableFromInline
internal struct WeakCore {
  @usableFromInline weak var core: AnyStoreCore?

  @usableFromInline
  init(core: AnyStoreCore) { self.core = core }
}

/// A weak reference to a scope made below a store (the scope holds the store's core, not the
/// other way round).
internal struct WeakDependent {
  weak var value: (any StoreDependent)?
}
