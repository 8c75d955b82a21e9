import Observant

/// The stored properties of a value, as fingerprints, to tell which of them an operation changed.
///
/// A fingerprint is the value's stored parts, recursively, with an object standing for its
/// identity: two instances of a class that print alike still differ, and a value whose description
/// hides its content (`"<redacted>"`) is told by its fields. The registrar is left out, since every
/// write changes its stamp.
struct StorageSnapshot {
  private let storage: [(label: String, text: String, stamp: UInt64?)]

  init(of value: Any) {
    storage = Self.storedProperties(of: value).map {
      ($0.label, Self.fingerprint(of: $0.value), Self.stamp(of: $0.value))
    }
  }

  /// The labels of the stored properties, in declaration order.
  var labels: [String] { storage.map(\.label) }

  /// The labels of the stored properties that differ in `value`, in declaration order.
  func changedLabels(in value: Any) -> [String] { changedLabels(in: StorageSnapshot(of: value)) }

  /// The labels of the stored properties that differ in `later`, in declaration order.
  func changedLabels(in later: StorageSnapshot) -> [String] {
    zip(storage, later.storage).compactMap { before, after in before.text == after.text ? nil : before.label }
  }

  /// Whether the `StateField` stored at `label` carries the same stamp in `later`: its value was
  /// stored without `registrar.write`, which gives a changed field a new stamp.
  func keptStamp(of label: String, in later: StorageSnapshot) -> Bool {
    guard let before = storage.first(where: { $0.label == label })?.stamp else { return false }
    return later.storage.first(where: { $0.label == label })?.stamp == before
  }

  /// `value`'s stored parts as text, an object standing for its identity.
  static func fingerprint(of value: Any, depth: Int = 0) -> String {
    if type(of: value) is AnyClass { return "object \(ObjectIdentifier(value as AnyObject))" }
    let mirror = Mirror(reflecting: value)
    guard !mirror.children.isEmpty, depth < 16 else { return String(reflecting: value) }
    let parts = mirror.children.map { "\($0.label ?? "_"): \(fingerprint(of: $0.value, depth: depth + 1))" }
    return "\(type(of: value))(\(parts.joined(separator: ", ")))"
  }

  /// The stamp of a `StateField`, found by reflection; `nil` for other values.
  private static func stamp(of value: Any) -> UInt64? {
    guard value is any _StateFieldStorage else { return nil }
    return Mirror(reflecting: value).children.first { $0.label == "stamp" }?.value as? UInt64
  }

  /// The stored properties of `value` other than its registrar.
  static func storedProperties(of value: Any) -> [(label: String, value: Any)] {
    Mirror(reflecting: value).children.compactMap { child in
      guard let label = child.label, !(child.value is any _StateRegistrarStorage) else { return nil }
      return (label, child.value)
    }
  }
}

/// Marks `StateRegistrar`, which the snapshots leave out.
protocol _StateRegistrarStorage {}
extension StateRegistrar: _StateRegistrarStorage {}

/// Marks `StateField`, the storage of a tracked field.
protocol _StateFieldStorage {}
extension StateField: _StateFieldStorage {}

extension String {
  /// `count` for `_count`: the field a storage property belongs to, by the naming convention.
  var fieldName: String { hasPrefix("_") ? String(dropFirst()) : self }
}
