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
    let position: Int
    if let existing = changeIndex[accessKey] {
      position = existing
      if changes[position].original != nil {
        changes[position].latest = values()?.new
        if changes[position].latest == nil { changes[position].original = nil }
      }
    } else {
      let pair = values()
      changes.append(
        ChangeRecord(
          core: core, key: key, firstWriteStamp: ReactionCore.nextStamp(),
          original: pair?.old, latest: pair?.new))
      position = changes.count - 1
      changeIndex[accessKey] = position
    }
    observers.forEach { observer in
      if let reaction = observer.reaction { changes[position].add(reaction) }
    }
  }

  /// The reactions the recorded writes make dirty, in no particular order, possibly repeated;
  /// clears the records.
  private func takeDirtyReactions() -> [ReactionCore] {
    guard !changes.isEmpty else { return [] }
    var dirty: [ReactionCore] = []
    for record in changes {
      if record.isReverted {
        dirty.append(contentsOf: record.reactions.lazy.filter { $0.lastRunStamp > record.firstWriteStamp })
      } else {
        dirty.append(contentsOf: record.reactions)
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
  /// the next round. A reaction already waiting is never queued twice.
  private func flush() {
    var pending = takeDirtyReactions()
    guard !pending.isEmpty else { return }
    isFlushing = true
    defer { isFlushing = false }
    var rounds = 0
    while !pending.isEmpty {
      rounds += 1
      if rounds > Reaction.maximumFlushRounds {
        Reaction.report(.runawayFlush(rounds: Reaction.maximumFlushRounds, reactions: pending))
        break
      }
      pending = runRound(pending)
    }
  }

  /// Runs one round and returns the reactions for the next.
  private func runRound(_ dirty: [ReactionCore]) -> [ReactionCore] {
    var queue: [ReactionCore] = []
    var queued = Set<ObjectIdentifier>()
    for reaction in dirty where queued.insert(ObjectIdentifier(reaction)).inserted {
      queue.append(reaction)
    }
    queue.sort { $0.sequence < $1.sequence }
    var next: [ReactionCore] = []
    var nextIDs = Set<ObjectIdentifier>()
    var position = 0
    while position < queue.count {
      let reaction = queue[position]
      position += 1
      reaction.runIfNeeded(in: self)
      for dirtied in takeDirtyReactions() {
        let id = ObjectIdentifier(dirtied)
        if dirtied.sequence > reaction.sequence && !queued.contains(id) {
          queued.insert(id)
          let slot = queue[position...].firstIndex { $0.sequence > dirtied.sequence } ?? queue.endIndex
          queue.insert(dirtied, at: slot)
        } else if nextIDs.insert(id).inserted {
          next.append(dirtied)
        }
      }
    }
    return next
  }
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
