import Observant
import ObservantHarness
import Testing

@Suite("Nested trees and logs")
struct NestedTreeTests {
  @Test("a parent dirtied in the same step as its descendants runs first, then each descendant once")
  func parentBeforeChildren() {
    let panel = Panel()
    let tree = RenderTree("Screen") { screen in
      _ = panel.title
      let count = panel.count
      screen.child("Section", input: count) { section in
        _ = panel.detail
        section.child("Item") { item in item.text("\(panel.detail) \(panel.count)") }
      }
    }
    #expect(tree.log.last?.runs == ["Screen", "Section", "Item"])
    // Written deepest first: the order of writes does not matter, creation order does.
    let step = tree.step {
      panel.detail = "d"
      panel.count = 1
      panel.title = "t"
    }
    #expect(step.runs == ["Screen", "Section", "Item"])
    #expect(tree.output(of: "Item") == "d 1")
  }

  @Test("a grandchild re-runs alone for its own reads")
  func grandchildAlone() {
    let panel = Panel()
    let tree = RenderTree("Screen") { screen in
      screen.child("Section") { section in
        section.child("Item") { item in item.text(panel.detail) }
      }
    }
    #expect(tree.step { panel.detail = "x" }.runs == ["Item"])
    #expect(tree.liveNodeNames == ["Screen", "Section", "Item"])
  }

  @Test(
    "children created by a parent's run run right after it in declaration order; changed kept children run after them")
  func creationThenInvalidation() {
    let catalog = Catalog(ids: 1...3)
    let tree = RenderTree("List") { list in
      list.forEach(catalog.items, name: { "Item[\($0.id)]" }) { item, context in context.text(item.label) }
    }
    let step = tree.step {
      catalog.items[1].label = "changed"
      catalog.items.append(Item(id: 4, label: "four"))
      catalog.items.insert(Item(id: 0, label: "zero"), at: 0)
    }
    #expect(step.runs == ["List", "Item[0]", "Item[4]", "Item[2]"])
    #expect(tree.liveNodeNames == ["List", "Item[0]", "Item[1]", "Item[2]", "Item[3]", "Item[4]"])
  }

  @Test("liveNodeNames lists nodes depth-first in declaration order")
  func liveNodeOrder() {
    let tree = RenderTree("Screen") { screen in
      for section in ["A", "B"] {
        screen.child("Section \(section)") { context in
          for row in 1...2 { context.child("\(section)\(row)") { _ in } }
        }
      }
      screen.child("Footer") { _ in }
    }
    #expect(tree.liveNodeNames == ["Screen", "Section A", "A1", "A2", "Section B", "B1", "B2", "Footer"])
  }

  @Test("the log describes each step as body runs per node, in order of first run")
  func logDescriptions() {
    let model = ListModel(rowIDs: [3, 7])
    let tree = model.makeListTree()
    let replaced = tree.step("replace 7") { model.state.rows[id: 7] = Row(id: 7, count: 1) }
    #expect(replaced.description == "List.body x1, Row[7].body x1")
    #expect(replaced.counts == ["List": 1, "Row[7]": 1])
    #expect(replaced.count(of: "Row[7]") == 1)
    #expect(replaced.count(of: "Row[3]") == 0)
    tree.step("bump 7") { model.state.rows[id: 7]!.count += 1 }
    tree.step("nothing") { model.state.title = "unread" }
    #expect(
      tree.log.description == """
        initial: List.body x1, Row[3].body x1, Row[7].body x1
        replace 7: List.body x1, Row[7].body x1
        bump 7: Row[7].body x1
        nothing: nothing ran
        """)
    #expect(tree.log.last?.name == "nothing")
    #expect(tree.log.totalRuns(of: "Row[7]") == 3)
  }

  @Test("a body that writes what its parent read runs again after its parent, and the step counts both runs")
  func repeatedRuns() {
    let panel = Panel()
    let tree = RenderTree("Screen") { screen in
      let title = panel.title
      screen.child("Writer", input: title) { _ in
        if panel.detail == "go" { panel.title = "went" }  // dirties Screen during the flush
      }
    }
    // Writer runs for detail; Screen (created earlier) re-runs in the next round and passes
    // Writer a changed title, which re-runs it once more; its second write changes nothing.
    let step = tree.step { panel.detail = "go" }
    #expect(step.runs == ["Writer", "Screen", "Writer"])
    #expect(step.description == "Writer.body x2, Screen.body x1")
    #expect(step.counts == ["Writer": 2, "Screen": 1])
  }

  @Test("bodies run by writes outside any step are logged as a step of their own")
  func runsBetweenSteps() {
    let panel = Panel()
    let tree = RenderTree("Badge") { badge in badge.text("\(panel.count)") }
    panel.count = 1
    panel.count = 2
    #expect(tree.log.last?.name == RenderTree.betweenStepsName)
    #expect(tree.log.last?.runs == ["Badge", "Badge"])

    let step = tree.step("next") { panel.count = 3 }
    #expect(step.runs == ["Badge"])
    #expect(tree.log.steps.map(\.name) == ["initial", RenderTree.betweenStepsName, "next"])
  }

  @Test("a step whose mutation throws is still logged, with the bodies it ran")
  func throwingStep() {
    struct Failure: Error {}
    let panel = Panel()
    let tree = RenderTree("Badge") { badge in badge.text("\(panel.count)") }
    #expect(throws: Failure.self) {
      try tree.step("throws") {
        panel.count = 1
        throw Failure()
      }
    }
    #expect(tree.log.last?.name == "throws")
    #expect(tree.log.last?.runs == ["Badge"])
  }

  @Test("nodes sharing a name add up in runCount(of:), like the log; output(of:) answers for the first created")
  func sharedNames() {
    let panel = Panel()
    let tree = RenderTree("Screen") { screen in
      screen.child("Left") { left in left.child("Label") { label in label.text("left \(panel.count)") } }
      screen.child("Right") { right in right.child("Label") { label in label.text("right \(panel.title)") } }
    }
    tree.step { panel.count = 1 }
    #expect(tree.runCount(of: "Label") == 3)
    #expect(tree.runCount(of: "Label") == tree.log.totalRuns(of: "Label"))
    #expect(tree.output(of: "Label") == "left 1")
  }
}
