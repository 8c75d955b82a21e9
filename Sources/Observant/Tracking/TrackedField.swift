/// A field identified by a number instead of a key path, for owners that track their own fields:
/// building a key path on every read costs a runtime call (and, for a generic type, an
/// allocation), which a hot read path should not pay.
///
/// ```swift
/// final class Document<Content> {
///   private static var title: TrackedField { TrackedField(0, name: "title", owner: Document.self) }
///   let registrar = TrackingRegistrar()
///   var title: String {
///     get { registrar.access(Self.title); return _title }
///     set { registrar.withMutation(of: Self.title) { _title = newValue } }
///   }
///   private var _title = ""
/// }
/// ```
public struct TrackedField: @unchecked Sendable {
  /// Distinguishes the fields of one registrar.
  public let number: Int
  /// The field's name in access logs.
  public let name: StaticString
  /// The type that owns the field, for access logs.
  public let owner: Any.Type

  @inlinable
  public init(_ number: Int, name: StaticString, owner: Any.Type) {
    self.number = number
    self.name = name
    self.owner = owner
  }
}
