import Observant
import ObservantHarness
import Testing

@Suite("Why did this body re-run")
struct RunCauseTests {
  private func explainedListTree(_ model: ListModel) -> RenderTree {
    RenderTree("List", tracking: ReactionTracking(recordingCauses: true)) { list in
      list.forEach(model.state.rows, name: { "Row[\($0.id)]" }) { row, context in
        context.text("Row \(row.id): \(model.row(row.id)?.count ?? -1)")
      }
    }
  }

  @Test("a tree recording causes prints what re-ran each body: Row[3].body x1 (Row.count 0 -> 1)")
  func logPrintsCauses() {
    let model = ListModel(rowIDs: 1...5)
    let tree = explainedListTree(model)
    let step = tree.step("bump") { model.state.rows[id: 3]?.count += 1 }
    #expect(step.description == "Row[3].body x1 (Row.count 0 -> 1)")
    #expect(step.causes(of: "Row[3]") == [RunCause(field: "Row.count", oldValue: "0", newValue: "1")])
    #expect(tree.log.description.hasSuffix("bump: Row[3].body x1 (Row.count 0 -> 1)"))
  }

  @Test("the first runs have no causes, and a tree that does not record them prints none")
  func noCausesWhenOff() {
    let model = ListModel(rowIDs: 1...2)
    let explained = explainedListTree(model)
    #expect(explained.log.steps[0].description == "List.body x1, Row[1].body x1, Row[2].body x1")
    let plain = model.makeListTree()
    let step = plain.step { model.state.rows[id: 1]?.count += 1 }
    #expect(step.description == "Row[1].body x1")
    #expect(step.causes(of: "Row[1]").isEmpty)
  }

  @Test("a body re-run by a changed input reports an invalidation; one re-run by a field, the field")
  func parentAndField() {
    let panel = Panel()
    let tree = RenderTree("Screen", tracking: ReactionTracking(recordingCauses: true)) { screen in
      screen.child("Header", input: panel.count) { header in header.text(panel.title) }
    }
    let step = tree.step { panel.count = 1 }
    #expect(step.description == "Screen.body x1 (Panel.count 0 -> 1), Header.body x1 (invalidated)")
    let renamed = tree.step { panel.title = "Sent" }
    #expect(renamed.description == "Header.body x1 (Panel.title Inbox -> Sent)")
  }

  @Test("a body reading a derived value re-runs only when it changes, and names it")
  func derivedInBody() {
    let model = ListModel(rowIDs: 1...4)
    let total = Derived("total") { model.state.rows.reduce(0) { $0 + $1.count } }
    let hasRows = Derived("hasRows") { !model.state.rows.isEmpty }
    let tree = RenderTree("Footer", tracking: ReactionTracking(recordingCauses: true)) { footer in
      footer.child("Total") { $0.text("\(total.value)") }
      footer.child("Empty") { $0.text(hasRows.value ? "" : "empty") }
    }
    let step = tree.step { model.state.rows[id: 2]?.count += 5 }
    #expect(step.description == "Total.body x1 (Derived.total 0 -> 5)")
    #expect(tree.output(of: "Total") == "5")
    #expect(hasRows.computationCount == 1)
    let append = tree.step { model.state.appendRow(Row(id: 5)) }
    #expect(append.runs.isEmpty)  // the total and "has rows" did not change
    #expect(hasRows.computationCount == 2)
  }
}
