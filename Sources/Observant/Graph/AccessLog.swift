/// The tracked fields one run of a closure read: "which fields did this render touch".
///
/// Entries are unique (a field read many times appears once) and in the order of first read. Each
/// prints as `TypeName.field`:
///
/// ```swift
/// let (_, log) = recordAccesses { renderRow(row) }
/// print(log)  // [Row.title, Row.count]
/// ```
public struct AccessLog: Sendable, RandomAccessCollection, CustomStringConvertible, Equatable {
  /// One field read by the closure.
  public struct Entry: Sendable, Hashable, CustomStringConvertible {
    /// The identity of the registrar the field belongs to: shared by the copies of a value.
    public let objectID: ObjectIdentifier
    let key: FieldKey
    let name: FieldName

    /// The name of the type that declares the field, e.g. `Row`.
    public var typeName: String { name.typeName }

    /// The field's name, e.g. `count`.
    public var fieldName: String { name.fieldName(for: key) }

    /// `TypeName.field`.
    public var description: String { "\(typeName).\(fieldName)" }

    public static func == (lhs: Entry, rhs: Entry) -> Bool {
      lhs.objectID == rhs.objectID && lhs.key == rhs.key
    }

    public func hash(into hasher: inout Hasher) {
      hasher.combine(objectID)
      hasher.combine(key)
    }
  }

  /// The entries in the order of first read.
  public let entries: [Entry]

  internal init(_ dependencies: some Sequence<Dependency>) {
    var entries: [Entry] = []
    var seen = Set<Entry>()
    for dependency in dependencies {
      let entry = Entry(objectID: dependency.table.ownerIdentity, key: dependency.key, name: dependency.name)
      if seen.insert(entry).inserted { entries.append(entry) }
    }
    self.entries = entries
  }

  public var startIndex: Int { entries.startIndex }
  public var endIndex: Int { entries.endIndex }
  public subscript(position: Int) -> Entry { entries[position] }

  /// The entries as text, e.g. `["Row.title", "Row.count"]`.
  public var fields: [String] { entries.map(\.description) }

  /// Whether the closure read `field`, written as `TypeName.field` (e.g. `"Row.count"`) or as the
  /// field's name alone (`"count"`).
  public func contains(_ field: String) -> Bool {
    entries.contains { $0.description == field || $0.fieldName == field }
  }

  public var description: String { "[" + fields.joined(separator: ", ") + "]" }
}
