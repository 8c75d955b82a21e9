import Foundation
import Observant
import ObservantHarness
import ObservantTestSupport
import Testing

@Suite("HH randomized render tree")
struct HHRandomTreeTests {
  @Test("random row edits, moves, removals, replacements, undo and drafts: exact runs where known, always current")
  func randomEdits() {
    for seed: UInt64 in [7, 11, 2024, 31337] {
      var random = SplitMix64(state: seed)
      let list = HHList(ids: 1...6)
      let tree = list.makeTree()
      var nextID = 7
      var serial = 0
      var created: [Int: Int] = [:]  // row id -> creation order of its live node
      for id in list.rows.ids {
        created[id] = serial
        serial += 1
      }
      var snapshot = list.rows
      func noteNewNodes(_ before: [Int]) {
        let old = Set(before)
        for id in list.rows.ids where !old.contains(id) || created[id] == nil {
          created[id] = serial
          serial += 1
        }
        for id in created.keys where list.rows[id: id] == nil { created[id] = nil }
      }
      for round in 0..<RandomTestBudget.scaled(120) {
        let ids = Array(list.rows.ids)
        let before = ids
        let pick = ids.isEmpty ? nil : ids[random.int(ids.count)]
        var expected: [String]?
        let step: RenderStep
        switch random.int(9) {
        case 0:
          let bumped = Set((0..<(1 + random.int(3))).compactMap { _ in ids.isEmpty ? nil : ids[random.int(ids.count)] })
          step = tree.step { for id in bumped { list.rows[id: id]?.count += 1 } }
          expected = bumped.sorted { created[$0]! < created[$1]! }.map { "Row[\($0)]" }
        case 1:
          let id = nextID
          nextID += 1
          step = tree.step { list.rows.append(HHRow(id: id)) }
          expected = ["List", "Row[\(id)]"]
        case 2:
          guard let pick else { continue }
          step = tree.step { list.rows.remove(id: pick) }
          expected = ["List"]
        case 3:
          guard ids.count > 1, let pick else { continue }
          let from = list.rows.index(id: pick)!
          var to = random.int(ids.count + 1)
          if to == from || to == from + 1 { to = from == 0 ? ids.count : 0 }
          step = tree.step { list.rows.move(fromOffsets: [from], toOffset: to) }
          expected = ["List"]
        case 4:
          guard let pick else { continue }
          let count = list.rows[id: pick]!.count
          step = tree.step { list.rows[id: pick] = HHRow(id: pick, count: count) }
          expected = ["List", "Row[\(pick)]"]
        case 5:
          snapshot = list.rows
          continue
        case 6:
          step = tree.step("undo") { list.rows = snapshot }
        case 7:
          guard let pick else { continue }
          step = tree.step {
            list.rows[id: pick]?.count += 5
            list.rows[id: pick]?.title = "t"
            list.rows[id: pick]?.count -= 5
            list.rows[id: pick]?.title = "r\(pick)"
          }
          expected = []
        default:
          guard let pick else { continue }
          var draft = list.rows[id: pick]!
          step = tree.step { draft.count += 100 }
          #expect(step.runs.allSatisfy { $0 == "Row[\(pick)]" }, "seed \(seed) round \(round)")
        }
        if let expected { #expect(step.runs == expected, "seed \(seed) round \(round)") }
        #expect(step.counts.values.allSatisfy { $0 == 1 }, "seed \(seed) round \(round): \(step)")
        noteNewNodes(before)
        #expect(tree.liveNodeNames == ["List"] + list.rows.ids.map { "Row[\($0)]" }, "seed \(seed) round \(round)")
        for row in list.rows {
          #expect(tree.output(of: "Row[\(row.id)]") == "\(row.title): \(row.count)", "seed \(seed) round \(round)")
        }
      }
    }
  }
}

/// Collects reaction diagnostics.
final class HHReactionSink: @unchecked Sendable {
  private let lock = NSLock()
  private var received: [ReactionDiagnostic] = []
  func append(_ diagnostic: ReactionDiagnostic) { lock.withLock { received.append(diagnostic) } }
  var all: [ReactionDiagnostic] { lock.withLock { received } }
}

@Suite("HH keys, outputs, loops")
struct HHKeysTests {
  @Test("keys compare as AnyHashable does: Int 1 and Int64 1 are one key, kept across runs")
  func numericKeys() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      if model.show {
        p.child("C", key: 1) { $0.text("c \(model.a)") }
      } else {
        p.child("C", key: Int64(1)) { $0.text("c \(model.a)") }
      }
    }
    #expect(AnyHashable(1) == AnyHashable(Int64(1)))
    #expect(tree.step { model.show = false }.runs == ["P"])
    #expect(tree.runCount(of: "C") == 1)
  }

  @Test("a numeric key repeated under two integer types in one run is a duplicate")
  func numericDuplicate() {
    RenderTree.withDiagnosticHandler({ _ in }) {
      let tree = RenderTree("P") { p in
        p.child("A", key: 1) { $0.text("a") }
        p.child("B", key: UInt8(1)) { $0.text("b") }
      }
      #expect(tree.liveNodeNames == ["P", "A"])
      #expect(tree.diagnostics.count == 1)
    }
  }

  @Test("a child's key defaults to its name: a name used as another child's key collides")
  func nameKeyCollision() {
    RenderTree.withDiagnosticHandler({ _ in }) {
      let tree = RenderTree("P") { p in
        p.child("A") { $0.text("a") }
        p.child("B", key: "A") { $0.text("b") }
      }
      #expect(tree.liveNodeNames == ["P", "A"])
      #expect(tree.diagnostics.map(\.key) == ["\"A\""])
    }
  }

  @Test("two forEach over the same ids in one body collide; the first one's children are kept")
  func twoForEach() {
    let list = HHList(ids: 1...2)
    RenderTree.withDiagnosticHandler({ _ in }) {
      let tree = RenderTree("P") { p in
        p.forEach(list.rows, name: { "A[\($0.id)]" }) { row, c in c.text("a\(row.count)") }
        p.forEach(list.rows, name: { "B[\($0.id)]" }) { row, c in c.text("b\(row.count)") }
      }
      #expect(tree.liveNodeNames == ["P", "A[1]", "A[2]"])
      #expect(tree.diagnostics.count == 2)
      #expect(tree.step { list.rows[id: 2]?.count = 1 }.runs == ["A[2]"])
      #expect(tree.output(of: "A[2]") == "a1")
    }
  }

  @Test("a run that emits no text leaves no output")
  func noText() {
    let model = HHModel()
    let tree = RenderTree("P") { p in
      if model.show { p.text("shown") }
    }
    #expect(tree.output(of: "P") == "shown")
    tree.step { model.show = false }
    #expect(tree.output(of: "P") == nil)
    #expect(tree.output(of: "nobody") == nil)
    #expect(tree.runCount(of: "nobody") == 0)
  }

  @Test("a body that writes what it reads stops after the flush limit, with a diagnostic")
  func runawayBody() {
    let model = HHModel()
    let sink = HHReactionSink()
    Reaction.withDiagnosticHandler({ sink.append($0) }) {
      let tree = RenderTree("P") { p in
        p.child("Loop") { c in
          let a = model.a
          if a > 0 { model.a = a + 1 }
          c.text("\(a)")
        }
      }
      let step = tree.step { model.a = 1 }
      #expect(sink.all.map(\.kind) == [.runawayFlush])
      #expect(step.count(of: "Loop") == Reaction.maximumFlushRounds)
      // Not stuck: the next change re-runs it (and loops again, stopped again).
      tree.step { model.show.toggle() }
      #expect(tree.liveNodeNames == ["P", "Loop"])
    }
  }
}

@Suite("HH scheduled order")
struct HHScheduledOrderTests {
  @MainActor
  @Test("scheduled: a child dirtied before its parent passes it a changed input runs once in the turn")
  func childThenParentInput() async {
    let model = HHModel()
    let tree = RenderTree("P", tracking: ReactionTracking(scheduling: .mainActor)) { p in
      p.child("C", input: model.b) { $0.text("\(model.a) \(model.b)") }
    }
    model.a = 1  // dirties C
    model.b = 1  // dirties P, which passes C a new input
    await hhNextTurn3()
    #expect(tree.output(of: "C") == "1 1")
    #expect(tree.log.last?.runs == ["P", "C"])
  }

  @MainActor
  @Test("scheduled: a row edited, then replaced by a new value: its child runs once in the turn")
  func editThenReplace() async {
    let list = HHList(ids: 1...2)
    let tree = list.makeTree(ReactionTracking(scheduling: .mainActor))
    list.rows[id: 1]?.count = 1
    list.rows[id: 1] = HHRow(id: 1, count: 2)
    await hhNextTurn3()
    #expect(tree.output(of: "Row[1]") == "r1: 2")
    #expect(tree.log.last?.runs == ["List", "Row[1]"])
    // Afterwards, the child follows the new row.
    list.rows[id: 1]?.count = 3
    await hhNextTurn3()
    #expect(tree.output(of: "Row[1]") == "r1: 3")
  }

  @MainActor
  @Test("scheduled: parent and child dirtied in one transaction run parent first, once each")
  func oneTransaction() async {
    let model = HHModel()
    let tree = RenderTree("P", tracking: ReactionTracking(scheduling: .mainActor)) { p in
      p.child("C", input: model.b) { $0.text("\(model.a) \(model.b)") }
    }
    transaction {
      model.a = 1
      model.b = 1
    }
    await hhNextTurn3()
    #expect(tree.log.last?.runs == ["P", "C"])
    #expect(tree.output(of: "C") == "1 1")
  }
}

@MainActor
private func hhNextTurn3() async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    Task { @MainActor in continuation.resume() }
  }
}
