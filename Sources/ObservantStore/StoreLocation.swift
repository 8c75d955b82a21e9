import Observant

/// Where a store sits in its tree, for diagnostics: `root.rows[id: 7].child`.
///
/// Kept apart from the stores (a chain of small objects, one per scope and one per collection,
/// none per row), so a store still says where it was once its parent or root is gone.
@MainActor
internal final class StoreLocation {
  private let parent: StoreLocation?
  private let component: String

  private init(parent: StoreLocation?, component: String) {
    self.parent = parent
    self.component = component
  }

  /// The location of a root store.
  static func root() -> StoreLocation { StoreLocation(parent: nil, component: "root") }

  /// The location of the state at `keyPath` below this one, named by reading it once from
  /// `state` (see `describeComponents(of:reading:)`). Names depend only on the key path, so
  /// each is worked out once: scopes are made per row and per child, often.
  func appending<Root>(_ keyPath: AnyKeyPath, reading state: @autoclosure () -> Root) -> StoreLocation {
    if let name = Self.names[keyPath] { return StoreLocation(parent: self, component: name) }
    let name = describeComponents(of: keyPath, reading: state())
    // A component reading recorded no name for could get one from another state: not kept.
    if !name.contains("<computed>") {
      // Bounded: a key path that carries an argument (`\.[tab: id]`) is a new key for every
      // argument, and an app that scopes ever-new ids would grow the cache for good.
      if Self.names.count >= Self.nameCacheLimit { Self.names.removeAll() }
      Self.names[keyPath] = name
    }
    return StoreLocation(parent: self, component: name)
  }

  /// Component names by key path (mostly a key path per scope declaration in the program).
  private static var names: [AnyKeyPath: String] = [:]
  /// How many names `names` keeps before it starts again.
  static var nameCacheLimit: Int { 256 }
  /// How many names are cached (for tests).
  static var cachedNameCount: Int { names.count }

  /// The location `component` (printed as is) below this one.
  func appending(component: String) -> StoreLocation {
    StoreLocation(parent: self, component: component)
  }

  var description: String { (parent?.description ?? "") + component }
}

/// `keyPath`'s components as they read in a path: `.rows`, `.child`, `.destination?.<computed>`.
///
/// Key paths print the properties of `ObservableState` (computed accessors over private storage)
/// as `<computed 0x… (Type)>`; those components get the names of the tracked fields that reading
/// the key path from `state` records, in order. A computed component that records nothing (an
/// enum case's payload accessor, say) stays `<computed>`.
internal func describeComponents<Root>(of keyPath: AnyKeyPath, reading state: Root) -> String {
  var text = String(describing: keyPath)
  let rootPrefix = "\\" + String(describing: type(of: keyPath).rootType)
  if text.hasPrefix(rootPrefix) { text.removeFirst(rootPrefix.count) }
  // A trailing `?` is the optional wrap of an optional-chained key path, not a component.
  if text.hasSuffix("?") { text.removeLast() }
  guard text.contains("<computed") else { return text }
  let (_, accesses) = recordAccesses { _ = state[keyPath: keyPath] }
  var names = accesses.map(\.fieldName)[...]
  var result = ""
  var rest = text[...]
  while let start = rest.firstRange(of: "<computed") {
    result += rest[..<start.lowerBound]
    // `<computed 0x… (Type)>`: the type may hold `<` and `>` of its own.
    var depth = 0
    var end = start.lowerBound
    for index in rest[start.lowerBound...].indices {
      if rest[index] == "<" { depth += 1 } else if rest[index] == ">" { depth -= 1 }
      if depth == 0 {
        end = rest.index(after: index)
        break
      }
    }
    guard end > start.lowerBound else { return text }  // unbalanced: leave it as printed
    result += names.popFirst() ?? "<computed>"
    rest = rest[end...]
  }
  return result + rest
}
