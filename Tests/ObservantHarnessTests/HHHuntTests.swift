import Observant
import ObservantHarness
import ObservantTestSupport
import Synchronization
import Testing

// Tests written from the documentation only (module page, RenderTree/RenderContext/CellPool doc
// comments, the Observant articles): every promise is checked with exact counts.

/// A few independent tracked fields.
final class HHModel: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var a = 0
  @Tracked var b = 0
  @Tracked var c = 0
  @Tracked var show = true
  @Tracked var label = "x"
}

// swift-format-ignore
/// A row with its own registrar.
struct HHRow: ObservableState, Identifiable, Equatable {
  var registrar = StateRegistrar<Self>()
  let id: Int

  private var _count: StateField<Int>
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }

  private var _title: StateField<String>
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

  init(id: Int, count: Int = 0, title: String = "") {
    self.id = id
    _count = StateField(count)
    _title = StateField(title.isEmpty ? "r\(id)" : title)
  }
}

/// Rows held by a class, mutated in place.
final class HHList: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var rows: IdentifiedArrayOf<HHRow>
  @Tracked var flag = 0

  init(ids: some Sequence<Int>) {
    rows = IdentifiedArrayOf(uniqueElements: ids.map { HHRow(id: $0) })
  }

  /// A list whose row children read their element (passed by `forEach`) directly.
  func makeTree(_ tracking: any RenderTracking = ReactionTracking()) -> RenderTree {
    RenderTree("List", tracking: tracking) { list in
      list.forEach(self.rows, name: { "Row[\($0.id)]" }) { row, context in
        context.text("\(row.title): \(row.count)")
      }
    }
  }
}

/// Plain, non-Equatable, non-observable elements.
struct HHPlain: Identifiable {
  let id: Int
  var label: String
}

final class HHPlainList: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var items: [HHPlain] = [HHPlain(id: 1, label: "one"), HHPlain(id: 2, label: "two")]
}

/// A class element with a tracked field.
final class HHNode: Trackable, Identifiable {
  let trackingRegistrar = TrackingRegistrar()
  let id: Int
  @Tracked var value: Int

  init(id: Int, value: Int) {
    self.id = id
    self.value = value
  }
}

final class HHNodeList: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var nodes: [HHNode] = [HHNode(id: 1, value: 10), HHNode(id: 2, value: 20)]
}

/// Outputs of the named live nodes.
private func hhOutputs(_ tree: RenderTree, _ names: [String]) -> [String?] {
  names.map { tree.output(of: $0) }
}

@Suite("HH render tree semantics")
struct HHRenderTreeTests {
  @Test("module page example: the log prints exactly as documented")
  func modulePageExample() {
    let model = HHModel()
    let tree = RenderTree("Screen") { screen in
      screen.child("Header") { $0.text(model.label) }
      screen.child("Stats") { $0.text("\(model.a) followers") }
      screen.child("Badge") { $0.text(model.show ? "online" : "away") }
    }
    tree.step("follow") { model.a += 1 }
    tree.step("rename, go online") {
      model.label = "Ada Lovelace"
      model.show = false
    }
    tree.step("same value") { model.a += 0 }
    #expect(
      tree.log.description == """
        initial: Screen.body x1, Header.body x1, Stats.body x1, Badge.body x1
        follow: Stats.body x1
        rename, go online: Header.body x1, Badge.body x1
        same value: nothing ran
        """)
    #expect(tree.log.steps.map(\.name) == ["initial", "follow", "rename, go online", "same value"])
    #expect(tree.output(of: "Stats") == "1 followers")
  }

  @Test("children created by a run run right after it, in declaration order; changed kept children after")
  func runOrderWithinStep() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      let a = model.a
      if a > 0 {
        p.child("A") { child in
          child.text("A")
          child.child("A1") { $0.text("A1") }
        }
      }
      p.child("B", input: a) { $0.text("B") }
      if a > 0 { p.child("C") { $0.text("C") } }
    }
    #expect(tree.log.steps[0].runs == ["P", "B"])
    let step = tree.step { model.a = 1 }
    #expect(step.runs == ["P", "A", "A1", "C", "B"])
    #expect(tree.liveNodeNames == ["P", "A", "A1", "B", "C"])
  }

  @Test("a kept child whose input changed and whose own read changed runs once")
  func inputAndOwnReadRunOnce() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      let a = model.a
      p.child("C", input: a) { c in
        c.child("G", input: model.a) { $0.text("g\(model.a)") }
        c.text("c\(model.a)")
      }
    }
    let step = tree.step { model.a = 1 }
    #expect(step.runs == ["P", "C", "G"])
    #expect(tree.output(of: "C") == "c1")
    #expect(tree.output(of: "G") == "g1")
    #expect(tree.runCount(of: "G") == 2)
  }

  @Test("a child disposed in the step that also dirtied it never runs again")
  func disposedWhileDirty() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      if model.show {
        p.child("C") { c in
          c.text("\(model.b)")
          c.child("G") { $0.text("\(model.c)") }
        }
      }
    }
    #expect(tree.liveNodeNames == ["P", "C", "G"])
    let step = tree.step {
      model.b = 1
      model.c = 1
      model.show = false
    }
    #expect(step.runs == ["P"])
    #expect(tree.liveNodeNames == ["P"])
    #expect(tree.runCount(of: "C") == 0)
    #expect(tree.output(of: "C") == nil)
    #expect(tree.log.totalRuns(of: "C") == 1)
    #expect(
      tree.step {
        model.b = 2; model.c = 2
      }.runs == [])
    // Declared again: a new node, whose count starts again.
    #expect(tree.step { model.show = true }.runs == ["P", "C", "G"])
    #expect(tree.runCount(of: "C") == 1)
    #expect(tree.output(of: "C") == "2")
    #expect(tree.log.totalRuns(of: "C") == 2)
  }

  @Test("a kept child's later runs use the latest body its parent declared")
  func latestBody() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      let prefix = model.label
      p.child("C") { c in c.text("\(prefix):\(model.b)") }
    }
    #expect(tree.step { model.label = "y" }.runs == ["P"])
    #expect(tree.output(of: "C") == "x:0")
    #expect(tree.step { model.b = 1 }.runs == ["C"])
    #expect(tree.output(of: "C") == "y:1")
  }

  @Test("a duplicate key keeps the first declaration; the second's body never runs")
  func duplicateKeyFirstWins() {
    let model = HHModel()
    let sink = HHSink()
    RenderTree.withDiagnosticHandler({ sink.append($0) }) {
      let tree = RenderTree("P") { p in
        p.child("first", key: 1) { $0.text("first \(model.a)") }
        p.child("second", key: 1) { $0.text("second \(model.b)") }
      }
      #expect(tree.liveNodeNames == ["P", "first"])
      #expect(tree.diagnostics.count == 1)
      #expect(tree.diagnostics.first?.kind == .duplicateKey)
      #expect(tree.diagnostics.first?.parentName == "P")
      #expect(tree.diagnostics.first?.key == "1")
      #expect(tree.output(of: "first") == "first 0")
      #expect(tree.step { model.b = 1 }.runs == [])
      #expect(tree.step { model.a = 1 }.runs == ["first"])
      #expect(tree.output(of: "first") == "first 1")
    }
    #expect(sink.count == 1)
  }

  @Test("a duplicate key on a re-run keeps the first declaration's input and body")
  func duplicateKeyOnRerun() {
    let model = HHModel()
    RenderTree.withDiagnosticHandler({ _ in }) {
      let tree = RenderTree("P") { p in
        _ = model.label
        p.child("C", key: "k", input: 0) { $0.text("first \(model.a)") }
        if model.label != "x" {
          p.child("D", key: "k", input: 5) { $0.text("second \(model.a)") }
        }
      }
      // The first declaration's input (0) is unchanged: the kept child does not re-run.
      #expect(tree.step { model.label = "y" }.runs == ["P"])
      #expect(tree.liveNodeNames == ["P", "C"])
      #expect(tree.diagnostics.count == 1)
      #expect(tree.diagnostics.first?.key == "\"k\"")
      #expect(tree.step { model.a = 1 }.runs == ["C"])
      #expect(tree.output(of: "C") == "first 1")
    }
  }

  @Test("a kept child re-declared under another name takes the new name and body")
  func renamedChild() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      let name = model.label
      p.child(name, key: 1) { $0.text("\(name) \(model.a)") }
    }
    #expect(tree.step { model.label = "y" }.runs == ["P"])
    #expect(tree.liveNodeNames == ["P", "y"])
    #expect(tree.output(of: "x") == nil)
    #expect(tree.output(of: "y") == "x 0")  // kept, not re-run
    #expect(tree.step { model.a = 1 }.runs == ["y"])
    #expect(tree.output(of: "y") == "y 1")
    #expect(tree.runCount(of: "y") == 2)
  }

  @Test("moved rows: live names follow declaration order, runs follow creation order")
  func movedRows() {
    let list = HHList(ids: 1...3)
    let tree = list.makeTree()
    #expect(tree.step("move") { list.rows.move(fromOffsets: [2], toOffset: 0) }.runs == ["List"])
    #expect(tree.liveNodeNames == ["List", "Row[3]", "Row[1]", "Row[2]"])
    let step = tree.step {
      list.rows[id: 3]?.count = 1
      list.rows[id: 1]?.count = 1
    }
    #expect(step.runs == ["Row[1]", "Row[3]"])
    #expect(hhOutputs(tree, ["Row[1]", "Row[2]", "Row[3]"]) == ["r1: 1", "r2: 0", "r3: 1"])
  }

  @Test("a forEach child sees its current element after moves and in-place changes")
  func currentElementAfterMove() {
    let list = HHList(ids: 1...4)
    let tree = list.makeTree()
    tree.step {
      list.rows.move(fromOffsets: [0], toOffset: 4)
      list.rows[id: 1]?.count = 5
    }
    #expect(hhOutputs(tree, ["Row[1]", "Row[2]"]) == ["r1: 5", "r2: 0"])
    // The shape changes again, then an in-place change of another row, one step each.
    tree.step { list.rows.remove(id: 2) }
    let step = tree.step { list.rows[id: 4]?.title = "four" }
    #expect(step.runs == ["Row[4]"])
    #expect(tree.output(of: "Row[4]") == "four: 0")
    #expect(tree.liveNodeNames == ["List", "Row[3]", "Row[4]", "Row[1]"])
  }

  @Test("undo: restoring a snapshot re-runs the edited rows, which show the restored values")
  func undoSnapshot() {
    let list = HHList(ids: 1...3)
    let tree = list.makeTree()
    let snapshot = list.rows
    #expect(tree.step { list.rows[id: 2]?.count = 7 }.runs == ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "r2: 7")
    let undo = tree.step("undo") { list.rows = snapshot }
    #expect(undo.count(of: "Row[2]") == 1)
    #expect(undo.count(of: "Row[1]") == 0)
    #expect(undo.count(of: "Row[3]") == 0)
    #expect(tree.output(of: "Row[2]") == "r2: 0")
    // Later in-place writes still reach the restored row's child.
    #expect(tree.step { list.rows[id: 2]?.count = 3 }.runs == ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "r2: 3")
  }

  @Test("undo of structure: a removed row restored from a snapshot gets a node with current values")
  func undoRemoval() {
    let list = HHList(ids: 1...3)
    let tree = list.makeTree()
    let snapshot = list.rows
    tree.step { list.rows[id: 2]?.count = 4 }
    tree.step { list.rows.remove(id: 2) }
    #expect(tree.liveNodeNames == ["List", "Row[1]", "Row[3]"])
    let undo = tree.step { list.rows = snapshot }
    #expect(undo.runs == ["List", "Row[2]"])
    #expect(tree.output(of: "Row[2]") == "r2: 0")
    #expect(tree.step { list.rows[id: 2]?.count = 1 }.runs == ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "r2: 1")
  }

  @Test("a row replaced by a new value, then by its older copy: the child shows each")
  func replacedThenOlderCopyBack() {
    let list = HHList(ids: 1...2)
    let tree = list.makeTree()
    tree.step { list.rows[id: 1]?.count = 3 }
    let saved = list.rows[id: 1]!
    let replace = tree.step { list.rows[id: 1] = HHRow(id: 1, count: 3, title: "r1") }
    #expect(replace.count(of: "Row[1]") == 1)
    #expect(replace.count(of: "Row[2]") == 0)
    #expect(tree.step { list.rows[id: 1]?.count = 9 }.runs == ["Row[1]"])
    #expect(tree.output(of: "Row[1]") == "r1: 9")
    let back = tree.step { list.rows[id: 1] = saved }
    #expect(back.count(of: "Row[1]") == 1)
    #expect(tree.output(of: "Row[1]") == "r1: 3")
    #expect(tree.step { list.rows[id: 1]?.count = 4 }.runs == ["Row[1]"])
    #expect(tree.output(of: "Row[1]") == "r1: 4")
  }

  @Test("copy-mutate-assign and drafts: at most one run per copy, and the child always shows the live row")
  func draftsAndCopies() {
    let list = HHList(ids: 1...2)
    let tree = list.makeTree()
    var draft = list.rows[id: 1]!
    let first = tree.step { draft.count = 1 }
    #expect(first.count(of: "Row[1]") <= 1)
    #expect(tree.step { draft.count = 2 }.runs == [])
    #expect(tree.output(of: "Row[1]") == "r1: 0")
    let save = tree.step { list.rows[id: 1] = draft }
    #expect(save.runs == ["Row[1]"])
    #expect(tree.output(of: "Row[1]") == "r1: 2")
    // The draft is the row now; a further change to it is a copy again.
    draft.count = 3
    #expect(tree.output(of: "Row[1]") == "r1: 2")
    #expect(tree.step { list.rows[id: 1]?.count = 5 }.runs == ["Row[1]"])
    #expect(tree.output(of: "Row[1]") == "r1: 5")
  }

  @Test("plain (non-Equatable) elements: a kept child is not re-run by its parent, and sees the current element later")
  func plainElements() {
    let plain = HHPlainList()
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.forEach(plain.items, name: { "Item[\($0.id)]" }) { item, context in
        if item.id == 1 { _ = model.b }
        context.text(item.label)
      }
    }
    #expect(tree.step { plain.items[0].label = "uno" }.runs == ["P"])
    #expect(tree.output(of: "Item[1]") == "one")
    #expect(tree.step { model.b = 1 }.runs == ["Item[1]"])
    #expect(tree.output(of: "Item[1]") == "uno")
  }

  @Test("class elements: an instance replaced under the same id re-runs its child once, then follows the new one")
  func classElements() {
    let list = HHNodeList()
    let tree = RenderTree("P") { p in
      p.forEach(list.nodes, name: { "Node[\($0.id)]" }) { node, context in
        context.text("\(node.value)")
      }
    }
    let old = list.nodes[0]
    let replace = tree.step { list.nodes[0] = HHNode(id: 1, value: 11) }
    #expect(replace.runs == ["P", "Node[1]"])
    #expect(tree.output(of: "Node[1]") == "11")
    #expect(tree.step { old.value = 99 }.runs == [])
    #expect(tree.step { list.nodes[0].value = 12 }.runs == ["Node[1]"])
    #expect(tree.output(of: "Node[1]") == "12")
  }

  @Test("an ObservableState input passed again as an edited copy does not re-run the child through its parent")
  func identityInput() {
    let list = HHList(ids: 1...1)
    let model = HHModel()
    let tree = RenderTree("P") { p in
      _ = model.a
      let row = list.rows[id: 1]!
      p.child("C", input: row) { $0.text("\(list.rows[id: 1]!.count)") }
    }
    // Parent re-runs, the input is the same row (same identity): the child does not run.
    #expect(tree.step { model.a = 1 }.runs == ["P"])
    // A new value under the same key, == to the old one: the child re-runs.
    let replace = tree.step { list.rows[id: 1] = HHRow(id: 1) }
    #expect(replace.count(of: "C") == 1)
    #expect(replace.count(of: "P") == 1)
  }

  @Test("a body's write re-runs a sibling in another round of the same step")
  func reentrantWrite() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.child("A") { $0.text("a \(model.b)") }
      p.child("B") { b in
        let a = model.a
        model.b = a * 10
        b.text("b \(a)")
      }
    }
    #expect(hhOutputs(tree, ["A", "B"]) == ["a 0", "b 0"])
    let step = tree.step { model.a = 1 }
    #expect(step.runs == ["B", "A"])
    #expect(hhOutputs(tree, ["A", "B"]) == ["a 10", "b 1"])
  }

  @Test("a body's write during the initial build re-runs an earlier sibling, which shows the current value")
  func reentrantWriteInBuild() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.child("A") { $0.text("a \(model.b)") }
      p.child("B") { b in
        model.b = 5
        b.text("b")
      }
    }
    #expect(tree.output(of: "A") == "a 5")
    #expect(tree.runCount(of: "A") == 2)
    #expect(tree.runCount(of: "B") == 1)
  }

  @Test("a child whose run makes its parent remove it: removed in the same step, never runs again")
  func childRemovesItself() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      if model.show {
        p.child("C") { c in
          let a = model.a
          if a > 0 { model.show = false }
          c.text("\(a)")
        }
      }
      p.child("D") { $0.text("\(model.a)") }
    }
    let step = tree.step { model.a = 1 }
    #expect(step.runs == ["C", "D", "P"])
    #expect(tree.liveNodeNames == ["P", "D"])
    #expect(tree.step { model.a = 2 }.runs == ["D"])
  }

  @Test("a deep chain: a change at the leaf runs the leaf only; at the root, the root only")
  func deepChain() {
    let model = HHModel()
    let depth = 150
    func level(_ d: Int) -> (RenderContext) -> Void {
      { context in
        if d == 0 { _ = model.b }
        if d == depth - 1 {
          context.text("\(model.a)")
        } else {
          context.child("N\(d + 1)", body: level(d + 1))
        }
      }
    }
    let tree = RenderTree("N0", body: level(0))
    #expect(tree.liveNodeNames.count == depth)
    #expect(tree.step { model.a = 1 }.runs == ["N\(depth - 1)"])
    #expect(tree.output(of: "N\(depth - 1)") == "1")
    #expect(tree.step { model.b = 1 }.runs == ["N0"])
    tree.tearDown()
    #expect(tree.liveNodeNames == [])
  }

  @Test("tearDown: nothing runs again, a second call does nothing")
  func tearDown() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.child("C") { $0.text("\(model.a)") }
      _ = model.b
    }
    tree.tearDown()
    tree.tearDown()
    #expect(tree.liveNodeNames == [])
    #expect(tree.output(of: "C") == nil)
    #expect(tree.runCount(of: "C") == 0)
    #expect(
      tree.step {
        model.a = 1; model.b = 1
      }.runs == [])
    model.a = 2
    #expect(tree.log.steps.map(\.name) == ["initial", "step"])
  }

  @Test("a released tree is deallocated, releases what its bodies captured, and never runs again")
  func treeLifetime() {
    let model = HHModel()
    let counter = HHCounter()
    weak var weakTree: RenderTree?
    weak var weakCaptured: HHModel?
    do {
      let captured = HHModel()
      weakCaptured = captured
      let tree = RenderTree("P") { p in
        _ = captured.a
        p.child("C") { c in
          counter.value += 1
          c.text("\(model.a)")
        }
      }
      weakTree = tree
      #expect(counter.value == 1)
    }
    #expect(weakTree == nil)
    #expect(weakCaptured == nil)
    model.a = 1
    #expect(counter.value == 1)
  }

  @Test("step descriptions: several runs of one node, nothing ran, counts")
  func stepDescription() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.child("A") { $0.text("a \(model.b)") }
      p.child("B") { b in
        let a = model.a
        if a == 1 { model.b = 1 }
        if a == 1 { model.c = 1 }
        b.text("b")
      }
      p.child("C") { $0.text("c \(model.c)") }
    }
    let step = tree.step("go") { model.a = 1 }
    #expect(step.runs == ["B", "A", "C"])
    #expect(step.description == "B.body x1, A.body x1, C.body x1")
    #expect(step.counts == ["A": 1, "B": 1, "C": 1])
    #expect(tree.step { model.a = 1 }.description == "nothing ran")
    #expect(tree.log.last?.name == "step")
  }

  @Test("writes between steps are logged as between steps")
  func betweenSteps() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.child("A") { $0.text("\(model.a)") }
    }
    model.a = 1
    #expect(tree.output(of: "A") == "1")
    #expect(tree.log.steps.map(\.name) == ["initial", RenderTree.betweenStepsName])
    #expect(tree.log.last?.runs == ["A"])
    tree.step("s") { model.a = 2 }
    #expect(tree.log.steps.map(\.name) == ["initial", RenderTree.betweenStepsName, "s"])
    #expect(tree.log.totalRuns(of: "A") == 3)
  }

  @Test("a step whose mutation throws is still logged and its bodies ran")
  func throwingStep() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.child("A") { $0.text("\(model.a)") }
    }
    #expect(throws: HHError.self) {
      try tree.step("boom") {
        model.a = 1
        throw HHError()
      }
    }
    #expect(tree.log.last?.name == "boom")
    #expect(tree.log.last?.runs == ["A"])
    #expect(tree.output(of: "A") == "1")
  }
}

struct HHError: Error {}

/// A counter a body can bump.
final class HHCounter {
  var value = 0
}

/// Collects diagnostics (the handler is @Sendable).
final class HHSink: Sendable {
  private let box = Mutex<[String]>([])
  func append(_ diagnostic: RenderDiagnostic) { box.withLock { $0.append(diagnostic.message) } }
  var count: Int { box.withLock { $0.count } }
}

/// Waits for the main actor's next turn: jobs enqueued on it before this call have run.
@MainActor
private func hhNextTurn() async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    Task { @MainActor in continuation.resume() }
  }
}

@Suite("HH cell reuse")
struct HHCellPoolTests {
  private func render(_ list: HHList, _ id: Int) -> () -> String {
    { "Row \(id): \(withoutTracking { list.rows[id: id] }?.count ?? -1)" }
  }

  @Test("the most recently enqueued cell is reused first; enqueueing a free cell does nothing")
  func lifoReuse() {
    let list = HHList(ids: 1...5)
    let pool = CellPool("Cell")
    let cells = (1...3).map { pool.dequeue(for: $0, render: render(list, $0)) }
    #expect(cells.map(\.number) == [0, 1, 2])
    pool.enqueue(cells[0])
    pool.enqueue(cells[2])
    pool.enqueue(cells[2])
    #expect(!cells[0].isBound)
    #expect(cells[0].boundID == nil)
    #expect(cells[0].content == "Row 1: 0")  // keeps its last content while free
    let first = pool.dequeue(for: 4, render: render(list, 4))
    let second = pool.dequeue(for: 5, render: render(list, 5))
    let third = pool.dequeue(for: 1, render: render(list, 1))
    #expect(first === cells[2])
    #expect(second === cells[0])
    #expect(third.number == 3)
    #expect(pool.cells.count == 4)
    #expect(first.boundID == AnyHashable(4))
    #expect(first.history == ["Row 3: 0", "Row 4: 0"])
    #expect(first.renderCount == 2)
  }

  @Test("description: name, number, bound id or free, content, renders")
  func description() {
    let list = HHList(ids: 1...4)
    let pool = CellPool("Cell")
    _ = pool.dequeue(for: 1, render: render(list, 1))
    let cell = pool.dequeue(for: 2, render: render(list, 2))
    pool.enqueue(cell)
    #expect(cell.description == "Cell#1 free: Row 2: 0 (1 renders)")
    let reused = pool.dequeue(for: 4, render: render(list, 4))
    list.rows[id: 4]?.count = 1
    #expect(reused.description == "Cell#1 [4]: Row 4: 1 (3 renders)")
  }

  @Test("an update to a row whose cell was reused never reaches the new row's cell")
  func oldRowNeverReaches() {
    let list = HHList(ids: 1...3)
    let pool = CellPool("Cell")
    let cell = pool.dequeue(for: 1, render: render(list, 1))
    pool.enqueue(cell)
    list.rows[id: 1]?.count = 1
    #expect(cell.renderCount == 1)
    let reused = pool.dequeue(for: 2, render: render(list, 2))
    list.rows[id: 1]?.count = 2
    list.rows[id: 2]?.count = 1
    #expect(reused.history == ["Row 1: 0", "Row 2: 0", "Row 2: 1"])
  }

  @Test("a cell re-bound to the same id gets the new render only")
  func reboundSameID() {
    let list = HHList(ids: 1...2)
    let pool = CellPool("Cell")
    let cell = pool.dequeue(for: 1, render: render(list, 1))
    pool.enqueue(cell)
    let again = pool.dequeue(for: 1) { "again \(withoutTracking { list.rows[id: 1] }?.count ?? -1)" }
    #expect(again === cell)
    list.rows[id: 1]?.count = 1
    #expect(cell.history == ["Row 1: 0", "again 0", "again 1"])
  }

  @Test("a cell enqueued and re-bound by another cell's render, in the flush where it was dirty")
  func reuseDuringFlush() {
    let list = HHList(ids: 1...3)
    let pool = CellPool("Cell")
    var cells: [Cell] = []
    var rebound: Cell?
    // Cell 0's render, when row 1 reaches 1, scrolls row 2 away and row 3 in. Cell 0's binding
    // is older than cell 1's: it runs first in the flush.
    cells.append(
      pool.dequeue(for: 1) {
        let count = list.rows[id: 1]?.count ?? -1
        if count == 1, rebound == nil {
          pool.enqueue(cells[1])
          rebound = pool.dequeue(for: 3) { "Row 3: \(list.rows[id: 3]?.count ?? -1)" }
        }
        return "Row 1: \(count)"
      })
    cells.append(pool.dequeue(for: 2, render: render(list, 2)))
    transaction {
      list.rows[id: 2]?.count = 5  // dirties cell 1 (bound to row 2), which cell 0 re-binds first
      list.rows[id: 1]?.count = 1
    }
    #expect(rebound === cells[1])
    #expect(cells[1].history == ["Row 2: 0", "Row 3: 0"])
    // The binding made inside cell 0's render survives cell 0's next run.
    list.rows[id: 1]?.count = 2
    list.rows[id: 3]?.count = 1
    #expect(cells[1].history == ["Row 2: 0", "Row 3: 0", "Row 3: 1"])
    #expect(cells[0].content == "Row 1: 2")
    // Cell 0's render holds `cells`, which holds cell 0: unbinding breaks the cycle.
    for cell in cells { pool.enqueue(cell) }
  }

  @Test("a cell dequeued inside a tree body keeps rendering after the body re-runs")
  func cellFromTreeBody() {
    let list = HHList(ids: 1...2)
    let model = HHModel()
    let pool = CellPool("Cell")
    var cell: Cell?
    let tree = RenderTree("Table") { table in
      _ = model.a
      if cell == nil { cell = pool.dequeue(for: 1) { "Row 1: \(list.rows[id: 1]?.count ?? -1)" } }
      table.text("table")
    }
    tree.step { model.a = 1 }
    tree.step { list.rows[id: 1]?.count = 3 }
    #expect(cell?.history == ["Row 1: 0", "Row 1: 3"])
    #expect(tree.runCount(of: "Table") == 2)
  }

  @Test("a cell whose row was removed keeps its content and is not re-rendered by the removal")
  func removedRowCell() {
    let list = HHList(ids: 1...3)
    let pool = CellPool("Cell")
    let cell = pool.dequeue(for: 2) { "Row 2: \(list.rows[id: 2]?.count ?? -1)" }
    var removed = list.rows.remove(id: 2)!
    // The cell read `rows` (a structure change): it re-renders once and shows the row is gone.
    #expect(cell.content == "Row 2: -1")
    removed.count = 5
    pool.enqueue(cell)
    #expect(removed.registrar.observerEntryCount == 0)
    #expect(cell.renderCount == 2)
  }

  @Test("a released pool and its cells are deallocated; nothing renders afterwards")
  func poolLifetime() {
    let list = HHList(ids: 1...2)
    let counter = HHCounter()
    weak var weakPool: CellPool?
    weak var weakCell: Cell?
    do {
      let pool = CellPool("Cell")
      weakPool = pool
      let cell = pool.dequeue(for: 1) {
        counter.value += 1
        return "\(list.rows[id: 1]?.count ?? -1)"
      }
      weakCell = cell
    }
    #expect(weakPool == nil)
    #expect(weakCell == nil)
    list.rows[id: 1]?.count = 1
    #expect(counter.value == 1)
  }

  @Test("randomized scrolling: every bound cell shows its row's current count, free cells never render")
  func randomScrolling() {
    for seed: UInt64 in [1, 2, 3, 42] {
      var random = SplitMix64(state: seed)
      let list = HHList(ids: 1...12)
      let pool = CellPool("Cell")
      var bound: [Int: Cell] = [:]
      for _ in 0..<RandomTestBudget.scaled(150) {
        let id = random.int(12) + 1
        switch random.int(4) {
        case 0:
          if let cell = bound.removeValue(forKey: id) { pool.enqueue(cell) }
        case 1:
          if bound[id] == nil {
            bound[id] = pool.dequeue(for: id) { "\(id):\(list.rows[id: id]?.count ?? -1)" }
          }
        case 2:
          list.rows[id: id]?.count += 1
        default:
          transaction {
            list.rows[id: id]?.count += 1
            if let cell = bound.removeValue(forKey: id) { pool.enqueue(cell) }
            let other = random.int(12) + 1
            if bound[other] == nil {
              bound[other] = pool.dequeue(for: other) { "\(other):\(list.rows[id: other]?.count ?? -1)" }
            }
          }
        }
        for (id, cell) in bound {
          #expect(cell.content == "\(id):\(list.rows[id: id]!.count)")
          #expect(cell.boundID == AnyHashable(id))
        }
        for cell in pool.cells where !cell.isBound {
          #expect(!bound.values.contains { $0 === cell })
        }
      }
      // Rendering only happens at binding and at changes of its own row: count them.
      let renders = pool.cells.reduce(0) { $0 + $1.renderCount }
      #expect(renders == pool.cells.reduce(0) { $0 + $1.history.count })
    }
  }
}

@Suite("HH run causes")
struct HHCauseTests {
  private func tree(_ list: HHList) -> RenderTree {
    list.makeTree(ReactionTracking(recordingCauses: true))
  }

  @Test("the documented log line, and no causes for first runs")
  func documentedLine() {
    let list = HHList(ids: 1...5)
    let tree = tree(list)
    #expect(tree.log.steps[0].causes.allSatisfy { $0.isEmpty })
    tree.step("bump") { list.rows[id: 3]?.count += 1 }
    #expect(tree.log.last?.description == "Row[3].body x1 (HHRow.count 0 -> 1)")
    #expect(tree.log.last?.causes.map { $0.map(\.description) } == [["HHRow.count 0 -> 1"]])
  }

  @Test("several writes of one field make one cause; fields in the order of their first write")
  func mergedCauses() {
    let list = HHList(ids: 1...2)
    let tree = tree(list)
    let step = tree.step {
      list.rows[id: 1]?.title = "a"
      list.rows[id: 1]?.count = 1
      list.rows[id: 1]?.title = "b"
      list.rows[id: 1]?.count = 3
    }
    #expect(step.runs == ["Row[1]"])
    #expect(step.causes(of: "Row[1]").map(\.description) == ["HHRow.title r1 -> b", "HHRow.count 0 -> 3"])
  }

  @Test("a write set back within the step runs nothing and is no cause")
  func setBack() {
    let list = HHList(ids: 1...2)
    let tree = tree(list)
    let step = tree.step {
      list.rows[id: 1]?.count = 1
      list.rows[id: 1]?.count = 0
      list.rows[id: 2]?.count = 1
      list.rows[id: 2]?.title = "x"
      list.rows[id: 2]?.count = 0
    }
    #expect(step.runs == ["Row[2]"])
    #expect(step.causes(of: "Row[2]").map(\.description) == ["HHRow.title r2 -> x"])
  }

  @Test("causes describe the latest run only, and each step's own")
  func latestOnly() {
    let list = HHList(ids: 1...2)
    let tree = tree(list)
    tree.step { list.rows[id: 1]?.count = 1 }
    let second = tree.step { list.rows[id: 1]?.title = "t" }
    #expect(second.causes(of: "Row[1]").map(\.description) == ["HHRow.title r1 -> t"])
    #expect(tree.log.steps[1].causes(of: "Row[1]").map(\.description) == ["HHRow.count 0 -> 1"])
  }

  @Test("a node run twice in one step lists each cause once")
  func twiceInStep() {
    let model = HHModel()
    let tree = RenderTree("P", tracking: ReactionTracking(recordingCauses: true)) { p in
      p.child("A") { $0.text("\(model.a) \(model.b)") }
      p.child("B") { b in
        let c = model.c
        if c > 0 { model.b = c }
        b.text("b")
      }
    }
    let step = tree.step {
      model.a = 1
      model.c = 2
    }
    #expect(step.runs == ["A", "B", "A"])
    #expect(step.count(of: "A") == 2)
    #expect(step.causes(of: "A").map(\.description) == ["HHModel.a 0 -> 1", "HHModel.b 0 -> 2"])
    #expect(step.description == "A.body x2 (HHModel.a 0 -> 1, HHModel.b 0 -> 2), B.body x1 (HHModel.c 0 -> 2)")
  }

  @Test("a child re-run by its parent's changed input, with causes recorded")
  func inputCause() {
    let model = HHModel()
    let tree = RenderTree("P", tracking: ReactionTracking(recordingCauses: true)) { p in
      p.child("C", input: model.a) { $0.text("c") }
    }
    let step = tree.step { model.a = 1 }
    #expect(step.runs == ["P", "C"])
    #expect(step.causes(of: "P").map(\.description) == ["HHModel.a 0 -> 1"])
    // The child read nothing: it ran because its input changed (an invalidation).
    #expect(step.causes(of: "C").map(\.description) == ["invalidated"])
  }
}

@Suite("HH scheduled on the main actor")
struct HHScheduledTests {
  @MainActor
  @Test("a cell enqueued while its re-run is pending never shows its old row again")
  func pendingThenReused() async {
    let list = HHList(ids: 1...3)
    let pool = CellPool("Cell", tracking: ReactionTracking(scheduling: .mainActor))
    let cell = pool.dequeue(for: 1) { "Row 1: \(list.rows[id: 1]?.count ?? -1)" }
    for _ in 0..<5 { list.rows[id: 1]?.count += 1 }
    #expect(cell.history == ["Row 1: 0"])
    pool.enqueue(cell)
    let reused = pool.dequeue(for: 2) { "Row 2: \(list.rows[id: 2]?.count ?? -1)" }
    #expect(reused === cell)
    list.rows[id: 2]?.count = 7
    await hhNextTurn()
    #expect(cell.history == ["Row 1: 0", "Row 2: 0", "Row 2: 7"])
    list.rows[id: 1]?.count += 1
    await hhNextTurn()
    #expect(cell.renderCount == 3)
  }

  @MainActor
  @Test("a cell re-bound to the same row while a re-run is pending renders once at binding, then once per turn")
  func pendingThenSameRow() async {
    let list = HHList(ids: 1...2)
    let pool = CellPool("Cell", tracking: ReactionTracking(scheduling: .mainActor))
    let cell = pool.dequeue(for: 1) { "old \(list.rows[id: 1]?.count ?? -1)" }
    list.rows[id: 1]?.count = 1
    pool.enqueue(cell)
    _ = pool.dequeue(for: 1) { "new \(list.rows[id: 1]?.count ?? -1)" }
    await hhNextTurn()
    #expect(cell.history == ["old 0", "new 1"])
    list.rows[id: 1]?.count = 2
    list.rows[id: 1]?.count = 3
    await hhNextTurn()
    #expect(cell.history == ["old 0", "new 1", "new 3"])
  }

  @MainActor
  @Test("a scheduled tree: steps log no re-runs; the next turn runs each dirty body once with the latest values")
  func scheduledTree() async {
    let list = HHList(ids: 1...3)
    let tree = list.makeTree(ReactionTracking(scheduling: .mainActor))
    let step = tree.step {
      list.rows[id: 2]?.count = 1
    }
    tree.step { list.rows[id: 2]?.count = 2 }
    #expect(step.runs == [])
    #expect(tree.output(of: "Row[2]") == "r2: 0")
    await hhNextTurn()
    #expect(tree.output(of: "Row[2]") == "r2: 2")
    #expect(tree.runCount(of: "Row[2]") == 2)
    #expect(tree.log.totalRuns(of: "Row[2]") == 2)
    #expect(tree.runCount(of: "List") == 1)
  }

  @MainActor
  @Test("a scheduled tree: a child dirty when its parent disposes it in the same turn does not run")
  func scheduledDisposal() async {
    let model = HHModel()
    let tree = RenderTree("P", tracking: ReactionTracking(scheduling: .mainActor)) { p in
      if model.show { p.child("C") { $0.text("\(model.b)") } }
    }
    // Two transactions in one turn: the child is dirtied first, then its parent, which will
    // dispose it. (In one transaction, the parent runs first and the child never runs.)
    model.b = 1
    model.show = false
    await hhNextTurn()
    #expect(tree.liveNodeNames == ["P"])
    #expect(tree.runCount(of: "P") == 2)
    #expect(tree.log.last?.runs == ["P"])
    #expect(tree.log.totalRuns(of: "C") == 1)
  }

  @MainActor
  @Test("a scheduled forEach: a row removed while its child's re-run is pending")
  func scheduledRowRemoved() async {
    let list = HHList(ids: 1...3)
    let tree = list.makeTree(ReactionTracking(scheduling: .mainActor))
    list.rows[id: 2]?.count = 1
    list.rows.remove(id: 2)
    await hhNextTurn()
    #expect(tree.liveNodeNames == ["List", "Row[1]", "Row[3]"])
    #expect(tree.log.totalRuns(of: "Row[2]") == 1)
  }

  @MainActor
  @Test("a scheduled tree torn down or released while runs are pending runs nothing")
  func scheduledTearDown() async {
    let model = HHModel()
    let counter = HHCounter()
    let tree = RenderTree("P", tracking: ReactionTracking(scheduling: .mainActor)) { p in
      counter.value += 1
      p.text("\(model.a)")
    }
    weak var weakOther: RenderTree?
    do {
      let other = RenderTree("Q", tracking: ReactionTracking(scheduling: .mainActor)) { q in
        counter.value += 1
        q.text("\(model.a)")
      }
      weakOther = other
      model.a = 1
    }
    tree.tearDown()
    await hhNextTurn()
    #expect(weakOther == nil)
    #expect(counter.value == 2)
  }
}
