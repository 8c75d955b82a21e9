@_spi(Reflection) import Swift

/// How an access names its field when it is printed ("Row.count").
///
/// Key paths to computed properties print as `\Row.<computed 0x… (Int)>`, so the name travels
/// separately: accessors of `ObservableState` pass their `#function` (the property name); `@Tracked`
/// fields are named from the class's field metadata by their storage offset. Nothing here is
/// evaluated unless an `AccessLog` is printed.
@usableFromInline
internal enum FieldLabel: @unchecked Sendable {
  /// The property name, e.g. from `#function` inside an accessor.
  case name(StaticString)
  /// A stored property (the `@Tracked` storage `_name`) of this class, located by its offset.
  case storedProperty(AnyObject.Type)
  /// No name was given: derive one from the key path.
  case keyPath
  /// A numbered field (`TrackedField`): its name and the type that owns it.
  case owned(StaticString, Any.Type)

  /// The name of the type that declares the field.
  func typeName(for key: FieldKey) -> String {
    switch self {
    case .storedProperty(let type):
      return String(describing: type)
    case .owned(_, let type):
      return String(describing: type)
    case .name, .keyPath:
      guard let keyPath = key.keyPath else { return "?" }
      return String(describing: type(of: keyPath).rootType)
    }
  }

  /// The field name, e.g. `count`.
  func fieldName(for key: FieldKey) -> String {
    switch self {
    case .name(let name), .owned(let name, _):
      return name.description
    case .storedProperty(let type):
      guard let offset = key.storedPropertyOffset else { return "?" }
      guard let name = Self.storedPropertyName(of: type, at: offset) else { return "<field at offset \(offset)>" }
      return name.hasPrefix("_") ? String(name.dropFirst()) : name
    case .keyPath:
      guard let keyPath = key.keyPath else { return "?" }
      return Self.lastComponent(of: keyPath)
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

  /// `\Root.a.b` → `b`; unnamed components print as they are.
  private static func lastComponent(of keyPath: AnyKeyPath) -> String {
    let text = String(describing: keyPath)
    guard let dot = text.lastIndex(of: "."), !text.hasSuffix(")>") else {
      return text.hasPrefix("\\") ? String(text.dropFirst()) : text
    }
    return String(text[text.index(after: dot)...])
  }
}
