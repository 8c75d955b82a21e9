/// The writes of the current transaction on one thread: a record per lineage of each field written
/// (see `WriteRecord`), the scheduled observers each write told, and, once there are more records
/// than a scan should cover, an index of the records by field and state.
///
/// Owned by the thread's `TransactionContext`, which adds what only it knows (whether a write is
/// live and may still be set back) and drains the records into its flush.
internal struct WriteRecords {
  /// The records, in the order of their first write.
  private var records: ContiguousArray<WriteRecord> = []
  /// Record positions by field and latest state; empty while there are at most `scanLimit`
  /// records (a scan is cheaper), and then holds every record.
  private var index: [RecordKey: Int] = [:]
  /// Whether two records ever shared a key in this transaction (two lineages of one field that
  /// ended in the same state, see `noteConvergence(at:)`): removing one from the index must then
  /// leave the other's entry.
  private var keysCollided = false
  /// The scheduled observers of the records, in the order the writes told them.
  private var observers: ContiguousArray<RecordObserver> = []

  /// Up to this many records a lookup scans them; beyond, they are indexed.
  private static var scanLimit: Int { 8 }

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

    init(_ record: WriteRecord) {
      self.init(table: record.table, key: record.key, latestSeen: record.latestSeen)
    }
  }

  var isEmpty: Bool { records.isEmpty }

  /// The number of records.
  var count: Int { records.count }

  // MARK: Recording

  /// Records a write that concerns `observers`, returning the stamp the field should carry: the
  /// stamp the observers read, if this live write sets the field back to where they read it (so
  /// that they need not run and still read the current state), otherwise `proposedSeen`.
  ///
  /// - Parameters:
  ///   - isLive: the write was made on live state, as far as the transaction can tell.
  ///   - revertible: the field could still be set back before the transaction ends: only then are
  ///     the values boxed (or when an observer records causes).
  ///   - canRestoreStamp: the caller can store the returned stamp (otherwise the field keeps
  ///     `proposedSeen`, and a set-back counts only if that is the stamp the observers read).
  ///   - slot: the live storage the write was made in, if known (see `WriteRecord.slot`).
  ///   - place: where the value whose field was written is stored, 0 if not known (see
  ///     `WriteRecord.lastPlace`).
  ///   - isOnlyCopy: the written value was the only copy of its state when written (its registrar
  ///     was referenced by it alone): no other copy can hold the lineage, wherever it was written.
  mutating func record(
    table: ObserverTable, key: FieldKey, name: FieldName, from seen: UInt64, to proposedSeen: UInt64,
    isLive live: Bool, revertible: Bool, canRestoreStamp: Bool, slot: UnsafeRawPointer?, place: UInt64,
    isOnlyCopy: Bool, values: () -> WriteValues?, observers: some Sequence<ScheduledObserver>
  ) -> UInt64 {
    let order = RunOrder.next()
    var newSeen = proposedSeen
    let position: Int
    if let existing = recordPosition(table, key, latestSeen: seen) {
      position = existing
      if !index.isEmpty { removeFromIndex(records[position], at: position) }
      records[position].lastWriteOrder = order
      records[position].isLive = records[position].isLive && live
      // The field moves on from any state a replacement restored it to (see `noteRestored`).
      records[position].isRestored = false
      // A value-type field's state may be held by several copies, in several live places (`b = a`
      // after a write to `a.x`, an element copied into another collection): a write from that
      // state made in another place than the lineage's previous write, or where either place is
      // not known (a change found by comparing copies whose destination is not known), may be to
      // another copy, and a set-back there says nothing about the first place. A write to the
      // only copy there is cannot be.
      if seen != Stamp.none, !isOnlyCopy, place == 0 || records[position].lastPlace != place {
        records[position].isLive = false
      }
      records[position].lastPlace = place
      if records[position].slot != slot { records[position].slot = nil }
      if records[position].original != nil {
        records[position].latest = values()?.new
        if records[position].latest == nil { records[position].original = nil }
      }
      if records[position].isReverted && seen != Stamp.none && newSeen != records[position].originalSeen {
        if canRestoreStamp && !isHeldByAnotherRecord(table, records[position].originalSeen, besides: position) {
          newSeen = records[position].originalSeen
        } else {
          // Back to the same value under another stamp the observers never read (or the stamp is
          // where another lineage from the same state already went back: two copies of one
          // state, both set back): not a set-back.
          records[position].isLive = false
        }
      }
      records[position].latestSeen = newSeen
    } else {
      let pair = revertible || (RunCauses.isRecording && observers.contains { $0.recordsCauses }) ? values() : nil
      if _internalChecksEnabled, let pair, pair.old.isEqual(to: pair.new) {
        _invariantViolated(
          "a write recorded with values that hold the same thing (a record of one write is never set back)")
      }
      records.append(
        WriteRecord(
          table: table, key: key, name: name, originalSeen: seen, latestSeen: newSeen, firstWriteOrder: order,
          lastWriteOrder: order, original: pair?.old, latest: pair?.new, isLive: live, slot: slot, lastPlace: place))
      position = records.count - 1
    }
    // The record is passed by value: only when the index is in use (a copy retains what it holds).
    if !index.isEmpty || records.count > Self.scanLimit { addToIndex(records[position], at: position) }
    if newSeen != Stamp.none { noteConvergence(at: position) }
    for observer in observers {
      // A field written over and over in one transaction (a store's state, action after action)
      // tells the same observers each time: one entry is enough (the flush merges repeats anyway).
      if let last = self.observers.last, last.record == position, last.observer === observer { continue }
      self.observers.append(RecordObserver(record: position, observer: observer))
    }
    if _internalChecksEnabled { checkRecord(at: position) }
    return newSeen
  }

  /// Marks every record as not live: the transaction found a value replaced other than through its
  /// accessors, so none of its writes can be trusted to be the live state's.
  mutating func markAllNotLive() {
    for position in records.indices where !records[position].isRestored { records[position].isLive = false }
  }

  /// A value stored at `storage` was replaced wholesale inside an in-place mutation of live state:
  /// every record of a write made there (see `WriteRecord.slot`) whose field the new value holds in
  /// the state the observers read (`holds(table, originalSeen)`) is set back, unless a
  /// reconciliation relied on it.
  mutating func noteRestored(in storage: Range<UnsafeRawPointer>, holds: (ObserverTable, UInt64) -> Bool) {
    for position in records.indices {
      let record = records[position]
      guard !record.isRestored, !record.isReliedOn, record.originalSeen != Stamp.none,
        record.latestSeen != record.originalSeen, let slot = record.slot, storage.contains(slot),
        holds(record.table, record.originalSeen),
        !isHeldByAnotherRecord(record.table, record.originalSeen, besides: position)
      else { continue }
      removeFromIndex(record, at: position)
      records[position].isRestored = true
      records[position].latestSeen = record.originalSeen
      records[position].latest = record.original
      addToIndex(records[position], at: position)
    }
  }

  /// Marks the record that left a value-type field of `table` in the state `latestSeen` as relied
  /// on (see `WriteRecord.isReliedOn`).
  mutating func markReliedOn(table: ObserverTable, latestSeen: UInt64) {
    guard let position = recordPosition(table, .unresolved, latestSeen: latestSeen) else { return }
    records[position].isReliedOn = true
  }

  // MARK: Finding

  /// The state the observers of a record read, if a write of this transaction left a value-type
  /// field of `table` in the state `latestSeen`.
  func originalSeen(table: ObserverTable, latestSeen: UInt64) -> UInt64? {
    guard !records.isEmpty, let position = recordPosition(table, .unresolved, latestSeen: latestSeen) else {
      return nil
    }
    return records[position].originalSeen
  }

  /// Whether a write of this transaction left the field `key` of `table` in the state `latestSeen`.
  func contains(table: ObserverTable, key: FieldKey, latestSeen: UInt64) -> Bool {
    !records.isEmpty && recordPosition(table, key, latestSeen: latestSeen) != nil
  }

  /// Whether a record other than the one at `position` left a value-type field of `table` in the
  /// state `seen`: two lineages of one field cannot end in the same state (the records are found
  /// by their latest state), so the one at `position` must not be set back there.
  private func isHeldByAnotherRecord(_ table: ObserverTable, _ seen: UInt64, besides position: Int) -> Bool {
    if !index.isEmpty {
      guard let found = index[RecordKey(table: table, key: .unresolved, latestSeen: seen)] else { return false }
      return found != position
    }
    return records.indices.contains { $0 != position && records[$0].table === table && records[$0].latestSeen == seen }
  }

  private func recordPosition(_ table: ObserverTable, _ key: FieldKey, latestSeen: UInt64) -> Int? {
    if !index.isEmpty {
      return index[RecordKey(table: table, key: key, latestSeen: latestSeen)]
    }
    if latestSeen == Stamp.none {
      return records.firstIndex { $0.table === table && $0.key == key && $0.latestSeen == latestSeen }
    }
    return records.firstIndex { $0.table === table && $0.latestSeen == latestSeen }
  }

  private mutating func addToIndex(_ record: WriteRecord, at position: Int) {
    if index.isEmpty {
      guard records.count > Self.scanLimit else { return }
      // The first record of a key keeps the entry (see `keysCollided`).
      for (position, record) in records.enumerated() where index[RecordKey(record)] == nil {
        index[RecordKey(record)] = position
      }
    } else if index[RecordKey(record)] == nil {
      index[RecordKey(record)] = position
    }
  }

  private mutating func removeFromIndex(_ record: WriteRecord, at position: Int) {
    guard !index.isEmpty else { return }
    let key = RecordKey(record)
    guard index[key] == position else { return }
    // Another record with the same key takes the entry over.
    index[key] = keysCollided ? records.indices.first { $0 != position && RecordKey(records[$0]) == key } : nil
  }

  /// Two lineages of one value-type field that end in the same state (copies of one state both
  /// written, one set back or assigned another's state): which of them a later write from that
  /// state continues cannot be told, so neither can be trusted as set back any more.
  private mutating func noteConvergence(at position: Int) {
    guard records.count > 1 else { return }
    if index.isEmpty {
      // At most `scanLimit` records: every other record with this one's key, compared in place (a
      // subscript of the array would copy the whole record).
      var converged = false
      for other in records.indices where other != position {
        let sameKey = records.withUnsafeBufferPointer {
          $0[other].table === $0[position].table && $0[other].latestSeen == $0[position].latestSeen
        }
        guard sameKey else { continue }
        converged = true
        if !records[other].isRestored { records[other].isLive = false }
      }
      guard converged else { return }
    } else {
      // The record that holds the key's entry, if another (a later one sharing it met this one).
      guard let holder = index[RecordKey(records[position])], holder != position else { return }
      if !records[holder].isRestored { records[holder].isLive = false }
    }
    keysCollided = true
    records[position].isLive = false
  }

  // MARK: Draining into the flush

  /// The only dirty observer, when exactly one record with exactly one observer exists; the record
  /// is consumed. `nil` (consuming nothing) otherwise.
  mutating func takeSingleDirtyObserver() -> DirtyObserver? {
    guard records.count == 1, observers.count == 1 else { return nil }
    // Read in place: a subscript of the array would copy the whole record.
    let (reverted, order) = records.withUnsafeBufferPointer {
      (WriteRecord.isReverted(at: $0.baseAddress!), $0[0].lastWriteOrder)
    }
    guard !reverted else { return nil }
    let observer = observers[0].observer
    if RunCauses.isRecording { Self.noteCause(of: records[0], for: observer) }
    records.empty()
    observers.empty()
    return DirtyObserver(observer: observer, order: order)
  }

  /// Appends to `dirty` the observers the records make dirty, in no particular order, possibly
  /// repeated; clears the records.
  mutating func takeDirtyObservers(into dirty: inout [DirtyObserver]) {
    let recordingCauses = RunCauses.isRecording
    for entry in observers {
      let record = records[entry.record]
      // A set-back field concerns only observers that read it in between.
      if !record.isReverted || entry.observer.lastRunStamp > record.firstWriteOrder {
        dirty.append(DirtyObserver(observer: entry.observer, order: record.lastWriteOrder))
        if recordingCauses { Self.noteCause(of: record, for: entry.observer) }
      }
    }
    records.empty()
    observers.empty()
    if !index.isEmpty { index.removeAll(keepingCapacity: true) }
    keysCollided = false
  }

  /// Tells `observer` that `record` dirties its next run, if it keeps causes.
  private static func noteCause(of record: WriteRecord, for observer: ScheduledObserver) {
    guard observer.recordsCauses else { return }
    observer.noteCause(
      RunCause(name: record.name, key: record.key, old: record.original?.box, new: record.latest?.box),
      table: ObjectIdentifier(record.table))
  }

  // MARK: Invariants

  /// What recording a write can have changed: the record at `position` is found where it is.
  private func checkRecord(at position: Int) {
    let found = recordPosition(records[position].table, records[position].key, latestSeen: records[position].latestSeen)
    guard let found, RecordKey(records[found]) == RecordKey(records[position]) else {
      _invariantViolated("the write record just recorded cannot be found")
    }
  }

  /// Checks the index against the records, and the observers' record positions (with internal
  /// checks on, after every change; tests call it directly).
  func _checkInvariants() {
    if index.isEmpty != (records.count <= Self.scanLimit) {
      _invariantViolated("\(records.count) write records, index of \(index.count) (indexed beyond \(Self.scanLimit))")
    }
    if !index.isEmpty {
      for (key, position) in index {
        guard records.indices.contains(position) else {
          _invariantViolated("the record index points past the records (\(position) of \(records.count))")
        }
        if RecordKey(records[position]) != key { _invariantViolated("the record index names another field or state") }
      }
      for (position, record) in records.enumerated() where index[RecordKey(record)] == nil {
        _invariantViolated("write record \(position) is missing from the index")
      }
    }
    for entry in observers where !records.indices.contains(entry.record) {
      _invariantViolated("an observer entry names record \(entry.record) of \(records.count)")
    }
  }
}

/// A scheduled observer that read the state a record's field overwrote: one entry per write and
/// observer, kept by the transaction in one array for all records (possibly repeated; the flush
/// merges repeats), so recording a write allocates nothing once the array has grown.
internal struct RecordObserver {
  /// The record's position in the transaction's records.
  let record: Int
  let observer: ScheduledObserver
}
