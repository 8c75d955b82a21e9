/// One field written during the current transaction on this thread, with the scheduled observers
/// (reactions) that read the state it overwrote.
///
/// A record follows one lineage of the field: the state the observers read (`originalSeen`) and the
/// writes that continued from it. A write from another state of the field (another copy of the
/// value) starts a record of its own.
internal struct WriteRecord {
  /// Held so its identity cannot be reused by a new table before the transaction ends.
  let table: ObserverTable
  let key: FieldKey
  let name: FieldName
  /// The field's stamp before the first write: what the observers read (`Stamp.none` for class
  /// fields).
  let originalSeen: UInt64
  /// The field's stamp after the latest write of this lineage.
  var latestSeen: UInt64
  /// Order stamp of the first write; an observer whose last run started later read an
  /// intermediate value, so it runs even if the field ends where it began.
  let firstWriteOrder: UInt64
  /// Order stamp of the latest write; an observer whose last run started later has seen it.
  var lastWriteOrder: UInt64
  /// The value before the first write and after the latest, when every write could box them;
  /// only then can the field be recognized as set back.
  var original: KeptValue?
  var latest: KeptValue?
  /// Every write of the lineage was made on live state (class storage, or value storage inside an
  /// anchored in-place mutation whose frames all verified): only then is "set back" a fact about
  /// the state and not about some copy.
  var isLive: Bool
  /// Where the value whose field was written is stored, when every write of the lineage was made
  /// in one anchored in-place frame's storage that the frame knew (live state, see
  /// `InPlaceFrames.Record.address`): a value replaced wholesale in that storage can set the
  /// record back.
  var slot: UnsafeRawPointer?
  /// Where the value whose field the lineage's latest write changed is stored (see `_WritePlace`;
  /// 0 when not known). A continuation made anywhere else, or anywhere when either place is not
  /// known, may be a write to another copy of the state, and makes the lineage untrusted as a
  /// set-back (see `WriteRecords.record`).
  var lastPlace: UInt64
  /// The value in `slot` was replaced, inside the in-place mutation of live state, by a copy whose
  /// field holds `originalSeen` again: the field is back where the observers read it.
  var isRestored = false
  /// A reconciliation left readers to this record (see `Reconciliation.isRecorded`): they may
  /// read another copy of the field, in the state this record's writes led to, so no replacement
  /// elsewhere may set it back (`noteRestored`). (A later set-back through the accessors is
  /// refused anyway when that reconciliation followed a replacement: see
  /// `TransactionContext.noteUnverifiedReplacement`.)
  var isReliedOn = false

  /// The field is back where the observers read it. A record of one write never is (unless a
  /// replacement restored it): every write recorded with its values changed them (see
  /// `WriteRecords.record`, which checks it with internal checks on), so its values are compared
  /// only from a second write on.
  var isReverted: Bool {
    if isRestored { return true }
    guard isLive, lastWriteOrder != firstWriteOrder, let original, let latest else { return false }
    return original.isEqual(to: latest)
  }

  /// `isReverted` of the record at `record`, read field by field (a property of the record read
  /// through a pointer copies the whole record first).
  static func isReverted(at record: UnsafePointer<WriteRecord>) -> Bool {
    if record.pointee.isRestored { return true }
    guard record.pointee.isLive, record.pointee.lastWriteOrder != record.pointee.firstWriteOrder,
      let original = record.pointee.original, let latest = record.pointee.latest
    else { return false }
    return original.isEqual(to: latest)
  }
}
