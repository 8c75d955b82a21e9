import Observant
import ObservantHarness
import Testing

// A step keeps its first run inline and the others in an array: `runs`, `runCount`, `count(of:)`,
// equality and the description agree whatever the number of runs.

private final class StepModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var a = 0
  @Tracked var b = 0
}

@MainActor
@Suite("Render steps: runs kept inline and in an array")
struct RenderStepTests {
  @Test("steps with no run, one run and several runs")
  func runCounts() {
    let model = StepModel()
    let tree = RenderTree("Screen") { screen in
      screen.child("A") { $0.text("\(model.a)") }
      screen.child("B") { $0.text("\(model.b)") }
      screen.child("A again", key: "A2") { $0.text("\(model.a)") }
    }
    let none = tree.step("none") { model.a += 0 }
    let one = tree.step("one") { model.b += 1 }
    let two = tree.step("two") { model.a += 1 }
    let three = tree.step("three") {
      model.a += 1
      model.b += 1
    }

    #expect(none.runs.isEmpty)
    #expect(none.runCount == 0)
    #expect(none.description == "nothing ran")
    #expect(one.runs == ["B"])
    #expect(one.runCount == 1)
    #expect(one.count(of: "B") == 1)
    #expect(one.count(of: "A") == 0)
    #expect(two.runs == ["A", "A again"])
    #expect(two.runCount == 2)
    #expect(three.runs == ["A", "B", "A again"])
    #expect(three.runCount == 3)
    #expect(three.counts == ["A": 1, "B": 1, "A again": 1])
    #expect(three.description == "A.body x1, B.body x1, A again.body x1")
    #expect(tree.log.steps.map(\.runCount) == [4, 0, 1, 2, 3])
    #expect(tree.log.steps.dropFirst() == [none, one, two, three][...])
    #expect(one != two)
    #expect(tree.log.totalRuns(of: "A") == 3)
  }
}
