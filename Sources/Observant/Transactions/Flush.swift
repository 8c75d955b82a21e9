// The flush: when the outermost transaction on a thread ends, the scheduled observers its writes
// (and invalidations) made dirty run, in rounds, in creation order.

extension TransactionContext {
  /// Schedules `observer` to run as if something it read had just changed.
  func invalidate(_ observer: ScheduledObserver) {
    invalidated.append(DirtyObserver(observer: observer, order: RunOrder.next()))
  }

  /// Schedules `observer` to check, when the transaction ends, whether a computed value it read
  /// (a derived value) really changed, and to run only if one did.
  func scheduleCheck(_ observer: ScheduledObserver) {
    invalidated.append(DirtyObserver(observer: observer, order: RunOrder.next(), onlyIfInputsChanged: true))
  }

  /// The only dirty observer, when exactly one record with exactly one observer exists and nothing
  /// was invalidated; the record is consumed. `nil` (consuming nothing) otherwise.
  private func takeSingleDirtyObserver() -> DirtyObserver? {
    guard invalidated.isEmpty else { return nil }
    let single = writes.takeSingleDirtyObserver()
    if _internalChecksEnabled { checkAfterMutation() }
    return single
  }

  /// Appends to `dirty` the observers the records (and invalidations) make dirty, in no particular
  /// order, possibly repeated; clears the records.
  private func takeDirtyObservers(into dirty: inout [DirtyObserver]) {
    guard !writes.isEmpty || !invalidated.isEmpty else { return }
    dirty.append(contentsOf: invalidated)
    invalidated.empty()
    writes.takeDirtyObservers(into: &dirty)
    if _internalChecksEnabled { checkAfterMutation() }
  }

  /// Runs dirty scheduled observers in rounds until no write made during the flush dirties another.
  ///
  /// Within a round observers run in creation order. An observer dirtied during the round runs in
  /// the same round if it comes later in that order and has not run yet; otherwise it waits for the
  /// next round. An observer already waiting is never queued twice, and one that ran after the last
  /// change that dirtied it (because its parent ran it, say) is skipped.
  func flush() {
    guard !writes.isEmpty || !invalidated.isEmpty else { return }
    isFlushing = true
    defer { isFlushing = false }
    var rounds = 0
    // The common case, one field written and one observer reading it, needs no queue.
    if let single = takeSingleDirtyObserver() {
      rounds = 1
      run(single)
      // Its run wrote nothing that dirtied another (the common case): no queue to set up.
      if writes.isEmpty && invalidated.isEmpty { return }
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
      observer.scheduleElsewhere(onlyIfInputsChanged: entry.onlyIfInputsChanged)
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
