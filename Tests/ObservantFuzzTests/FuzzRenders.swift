import Observant
import ObservantStore

/// What a render reads at the end of its path.
enum Terminal: CaseIterable {
  case value, label, rowsCount, rowIDs, firstRowValue, plains, slot, choice, pinned, spare, leaf, items, firstItem,
    tableEntry
}

/// A random render: a path from the root, then one read, or a conditional read (the node's
/// value decides which of two terminals it reads: a dynamic dependency).
struct RenderSpec: CustomStringConvertible {
  let path: NodePath
  let terminal: Terminal
  let alternative: Terminal?

  var description: String {
    let read = alternative.map { "value is even ? \(terminal) : \($0)" } ?? "\(terminal)"
    return "\(describe(path)) -> \(read)"
  }
}

/// The identity of a choice: its case and payload identity, or its plain number.
func read(_: Terminal, of choice: Choice) -> String {
  switch choice {
  case .plain(let number): "choice=plain(\(number))"
  case .left(let child): "choice=left#\(child.observableStateID.rawValue)"
  case .right(let child): "choice=right#\(child.observableStateID.rawValue)"
  }
}

/// Reads of one terminal, each with the identity of what it went through: if two evaluations give
/// the same text, nothing the render read changed, in value or in identity.
func read(_ terminal: Terminal, of node: Node) -> String {
  switch terminal {
  case .value: return "value=\(node.value)"
  case .label: return "label=\(node.label)"
  case .rowsCount:
    let rows = node.rows
    return "rows@\(rows.structuralVersion) count=\(rows.count)"
  case .rowIDs:
    let rows = node.rows
    return "rows@\(rows.structuralVersion) ids=\(rows.ids.elements)"
  case .firstRowValue:
    let rows = node.rows
    guard let first = rows.first else { return "rows@\(rows.structuralVersion) first=none" }
    return "rows@\(rows.structuralVersion) first#\(first.observableStateID.rawValue)=\(first.value)"
  case .plains: return "plains=\(node.plains.elements)"
  case .slot:
    guard let child = node.slot.node else { return "slot=empty" }
    return "slot#\(child.observableStateID.rawValue)=\(child.value)"
  case .choice:
    let choice = node.choice
    switch choice {
    case .plain: return read(.choice, of: choice)
    case .left(let child), .right(let child): return read(.choice, of: choice) + "=\(child.value)"
    }
  case .pinned:
    let pinned = node.pinned
    return "pinned#\(pinned.observableStateID.rawValue)=\(pinned.value)"
  case .spare:
    let spare = node.spare
    return "spare#\(spare.observableStateID.rawValue)=\(spare.value)"
  case .leaf:
    guard let leaf = node.leaf else { return "leaf=nil" }
    return "leaf#\(leaf.observableStateID.rawValue)=\(leaf.value)"
  case .items:
    return "items=" + node.items.map { "#\($0.observableStateID.rawValue)" }.joined(separator: ",")
  case .firstItem:
    // Reading the array reads its identities (its slot notifies when they change).
    let items = node.items
    let identities = "items=" + items.map { "#\($0.observableStateID.rawValue)" }.joined(separator: ",")
    guard let first = items.first else { return identities }
    return identities + " first=\(first.value)"
  case .tableEntry:
    let table = node.table
    let identities =
      "table=" + table.keys.sorted().map { "\($0)#\(table[$0]!.observableStateID.rawValue)" }.joined(separator: ",")
    guard let entry = table[1] else { return identities + " [1]=nil" }
    return identities + " [1]=\(entry.value)"
  }
}

extension RenderSpec {
  /// Plain mode: navigates from the root through tracked slots, recording each slot's identity.
  func trace(from root: Node) -> [String] {
    var trace = ["root#\(root.observableStateID.rawValue)"]
    var node = root
    for step in path {
      switch step {
      case .row(let id):
        let rows = node.rows
        trace.append("rows@\(rows.structuralVersion)")
        guard let next = rows[id: id] else { return trace + ["gone"] }
        node = next
      case .slot:
        guard let next = node.slot.node else { return trace + ["slot=empty"] }
        trace.append("slot#\(next.observableStateID.rawValue)")
        node = next
      case .left, .right:
        // Reading the choice reads its case and payload identity (or its plain number).
        let choice = node.choice
        trace.append(read(.choice, of: choice))
        guard let next = step == .left ? choice.left : choice.right else { return trace }
        node = next
      }
    }
    return trace + terminalReads(of: node)
  }

  /// Store mode: reads the node a (pre-resolved) store holds, through the store.
  @MainActor
  func trace(through store: Store<Node, NodeAction>) -> [String] {
    store.withState { node in ["#\(node.observableStateID.rawValue)"] + terminalReads(of: node) }
  }

  private func terminalReads(of node: Node) -> [String] {
    guard let alternative else { return [read(terminal, of: node)] }
    let value = node.value
    return ["if value=\(value)", read(value.isMultiple(of: 2) ? terminal : alternative, of: node)]
  }
}

extension SeededRandom {
  mutating func render(in root: Node) -> RenderSpec {
    let terminals = Terminal.allCases
    return RenderSpec(
      path: path(in: root, depth: 3), terminal: pick(terminals), alternative: chance(0.3) ? pick(terminals) : nil)
  }
}

// MARK: Store mode

enum LeafAction: Sendable { case increment, reset }

indirect enum NodeAction: Sendable {
  case apply([Mutation])
  /// Saves a draft: assigns it over the node with its id at the path.
  case assign(NodePath, Node)
  /// Restores an undo snapshot of the whole state (`state = snapshot` in the reducer).
  case restoreRoot(Node)
  /// Gives the node at the path back a part of `saved`, an older copy of it, after a detour.
  case restorePart(NodePath, Node, RestoredPart)
  case row(id: Int, NodeAction)
  case slot(NodeAction)
  case left(NodeAction)
  case right(NodeAction)
}

extension Mutation: @unchecked Sendable {}
extension Node: @unchecked Sendable {}

enum NodeFeature {
  static func reduce(_ state: inout Node, _ action: NodeAction) -> Effect<NodeAction> {
    switch action {
    case .apply(let mutations):
      for mutation in mutations { mutation.apply(to: &state) }
    case .assign(let path, let node):
      assign(node, at: path, in: &state)
    case .restoreRoot(let snapshot):
      state = snapshot
    case .restorePart(let path, let saved, let part):
      modify(&state, path[...]) { part.restore(from: saved, into: &$0) }
    case .row(let id, let action):
      modify(&state, [.row(id)]) { _ = reduce(&$0, action) }
    case .slot(let action):
      modify(&state, [.slot]) { _ = reduce(&$0, action) }
    case .left(let action):
      modify(&state, [.left]) { _ = reduce(&$0, action) }
    case .right(let action):
      modify(&state, [.right]) { _ = reduce(&$0, action) }
    }
    return .none
  }

  /// The store of the node at `path`, through the store's scopes (nil when the path is gone).
  @MainActor
  static func store(_ store: Store<Node, NodeAction>, at path: ArraySlice<PathStep>) -> Store<Node, NodeAction>? {
    guard let step = path.first else { return store }
    let next: Store<Node, NodeAction>?
    switch step {
    case .row(let id): next = store.scope(state: \.rows, action: NodeAction.row).store(id: id)
    case .slot: next = store.scope(state: \.slot.node, action: NodeAction.slot)
    case .left: next = store.scope(state: \.choice.left, action: NodeAction.left)
    case .right: next = store.scope(state: \.choice.right, action: NodeAction.right)
    }
    return next.flatMap { self.store($0, at: path.dropFirst()) }
  }
}
