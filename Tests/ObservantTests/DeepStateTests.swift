import Observant
import ObservantCollections
import Testing

// Recursive state (a folder tree, a comment thread, nested todos) is compared and reconciled at
// any depth: the walks that find what an edited copy changed stopped at 64 levels, and at 16
// levels of plain values around a state, so a reader of a deeper field was never re-run and kept
// showing the old value (found by the crash hunt).

struct DeepFolder: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _name = StateField("")
  var name: String {
    get { registrar.read(_name) }
    set { registrar.write(&_name, newValue) }
  }
  private var _children = StateField<IdentifiedArrayOf<DeepFolder>>([])
  var children: IdentifiedArrayOf<DeepFolder> {
    get { registrar.read(_children) }
    set { registrar.write(&_children, newValue) }
    _modify { yield &self[tracking: \._children] }
  }
  init(id: Int, name: String = "") {
    self.id = id
    _name = StateField(name)
  }

  /// A chain `depth` folders deep below this one, the leaf named "leaf".
  static func chain(depth: Int) -> DeepFolder {
    var folder = DeepFolder(id: depth, name: "leaf")
    for id in stride(from: depth - 1, through: 0, by: -1) {
      var parent = DeepFolder(id: id, name: "f\(id)")
      parent.children.append(folder)
      folder = parent
    }
    return folder
  }

  var leaf: DeepFolder { children.first?.leaf ?? self }

  mutating func renameLeaf(_ name: String) {
    if children.isEmpty { self.name = name } else { children[0].renameLeaf(name) }
  }

  /// Replaces the whole value from inside a mutation of it (an undo in a mutating method).
  mutating func restore(_ saved: DeepFolder) { self = saved }
}

final class DeepHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var root = DeepFolder(id: -1)
}

/// A plain recursive enum (no state of its own) whose leaves are states.
indirect enum DeepPlainTree: IdentityComparable {
  case leaf(DeepFolder)
  case wrapped(DeepPlainTree)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.leaf(let a), .leaf(let b)): Observant.isIdentityEqual(a, b)
    case (.wrapped(let a), .wrapped(let b)): isIdentityEqual(a, b)
    default: false
    }
  }

  var folder: DeepFolder {
    switch self {
    case .leaf(let folder): folder
    case .wrapped(let inner): inner.folder
    }
  }

  func renamed(_ name: String) -> DeepPlainTree {
    switch self {
    case .leaf(var folder):
      folder.name = name
      return .leaf(folder)
    case .wrapped(let inner): return .wrapped(inner.renamed(name))
    }
  }

  static func wrapping(_ folder: DeepFolder, levels: Int) -> DeepPlainTree {
    (0..<levels).reduce(.leaf(folder)) { tree, _ in .wrapped(tree) }
  }
}

final class DeepTreeHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var tree: DeepPlainTree

  init(_ tree: DeepPlainTree) { self.tree = tree }
}

@Suite("Recursive state at any depth")
struct DeepStateTests {
  @Test(
    "an edited copy of a deep tree assigned back re-runs the reader of its deepest field once",
    arguments: [10, 63, 64, 65, 200, 1_000])
  func copyAssignedBack(depth: Int) {
    let holder = DeepHolder()
    holder.root = DeepFolder.chain(depth: depth)
    let shown = Shared<[String]>([])
    let reader = Reaction("leaf", ownedByParent: false) { shown.value.append(holder.root.leaf.name) }
    transaction {
      var copy = holder.root
      copy.renameLeaf("renamed")
      holder.root = copy
    }
    #expect(shown.value == ["leaf", "renamed"], "depth \(depth)")
    // Outside a transaction the copy's write re-runs the reader first (at most once per copy; it
    // still shows the stored value), then the assignment.
    var copy = holder.root
    copy.renameLeaf("again")
    holder.root = copy
    #expect(shown.value == ["leaf", "renamed", "renamed", "again"], "depth \(depth)")
    reader.cancel()
  }

  @Test(
    "a deep tree restored from a snapshot inside a mutation (self = saved) re-runs the reader of its deepest field",
    arguments: [10, 64, 200])
  func restoredInsideAMutation(depth: Int) {
    let holder = DeepHolder()
    holder.root = DeepFolder.chain(depth: depth)
    let saved = holder.root
    holder.root.renameLeaf("edited")
    let shown = Shared<[String]>([])
    let reader = Reaction("leaf", ownedByParent: false) { shown.value.append(holder.root.leaf.name) }
    holder.root.restore(saved)
    #expect(holder.root.leaf.name == "leaf")
    #expect(shown.value == ["edited", "leaf"], "depth \(depth)")
    reader.cancel()
  }

  @Test(
    "a state wrapped in many levels of a plain recursive enum: an edited copy assigned back re-runs its reader",
    arguments: [3, 15, 16, 40])
  func stateInsideAPlainRecursiveEnum(levels: Int) {
    let holder = DeepTreeHolder(.wrapping(DeepFolder(id: 1, name: "leaf"), levels: levels))
    let shown = Shared<[String]>([])
    let reader = Reaction("leaf", ownedByParent: false) { shown.value.append(holder.tree.folder.name) }
    transaction { holder.tree = holder.tree.renamed("renamed") }
    #expect(shown.value == ["leaf", "renamed"], "\(levels) levels")
    reader.cancel()
    // A copy edited before the reader read: only comparing the two trees finds the change.
    let edited = holder.tree.renamed("edited earlier")
    let late = Reaction("late", ownedByParent: false) { shown.value.append(holder.tree.folder.name) }
    holder.tree = edited
    #expect(shown.value == ["leaf", "renamed", "renamed", "edited earlier"], "\(levels) levels")
    late.cancel()
  }

  @Test(
    "a deep tree edited before its reader read, then assigned: the reader of its deepest field re-runs once",
    arguments: [10, 64, 200])
  func editedBeforeTheReaderRead(depth: Int) {
    let holder = DeepHolder()
    holder.root = DeepFolder.chain(depth: depth)
    var copy = holder.root
    copy.renameLeaf("renamed")
    let shown = Shared<[String]>([])
    let reader = Reaction("leaf", ownedByParent: false) { shown.value.append(holder.root.leaf.name) }
    holder.root = copy
    #expect(shown.value == ["leaf", "renamed"], "depth \(depth)")
    reader.cancel()
  }
}
