/// Delivering a write to the dependencies it concerns.
///
/// Synchronous observers are called now (before the value is stored), unless an in-place mutation
/// is open on this thread: then they are called when it closes, so that they never overlap its
/// exclusive access. Scheduled observers are recorded in this thread's transaction (opening one
/// for the write if none is open) and run when it ends.
internal enum Notifications {
  /// Delivers a write of the field `key` of `table` that overwrites the state `seen` with the state
  /// `proposedSeen`.
  ///
  /// - Parameters:
  ///   - isLive: the write was made on live state (see `WriteRecord.isLive`).
  ///   - place: where the value whose field was written is stored, 0 if not known (see
  ///     `_WritePlace`).
  ///   - isOnlyCopy: the written value was the only copy of its state (see `WriteRecords.record`).
  ///   - values: the old and new value, boxed on demand.
  /// - Returns: the stamp the field should carry (the proposed one, or the one the observers read
  ///   when a live write sets the field back), and whether a transaction was opened (the caller
  ///   ends it with `TransactionContext.end()` once the value is stored).
  static func deliver(
    _ dependencies: inout DependencySnapshot, table: ObserverTable, key: FieldKey, name: @autoclosure () -> FieldName,
    from seen: UInt64, to proposedSeen: UInt64, isLive: Bool, canRestoreStamp: Bool = true,
    place: UInt64 = 0, isOnlyCopy: Bool = false, values: () -> WriteValues?
  ) -> (seen: UInt64, openedTransaction: Bool) {
    defer { dependencies.recycle() }
    var hasScheduled = false
    // Set when a synchronous observer was told now: an observer that only marks (a derived value)
    // schedules its readers' checks into this transaction, and what a `withTracking` scope's
    // `onChange` writes (before this write's value is stored) joins it, so that reactions run once,
    // after both writes. The caller ends it after the store.
    var openedForSynchronous = false
    dependencies.forEach { dependency in
      guard let observer = dependency.observer else { return }
      if observer.isScheduled {
        hasScheduled = true
      } else if !observer.marksDuringWrites && InPlaceFrames.isOpen {
        TransactionContext.current.deferImmediate(dependency, .unknown)
      } else {
        if !openedForSynchronous {
          TransactionContext.current.begin()
          openedForSynchronous = true
        }
        observer.dependencyChanged(dependency, .unknown)
      }
    }
    guard hasScheduled else {
      // Nobody read the state this write overwrites, but an earlier write of this transaction
      // produced it: the record of that lineage follows the field (it may yet be set back).
      let recorded = TransactionContext.withExisting { context -> UInt64? in
        guard context.hasRecord(table: table, key: key, latestSeen: seen) else { return nil }
        return context.recordWrite(
          table: table, key: key, name: name(), from: seen, to: proposedSeen, isLive: isLive,
          canRestoreStamp: canRestoreStamp, place: place, isOnlyCopy: isOnlyCopy, values: values,
          observers: EmptyCollection())
      }
      if let newSeen = recorded ?? nil { return (newSeen, openedForSynchronous) }
      return (proposedSeen, openedForSynchronous)
    }
    let newSeen = TransactionContext.withCurrent { context in
      if !openedForSynchronous { context.begin() }
      return context.recordWrite(
        table: table, key: key, name: name(), from: seen, to: proposedSeen, isLive: isLive,
        canRestoreStamp: canRestoreStamp, place: place, isOnlyCopy: isOnlyCopy, values: values,
        observers: dependencies.scheduledObservers)
    }
    return (newSeen, true)
  }

  /// Delivers a change found after the fact (a wholesale replacement, a reconciliation): every
  /// dependency in `dependencies` hears it, with no values and no set-back detection.
  static func deliverReplacement(_ dependencies: [Dependency]) {
    guard !dependencies.isEmpty else { return }
    var opened = false
    for dependency in dependencies {
      guard let observer = dependency.observer else { continue }
      if observer.marksDuringWrites {
        if !opened {
          TransactionContext.current.begin()
          opened = true
        }
        observer.dependencyChanged(dependency, .unknown)
      } else if observer.isScheduled {
        let context = TransactionContext.current
        if !opened {
          context.begin()
          opened = true
        }
        _ = context.recordWrite(
          table: dependency.table, key: dependency.key, name: dependency.name,
          from: dependency.seen.load(ordering: .relaxed), to: Stamp.next(), isLive: false, values: { nil },
          observers: CollectionOfOne(unsafeDowncast(observer, to: ScheduledObserver.self)))
      } else if InPlaceFrames.isOpen {
        TransactionContext.current.deferImmediate(dependency, .unknown)
      } else {
        observer.dependencyChanged(dependency, .unknown)
      }
    }
    if opened { TransactionContext.current.end() }
  }
}

/// Opens a transaction for the duration of an in-place mutation of a tracked field, so that
/// scheduled observers dirtied by writes nested inside it run only after it completes, when the
/// field is no longer under modification.
@usableFromInline
internal func _beginInPlaceMutation() {
  TransactionContext.withCurrent { $0.begin() }
}

/// Closes the transaction of `_beginInPlaceMutation()`, running scheduled observers if it was the
/// outermost.
@usableFromInline
internal func _endInPlaceMutation() {
  TransactionContext.withCurrent { $0.end() }
}

/// Ends the implicit transaction a write opened (see `Notifications.deliver`).
@usableFromInline
internal func _endImplicitTransaction() {
  TransactionContext.withCurrent { $0.end() }
}
