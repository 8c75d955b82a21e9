import Observant

/// One step from a node to a child node.
enum PathStep: Hashable, CustomStringConvertible {
  case row(Int)
  case slot
  case left
  case right

  var description: String {
    switch self {
    case .row(let id): ".rows[id: \(id)]"
    case .slot: ".slot"
    case .left: ".choice(left)"
    case .right: ".choice(right)"
    }
  }
}

typealias NodePath = [PathStep]

func describe(_ path: NodePath) -> String { "root" + path.map(\.description).joined() }

/// Follows `path` from `node` (the reads are tracked if a scope is active).
func resolve(_ node: Node, _ path: ArraySlice<PathStep>) -> Node? {
  guard let step = path.first else { return node }
  let next: Node?
  switch step {
  case .row(let id): next = node.rows[id: id]
  case .slot: next = node.slot.node
  case .left: next = node.choice.left
  case .right: next = node.choice.right
  }
  return next.flatMap { resolve($0, path.dropFirst()) }
}

/// Mutates the node at `path` in place: rows through the identified array's in-place subscript,
/// enum payloads by taking them out and putting them back (same identity, so the slot does not
/// notify). Returns `false`, changing nothing, when the path no longer exists.
@discardableResult
func modify(_ node: inout Node, _ path: ArraySlice<PathStep>, _ body: (inout Node) -> Void) -> Bool {
  guard let step = path.first else {
    body(&node)
    return true
  }
  let rest = path.dropFirst()
  switch step {
  case .row(let id):
    guard node.rows[id: id] != nil else { return false }
    return modify(&node.rows[id: id]!, rest, body)
  case .slot:
    guard case .present(var child) = node.slot else { return false }
    let done = modify(&child, rest, body)
    node.slot = .present(child)
    return done
  case .left:
    guard case .left(var child) = node.choice else { return false }
    let done = modify(&child, rest, body)
    node.choice = .left(child)
    return done
  case .right:
    guard case .right(var child) = node.choice else { return false }
    let done = modify(&child, rest, body)
    node.choice = .right(child)
    return done
  }
}

extension SeededRandom {
  /// A random existing path of at most `depth` steps (read without tracking).
  mutating func path(in root: Node, depth: Int) -> NodePath {
    var path: NodePath = []
    var node = root
    while path.count < depth && chance(0.7) {
      var steps: [(PathStep, Node)] = node.rows.map { (.row($0.id), $0) }
      if let child = node.slot.node { steps.append((.slot, child)) }
      if let child = node.choice.left { steps.append((.left, child)) }
      if let child = node.choice.right { steps.append((.right, child)) }
      guard !steps.isEmpty else { break }
      let (step, child) = pick(steps)
      path.append(step)
      node = child
    }
    return path
  }
}

/// Assigns `node` over the node at `path` if a node with the same id is there (saving a draft);
/// returns whether it did.
@discardableResult
func assign(_ node: Node, at path: NodePath, in root: inout Node) -> Bool {
  guard let last = path.last else {
    guard root.id == node.id else { return false }
    root = node
    return true
  }
  var done = false
  modify(&root, path.dropLast()) { parent in
    switch last {
    case .row(let id):
      guard parent.rows[id: id] != nil, id == node.id else { return }
      parent.rows[id: id] = node
      done = true
    case .slot:
      guard parent.slot.node?.id == node.id else { return }
      parent.slot = .present(node)
      done = true
    case .left:
      guard parent.choice.left?.id == node.id else { return }
      parent.choice = .left(node)
      done = true
    case .right:
      guard parent.choice.right?.id == node.id else { return }
      parent.choice = .right(node)
      done = true
    }
  }
  return done
}
