@_spi(Reflection) import Swift

/// How a recorded read names its field when it is printed ("Row.count"), together with the
/// field's key.
///
/// One word and a tag, kept by every dependency. Nothing here is evaluated unless an access log
/// or a cause is printed.
@usableFromInline
internal enum FieldName: @unchecked Sendable {
  /// A field keyed by its name (a value-type field, or a hand-written one reported with
  /// `trackAccess()`): the type that declares it. The name is the key's interned text, so a
  /// dependency keeps one word for it.
  case field(owner: Any.Type)
  /// A stored property (the `@Tracked` storage `_name`) of this class, located by its offset.
  case storedProperty(AnyObject.Type)
  /// A field the runtime keeps for its own owners (a store's identity, say).
  case custom(CustomFieldName)
  /// A field keyed by its name, for a write delivered without the field's key (one a content
  /// diff found): the key comes with the name.
  case keyed(KeyedFieldName)

  /// A field the runtime keeps for its own owners, named `owner.name`.
  static func custom(_ name: String, owner: String) -> FieldName { .custom(CustomFieldName(name: name, owner: owner)) }

  /// The name of the type that declares the field.
  var typeName: String {
    switch self {
    case .field(let owner): return String(describing: owner)
    case .storedProperty(let type): return String(describing: type)
    case .custom(let custom): return custom.owner
    case .keyed(let keyed): return String(describing: keyed.owner)
    }
  }

  /// The field name, e.g. `count`.
  func fieldName(for key: FieldKey) -> String {
    switch self {
    case .field:
      return FieldNames.text(for: key) ?? "?"
    case .custom(let custom):
      return custom.name
    case .keyed(let keyed):
      return FieldNames.text(for: keyed.key) ?? "?"
    case .storedProperty(let type):
      guard let offset = key.storedPropertyOffset else { return "?" }
      guard let name = Self.storedPropertyName(of: type, at: offset) else { return "<field at offset \(offset)>" }
      return name.hasPrefix("_") ? String(name.dropFirst()) : name
    }
  }

  private static func storedPropertyName(of type: AnyObject.Type, at offset: Int) -> String? {
    var found: String?
    // `_EachFieldOptions.classType` is a `static var` the standard library did not annotate.
    let options = _EachFieldOptions(rawValue: 1 << 0)
    _ = _forEachField(of: type, options: options) { name, fieldOffset, _, _ in
      guard fieldOffset == offset else { return true }
      found = String(cString: name)
      return false
    }
    return found
  }
}

/// The name of a field the runtime keeps for its own owners. A class, so that `FieldName` copies
/// with at most one retain (every new dependency copies its name).
@usableFromInline
internal final class CustomFieldName: Sendable {
  let name: String
  let owner: String

  init(name: String, owner: String) {
    self.name = name
    self.owner = owner
  }
}

/// The name of a field keyed by its name, with its key (see `FieldName.keyed`). A class, so that
/// `FieldName` stays one word and a tag.
@usableFromInline
internal final class KeyedFieldName: @unchecked Sendable {
  let owner: Any.Type
  let key: FieldKey

  init(owner: Any.Type, key: FieldKey) {
    self.owner = owner
    self.key = key
  }
}
