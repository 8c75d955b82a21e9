import Observation
import ObservantHarness
import Testing

@Observable final class HHObs {
  var a = 0
  var b = 0
  var show = true
  var useA = true
}

@Suite("HH Apple's tracking")
struct HHAppleTests {
  @Test("writes outside a step wait; the next step runs them first, logged between steps")
  func betweenSteps() {
    let obs = HHObs()
    let tree = RenderTree("P", tracking: AppleObservationTracking()) { p in
      p.child("A") { $0.text("\(obs.a)") }
      p.child("B") { $0.text("\(obs.b)") }
    }
    obs.a = 1
    obs.a = 2
    #expect(tree.output(of: "A") == "0")
    let step = tree.step("b") { obs.b = 1 }
    #expect(step.runs == ["B"])
    #expect(tree.log.steps.map(\.name) == ["initial", RenderTree.betweenStepsName, "b"])
    #expect(tree.log.steps[1].runs == ["A"])
    #expect(hhAppleOutputs(tree) == ["2", "1"])
    obs.b = 2
    tree.tracking.runPendingBodies()
    #expect(tree.output(of: "B") == "2")
    #expect(tree.log.last?.runs == ["B"])
  }

  @Test("a child dirtied before its parent, outside steps, does not run once its parent disposes it")
  func disposalOrder() {
    let obs = HHObs()
    let tree = RenderTree("P", tracking: AppleObservationTracking()) { p in
      if obs.show { p.child("C") { $0.text("\(obs.b)") } }
    }
    obs.b = 1
    obs.show = false
    tree.tracking.runPendingBodies()
    #expect(tree.log.last?.runs == ["P"])
    #expect(tree.liveNodeNames == ["P"])
    #expect(tree.step { obs.b = 2 }.runs == [])
  }

  @Test("a branch no longer taken: the earlier run's tracking firing is ignored")
  func staleFiring() {
    let obs = HHObs()
    let tree = RenderTree("P", tracking: AppleObservationTracking()) { p in
      p.child("C") { $0.text(obs.useA ? "a\(obs.a)" : "b\(obs.b)") }
    }
    #expect(tree.step { obs.useA = false }.runs == ["C"])
    #expect(tree.step { obs.a = 1 }.runs == [])
    #expect(tree.step { obs.b = 1 }.runs == ["C"])
    #expect(tree.output(of: "C") == "b1")
  }

  @Test("a tree and a pool sharing one tracking are one UI: a step of either renders both")
  func sharedTracking() {
    let obs = HHObs()
    let tracking = AppleObservationTracking()
    let tree = RenderTree("P", tracking: tracking) { p in p.text("\(obs.a)") }
    let pool = CellPool("Cell", tracking: tracking)
    let cell = pool.dequeue(for: 1) { "b \(obs.b)" }
    tree.step { obs.b = 1 }
    #expect(cell.history == ["b 0", "b 1"])
    tracking.step { obs.a = 1 }
    #expect(tree.output(of: "P") == "1")
    #expect(tree.log.last?.runs == ["P"])
  }

  @Test("a dirty cell enqueued before the step never renders its old row")
  func enqueuedWhileDirty() {
    let obs = HHObs()
    let tracking = AppleObservationTracking()
    let pool = CellPool("Cell", tracking: tracking)
    let cell = pool.dequeue(for: 1) { "a \(obs.a)" }
    obs.a = 1
    pool.enqueue(cell)
    let reused = pool.dequeue(for: 2) { "b \(obs.b)" }
    tracking.step { obs.a = 2 }
    tracking.step { obs.b = 1 }
    #expect(reused === cell)
    #expect(cell.history == ["a 0", "b 0", "b 1"])
  }

  @Test("a body's write runs its readers in another round of the same step")
  func reentrant() {
    let obs = HHObs()
    let tree = RenderTree("P", tracking: AppleObservationTracking()) { p in
      p.child("A") { $0.text("\(obs.b)") }
      p.child("B") { b in
        let a = obs.a
        if a > 0 { obs.b = a * 10 }
        b.text("b")
      }
    }
    let step = tree.step { obs.a = 1 }
    #expect(step.runs == ["B", "A"])
    #expect(tree.output(of: "A") == "10")
  }
}

private func hhAppleOutputs(_ tree: RenderTree) -> [String?] {
  ["A", "B"].map { tree.output(of: $0) }
}
