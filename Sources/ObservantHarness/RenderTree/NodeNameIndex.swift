/// Live nodes by name, so that `RenderTree.output(of:)` and `runCount(of:)` need no walk of the
/// tree.
///
/// Names are usually unique, and then an entry is one node. Several live nodes may share a name
/// (two lists both naming rows "Row[1]", say); their entry becomes a table by object identity, so
/// that inserting and removing stay O(1) even if thousands share a name.
internal struct NodeNameIndex {
  private enum Entry {
    case one(RenderNode)
    case many([ObjectIdentifier: RenderNode])
  }

  private var entries: [String: Entry] = [:]

  /// - Complexity: O(1) amortized, with hashing.
  mutating func insert(_ node: RenderNode) {
    insert(node, as: node.name)
  }

  /// - Complexity: O(1) amortized, with hashing.
  mutating func remove(_ node: RenderNode) {
    remove(node, as: node.name)
  }

  /// Moves `node` from its current name to `newName`.
  mutating func rename(_ node: RenderNode, to newName: String) {
    remove(node, as: node.name)
    insert(node, as: newName)
  }

  /// The live node named `name` created first, if any.
  ///
  /// - Complexity: O(1) when one node has the name; O(*k*) for *k* nodes sharing it.
  func firstCreated(named name: String) -> RenderNode? {
    switch entries[name] {
    case nil: nil
    case .one(let node): node
    case .many(let nodes): nodes.values.min { $0.creationOrder < $1.creationOrder }
    }
  }

  /// The runs of every live node named `name`, added up.
  ///
  /// - Complexity: O(1) when one node has the name; O(*k*) for *k* nodes sharing it.
  func totalRunCount(named name: String) -> Int {
    switch entries[name] {
    case nil: 0
    case .one(let node): node.runCount
    case .many(let nodes): nodes.values.reduce(0) { $0 + $1.runCount }
    }
  }

  // A shared name's table is taken out of the dictionary before it is mutated, so that it is
  // mutated in place instead of being copied.

  private mutating func insert(_ node: RenderNode, as name: String) {
    // One hash of the name in the usual case: a name not taken yet.
    switch entries.updateValue(.one(node), forKey: name) {
    case nil:
      break
    case .one(let other):
      entries[name] = .many([ObjectIdentifier(other): other, ObjectIdentifier(node): node])
    case .many(var nodes):
      nodes[ObjectIdentifier(node)] = node
      entries[name] = .many(nodes)
    }
  }

  private mutating func remove(_ node: RenderNode, as name: String) {
    switch entries.removeValue(forKey: name) {
    case nil:
      break
    case .one(let other):
      if other !== node { entries[name] = .one(other) }
    case .many(var nodes):
      nodes[ObjectIdentifier(node)] = nil
      if nodes.count == 1, let last = nodes.values.first {
        entries[name] = .one(last)
      } else {
        entries[name] = .many(nodes)
      }
    }
  }
}
