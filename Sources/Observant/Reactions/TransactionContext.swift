import Synchronization
import _ObservantShims

/// One field written during the current transaction on this thread, with the reactions that
/// depend on it.
internal struct ChangeRecord {
  /// Held so its identity cannot be reused by a new object before the transaction ends.
  let core: RegistrarCore
  let key: FieldKey
  /// Stamp of the first write; a reaction whose last run started later read an intermediate
  /// value, so it re-runs even if the field ends where it began.
  let firstWriteStamp: UInt64
  /// Stamp of the latest write; a reaction whose last run started later has seen it.
  var lastWriteStamp: UInt64
  var original: ComparableBox?
  var latest: ComparableBox?
  var reactions: ContiguousArray<ReactionCore> = []
  var reactionIDs: Set<ObjectIdentifier> = []

  var isReverted: Bool {
    guard let original, let latest else { return false }
    return original.isEqual(to: latest)
  }

  mutating func add(_ reaction: ReactionCore) {
    let id = ObjectIdentifier(reaction)
    if reactions.count < 8 {
      if reactions.contains(where: { $0 === reaction }) { return }
    } else {
      if reactionIDs.isEmpty { reactionIDs = Set(reactions.map(ObjectIdentifier.init)) }
      guard reactionIDs.insert(id).inserted else { return }
    }
    reactions.append(reaction)
  }
}

/// Per-thread transaction state: nesting depth, the fields written so far, and the flush that
/// re-runs dirty reactions when the outermost transaction ends.
///
/// Transactions are per thread. Writes on another thread form that thread's own transactions
/// and re-run their reactions there; a reaction never runs concurrently with itself (see
/// `Reaction`).
internal final class TransactionContext {
  // Thread-confined (one context per thread), so dynamic exclusivity checks buy nothing here.

  /// Nesting of explicit `transaction {}` blocks, implicit single-write transactions and
  /// reaction runs.
  @exclusivity(unchecked) private(set) var depth = 0
  @exclusivity(unchecked) private(set) var isFlushing = false
  /// The reaction whose body is running on this thread (owner of reactions created now).
  @exclusivity(unchecked) var runningReaction: ReactionCore?

  @exclusivity(unchecked) private var changes: ContiguousArray<ChangeRecord> = []
  @exclusivity(unchecked) private var changeIndex: [AccessKey: Int] = [:]
  /// Writes announced through the public `willSet(keyPath:)` awaiting their `didSet(keyPath:)`.
  @exclusivity(unchecked) private var pendingDidSets: [AccessKey] = []
  /// Reactions scheduled by `invalidate()`.
  @exclusivity(unchecked) private var invalidated: [DirtyReaction] = []
  /// A recorder for one-shot scopes, reused so they allocate none.
  @exclusivity(unchecked) private var spareRecorder: AccessRecorder?

  func takeSpareRecorder() -> AccessRecorder? {
    defer { spareRecorder = nil }
    return spareRecorder
  }

  func returnSpareRecorder(_ recorder: AccessRecorder) {
    spareRecorder = recorder
  }

  /// This thread's context, created on first use and released when the thread exits.
  static var current: TransactionContext {
    if let existing { return existing }
    let context = TransactionContext()
    observant_context_install(Unmanaged.passRetained(context).toOpaque(), releaseContext)
    return context
  }

  /// This thread's context if it has one.
  static var existing: TransactionContext? {
    observant_context_get().map { Unmanaged<TransactionContext>.fromOpaque($0).takeUnretainedValue() }
  }

  func begin() { depth += 1 }

  /// Ends one level; the outermost end re-runs the dirty reactions.
  func end() {
    precondition(depth > 0, "Observant: a transaction ended that was never begun")
    depth -= 1
    if depth == 0 && !isFlushing { flush() }
  }

  func pushPendingDidSet(_ registrar: TrackingRegistrar, _ key: FieldKey) {
    pendingDidSets.append(AccessKey(registrar: ObjectIdentifier(registrar), key: key.identity))
  }

  func popPendingDidSet(_ registrar: TrackingRegistrar, _ key: FieldKey) {
    let accessKey = AccessKey(registrar: ObjectIdentifier(registrar), key: key.identity)
    guard let position = pendingDidSets.lastIndex(of: accessKey) else { return }
    pendingDidSets.remove(at: position)
    end()
  }

  /// Records a write to a field some reactions depend on.
  func recordWrite(
    _ core: RegistrarCore,
    _ key: FieldKey,
    _ values: () -> ChangeValues?,
    _ observers: ObserverSnapshot
  ) {
    let accessKey = AccessKey(registrar: ObjectIdentifier(core), key: key.identity)
    let stamp = ReactionCore.nextStamp()
    let position: Int
    if let existing = changeIndex[accessKey] {
      position = existing
      changes[position].lastWriteStamp = stamp
      if changes[position].original != nil {
        changes[position].latest = values()?.new
        if changes[position].latest == nil { changes[position].original = nil }
      }
    } else {
      let pair = values()
      changes.append(
        ChangeRecord(
          core: core, key: key, firstWriteStamp: stamp, lastWriteStamp: stamp,
          original: pair?.old, latest: pair?.new))
      position = changes.count - 1
      changeIndex[accessKey] = position
    }
    observers.forEach { observer in
      if let reaction = observer.reaction { changes[position].add(reaction) }
    }
  }

  /// Schedules `reaction` to re-run as if something it read had just changed.
  func invalidate(_ reaction: ReactionCore) {
    invalidated.append(DirtyReaction(reaction: reaction, stamp: ReactionCore.nextStamp()))
  }

  /// The reactions the recorded writes (and invalidations) make dirty, in no particular order,
  /// possibly repeated; clears the records.
  private func takeDirtyReactions() -> [DirtyReaction] {
    guard !changes.isEmpty || !invalidated.isEmpty else { return [] }
    var dirty = invalidated
    invalidated.removeAll(keepingCapacity: true)
    for record in changes {
      let stamp = record.lastWriteStamp
      if record.isReverted {
        for reaction in record.reactions where reaction.lastRunStamp > record.firstWriteStamp {
          dirty.append(DirtyReaction(reaction: reaction, stamp: stamp))
        }
      } else {
        for reaction in record.reactions { dirty.append(DirtyReaction(reaction: reaction, stamp: stamp)) }
      }
    }
    changes.removeAll(keepingCapacity: true)
    changeIndex.removeAll(keepingCapacity: true)
    return dirty
  }

  /// Re-runs dirty reactions in rounds until no write made during the flush dirties another.
  ///
  /// Within a round reactions run in creation order. A reaction dirtied during the round runs in
  /// the same round if it comes later in that order and has not run yet; otherwise it waits for
  /// the next round. A reaction already waiting is never queued twice, and a reaction that ran
  /// after the last change that dirtied it (because its parent ran it, say) is skipped.
  private func flush() {
    var pending = takeDirtyReactions()
    guard !pending.isEmpty else { return }
    isFlushing = true
    defer { isFlushing = false }
    var rounds = 0
    while !pending.isEmpty {
      rounds += 1
      if rounds > Reaction.maximumFlushRounds {
        Reaction.report(.runawayFlush(rounds: Reaction.maximumFlushRounds, reactions: pending.map(\.reaction)))
        break
      }
      pending = runRound(pending)
    }
  }

  /// Runs one round and returns the reactions for the next.
  private func runRound(_ dirty: [DirtyReaction]) -> [DirtyReaction] {
    var queue = ReactionQueue()
    for entry in dirty { queue.insert(entry) }
    var next = ReactionQueue()
    while let entry = queue.popFirst() {
      let current = entry.reaction
      guard current.lastRunStamp < entry.stamp else { continue }  // already saw the change
      current.runIfNeeded(in: self)
      for dirtied in takeDirtyReactions() {
        if queue.contains(dirtied.reaction) || dirtied.reaction.sequence > current.sequence {
          queue.insert(dirtied)  // still to run this round: it will see the write
        } else {
          next.insert(dirtied)
        }
      }
    }
    return next.drain()
  }
}

/// A reaction to re-run, with the stamp of the latest change that made it dirty.
internal struct DirtyReaction {
  let reaction: ReactionCore
  var stamp: UInt64
}

/// Dirty reactions of one round in creation order, each at most once (merging stamps): a binary
/// min-heap on `sequence` with an index of queued reactions.
internal struct ReactionQueue {
  private var heap: [ReactionCore] = []
  private var stamps: [ObjectIdentifier: UInt64] = [:]

  func contains(_ reaction: ReactionCore) -> Bool { stamps[ObjectIdentifier(reaction)] != nil }

  mutating func insert(_ entry: DirtyReaction) {
    let id = ObjectIdentifier(entry.reaction)
    if let stamp = stamps[id] {
      stamps[id] = max(stamp, entry.stamp)
      return
    }
    stamps[id] = entry.stamp
    heap.append(entry.reaction)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].sequence < heap[parent].sequence else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  mutating func popFirst() -> DirtyReaction? {
    guard !heap.isEmpty else { return nil }
    heap.swapAt(0, heap.count - 1)
    let reaction = heap.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count && heap[left].sequence < heap[smallest].sequence { smallest = left }
      if right < heap.count && heap[right].sequence < heap[smallest].sequence { smallest = right }
      guard smallest != parent else { break }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
    let stamp = stamps.removeValue(forKey: ObjectIdentifier(reaction)) ?? 0
    return DirtyReaction(reaction: reaction, stamp: stamp)
  }

  /// Every entry, in creation order.
  mutating func drain() -> [DirtyReaction] {
    var entries: [DirtyReaction] = []
    while let entry = popFirst() { entries.append(entry) }
    return entries
  }
}

/// Opens a transaction for the duration of an in-place mutation of a tracked field, so reactions
/// dirtied by writes nested inside it run only after it completes, when the field is no longer
/// under modification.
@usableFromInline
internal func _beginInPlaceMutation() {
  TransactionContext.current.begin()
}

/// Closes the transaction of `_beginInPlaceMutation()`, re-running reactions if it was outermost.
@usableFromInline
internal func _endInPlaceMutation() {
  TransactionContext.current.end()
}

private func releaseContext(_ context: UnsafeMutableRawPointer) {
  Unmanaged<TransactionContext>.fromOpaque(context).release()
}

/// Runs `body` as one transaction: reactions that depend on what it writes re-run once, after
/// it ends, and none of them sees a half-applied change.
///
/// Transactions nest; only the end of the outermost one re-runs reactions. A field that ends the
/// transaction equal to its value at the start (set and set back) re-runs nothing.
///
/// ```swift
/// transaction {
///   model.first = "Ada"
///   model.last = "Lovelace"
/// }  // a reaction reading both fields runs once, here
/// ```
///
/// Transactions belong to the current thread; writes made on other threads meanwhile form
/// their own transactions.
public func transaction<Result>(_ body: () throws -> Result) rethrows -> Result {
  let context = TransactionContext.current
  context.begin()
  defer { context.end() }
  return try body()
}
