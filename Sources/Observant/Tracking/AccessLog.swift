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
    /// The field's key path, as the accessor named it.
    public let keyPath: AnyKeyPath
    /// The identity of the object or value the field belongs to (its registrar's id).
    public let objectID: InstanceIdentity
    let label: FieldLabel

    /// The name of the type that declares the field, e.g. `Row`.
    public var typeName: String { String(describing: type(of: keyPath).rootType) }

    /// The field's name, e.g. `count`.
    public var fieldName: String { label.fieldName(for: keyPath) }

    /// `TypeName.field`.
    public var description: String { "\(typeName).\(fieldName)" }

    public static func == (lhs: Entry, rhs: Entry) -> Bool {
      lhs.objectID == rhs.objectID && lhs.keyPath == rhs.keyPath
    }

    public func hash(into hasher: inout Hasher) {
      hasher.combine(objectID)
      hasher.combine(keyPath)
    }
  }

  /// The entries in the order of first read.
  public let entries: [Entry]

  internal init(_ accesses: some Sequence<Access>) {
    entries = accesses.compactMap { access in
      guard let registrar = access.registrar else { return nil }
      return Entry(keyPath: access.key.keyPath, objectID: registrar.id, label: access.label)
    }
  }

  public var startIndex: Int { entries.startIndex }
  public var endIndex: Int { entries.endIndex }
  public subscript(position: Int) -> Entry { entries[position] }

  /// The entries as text, e.g. `["Row.title", "Row.count"]`.
  public var fields: [String] { entries.map(\.description) }

  /// Whether the closure read `keyPath` (on any object of its root type).
  public func contains(_ keyPath: AnyKeyPath) -> Bool {
    entries.contains { $0.keyPath == keyPath }
  }

  /// Whether the closure read `keyPath` of the object or value whose registrar has id `objectID`.
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
