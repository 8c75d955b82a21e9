import Synchronization

/// One reason a reaction (or a render body) re-ran: a field write that dirtied it, a derived
/// value that changed, or an explicit invalidation.
///
/// Fields are named as an `AccessLog` names them; values appear where they print (their type is
/// `CustomStringConvertible`) and were known:
///
/// ```swift
/// let label = Reaction("Label", recordingCauses: true) { print(row.count) }
/// row.count = 1
/// label.lastRunCauses.map(\.description)   // ["Row.count 0 -> 1"]
/// ```
///
/// Several writes of one field before the run make one cause, from the value the reaction read to
/// the latest one.
public struct RunCause: Sendable, Hashable, CustomStringConvertible {
  /// What kind of event dirtied the run.
  public enum Kind: Sendable, Hashable {
    /// A write of a tracked field (or a change of a derived value) the previous run read.
    case change
    /// `Reaction.invalidate()` (a render tree passing a changed input to a child, say).
    case invalidation
  }

  /// What kind of event this is.
  public let kind: Kind
  /// The field, as `TypeName.field` (`Row.count`), or `Derived.name` for a derived value; empty for
  /// an invalidation.
  public let field: String
  /// The value the previous run could have read, if known and printable.
  public let oldValue: String?
  /// The value after the change, if known and printable.
  public let newValue: String?

  /// Creates a cause (for tests that compare whole causes).
  public init(kind: Kind = .change, field: String, oldValue: String? = nil, newValue: String? = nil) {
    self.kind = kind
    self.field = field
    self.oldValue = oldValue
    self.newValue = newValue
  }

  /// An explicit invalidation.
  public static var invalidation: RunCause { RunCause(kind: .invalidation, field: "") }

  /// `Row.count 0 -> 1`, `Row.count` when the values are unknown, `invalidated`.
  public var description: String {
    switch kind {
    case .invalidation:
      return "invalidated"
    case .change:
      guard let newValue else { return field }
      return "\(field) \(oldValue ?? "?") -> \(newValue)"
    }
  }
}

extension RunCause {
  /// A write of the field `key` named `name`, with the boxed values if known.
  init(name: FieldName, key: FieldKey, old: ComparableBox?, new: ComparableBox?) {
    self.init(
      kind: .change, field: "\(name.typeName).\(name.fieldName(for: key))",
      oldValue: old.flatMap(Self.printed), newValue: new.flatMap(Self.printed))
  }

  /// A boxed value's text, if its type prints (`CustomStringConvertible`).
  static func printed(_ box: ComparableBox) -> String? {
    (box as? any PrintableBox)?.printedValue
  }
}

/// A box that can print its value when the value's type is `CustomStringConvertible` (the boxes
/// of the identity layer, `ValueBox`, conform).
internal protocol PrintableBox {
  var printedValue: String? { get }
}

/// The process-wide switch in front of cause recording: the number of observers recording the
/// causes of their runs. While it is zero, flushes and writes ask nothing more (one relaxed load).
internal enum RunCauses {
  private static let recordingObservers = Atomic<Int>(0)

  /// Whether any observer records causes.
  @inline(__always)
  static var isRecording: Bool { recordingObservers.load(ordering: .relaxed) != 0 }

  static func observerStartedRecording() { recordingObservers.add(1, ordering: .relaxed) }
  static func observerStoppedRecording() { recordingObservers.subtract(1, ordering: .relaxed) }
}

/// The causes noted for an observer's next run, one per change of a field (merged: the oldest old
/// value, the latest new value).
///
/// A cause merges into an earlier one of the same field of the same object (or lineage of values)
/// when it continues it (its old value is the earlier one's new value: writes made one after the
/// other, possibly in several transactions), when it repeats it (a copy edited, then assigned
/// back: the copy's write and the assignment are one change, which reaches the log once by its
/// field key and once as a change of the state found by comparing contents), or when the values
/// are not known. Otherwise it is another change of the field: another copy of the value, written
/// in the same transaction, say. It is listed on its own rather than passed off as the field's new
/// value.
internal struct CauseLog {
  private struct Key: Hashable {
    let table: ObjectIdentifier?
    /// The field's name (`Type.field`): a change found by comparing contents carries no field key.
    let field: String
  }

  private var keys: [Key] = []
  private(set) var causes: [RunCause] = []

  var isEmpty: Bool { causes.isEmpty }

  /// Notes a cause about a field of `table` (`nil` for invalidations).
  mutating func note(_ cause: RunCause, table: ObjectIdentifier?) {
    let entry = Key(table: table, field: cause.field)
    for position in keys.indices where keys[position] == entry {
      let earlier = causes[position]
      let continues = earlier.newValue == nil || cause.oldValue == nil || cause.oldValue == earlier.newValue
      let repeats = cause.oldValue == earlier.oldValue && cause.newValue == earlier.newValue
      guard continues || repeats else { continue }
      causes[position] = RunCause(
        kind: cause.kind, field: cause.field, oldValue: earlier.oldValue,
        newValue: cause.newValue ?? earlier.newValue)
      return
    }
    keys.append(entry)
    causes.append(cause)
  }

  /// Returns the causes and empties the log.
  mutating func take() -> [RunCause] {
    defer {
      keys.removeAll()
      causes.removeAll()
    }
    return causes
  }
}
