import Observant

/// A change to the node at a path, described as data so a session can be replayed and shrunk.
enum Mutation: CustomStringConvertible {
  case setValue(NodePath, Int)
  case addValue(NodePath, Int)
  case setValueAndBack(NodePath, Int)
  case setLabel(NodePath, String)
  case appendRow(NodePath, id: Int, value: Int)
  case insertRowFirst(NodePath, id: Int)
  case removeRow(NodePath, id: Int)
  case moveRow(NodePath, from: Int, to: Int)
  case replaceRow(NodePath, id: Int)
  case copyMutateAssignRow(NodePath, id: Int)
  case rowValueInPlace(NodePath, id: Int, delta: Int)
  case clearRows(NodePath)
  case reassignRows(NodePath)
  case setSlot(NodePath, id: Int?)
  case choosePlain(NodePath, Int)
  case chooseLeft(NodePath, id: Int)
  case swapChoiceCase(NodePath)
  case pinnedIncrement(NodePath)
  case pinnedReplace(NodePath)
  case pinnedResetInPlace(NodePath)
  case swapPinnedAndSpare(NodePath)
  case setLeaf(NodePath, present: Bool)
  case leafInPlace(NodePath, delta: Int)
  case appendPlain(NodePath, id: Int)
  case plainInPlace(NodePath, id: Int, delta: Int)
  case renew(NodePath)
  // Copies of value-type state.
  case scratchCopy(NodePath, id: Int)
  case scratchAssignBack(NodePath, id: Int)
  case copyMutateAssignLeaf(NodePath)
  case copyPinnedToSpare(NodePath)
  case spareIncrement(NodePath)
  case undoRows(NodePath, id: Int)
  case undoInPlace(NodePath)
  case undoByAssignment(NodePath)
  // A plain array and a dictionary of observable state.
  case itemsAppend(NodePath)
  case itemInPlace(NodePath, index: Int, delta: Int)
  case itemCopyAssign(NodePath, index: Int)
  case itemsRemoveFirst(NodePath)
  case itemsReassign(NodePath)
  case tableSet(NodePath, key: Int)
  case tableInPlace(NodePath, key: Int, delta: Int)
  case tableCopyAssign(NodePath, key: Int)
  // One value copied into a second place, where later mutations may write it (and set it back).
  case copyRowIntoSibling(NodePath, id: Int)
  case copyRowToSlot(NodePath, id: Int)
  case copyPinnedToItem(NodePath)
  case copyItemToTable(NodePath, key: Int)
  case copyLeafToPinned(NodePath)
  /// The pattern of a stale reader found by hand: a row changed, copied into another place, and
  /// set back there, in one mutation.
  case changeCopyElsewhereSetBack(NodePath, id: Int)

  var description: String {
    switch self {
    case .setValue(let p, let v): "\(describe(p)).value = \(v)"
    case .addValue(let p, let d): "\(describe(p)).value += \(d)"
    case .setValueAndBack(let p, let v): "\(describe(p)).value = \(v), then back"
    case .setLabel(let p, let s): "\(describe(p)).label = \"\(s)\""
    case .appendRow(let p, let id, let v): "\(describe(p)).rows.append(Node(id: \(id), value: \(v)))"
    case .insertRowFirst(let p, let id): "\(describe(p)).rows.insert(Node(id: \(id)), at: 0)"
    case .removeRow(let p, let id): "\(describe(p)).rows.remove(id: \(id))"
    case .moveRow(let p, let from, let to): "\(describe(p)).rows.move(from: \(from), to: \(to))"
    case .replaceRow(let p, let id): "\(describe(p)).rows[id: \(id)] = Node(id: \(id)) (new identity)"
    case .copyMutateAssignRow(let p, let id): "var row = \(describe(p)).rows[id: \(id)]!; row.value += 1; assign back"
    case .rowValueInPlace(let p, let id, let d): "\(describe(p)).rows[id: \(id)]?.value += \(d)"
    case .clearRows(let p): "\(describe(p)).rows.removeAll()"
    case .reassignRows(let p): "\(describe(p)).rows = IdentifiedArray(same elements)"
    case .setSlot(let p, let id): "\(describe(p)).slot = \(id.map { ".present(Node(id: \($0)))" } ?? ".empty")"
    case .choosePlain(let p, let n): "\(describe(p)).choice = .plain(\(n))"
    case .chooseLeft(let p, let id): "\(describe(p)).choice = .left(Node(id: \(id)))"
    case .swapChoiceCase(let p): "\(describe(p)).choice: left(x) <-> right(x)"
    case .pinnedIncrement(let p): "\(describe(p)).pinned.value += 1"
    case .pinnedReplace(let p): "\(describe(p)).pinned = Leaf()"
    case .pinnedResetInPlace(let p): "\(describe(p)).pinned.reset()"
    case .swapPinnedAndSpare(let p): "swap \(describe(p)).pinned and .spare"
    case .setLeaf(let p, let present): "\(describe(p)).leaf = \(present ? "Leaf()" : "nil")"
    case .leafInPlace(let p, let d): "\(describe(p)).leaf?.value += \(d)"
    case .appendPlain(let p, let id): "\(describe(p)).plains.append(Plain(id: \(id)))"
    case .plainInPlace(let p, let id, let d): "\(describe(p)).plains[id: \(id)]?.number += \(d)"
    case .renew(let p): "\(describe(p)).renew() (self = Node(...))"
    case .scratchCopy(let p, let id):
      "\(describe(p)).rows[id: \(id)]?.value += 1; var c = that row; c.value -= 1 (c dropped)"
    case .scratchAssignBack(let p, let id):
      "var c = \(describe(p)).rows[id: \(id)]!; c.value += 5; c.value -= 5; assign back"
    case .copyMutateAssignLeaf(let p): "var leaf = \(describe(p)).pinned; leaf.value += 1; assign back"
    case .copyPinnedToSpare(let p): "\(describe(p)).spare = .pinned (one value in two slots)"
    case .spareIncrement(let p): "\(describe(p)).spare.value += 1"
    case .undoRows(let p, let id): "let saved = \(describe(p)).rows; rows[id: \(id)]?.value += 1; rows = saved"
    case .undoInPlace(let p): "let saved = \(describe(p)); value += 1; label = \"z\"; self = saved (through inout)"
    case .undoByAssignment(let p): "let saved = \(describe(p)).pinned; pinned.value += 2; pinned = saved"
    case .itemsAppend(let p): "\(describe(p)).items.append(Leaf())"
    case .itemInPlace(let p, let index, let d): "\(describe(p)).items[\(index)].value += \(d)"
    case .itemCopyAssign(let p, let index): "var x = \(describe(p)).items[\(index)]; x.value += 1; items[\(index)] = x"
    case .itemsRemoveFirst(let p): "\(describe(p)).items.removeFirst()"
    case .itemsReassign(let p): "\(describe(p)).items = Array(items)"
    case .tableSet(let p, let key): "\(describe(p)).table[\(key)] = Leaf()"
    case .tableInPlace(let p, let key, let d): "\(describe(p)).table[\(key)]?.value += \(d)"
    case .tableCopyAssign(let p, let key): "var x = \(describe(p)).table[\(key)]!; x.value += 1; table[\(key)] = x"
    case .copyRowIntoSibling(let p, let id):
      "\(describe(p)).rows[first other].rows[id: \(id)] = \(describe(p)).rows[id: \(id)] (a copy in a nested array)"
    case .copyRowToSlot(let p, let id): "\(describe(p)).slot = .present(rows[id: \(id)]) (a copy in the slot)"
    case .copyPinnedToItem(let p): "\(describe(p)).items[0] = pinned (a copy in a plain array)"
    case .copyItemToTable(let p, let key): "\(describe(p)).table[\(key)] = items[0] (a copy in a dictionary)"
    case .copyLeafToPinned(let p): "\(describe(p)).pinned = leaf! (a copy in another field)"
    case .changeCopyElsewhereSetBack(let p, let id):
      "\(describe(p)).rows[id: \(id)].value += 3; rows[first other].rows[id: \(id)] = that row; its value -= 3 there"
    }
  }

  var path: NodePath {
    switch self {
    case .setValue(let p, _), .addValue(let p, _), .setValueAndBack(let p, _), .setLabel(let p, _),
      .appendRow(let p, _, _), .insertRowFirst(let p, _), .removeRow(let p, _), .moveRow(let p, _, _),
      .replaceRow(let p, _), .copyMutateAssignRow(let p, _), .rowValueInPlace(let p, _, _), .clearRows(let p),
      .reassignRows(let p), .setSlot(let p, _), .choosePlain(let p, _), .chooseLeft(let p, _), .swapChoiceCase(let p),
      .pinnedIncrement(let p), .pinnedReplace(let p), .pinnedResetInPlace(let p), .swapPinnedAndSpare(let p),
      .setLeaf(let p, _), .leafInPlace(let p, _), .appendPlain(let p, _), .plainInPlace(let p, _, _), .renew(let p),
      .scratchCopy(let p, _), .scratchAssignBack(let p, _), .copyMutateAssignLeaf(let p), .copyPinnedToSpare(let p),
      .spareIncrement(let p), .undoRows(let p, _), .undoInPlace(let p), .undoByAssignment(let p), .itemsAppend(let p),
      .itemInPlace(let p, _, _), .itemCopyAssign(let p, _), .itemsRemoveFirst(let p), .itemsReassign(let p),
      .tableSet(let p, _), .tableInPlace(let p, _, _), .tableCopyAssign(let p, _), .copyRowIntoSibling(let p, _),
      .copyRowToSlot(let p, _), .copyPinnedToItem(let p), .copyItemToTable(let p, _), .copyLeafToPinned(let p),
      .changeCopyElsewhereSetBack(let p, _):
      p
    }
  }

  /// Whether the mutation writes through a copy of state that readers may be reading: a copy
  /// taken out of an enum payload on its path, or one of the copy operations. Such a write may
  /// re-run the readers of the copied fields once even when the value they read ends up as it was
  /// (the documented detached-copy case).
  var writesThroughCopy: Bool {
    if path.contains(where: { $0 == .slot || $0 == .left || $0 == .right }) { return true }
    switch self {
    case .copyMutateAssignRow, .scratchCopy, .scratchAssignBack, .copyMutateAssignLeaf, .itemCopyAssign,
      .tableCopyAssign:
      return true
    default:
      return false
    }
  }

  /// Whether the mutation writes an element of a plain `[State]` or `Dictionary` field in place.
  /// Those elements have no in-place hooks (an `IdentifiedArray` has them): while another copy of
  /// the element exists (a snapshot, a draft), such a write cannot be verified to be the live
  /// state's, so a field set and set back in one transaction may re-run its readers once (the
  /// documented case in README, "Copies").
  var writesPlainCollectionElement: Bool {
    switch self {
    case .itemInPlace, .tableInPlace: true
    default: false
    }
  }

  /// Whether the mutation changes the structure of an identified array in place (recorded by its
  /// structure version), or assigns a rebuilt one (recorded by value).
  var changesRowsInPlace: Bool {
    switch self {
    case .appendRow, .insertRowFirst, .removeRow, .moveRow, .replaceRow, .clearRows: true
    default: false
    }
  }
  /// Whether the mutation moves the pinned value between slots, and whether it restores it from a
  /// copy: together in one transaction, the restored value is a new version of itself for the
  /// slots it moved through (documented in the Identity rules article).
  var movesPinned: Bool {
    switch self {
    case .swapPinnedAndSpare, .copyPinnedToSpare, .pinnedReplace: true
    default: false
    }
  }
  var restoresPinnedFromCopy: Bool {
    if case .undoByAssignment = self { true } else { false }
  }

  /// Whether the mutation assigns a value a copy of itself (an undo snapshot, an edited copy).
  var assignsACopy: Bool {
    switch self {
    case .copyMutateAssignRow, .scratchAssignBack, .copyMutateAssignLeaf, .undoRows, .undoByAssignment,
      .itemCopyAssign, .tableCopyAssign, .copyRowIntoSibling, .copyRowToSlot, .copyPinnedToItem, .copyItemToTable,
      .copyLeafToPinned, .changeCopyElsewhereSetBack:
      true
    default: false
    }
  }

  /// Whether the mutation assigns the rows a rebuilt array (same elements, another version).
  var assignsRebuiltRows: Bool {
    if case .reassignRows = self { true } else { false }
  }

  /// Applies the mutation to `root` (a no-op when its path no longer exists).
  func apply(to root: inout Node) {
    modify(&root, path[...]) { node in
      switch self {
      case .setValue(_, let value): node.value = value
      case .addValue(_, let delta): node.value += delta
      case .setValueAndBack(_, let value):
        let old = node.value
        node.value = value
        node.value = old
      case .setLabel(_, let label): node.label = label
      case .appendRow(_, let id, let value): node.rows.append(Node(id: id, value: value))
      case .insertRowFirst(_, let id): node.rows.insert(Node(id: id), at: 0)
      case .removeRow(_, let id): node.rows.remove(id: id)
      case .moveRow(_, let from, let to):
        guard from < node.rows.count, to < node.rows.count else { return }
        node.rows.move(from: from, to: to)
      case .replaceRow(_, let id):
        guard let old = node.rows[id: id] else { return }
        node.rows[id: id] = Node(id: id, value: old.value, label: old.label)
      case .copyMutateAssignRow(_, let id):
        guard var row = node.rows[id: id] else { return }
        row.value += 1
        node.rows[id: id] = row
      case .rowValueInPlace(_, let id, let delta): node.rows[id: id]?.value += delta
      case .clearRows: node.rows.removeAll()
      case .reassignRows: node.rows = IdentifiedArray(uniqueElements: node.rows.elements)
      case .setSlot(_, let id): node.slot = id.map { .present(Node(id: $0)) } ?? .empty
      case .choosePlain(_, let number): node.choice = .plain(number)
      case .chooseLeft(_, let id): node.choice = .left(Node(id: id))
      case .swapChoiceCase:
        switch node.choice {
        case .left(let payload): node.choice = .right(payload)
        case .right(let payload): node.choice = .left(payload)
        case .plain: break
        }
      case .pinnedIncrement: node.pinned.value += 1
      case .pinnedReplace: node.pinned = Leaf(value: node.pinned.value)
      case .pinnedResetInPlace: node.pinned.reset()
      case .swapPinnedAndSpare:
        let pinned = node.pinned
        node.pinned = node.spare
        node.spare = pinned
      case .setLeaf(_, let present): node.leaf = present ? Leaf() : nil
      case .leafInPlace(_, let delta): node.leaf?.value += delta
      case .appendPlain(_, let id): node.plains.append(Plain(id: id, number: 0))
      case .plainInPlace(_, let id, let delta): node.plains[id: id]?.number += delta
      case .renew: node.renew()
      case .scratchCopy(_, let id):
        guard node.rows[id: id] != nil else { return }
        node.rows[id: id]!.value += 1
        var scratch = node.rows[id: id]!
        scratch.value -= 1
        _ = scratch
      case .scratchAssignBack(_, let id):
        guard var copy = node.rows[id: id] else { return }
        copy.value += 5
        copy.value -= 5
        node.rows[id: id] = copy
      case .copyMutateAssignLeaf:
        var leaf = node.pinned
        leaf.value += 1
        node.pinned = leaf
      case .copyPinnedToSpare: node.spare = node.pinned
      case .spareIncrement: node.spare.value += 1
      case .undoRows(_, let id):
        let saved = node.rows
        node.rows[id: id]?.value += 1
        node.rows = saved
      case .undoInPlace:
        let saved = node
        node.value += 1
        node.label = "z"
        node.restore(saved)
      case .undoByAssignment:
        let saved = node.pinned
        node.pinned.value += 2
        node.pinned = saved
      case .itemsAppend: node.items.append(Leaf())
      case .itemInPlace(_, let index, let delta):
        guard index < node.items.count else { return }
        node.items[index].value += delta
      case .itemCopyAssign(_, let index):
        guard index < node.items.count else { return }
        var item = node.items[index]
        item.value += 1
        node.items[index] = item
      case .itemsRemoveFirst:
        guard !node.items.isEmpty else { return }
        node.items.removeFirst()
      case .itemsReassign: node.items = Array(node.items)
      case .tableSet(_, let key): node.table[key] = Leaf()
      case .tableInPlace(_, let key, let delta): node.table[key]?.value += delta
      case .tableCopyAssign(_, let key):
        guard var entry = node.table[key] else { return }
        entry.value += 1
        node.table[key] = entry
      case .copyRowIntoSibling(_, let id):
        guard let row = node.rows[id: id], let sibling = node.rows.first(where: { $0.id != id }) else { return }
        node.rows[id: sibling.id]!.rows[id: id] = row
      case .copyRowToSlot(_, let id):
        guard let row = node.rows[id: id] else { return }
        node.slot = .present(row)
      case .copyPinnedToItem:
        if node.items.isEmpty { node.items.append(node.pinned) } else { node.items[0] = node.pinned }
      case .copyItemToTable(_, let key):
        guard let item = node.items.first else { return }
        node.table[key] = item
      case .copyLeafToPinned:
        guard let leaf = node.leaf else { return }
        node.pinned = leaf
      case .changeCopyElsewhereSetBack(_, let id):
        guard node.rows[id: id] != nil, let sibling = node.rows.first(where: { $0.id != id }) else { return }
        node.rows[id: id]!.value += 3
        node.rows[id: sibling.id]!.rows[id: id] = node.rows[id: id]!
        node.rows[id: sibling.id]!.rows[id: id]!.value -= 3
      }
    }
  }
}

/// Fresh ids for new nodes within one session.
struct IDSource {
  private(set) var next: Int
  init(startingAt start: Int) { next = start }
  mutating func make() -> Int {
    defer { next += 1 }
    return next
  }
}

extension SeededRandom {
  /// A random state of bounded size and depth.
  mutating func node(depth: Int, ids: inout IDSource) -> Node {
    let id = ids.make()
    var rows: [Node] = []
    if depth > 0 {
      for _ in 0..<int(0...3) { rows.append(node(depth: depth - 1, ids: &ids)) }
    }
    let plains = (0..<int(0...2)).map { _ in Plain(id: ids.make(), number: int(0...3)) }
    let slot: Slot = depth > 0 && chance(0.5) ? .present(node(depth: depth - 1, ids: &ids)) : .empty
    let choice: Choice
    switch int(0...2) {
    case 0: choice = .plain(int(0...2))
    case 1: choice = depth > 0 ? .left(node(depth: depth - 1, ids: &ids)) : .plain(1)
    default: choice = depth > 0 ? .right(node(depth: depth - 1, ids: &ids)) : .plain(2)
    }
    let items = (0..<int(0...2)).map { _ in Leaf(value: int(0...2)) }
    var table: [Int: Leaf] = [:]
    for key in 0..<int(0...2) { table[key] = Leaf(value: int(0...2)) }
    return Node(
      id: id, value: int(0...3), label: pick(["a", "b", "c"]), rows: rows, plains: plains, slot: slot,
      choice: choice, leaf: chance(0.5) ? Leaf(value: int(0...2)) : nil, items: items, table: table)
  }

  /// A random mutation of the state `root` (read without tracking).
  mutating func mutation(of root: Node, ids: inout IDSource) -> Mutation {
    let path = self.path(in: root, depth: 3)
    let node = resolve(root, path[...])!
    let rowIDs = node.rows.ids.elements
    let anyRow = rowIDs.isEmpty ? ids.next + 1_000 : pick(rowIDs)
    let plainIDs = node.plains.ids.elements
    let itemIndex = int(0...max(0, node.items.count - 1))
    let tableKey = int(0...2)
    if chance(0.4) {
      switch int(0...22) {
      case 0: return .scratchCopy(path, id: anyRow)
      case 1: return .scratchAssignBack(path, id: anyRow)
      case 2: return .copyMutateAssignLeaf(path)
      case 3: return .copyPinnedToSpare(path)
      case 4: return .spareIncrement(path)
      case 5: return .undoRows(path, id: anyRow)
      case 6: return .undoInPlace(path)
      case 7: return .undoByAssignment(path)
      case 8: return .itemsAppend(path)
      case 9, 10: return .itemInPlace(path, index: itemIndex, delta: pick([-1, 1]))
      case 11: return .itemCopyAssign(path, index: itemIndex)
      case 12: return chance(0.5) ? .itemsRemoveFirst(path) : .itemsReassign(path)
      case 13: return .tableSet(path, key: tableKey)
      case 14: return .tableInPlace(path, key: tableKey, delta: pick([-1, 1]))
      case 15: return .tableCopyAssign(path, key: tableKey)
      case 16: return .copyRowIntoSibling(path, id: anyRow)
      case 17: return .copyRowToSlot(path, id: anyRow)
      case 18: return .copyPinnedToItem(path)
      case 19: return .copyItemToTable(path, key: tableKey)
      case 20: return .copyLeafToPinned(path)
      case 21: return .changeCopyElsewhereSetBack(path, id: anyRow)
      default: return .tableCopyAssign(path, key: tableKey)
      }
    }
    switch int(0...25) {
    case 0: return .setValue(path, int(0...3))  // may be the same value
    case 1: return .addValue(path, pick([-1, 0, 1]))
    case 2: return .setValueAndBack(path, int(0...5))
    case 3: return .setLabel(path, pick(["a", "b", "c"]))
    case 4: return .appendRow(path, id: ids.make(), value: int(0...3))
    case 5: return .insertRowFirst(path, id: ids.make())
    case 6: return .removeRow(path, id: anyRow)
    case 7: return .moveRow(path, from: int(0...max(0, rowIDs.count - 1)), to: int(0...max(0, rowIDs.count - 1)))
    case 8: return .replaceRow(path, id: anyRow)
    case 9: return .copyMutateAssignRow(path, id: anyRow)
    case 10, 11: return .rowValueInPlace(path, id: anyRow, delta: pick([-1, 1, 2]))
    case 12: return chance(0.3) ? .clearRows(path) : .reassignRows(path)
    case 13: return .setSlot(path, id: chance(0.6) ? ids.make() : nil)
    case 14: return chance(0.5) ? .choosePlain(path, int(0...2)) : .chooseLeft(path, id: ids.make())
    case 15: return .swapChoiceCase(path)
    case 16: return .pinnedIncrement(path)
    case 17: return .pinnedReplace(path)
    case 18: return .pinnedResetInPlace(path)
    case 19: return .swapPinnedAndSpare(path)
    case 20: return .setLeaf(path, present: chance(0.6))
    case 21: return .leafInPlace(path, delta: pick([1, 2]))
    case 22: return .appendPlain(path, id: ids.make())
    case 23: return .plainInPlace(path, id: plainIDs.isEmpty ? -1 : pick(plainIDs), delta: pick([1, 2]))
    case 24: return .renew(path)
    default: return .addValue(path, 1)
    }
  }
}

/// A part of a node that an older copy of it gives back (`FuzzTransaction.Kind.restorePart`),
/// after a detour through another state, or none, in the same transaction: the states that come
/// back are older copies of what their readers may have read newer states of.
enum RestoredPart: CaseIterable, Sendable, CustomStringConvertible {
  case choice, slot, leaf, pinned, rows, firstRow

  var description: String {
    switch self {
    case .choice: "choice"
    case .slot: "slot"
    case .leaf: "leaf"
    case .pinned: "pinned"
    case .rows: "rows"
    case .firstRow: "rows[first]"
    }
  }

  /// What the transaction does first.
  var detour: String {
    switch self {
    case .choice: "choice = .plain(7)"
    case .slot: "slot = .empty"
    case .leaf: "leaf = nil"
    case .pinned: "pinned = Leaf()"
    case .rows: "rows.removeFirst"
    case .firstRow: "rows[first] = Node(same id)"
    }
  }

  func restore(from saved: Node, into node: inout Node) {
    switch self {
    case .choice:
      node.choice = .plain(7)
      node.choice = saved.choice
    case .slot:
      node.slot = .empty
      node.slot = saved.slot
    case .leaf:
      node.leaf = nil
      node.leaf = saved.leaf
    case .pinned:
      node.pinned = Leaf()
      node.pinned = saved.pinned
    case .rows:
      if let first = node.rows.first { node.rows.remove(id: first.id) }
      node.rows = saved.rows
    case .firstRow:
      guard let row = saved.rows.first, node.rows[id: row.id] != nil else { return }
      node.rows[id: row.id] = Node(id: row.id)
      node.rows[id: row.id] = row
    }
  }
}
