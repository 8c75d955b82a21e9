import Synchronization
import _ObservantShims

/// One field written during the current transaction on this thread, with the reactions that
/// depend on it.
internal struct ChangeRecord {
  /// Held so its identity cannot be reused by a new object before the transaction ends.
  let core: RegistrarCore
  let key: UInt
  /// Stamp of the first write; a reaction whose last run started later read an intermediate
  /// value, so it re-runs even if the field ends where it began.
  let firstWriteStamp: UInt64
  /// Stamp of the latest write; a reaction whose last run started later has seen it.
  var lastWriteStamp: UInt64
  /// The value before the first write and after the latest, when every write could box them;
  /// only then can the field be recognized as set back.
  var original: ComparableBox?
  var latest: ComparableBox?
  var reactions = ReactionSet()

  var isReverted: Bool {
    guard let original, let latest else { return false }
    return original.isEqual(to: latest)
  }
}

/// Distinct reactions, in insertion order; the common single reaction needs no allocation.
internal struct ReactionSet {
  private(set) var first: ReactionCore?
  private(set) var rest: ContiguousArray<ReactionCore> = []
  private var ids: Set<ObjectIdentifier> = []

  mutating func insert(_ reaction: ReactionCore) {
    guard let first else {
      self.first = reaction
      return
    }
    if first === reaction { return }
    if rest.count < 32 {  // a scan of a few pointers beats hashing
      if rest.contains(where: { $0 === reaction }) { return }
    } else {
      if ids.isEmpty { ids = Set([ObjectIdentifier(first)] + rest.map(ObjectIdentifier.init)) }
      guard ids.insert(ObjectIdentifier(reaction)).inserted else { return }
    }
    rest.append(reaction)
  }

  func forEach(_ body: (ReactionCore) -> Void) {
    guard let first else { return }
    body(first)
    rest.forEach(body)
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
  /// The key is kept whole so that a `didSet` given an equal key path that is another object
  /// still finds its `willSet`.
  @exclusivity(unchecked) private var pendingDidSets: [(registrar: ObjectIdentifier, key: FieldKey)] = []
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
    pendingDidSets.append((ObjectIdentifier(registrar), key))
  }

  func popPendingDidSet(_ registrar: TrackingRegistrar, _ key: FieldKey) {
    let registrar = ObjectIdentifier(registrar)
    guard
      let position = pendingDidSets.lastIndex(where: { $0.registrar == registrar && $0.key.isSameObject(as: key) })
        ?? pendingDidSets.lastIndex(where: { $0.registrar == registrar && $0.key.isEqual(to: key) })
    else { return }
    pendingDidSets.remove(at: position)
    end()
  }

  /// Records a write to a field some reactions depend on.
  ///
  /// Values are boxed only when the field could be set back before the transaction ends: not for
  /// a write that is its own transaction (depth 1, outside a flush), the most common case.
  func recordWrite(
    _ core: RegistrarCore,
    _ key: FieldKey,
    _ values: () -> ChangeValues?,
    _ observers: ObserverSnapshot
  ) {
    let stamp = ReactionCore.nextStamp()
    let position: Int
    if let existing = changePosition(of: core, key.identity) {
      position = existing
      changes[position].lastWriteStamp = stamp
      if changes[position].original != nil {
        changes[position].latest = values()?.new
        if changes[position].latest == nil { changes[position].original = nil }
      }
    } else {
      let revertible = depth > 1 || isFlushing
      let pair = revertible ? values() : nil
      changes.append(
        ChangeRecord(
          core: core, key: key.identity, firstWriteStamp: stamp, lastWriteStamp: stamp,
          original: pair?.old, latest: pair?.new))
      position = changes.count - 1
      if !changeIndex.isEmpty || changes.count > 8 {
        if changeIndex.isEmpty {
          for (index, record) in changes.enumerated() {
            changeIndex[AccessKey(registrar: ObjectIdentifier(record.core), key: record.key)] = index
          }
        } else {
          changeIndex[AccessKey(registrar: ObjectIdentifier(core), key: key.identity)] = position
        }
      }
    }
    observers.forEach { observer in
      if let reaction = observer.reaction { changes[position].reactions.insert(reaction) }
    }
  }

  /// The record of a field written earlier in this transaction: a short scan while there are few.
  private func changePosition(of core: RegistrarCore, _ key: UInt) -> Int? {
    if !changeIndex.isEmpty { return changeIndex[AccessKey(registrar: ObjectIdentifier(core), key: key)] }
    return changes.firstIndex { $0.core === core && $0.key == key }
  }

  /// Schedules `reaction` to re-run as if something it read had just changed.
  func invalidate(_ reaction: ReactionCore) {
    invalidated.append(DirtyReaction(reaction: reaction, stamp: ReactionCore.nextStamp()))
  }

  /// The only dirty reaction, when exactly one field with exactly one reaction was written and
  /// nothing was invalidated; the record is consumed. `nil` (consuming nothing) otherwise.
  private func takeSingleDirtyReaction() -> DirtyReaction? {
    guard changes.count == 1, invalidated.isEmpty, let reaction = changes[0].reactions.first,
      changes[0].reactions.rest.isEmpty, !changes[0].isReverted
    else { return nil }
    let stamp = changes[0].lastWriteStamp
    changes.removeAll(keepingCapacity: true)
    return DirtyReaction(reaction: reaction, stamp: stamp)
  }

  /// The reactions the recorded writes (and invalidations) make dirty, in no particular order,
  /// possibly repeated; clears the records.
  private func takeDirtyReactions() -> [DirtyReaction] {
    guard !changes.isEmpty || !invalidated.isEmpty else { return [] }
    var dirty = invalidated
    invalidated.removeAll(keepingCapacity: true)
    for index in changes.indices {
      let stamp = changes[index].lastWriteStamp
      let firstWriteStamp = changes[index].firstWriteStamp
      let reverted = changes[index].isReverted
      changes[index].reactions.forEach { reaction in
        // A set-back field concerns only reactions that read it in between.
        if !reverted || reaction.lastRunStamp > firstWriteStamp {
          dirty.append(DirtyReaction(reaction: reaction, stamp: stamp))
        }
      }
    }
    changes.removeAll(keepingCapacity: true)
    if !changeIndex.isEmpty { changeIndex.removeAll(keepingCapacity: true) }
    return dirty
  }

  /// Re-runs dirty reactions in rounds until no write made during the flush dirties another.
  ///
  /// Within a round reactions run in creation order. A reaction dirtied during the round runs in
  /// the same round if it comes later in that order and has not run yet; otherwise it waits for
  /// the next round. A reaction already waiting is never queued twice, and a reaction that ran
  /// after the last change that dirtied it (because its parent ran it, say) is skipped.
  private func flush() {
    guard !changes.isEmpty || !invalidated.isEmpty else { return }
    isFlushing = true
    defer { isFlushing = false }
    var rounds = 0
    // The common case, one field written and one reaction reading it, needs no queue.
    if let single = takeSingleDirtyReaction() {
      rounds = 1
      if single.reaction.lastRunStamp < single.stamp { single.reaction.runIfNeeded(in: self) }
    }
    var pending = takeDirtyReactions()
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
    var queue = ReactionQueue(dirty)
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

/// Dirty reactions of one round in creation order, each at most once (merging stamps). Kept
/// sorted by descending `sequence` (unique per reaction), so the next to run is the last element
/// and membership is a binary search.
internal struct ReactionQueue {
  private var entries: [DirtyReaction] = []

  init() {}

  /// The queue of `dirty`, sorted once.
  init(_ dirty: [DirtyReaction]) {
    guard dirty.count > 1 else {
      entries = dirty
      return
    }
    let sorted = dirty.sorted { $0.reaction.sequence > $1.reaction.sequence }
    entries.reserveCapacity(sorted.count)
    for entry in sorted {
      if let last = entries.last, last.reaction === entry.reaction {
        entries[entries.count - 1].stamp = max(last.stamp, entry.stamp)
      } else {
        entries.append(entry)
      }
    }
  }

  /// The position of `sequence`, or where it would be inserted.
  private func search(_ sequence: UInt64) -> Int {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].reaction.sequence > sequence { low = middle + 1 } else { high = middle }
    }
    return low
  }

  func contains(_ reaction: ReactionCore) -> Bool {
    let position = search(reaction.sequence)
    return position < entries.count && entries[position].reaction === reaction
  }

  mutating func insert(_ entry: DirtyReaction) {
    let position = search(entry.reaction.sequence)
    if position < entries.count && entries[position].reaction === entry.reaction {
      entries[position].stamp = max(entries[position].stamp, entry.stamp)
    } else {
      entries.insert(entry, at: position)
    }
  }

  mutating func popFirst() -> DirtyReaction? {
    entries.popLast()
  }

  /// Every entry, in creation order.
  mutating func drain() -> [DirtyReaction] {
    defer { entries.removeAll() }
    return entries.reversed()
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
