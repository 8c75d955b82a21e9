/// How an access names its field when it is printed ("Row.count").
///
/// Key paths to computed properties print as `\Row.<computed 0x… (Int)>`, so the name travels
/// separately: accessors of `ObservableState` pass their `#function` (the property name), `@Tracked`
/// passes its storage key path (a stored property, whose description is `\Model._count`). Nothing
/// here is evaluated unless an `AccessLog` is printed.
///
/// `@unchecked Sendable`: key paths are immutable objects; the standard library does not mark them.
@usableFromInline
internal enum FieldLabel: @unchecked Sendable {
  /// The property name, e.g. from `#function` inside an accessor.
  case name(StaticString)
  /// A stored property holding the field; its name minus a leading underscore names the field.
  case storage(AnyKeyPath)
  /// No name was given: derive one from the key path itself.
  case keyPath

  /// The field name, e.g. `count`.
  func fieldName(for keyPath: AnyKeyPath) -> String {
    switch self {
    case .name(let name):
      return name.description
    case .storage(let storage):
      let name = Self.lastComponent(of: storage)
      return name.hasPrefix("_") ? String(name.dropFirst()) : name
    case .keyPath:
      return Self.lastComponent(of: keyPath)
    }
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
