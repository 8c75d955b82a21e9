import Foundation
import Observant
import ObservantHarness
import Testing

/// Plain Equatable elements whose ids a test can repeat.
struct HHItem: Identifiable, Equatable {
  let id: Int
  var label: String
}

final class HHItems: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var items: [HHItem]
  @Tracked var plain: [HHPlain]
  @Tracked var poke = 0

  init(_ pairs: [(Int, String)]) {
    items = pairs.map { HHItem(id: $0.0, label: $0.1) }
    plain = pairs.map { HHPlain(id: $0.0, label: $0.1) }
  }
}

final class HHSendableModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var a = 0
}

@Suite("HH render tree, more")
struct HHRenderTreeMoreTests {
  @Test("duplicate ids in a forEach of Equatable elements: the first element is shown and compared")
  func duplicateEquatable() {
    let model = HHItems([(1, "a"), (1, "b"), (2, "c")])
    RenderTree.withDiagnosticHandler({ _ in }) {
      let tree = RenderTree("P") { p in
        p.forEach(model.items, name: { "Item[\($0.id)]" }) { item, context in
          if item.id == 1 { _ = model.poke }
          context.text(item.label)
        }
      }
      #expect(tree.output(of: "Item[1]") == "a")
      #expect(tree.diagnostics.count == 1)
      // The ignored duplicate changes: the kept child's input (the first element) did not.
      #expect(tree.step { model.items[1].label = "bb" }.runs == ["P"])
      #expect(tree.output(of: "Item[1]") == "a")
      // The child's own read: it sees its (first) element.
      #expect(tree.step { model.poke = 1 }.runs == ["Item[1]"])
      #expect(tree.output(of: "Item[1]") == "a")
      #expect(tree.step { model.items[0].label = "z" }.runs == ["P", "Item[1]"])
      #expect(tree.output(of: "Item[1]") == "z")
      #expect(tree.diagnostics.count == 3)
    }
  }

  @Test("duplicate ids in a forEach of plain elements: a child's own re-run still sees the first element")
  func duplicatePlain() {
    let model = HHItems([(1, "a"), (1, "b"), (2, "c")])
    RenderTree.withDiagnosticHandler({ _ in }) {
      let tree = RenderTree("P") { p in
        p.forEach(model.plain, name: { "Item[\($0.id)]" }) { item, context in
          if item.id == 1 { _ = model.poke }
          context.text(item.label)
        }
      }
      #expect(tree.output(of: "Item[1]") == "a")
      #expect(tree.step { model.poke = 1 }.runs == ["Item[1]"])
      #expect(tree.output(of: "Item[1]") == "a")
      // The shape changes under the child (parent re-runs; child kept), then the child's own read.
      tree.step { model.plain.insert(HHPlain(id: 3, label: "d"), at: 0) }
      #expect(tree.step { model.poke = 2 }.runs == ["Item[1]"])
      #expect(tree.output(of: "Item[1]") == "a")
    }
  }

  @Test("an input of another type under the same key is a change")
  func inputTypeChange() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      if model.show {
        p.child("C", key: "k", input: 1) { $0.text("int") }
      } else {
        p.child("C", key: "k", input: "1") { $0.text("string") }
      }
    }
    let step = tree.step { model.show = false }
    #expect(step.runs == ["P", "C"])
    #expect(tree.output(of: "C") == "string")
  }

  @Test("same-named live nodes: the one created first answers; run counts add up; renames keep the index right")
  func sharedNames() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      let name = model.label
      if model.show { p.child("A", key: 1) { $0.text("one \(model.a)") } }
      p.child(name, key: 2) { $0.text("two \(model.a)") }
    }
    #expect(tree.liveNodeNames == ["P", "A", "x"])
    tree.step { model.label = "A" }
    #expect(tree.liveNodeNames == ["P", "A", "A"])
    #expect(tree.output(of: "A") == "one 0")
    #expect(tree.output(of: "x") == nil)
    #expect(tree.runCount(of: "A") == 2)
    #expect(tree.step { model.a = 1 }.runs == ["A", "A"])
    #expect(tree.runCount(of: "A") == 4)
    tree.step { model.show = false }
    #expect(tree.output(of: "A") == "two 1")
    #expect(tree.runCount(of: "A") == 2)
    tree.step { model.label = "y" }
    #expect(tree.output(of: "A") == nil)
    #expect(tree.runCount(of: "A") == 0)
    #expect(tree.output(of: "y") == "two 1")
    #expect(tree.liveNodeNames == ["P", "y"])
  }

  @Test("for each run of a step there is an entry in causes")
  func causesPerRun() {
    let model = HHModel()
    let tree = RenderTree("P", tracking: ReactionTracking(recordingCauses: true)) { p in
      p.text("\(model.a)")
      if model.a > 0 { p.child("New") { $0.text("new") } }
    }
    let step = tree.step { model.a = 1 }
    #expect(step.runs == ["P", "New"])
    #expect(step.causes.count == step.runs.count)
    #expect(step.causes.map { $0.map(\.description) } == [["HHModel.a 0 -> 1"], []])
    #expect(step.description == "P.body x1 (HHModel.a 0 -> 1), New.body x1")
  }

  @Test("a tree made inside another tree's body lives on when the outer body re-runs")
  func nestedTree() {
    let model = HHModel()
    var inner: RenderTree?
    let outer = RenderTree("Outer") { o in
      _ = model.a
      if inner == nil { inner = RenderTree("Inner") { $0.text("\(model.b)") } }
      o.text("outer")
    }
    outer.step { model.a = 1 }
    outer.step { model.b = 1 }
    #expect(inner?.output(of: "Inner") == "1")
    #expect(inner?.runCount(of: "Inner") == 2)
    #expect(outer.runCount(of: "Outer") == 2)
  }

  @Test("nested tracking steps: the outermost runs the bodies, once each")
  func nestedTrackingSteps() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.child("A") { $0.text("\(model.a)") }
      p.child("B") { $0.text("\(model.b)") }
    }
    let step = tree.step {
      model.a = 1
      tree.tracking.step { model.b = 1 }
      #expect(tree.output(of: "B") == "0")
      model.b = 2
    }
    #expect(step.runs == ["A", "B"])
    #expect(tree.output(of: "B") == "2")
  }

  @Test("diagnostic handler is task-local")
  func handlerScope() {
    #expect(RenderTree.diagnosticHandler == nil)
    RenderTree.withDiagnosticHandler({ _ in }) {
      #expect(RenderTree.diagnosticHandler != nil)
    }
  }

  @MainActor
  @Test("a tree made on the main actor does not run a body on the writing thread's task; the next turn does")
  func mainActorTree() async {
    let model = HHSendableModel()
    let onWriter = HHFlags()
    let tree = RenderTree("P") { p in
      onWriter.record(HHWriter.isWriting)
      p.text("\(model.a)")
    }
    await Task.detached { HHWriter.writing { model.a = 1 } }.value
    await hhNextTurn2()
    #expect(tree.output(of: "P") == "1")
    #expect(tree.runCount(of: "P") == 2)
    #expect(onWriter.all == [false, false])
  }

  @MainActor
  @Test("a pool made on the main actor does not re-render on the writing thread's task")
  func mainActorPool() async {
    let model = HHSendableModel()
    let onWriter = HHFlags()
    let pool = CellPool("Cell")
    let cell = pool.dequeue(for: 1) {
      onWriter.record(HHWriter.isWriting)
      return "\(model.a)"
    }
    await Task.detached { HHWriter.writing { model.a = 1 } }.value
    await hhNextTurn2()
    #expect(cell.history == ["0", "1"])
    #expect(onWriter.all == [false, false])
  }

  @Test("a tree made outside any actor re-runs a body on the writing thread's task, at once")
  func nonisolatedTree() async {
    let model = HHSendableModel()
    let onWriter = HHFlags()
    let tree = RenderTree("P") { p in
      onWriter.record(HHWriter.isWriting)
      p.text("\(model.a)")
    }
    #expect(tree.runCount(of: "P") == 1)
    await Task.detached { HHWriter.writing { model.a = 1 } }.value
    #expect(onWriter.all == [false, true])
    #expect(tree.output(of: "P") == "1")
  }

  @Test("a child that hides itself in its first run, during the build: disposed, and its sibling shows the final value")
  func hideSelfDuringBuild() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      if model.show {
        p.child("C") { c in
          model.show = false
          c.text("c")
        }
      }
      p.child("D") { $0.text("\(model.show)") }
    }
    #expect(tree.liveNodeNames == ["P", "D"])
    #expect(tree.output(of: "D") == "false")
    #expect(tree.log.steps.count == 1)
    #expect(tree.log.last?.counts == ["P": 2, "C": 1, "D": 1])
  }

  @Test("a step whose mutation tears the tree down is still logged")
  func tearDownInsideStep() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      p.child("C") { $0.text("\(model.a)") }
    }
    let step = tree.step("s") {
      model.a = 1
      tree.tearDown()
    }
    #expect(step.runs == [])
    #expect(tree.liveNodeNames == [])
    #expect(tree.log.steps.map(\.name) == ["initial", "s"])
    #expect(tree.log.description == "initial: P.body x1, C.body x1\ns: nothing ran")
  }
}

/// Whether the current thread is inside a write made by a test from another thread (a
/// thread-local flag: a task-local would be inherited by the tasks a write hands re-runs to).
enum HHWriter {
  static var isWriting: Bool { Thread.current.threadDictionary["HHWriter"] != nil }

  static func writing(_ body: () -> Void) {
    Thread.current.threadDictionary["HHWriter"] = true
    body()
    Thread.current.threadDictionary["HHWriter"] = nil
  }
}

/// Disposing the body that is running: every one of these stopped the program ("Attempted to read
/// an unowned reference but object ... was already destroyed") under ReactionTracking, whose
/// reaction held its body, and the node its tree, unowned during the run; under
/// AppleObservationTracking the same code worked. None of them is a programming error.
@Suite("HH disposing the running body")
struct HHDisposeRunningTests {
  @Test("a cell's render that enqueues its own cell: the cell is unbound and never renders again (no crash)")
  func cellRenderEnqueuesItsOwnCell() {
    let model = HHModel()
    let pool = CellPool("Cell")
    var cell: Cell?
    cell = pool.dequeue(for: 1) {
      let a = model.a
      if a == 1, let cell { pool.enqueue(cell) }  // the table reloads from inside the cell's update
      return "\(a)"
    }
    model.a = 1
    #expect(cell?.isBound == false)
    model.a = 2
    #expect(cell?.history == ["0", "1"])
  }

  @Test("a cell's render that re-binds its own cell to another row: the cell shows the new row (no crash)")
  func cellRenderRebindsItsOwnCell() {
    let model = HHModel()
    let pool = CellPool("Cell")
    var cell: Cell?
    cell = pool.dequeue(for: 1) {
      let a = model.a
      if a == 1, let cell {
        pool.enqueue(cell)
        _ = pool.dequeue(for: 2) { "b \(model.b)" }
      }
      return "a \(a)"
    }
    model.a = 1
    // The cell shows its new row, not the end of the old row's render.
    #expect(cell?.content == "b 0")
    #expect(cell?.boundID == AnyHashable(2))
  }

  @MainActor
  @Test("a scheduled cell's render that enqueues its own cell: the cell is unbound (no crash)")
  func scheduledCellRenderEnqueuesItsOwnCell() async {
    let model = HHModel()
    let pool = CellPool("Cell", tracking: ReactionTracking(scheduling: .mainActor))
    var cell: Cell?
    cell = pool.dequeue(for: 1) {
      let a = model.a
      if a == 1, let cell { pool.enqueue(cell) }
      return "\(a)"
    }
    model.a = 1
    await hhNextTurn2()
    #expect(cell?.isBound == false)
  }

  @Test("a body that tears its own tree down: no live nodes (no crash)")
  func bodyTearsDownItsTree() {
    let model = HHModel()
    var tree: RenderTree?
    tree = RenderTree("P") { p in
      if model.a == 1 { tree?.tearDown() }
      p.text("\(model.a)")
    }
    model.a = 1
    #expect(tree?.liveNodeNames == [])
  }

  @Test("a body that releases the last reference to its tree: the tree goes away after the run (no crash)")
  func bodyReleasesItsTree() {
    let model = HHModel()
    var tree: RenderTree?
    tree = RenderTree("P") { p in
      p.child("C") { c in
        if model.a == 1 { tree = nil }
        c.text("\(model.a)")
      }
    }
    model.a = 1
    #expect(tree == nil)
  }

  @Test("a cell's render that releases its pool: the pool goes away, the cell stays (no crash)")
  func renderReleasesItsPool() {
    let model = HHModel()
    var pool: CellPool? = CellPool("Cell")
    let cell = pool!.dequeue(for: 1) {
      let a = model.a
      if a == 1 { pool = nil }
      return "\(a)"
    }
    model.a = 1
    model.a = 2
    #expect(pool == nil)
    #expect(cell.renderCount <= 2)
  }

  @Test("under Apple's tracking, a body that tears its own tree down works")
  func appleTearDownInBody() {
    let obs = HHObs()
    var tree: RenderTree?
    tree = RenderTree("P", tracking: AppleObservationTracking()) { p in
      p.child("C") { c in
        if obs.a == 1 { tree?.tearDown() }
        c.text("\(obs.a)")
      }
    }
    tree?.step { obs.a = 1 }
    #expect(tree?.liveNodeNames == [])
    tree?.step { obs.a = 2 }
    #expect(tree?.log.totalRuns(of: "C") == 2)
  }

  @Test("under Apple's tracking, a cell whose render enqueues its own cell stops rendering")
  func appleEnqueueSelf() {
    let obs = HHObs()
    let tracking = AppleObservationTracking()
    let pool = CellPool("Cell", tracking: tracking)
    var cell: Cell?
    cell = pool.dequeue(for: 1) {
      let a = obs.a
      if a == 1, let cell { pool.enqueue(cell) }
      return "a \(a)"
    }
    tracking.step { obs.a = 1 }
    tracking.step { obs.a = 2 }
    #expect(cell?.isBound == false)
    #expect(cell?.renderCount == 2)
  }
}

final class HHFlags: @unchecked Sendable {
  private let lock = NSLock()
  private var flags: [Bool] = []
  func record(_ flag: Bool) { lock.withLock { flags.append(flag) } }
  var all: [Bool] { lock.withLock { flags } }
}

@MainActor
private func hhNextTurn2() async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    Task { @MainActor in continuation.resume() }
  }
}
