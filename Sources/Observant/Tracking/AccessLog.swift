/// The tracked fields one run of a closure read: "which fields did this render touch".
///
/// Entries are unique (a field read many times appears once) and in the order of first read. Each
/// prints as `TypeName.field`:
///
/// ```swift
/// let (_, log) = recordAccesses { renderRow(row) }
/// print(log)  // [Row.title, Row.count]
/// ```
public struct AccessLog: Sendable, RandomAccessCollection, CustomStringConvertible {
  /// One field read by the closure. (`@unchecked Sendable` because key paths, though immutable,
  /// are not marked `Sendable` by the standard library.)
  public struct Entry: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The identity of the object or value the field belongs to (its registrar's id).
    public let objectID: InstanceIdentity
    let key: FieldKey
    let label: FieldLabel

    /// The field's key path as the accessor named it; `nil` for `@Tracked` properties, which are
    /// identified by their storage (see `fieldName`).
    public var keyPath: AnyKeyPath? { key.keyPath }

    /// The name of the type that declares the field, e.g. `Row`.
    public var typeName: String { label.typeName(for: key) }

    /// The field's name, e.g. `count`.
    public var fieldName: String { label.fieldName(for: key) }

    /// `TypeName.field`.
    public var description: String { "\(typeName).\(fieldName)" }

    public static func == (lhs: Entry, rhs: Entry) -> Bool {
      lhs.objectID == rhs.objectID && lhs.key.isEqual(to: rhs.key)
    }

    public func hash(into hasher: inout Hasher) {
      hasher.combine(objectID)
      if let keyPath = key.keyPath { hasher.combine(keyPath) } else { hasher.combine(key.identity) }
    }
  }

  /// The entries in the order of first read.
  public let entries: [Entry]

  internal init(_ accesses: some Sequence<Access>) {
    entries = accesses.map { Entry(objectID: $0.core.id, key: $0.key, label: $0.label) }
  }

  public var startIndex: Int { entries.startIndex }
  public var endIndex: Int { entries.endIndex }
  public subscript(position: Int) -> Entry { entries[position] }

  /// The entries as text, e.g. `["Row.title", "Row.count"]`.
  public var fields: [String] { entries.map(\.description) }

  /// Whether the closure read `field`, written as `TypeName.field` (e.g. `"Row.count"`).
  public func contains(_ field: String) -> Bool {
    entries.contains { $0.description == field }
  }

  /// Whether the closure read the field at `keyPath` (fields declared with `read`/`write` helpers or
  /// the registrar's key-path API; `@Tracked` fields are found by name with `contains(_:)`).
  public func contains(_ keyPath: AnyKeyPath) -> Bool {
    entries.contains { $0.keyPath == keyPath }
  }

  /// Whether the closure read the field at `keyPath` of the value whose identity is `objectID`.
  public func contains(_ keyPath: AnyKeyPath, of objectID: InstanceIdentity) -> Bool {
    entries.contains { $0.keyPath == keyPath && $0.objectID == objectID }
  }

  public var description: String { "[" + fields.joined(separator: ", ") + "]" }
}

/// Runs `body` in a new tracking scope and returns its result with the fields it read.
///
/// - Parameter propagatingToOuterScope: also record the reads in the enclosing tracking scope, if
///   any (by default an inner scope's reads stay inside it).
public func recordAccesses<Result>(
  propagatingToOuterScope: Bool = false,
  _ body: () throws -> Result
) rethrows -> (value: Result, accesses: AccessLog) {
  let recorder = AccessRecorder()
  let value = try withRecorder(recorder, propagating: propagatingToOuterScope, body)
  return (value, AccessLog(recorder.accesses))
}

/// Runs `body` with tracking suspended: its reads are recorded nowhere, not even in an enclosing
/// tracking scope or reaction.
public func withoutTracking<Result>(_ body: () throws -> Result) rethrows -> Result {
  try withRecorder(nil, propagating: false, body)
}
