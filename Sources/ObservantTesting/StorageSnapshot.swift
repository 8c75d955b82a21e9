import Observant

/// The stored properties of a value, as text, to tell which of them an operation changed.
///
/// Text is enough here: the audit only writes samples that differ from what the storage held, and
/// a `StateField` prints its value (child state prints its identity and fields). The registrar is
/// left out, since every write changes its stamp.
struct StorageSnapshot {
  private let storage: [(label: String, text: String)]

  init(of value: Any) {
    storage = Self.storedProperties(of: value).map { ($0.label, String(reflecting: $0.value)) }
  }

  /// The labels of the stored properties that differ in `value`, in declaration order.
  func changedLabels(in value: Any) -> [String] {
    let now = StorageSnapshot(of: value).storage
    return zip(storage, now).compactMap { before, after in before.text == after.text ? nil : before.label }
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
