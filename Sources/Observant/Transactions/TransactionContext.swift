import _ObservantShims

/// Per-thread transaction state: nesting depth, the writes so far (`WriteRecords`), the
/// synchronous observers deferred by in-place mutations, and the flush (`Flush.swift`) that
/// re-runs dirty scheduled observers when the outermost transaction ends.
///
/// Transactions are per thread. Writes on another thread form that thread's own transactions and
/// run their scheduled observers there (or on the observers' own isolation).
internal final class TransactionContext {
  // Thread-confined (one context per thread), so dynamic exclusivity checks buy nothing here.

  /// Nesting of explicit `transaction {}` blocks, implicit single-write transactions, in-place
  /// mutations and reaction runs.
  @exclusivity(unchecked) private(set) var depth = 0
  /// Whether the flush is running (set by the flush only).
  @exclusivity(unchecked) var isFlushing = false
  /// The scheduled observer whose body is running on this thread (owner of reactions created now).
  /// Unretained: set by the observer's run for its duration, and restored before it returns (a
  /// retain and a release on each side of every run cost more than the run's own bookkeeping).
  @exclusivity(unchecked) unowned(unsafe) var runningObserver: ScheduledObserver?

  /// The scheduled observer whose run opened the transaction now ending, while its flush runs:
  /// observers that hand their runs elsewhere tell from it that their own run dirtied them again
  /// (see `ReactionCore.scheduleElsewhere(onlyIfInputsChanged:)`).
  @exclusivity(unchecked) var endingRunOf: ObjectIdentifier?
  /// The writes of the current transaction (drained by the flush).
  @exclusivity(unchecked) var writes = WriteRecords()
  /// Observers scheduled directly (`Reaction.invalidate()`, a reconciliation), drained by the flush.
  @exclusivity(unchecked) var invalidated: [DirtyObserver] = []
  /// Storage the flush reuses from one transaction to the next, so that a flush whose reactions
  /// re-run with unchanged dependencies allocates nothing: the observers made dirty by the latest
  /// writes, and the queues of the current and the next round.
  @exclusivity(unchecked) var dirtyScratch: [DirtyObserver] = []
  @exclusivity(unchecked) var roundScratch: [DirtyObserver] = []
  @exclusivity(unchecked) var nextRoundScratch: [DirtyObserver] = []
  /// Synchronous observers notified while an in-place mutation was open, called when it closes.
  @exclusivity(unchecked) private var deferredImmediate: [(Dependency, FieldChange)] = []
  /// Reports of objects (or last copies of values) that went away inside the transaction, made
  /// once it has ended and its flush has run (see `runOutsideTransaction(_:)`).
  @exclusivity(unchecked) private var deferredToEnd: [() -> Void] = []
  /// The open in-place frames, innermost last (see `InPlaceFrames`).
  @exclusivity(unchecked) var frames = InPlaceFrameStack()
  /// A frame of this transaction found its value replaced other than through its accessors: no
  /// write of this transaction can be trusted to be the live state's.
  @exclusivity(unchecked) private var sawUnverifiedReplacement = false
  /// A recorder for one-shot scopes, reused so they allocate none.
  @exclusivity(unchecked) private var spareRecorder: Recorder?

  /// This thread's context, created on first use and released when the thread exits.
  static var current: TransactionContext {
    if let existing { return existing }
    return install()
  }

  /// Runs `body` with this thread's context (created on first use), without retaining it: the
  /// thread's slot keeps it alive until the thread exits. The hot paths use this: `current`
  /// hands its caller a reference of its own, a retain and a release per use.
  @inline(__always)
  static func withCurrent<Result>(_ body: (TransactionContext) throws -> Result) rethrows -> Result {
    guard let raw = observant_context_get() else { return try body(install()) }
    return try Unmanaged<TransactionContext>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
  }

  /// `withCurrent(_:)` for a thread that may have no context: `nil` if it has none.
  @inline(__always)
  static func withExisting<Result>(_ body: (TransactionContext) throws -> Result) rethrows -> Result? {
    guard let raw = observant_context_get() else { return nil }
    return try Unmanaged<TransactionContext>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
  }

  deinit {
    frames.deallocate()
  }

  @inline(never)
  private static func install() -> TransactionContext {
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

  func begin() {
    depth += 1
    if _internalChecksEnabled { checkAfterMutation() }
  }

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
      if !deferredToEnd.isEmpty { runDeferredToEnd() }
    }
    if _internalChecksEnabled { checkAfterMutation() }
  }

  /// Runs `report` now if no transaction is open on this thread, otherwise once it has ended and
  /// its flush has run. For what a deinit must report: it may run while a write is under way, in
  /// the middle of a setter, a dictionary's subscript, a reducer, or the transaction's own
  /// bookkeeping (the flush releasing the values it kept), where neither user code nor the write
  /// records may be entered.
  static func runOutsideTransaction(_ report: @escaping () -> Void) {
    guard let context = existing, context.isInTransaction else { return report() }
    context.deferredToEnd.append(report)
  }

  /// Runs the reports deferred to the end of the transaction, and those they defer in turn (a
  /// report may write, and that write's transaction ends before the next report).
  private func runDeferredToEnd() {
    while !deferredToEnd.isEmpty {
      var batch: [() -> Void] = []
      swap(&batch, &deferredToEnd)
      for report in batch { report() }
    }
  }

  /// Whether a transaction (explicit, implicit or a flush) is open on this thread.
  var isInTransaction: Bool { depth > 0 || isFlushing }

  func noteUnverifiedReplacement() {
    sawUnverifiedReplacement = true
    writes.markAllNotLive()
    if _internalChecksEnabled { checkAfterMutation() }
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
  /// that they need not run and still read the current state), otherwise `proposedSeen` (see
  /// `WriteRecords.record`).
  ///
  /// Values are boxed only when the field could be set back before the transaction ends: not for a
  /// write that is its own transaction (depth 1, outside a flush), the most common case.
  ///
  /// - Parameters:
  ///   - canRestoreStamp: the caller can store the returned stamp (otherwise the field keeps
  ///     `proposedSeen`, and a set-back counts only if that is the stamp the observers read).
  ///   - place: where the value whose field was written is stored, 0 if not known (see
  ///     `_WritePlace`).
  ///   - isOnlyCopy: the written value was the only copy of its state (see `WriteRecords.record`).
  func recordWrite(
    table: ObserverTable, key: FieldKey, name: FieldName, from seen: UInt64, to proposedSeen: UInt64,
    isLive: Bool, canRestoreStamp: Bool = true, place: UInt64 = 0, isOnlyCopy: Bool = false,
    values: () -> WriteValues?, observers: some Sequence<ScheduledObserver>
  ) -> UInt64 {
    let newSeen = writes.record(
      table: table, key: key, name: name, from: seen, to: proposedSeen, isLive: isLive && !sawUnverifiedReplacement,
      revertible: depth > 1 || isFlushing, canRestoreStamp: canRestoreStamp, slot: innermostSlot(of: table),
      place: place, isOnlyCopy: isOnlyCopy, values: values, observers: observers)
    if _internalChecksEnabled { checkAfterMutation() }
    #if DEBUG
    if let hook = _afterRecordingWrite { hook() }
    #endif
    return newSeen
  }

  #if DEBUG
  /// Tests only: called right after a write made on this context's thread is recorded, before its
  /// value is stored (debug builds), to open the window between the two on purpose. Per thread,
  /// like the context: writes that other tests make on other threads meanwhile neither call it nor
  /// race with its setting.
  @exclusivity(unchecked) var _afterRecordingWrite: (() -> Void)?
  #endif

  /// The storage of the innermost in-place frame if it is anchored (live state) and its value is
  /// the one with the observer table `table` (see `WriteRecord.slot`).
  private func innermostSlot(of table: ObserverTable) -> UnsafeRawPointer? {
    guard let frame = frames.last, frame.anchored, let address = frame.address, let registrar = frame.registrar,
      UInt(bitPattern: registrar) == UInt(bitPattern: table.ownerIdentity)
    else { return nil }
    return address
  }

  /// A value stored at `storage` was replaced wholesale inside an in-place mutation of live state:
  /// sets back the records of writes made there whose field the new value holds in the state the
  /// observers read (see `WriteRecords.noteRestored`).
  func noteRestored(in storage: Range<UnsafeRawPointer>, holds: (ObserverTable, UInt64) -> Bool) {
    writes.noteRestored(in: storage, holds: holds)
    if _internalChecksEnabled { checkAfterMutation() }
  }

  /// Marks the record that left a value-type field of `table` in the state `latestSeen` as relied
  /// on (see `WriteRecord.isReliedOn`).
  func markReliedOn(table: ObserverTable, latestSeen: UInt64) {
    writes.markReliedOn(table: table, latestSeen: latestSeen)
  }

  /// The state the observers of a record read, if a write of this transaction left a value-type
  /// field of `table` in the state `latestSeen`.
  func originalSeen(table: ObserverTable, latestSeen: UInt64) -> UInt64? {
    writes.originalSeen(table: table, latestSeen: latestSeen)
  }

  /// Whether a write of this transaction left the field `key` of `table` in the state `latestSeen`.
  func hasRecord(table: ObserverTable, key: FieldKey, latestSeen: UInt64) -> Bool {
    writes.contains(table: table, key: key, latestSeen: latestSeen)
  }

  // MARK: Invariants

  /// Checks the context in full: the nesting depth, the open in-place frames against the
  /// thread-local frame depth, and the write records with their index (`WriteRecords`). With
  /// internal checks on, after every mutation; tests call it directly.
  ///
  /// - Complexity: O(*n*) in the write records.
  func _checkInvariants() {
    checkNesting()
    writes._checkInvariants()
  }

  /// With internal checks on, after a mutation: in full while the records are few, otherwise the
  /// nesting (each write record checks itself as it is recorded).
  func checkAfterMutation() {
    if writes.count <= _fullCheckLimit { _checkInvariants() } else { checkNesting() }
  }

  private func checkNesting() {
    if depth < 0 { _invariantViolated("transaction depth \(depth)") }
    if UInt64(frames.count) != observant_frame_depth() {
      _invariantViolated("\(frames.count) in-place frames open, the thread counts \(observant_frame_depth())")
    }
    if self !== TransactionContext.existing { _invariantViolated("a transaction context used off its thread") }
  }
}

private func releaseContext(_ context: UnsafeMutableRawPointer) {
  Unmanaged<TransactionContext>.fromOpaque(context).release()
}
