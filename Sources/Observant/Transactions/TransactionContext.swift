import _ObservantShims

/// Per-thread transaction state: nesting depth, the fields written so far, the observers deferred
/// by in-place mutations, and the flush that re-runs dirty reactions when the outermost
/// transaction ends.
///
/// Transactions are per thread. Writes on another thread form that thread's own transactions and
/// run their scheduled observers there (or on the observers' own isolation).
internal final class TransactionContext {
  // Thread-confined (one context per thread), so dynamic exclusivity checks buy nothing here.

  /// Nesting of explicit `transaction {}` blocks, implicit single-write transactions, in-place
  /// mutations and reaction runs.
  @exclusivity(unchecked) private(set) var depth = 0
  @exclusivity(unchecked) private(set) var isFlushing = false
  /// The scheduled observer whose body is running on this thread (owner of reactions created now).
  @exclusivity(unchecked) var runningObserver: ScheduledObserver?

  @exclusivity(unchecked) private var records: ContiguousArray<WriteRecord> = []
  @exclusivity(unchecked) private var recordIndex: [RecordKey: Int] = [:]
  /// The scheduled observers of the records, in the order the writes told them.
  @exclusivity(unchecked) private var recordObservers: ContiguousArray<RecordObserver> = []
  /// Storage the flush reuses from one transaction to the next, so that a flush whose reactions
  /// re-run with unchanged dependencies allocates nothing: the observers made dirty by the latest
  /// writes, and the queues of the current and the next round.
  @exclusivity(unchecked) private var dirtyScratch: [DirtyObserver] = []
  @exclusivity(unchecked) private var roundScratch: [DirtyObserver] = []
  @exclusivity(unchecked) private var nextRoundScratch: [DirtyObserver] = []
  /// Observers scheduled directly (`Reaction.invalidate()`, a reconciliation).
  @exclusivity(unchecked) private var invalidated: [DirtyObserver] = []
  /// Synchronous observers notified while an in-place mutation was open, called when it closes.
  @exclusivity(unchecked) private var deferredImmediate: [(Dependency, FieldChange)] = []
  /// The open in-place frames, innermost last (see `InPlaceFrames`).
  @exclusivity(unchecked) var frames: [InPlaceFrames.Record] = []
  /// A frame of this transaction found its value replaced other than through its accessors: no
  /// write of this transaction can be trusted to be the live state's.
  @exclusivity(unchecked) private var sawUnverifiedReplacement = false
  /// A recorder for one-shot scopes, reused so they allocate none.
  @exclusivity(unchecked) private var spareRecorder: Recorder?

  /// Finds a record: a value-type field's state is a stamp no other field shares, so the table and
  /// the stamp name the lineage (writes found after the fact, by a content diff, do not know the
  /// field's key); a class field has no stamps, so its key does.
  private struct RecordKey: Hashable {
    let table: ObjectIdentifier
    let key: FieldKey
    let latestSeen: UInt64

    init(table: ObserverTable, key: FieldKey, latestSeen: UInt64) {
      self.table = ObjectIdentifier(table)
      self.key = latestSeen == Stamp.none ? key : .unresolved
      self.latestSeen = latestSeen
    }
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

  func takeSpareRecorder() -> Recorder? {
    defer { spareRecorder = nil }
    return spareRecorder
  }

  func returnSpareRecorder(_ recorder: Recorder) {
    spareRecorder = recorder
  }

  // MARK: Nesting

  func begin() { depth += 1 }

  /// Ends one level; the outermost end runs the dirty scheduled observers.
  func end() {
    if depth <= 0 { observantFatalError("Observant: a transaction ended that was never begun") }
    depth -= 1
    guard depth == 0 else { return }
    // Synchronous readers of derived values, told once the writes that may have changed them are
    // stored (in-place frames are closed at depth 0).
    if !deferredImmediate.isEmpty && frames.isEmpty { runDeferredImmediateObservers() }
    if !isFlushing {
      flush()
      sawUnverifiedReplacement = false
    }
  }

  /// Whether a transaction (explicit, implicit or a flush) is open on this thread.
  var isInTransaction: Bool { depth > 0 || isFlushing }

  func noteUnverifiedReplacement() {
    sawUnverifiedReplacement = true
    for index in records.indices { records[index].isLive = false }
  }

  // MARK: Synchronous observers during in-place mutations

  func deferImmediate(_ dependency: Dependency, _ change: FieldChange) {
    deferredImmediate.append((dependency, change))
  }

  /// Calls the synchronous observers deferred while in-place mutations were open (the outermost
  /// one just closed, so they can read anything).
  func runDeferredImmediateObservers() {
    while !deferredImmediate.isEmpty {
      let batch = deferredImmediate
      deferredImmediate.empty()
      for (dependency, change) in batch { dependency.observer?.dependencyChanged(dependency, change) }
    }
  }

  // MARK: Recording writes

  /// Records a write that concerns `observers`, returning the stamp the field should carry: the
  /// stamp the observers read, if this live write sets the field back to where they read it (so
  /// that they need not run and still read the current state), otherwise `proposedSeen`.
  ///
  /// Values are boxed only when the field could be set back before the transaction ends: not for a
  /// write that is its own transaction (depth 1, outside a flush), the most common case.
  ///
  /// - Parameter canRestoreStamp: the caller can store the returned stamp (otherwise the field keeps
  ///   `proposedSeen`, and a set-back counts only if that is the stamp the observers read).
  func recordWrite(
    table: ObserverTable, key: FieldKey, name: FieldName, from seen: UInt64, to proposedSeen: UInt64,
    isLive: Bool, canRestoreStamp: Bool = true, values: () -> ChangeValues?,
    observers: some Sequence<ScheduledObserver>
  ) -> UInt64 {
    let order = RunOrder.next()
    let live = isLive && !sawUnverifiedReplacement
    var newSeen = proposedSeen
    let position: Int
    if let existing = recordPosition(table, key, latestSeen: seen) {
      position = existing
      removeFromIndex(records[position])
      records[position].lastWriteOrder = order
      records[position].isLive = records[position].isLive && live
      if records[position].original != nil {
        records[position].latest = values()?.new
        if records[position].latest == nil { records[position].original = nil }
      }
      if records[position].isReverted && seen != Stamp.none && newSeen != records[position].originalSeen {
        if canRestoreStamp {
          newSeen = records[position].originalSeen
        } else {
          // Back to the same value under another stamp the observers never read: not a set-back.
          records[position].isLive = false
        }
      }
      records[position].latestSeen = newSeen
    } else {
      let revertible = depth > 1 || isFlushing
      let pair = revertible || (RunCauses.isRecording && observers.contains { $0.recordsCauses }) ? values() : nil
      records.append(
        WriteRecord(
          table: table, key: key, name: name, originalSeen: seen, latestSeen: newSeen, firstWriteOrder: order,
          lastWriteOrder: order, original: pair?.old, latest: pair?.new, isLive: live))
      position = records.count - 1
    }
    addToIndex(records[position], at: position)
    for observer in observers { recordObservers.append(RecordObserver(record: position, observer: observer)) }
    return newSeen
  }

  /// The state the observers of a record read, if a write of this transaction left a value-type
  /// field of `table` in the state `latestSeen`.
  func originalSeen(table: ObserverTable, latestSeen: UInt64) -> UInt64? {
    guard !records.isEmpty, let position = recordPosition(table, .unresolved, latestSeen: latestSeen) else {
      return nil
    }
    return records[position].originalSeen
  }

  /// Whether a write of this transaction left the field `key` of `table` in the state `latestSeen`.
  func hasRecord(table: ObserverTable, key: FieldKey, latestSeen: UInt64) -> Bool {
    !records.isEmpty && recordPosition(table, key, latestSeen: latestSeen) != nil
  }

  private func recordPosition(_ table: ObserverTable, _ key: FieldKey, latestSeen: UInt64) -> Int? {
    if !recordIndex.isEmpty {
      return recordIndex[RecordKey(table: table, key: key, latestSeen: latestSeen)]
    }
    if latestSeen == Stamp.none {
      return records.firstIndex { $0.table === table && $0.key == key && $0.latestSeen == latestSeen }
    }
    return records.firstIndex { $0.table === table && $0.latestSeen == latestSeen }
  }

  private func addToIndex(_ record: WriteRecord, at position: Int) {
    if recordIndex.isEmpty {
      guard records.count > 8 else { return }
      for (index, record) in records.enumerated() {
        recordIndex[RecordKey(table: record.table, key: record.key, latestSeen: record.latestSeen)] = index
      }
    } else {
      recordIndex[RecordKey(table: record.table, key: record.key, latestSeen: record.latestSeen)] = position
    }
  }

  private func removeFromIndex(_ record: WriteRecord) {
    guard !recordIndex.isEmpty else { return }
    recordIndex[RecordKey(table: record.table, key: record.key, latestSeen: record.latestSeen)] = nil
  }

  /// Schedules `observer` to run as if something it read had just changed.
  func invalidate(_ observer: ScheduledObserver) {
    invalidated.append(DirtyObserver(observer: observer, order: RunOrder.next()))
  }

  /// Schedules `observer` to check, when the transaction ends, whether a computed value it read
  /// (a derived value) really changed, and to run only if one did.
  func scheduleCheck(_ observer: ScheduledObserver) {
    invalidated.append(DirtyObserver(observer: observer, order: RunOrder.next(), onlyIfInputsChanged: true))
  }

  // MARK: Flushing

  /// The only dirty observer, when exactly one record with exactly one observer exists and nothing
  /// was invalidated; the record is consumed. `nil` (consuming nothing) otherwise.
  private func takeSingleDirtyObserver() -> DirtyObserver? {
    guard records.count == 1, recordObservers.count == 1, invalidated.isEmpty else { return nil }
    // Read in place: a subscript of the array would copy the whole record.
    let (reverted, order) = records.withUnsafeBufferPointer { ($0[0].isReverted, $0[0].lastWriteOrder) }
    guard !reverted else { return nil }
    let observer = recordObservers[0].observer
    if RunCauses.isRecording { noteCause(of: records[0], for: observer) }
    records.empty()
    recordObservers.empty()
    return DirtyObserver(observer: observer, order: order)
  }

  /// Appends to `dirty` the observers the records (and invalidations) make dirty, in no particular
  /// order, possibly repeated; clears the records.
  private func takeDirtyObservers(into dirty: inout [DirtyObserver]) {
    guard !records.isEmpty || !invalidated.isEmpty else { return }
    dirty.append(contentsOf: invalidated)
    invalidated.empty()
    let recordingCauses = RunCauses.isRecording
    for entry in recordObservers {
      let record = records[entry.record]
      // A set-back field concerns only observers that read it in between.
      if !record.isReverted || entry.observer.lastRunStamp > record.firstWriteOrder {
        dirty.append(DirtyObserver(observer: entry.observer, order: record.lastWriteOrder))
        if recordingCauses { noteCause(of: record, for: entry.observer) }
      }
    }
    records.empty()
    recordObservers.empty()
    if !recordIndex.isEmpty { recordIndex.removeAll(keepingCapacity: true) }
  }

  /// Tells `observer` that `record` dirties its next run, if it keeps causes.
  private func noteCause(of record: WriteRecord, for observer: ScheduledObserver) {
    guard observer.recordsCauses else { return }
    observer.noteCause(
      RunCause(name: record.name, key: record.key, old: record.original, new: record.latest),
      table: ObjectIdentifier(record.table), key: record.key.rawValue)
  }

  /// Runs dirty scheduled observers in rounds until no write made during the flush dirties another.
  ///
  /// Within a round observers run in creation order. An observer dirtied during the round runs in
  /// the same round if it comes later in that order and has not run yet; otherwise it waits for the
  /// next round. An observer already waiting is never queued twice, and one that ran after the last
  /// change that dirtied it (because its parent ran it, say) is skipped.
  private func flush() {
    guard !records.isEmpty || !invalidated.isEmpty else { return }
    isFlushing = true
    defer { isFlushing = false }
    var rounds = 0
    // The common case, one field written and one observer reading it, needs no queue.
    if let single = takeSingleDirtyObserver() {
      rounds = 1
      run(single)
    }
    var pending = ObserverQueue(storage: takeScratch(&roundScratch))
    takeDirtyObservers(into: &pending.unsorted)
    guard let first = pending.unsorted.first else {
      roundScratch = pending.release()
      return
    }
    pending.sort()
    let limit = FlushLimits.maximumRounds(for: first.observer)
    var next = ObserverQueue(storage: takeScratch(&nextRoundScratch))
    while !pending.isEmpty {
      rounds += 1
      if rounds > limit {
        FlushLimits.reportRunaway(rounds: limit, observers: pending.observers)
        break
      }
      runRound(&pending, next: &next)
      swap(&pending, &next)
    }
    roundScratch = pending.release()
    nextRoundScratch = next.release()
  }

  /// Moves a scratch buffer out (empty, its capacity kept), leaving an empty array behind: a
  /// reentrant use finds none and makes its own.
  private func takeScratch(_ scratch: inout [DirtyObserver]) -> [DirtyObserver] {
    var taken: [DirtyObserver] = []
    swap(&taken, &scratch)
    taken.empty()
    return taken
  }

  private func run(_ entry: DirtyObserver) {
    let observer = entry.observer
    guard observer.lastRunStamp < entry.order else { return }  // already saw the change
    if observer.runsElsewhere() {
      observer.scheduleElsewhere()
    } else {
      observer.runScheduled(in: self, onlyIfInputsChanged: entry.onlyIfInputsChanged)
    }
  }

  /// Runs the round `queue` (emptied) and fills `next` with the observers for the next round.
  private func runRound(_ queue: inout ObserverQueue, next: inout ObserverQueue) {
    var dirtied = takeScratch(&dirtyScratch)
    while let entry = queue.popFirst() {
      run(entry)
      takeDirtyObservers(into: &dirtied)
      for observer in dirtied {
        if queue.contains(observer.observer) || observer.observer.sequence > entry.observer.sequence {
          queue.insert(observer)  // still to run this round: it will see the write
        } else {
          next.insert(observer)
        }
      }
      dirtied.empty()
    }
    dirtyScratch = dirtied
  }
}

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
    entries.sort { $0.observer.sequence > $1.observer.sequence }
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
  }

  var isEmpty: Bool { entries.isEmpty }

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
  }

  mutating func popFirst() -> DirtyObserver? {
    entries.popLast()
  }

  /// Gives the storage back (emptied, its capacity kept).
  mutating func release() -> [DirtyObserver] {
    entries.empty()
    return entries
  }
}

private func releaseContext(_ context: UnsafeMutableRawPointer) {
  Unmanaged<TransactionContext>.fromOpaque(context).release()
}
