/// Something a body declared that the render tree could not honour, reported instead of
/// crashing: recorded in `RenderTree.diagnostics`, and passed to `RenderTree.diagnosticHandler`
/// (or printed to standard error when there is none).
public struct RenderDiagnostic: Sendable, Equatable, CustomStringConvertible {
  /// What happened.
  public enum Kind: Sendable, Equatable {
    /// One run of a body declared two children with the same key (a `forEach` over data with a
    /// repeated id, say). The first declaration was kept; the later one was ignored: its body did
    /// not run and no node was made for it. Like SwiftUI's "the ID occurs multiple times".
    case duplicateKey
  }

  public let kind: Kind
  /// The name of the node whose body declared the children.
  public let parentName: String
  /// The repeated key, as `String(reflecting:)` prints it (strings quoted).
  public let key: String
  /// A message for people, naming the key and the parent.
  public let message: String

  public var description: String { message }

  internal static func duplicateKey(
    _ key: AnyHashable, name: String, first firstName: String, parent: String
  ) -> RenderDiagnostic {
    let keyText = String(reflecting: key.base)
    return RenderDiagnostic(
      kind: .duplicateKey,
      parentName: parent,
      key: keyText,
      message: """
        ObservantHarness: the key \(keyText) occurs more than once among the children of \
        "\(parent)" (declared by "\(firstName)" and again by "\(name)"); the first declaration \
        is kept and the later one ignored. Give each child of a parent a unique key (the ids of a \
        forEach must be unique).
        """)
  }
}
