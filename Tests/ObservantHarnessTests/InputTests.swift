import Observant
import ObservantHarness
import Testing

@Suite("Inputs")
struct InputTests {
  /// `Parent` reads the title and the count, and passes the count to `Badge`, which reads only
  /// `detail` itself.
  private func makeTree(_ panel: Panel) -> RenderTree {
    RenderTree("Parent") { parent in
      parent.text(panel.title)
      let count = panel.count
      parent.child("Badge", input: count) { badge in
        badge.text("\(count) \(panel.detail)")
      }
    }
  }

  @Test("a child whose input is unchanged is not re-run when its parent re-runs")
  func unchangedInput() {
    let panel = Panel()
    let tree = makeTree(panel)
    let step = tree.step { panel.title = "Outbox" }
    #expect(step.runs == ["Parent"])
    #expect(tree.runCount(of: "Badge") == 1)
  }

  @Test("a changed input re-runs the child once, after its parent")
  func changedInput() {
    let panel = Panel()
    let tree = makeTree(panel)
    let step = tree.step { panel.count = 1 }
    #expect(step.runs == ["Parent", "Badge"])
    #expect(tree.output(of: "Badge") == "1 none")
  }

  @Test("a child whose input changed and which read something that changed in the same step runs once")
  func changedInputAndDependency() {
    let panel = Panel()
    let tree = makeTree(panel)
    #expect(
      tree.step {
        panel.detail = "a"; panel.count = 1
      }.runs == ["Parent", "Badge"])
    #expect(
      tree.step {
        panel.count = 2; panel.detail = "b"
      }.runs == ["Parent", "Badge"])
    #expect(tree.output(of: "Badge") == "2 b")
    #expect(tree.runCount(of: "Badge") == 3)
  }

  @Test("a child re-runs for its own reads without its parent")
  func ownReads() {
    let panel = Panel()
    let tree = makeTree(panel)
    #expect(tree.step { panel.detail = "x" }.runs == ["Badge"])
  }

  @Test("a child without an input is never re-run by its parent, and its later runs use the latest body")
  func noInput() {
    let panel = Panel()
    let tree = RenderTree("Parent") { parent in
      let title = panel.title
      parent.child("Footer") { footer in footer.text("\(title): \(panel.detail)") }
    }
    #expect(tree.step { panel.title = "Outbox" }.runs == ["Parent"])
    #expect(tree.output(of: "Footer") == "Inbox: none")
    #expect(tree.step { panel.detail = "x" }.runs == ["Footer"])
    #expect(tree.output(of: "Footer") == "Outbox: x")  // the body declared by the latest parent run
  }

  @Test("comparing inputs does not subscribe the parent to what their == reads")
  func comparisonIsUntracked() {
    let panel = Panel()
    let tree = RenderTree("Parent") { parent in
      _ = panel.title
      parent.child("Probe", input: PanelProbe(panel: panel, value: 1)) { _ in }
    }
    #expect(tree.step { panel.title = "Outbox" }.runs == ["Parent"])  // compares the inputs
    #expect(tree.step { panel.flag = true }.runs.isEmpty)
  }

  // The rule tracked fields use: an `ObservableState` value is unchanged exactly when it has the
  // same identity. Its field edits reach readers through its own registrar, so the parent need
  // not pass them on; a new value has a registrar nobody subscribed to, so the child must re-run.
  @Test(
    "an observable-state input is compared by identity: an edited copy does not re-run the child, a new equal value does"
  )
  func observableStateInput() {
    let model = ListModel(rowIDs: 1...2)
    let tree = RenderTree("Screen") { screen in
      _ = model.state.title
      let first = model.row(1)!
      screen.child("First", input: first) { context in context.text("row \(first.id)") }
    }

    let edited = tree.step("edit row 1") {
      model.state.rows[id: 1]!.count += 1  // the copy passed next differs by ==, same identity
      model.state.title = "T2"
    }
    #expect(edited.runs == ["Screen"])

    let replaced = tree.step("replace row 1") {
      model.state.rows[id: 1] = Row(id: 1, count: 1)  // == to the current value, new identity
      model.state.title = "T3"
    }
    #expect(replaced.runs == ["Screen", "First"])
  }

  @Test("a forEach over Equatable elements re-runs exactly the children whose element changed")
  func equatableElements() {
    let catalog = Catalog(ids: 1...4)
    let tree = RenderTree("List") { list in
      list.forEach(catalog.items, name: { "Item[\($0.id)]" }) { item, context in context.text(item.label) }
    }
    let step = tree.step { catalog.items[2].label = "renamed" }
    #expect(step.runs == ["List", "Item[3]"])
    #expect(tree.output(of: "Item[3]") == "renamed")
  }

  @Test(
    "a forEach over non-Equatable elements keeps children while their keys stay, with an explicit id or Identifiable")
  func nonEquatableElements() {
    struct Label { var id: Int; var text: String }  // neither Equatable nor Identifiable
    struct Tag: Identifiable { var id: Int; var text: String }  // Identifiable, not Equatable
    final class Labels: Trackable, @unchecked Sendable {
      let trackingRegistrar = TrackingRegistrar()
      @Tracked var labels = [Label(id: 1, text: "a"), Label(id: 2, text: "b")]
      @Tracked var tags = [Tag(id: 1, text: "x"), Tag(id: 2, text: "y")]
    }
    let model = Labels()
    let tree = RenderTree("Lists") { lists in
      lists.child("Labels") { context in
        context.forEach(model.labels, id: \.id, name: { "Label[\($0.id)]" }) { label, row in row.text(label.text) }
      }
      lists.child("Tags") { context in
        context.forEach(model.tags, name: { "Tag[\($0.id)]" }) { tag, row in row.text(tag.text) }
      }
    }
    #expect(tree.step { model.labels[1].text = "changed" }.runs == ["Labels"])
    #expect(tree.output(of: "Label[2]") == "b")  // kept, not re-run: no input to compare
    #expect(tree.step { model.tags[0].text = "changed" }.runs == ["Tags"])
    #expect(tree.output(of: "Tag[1]") == "x")
    #expect(tree.step { model.tags.append(Tag(id: 3, text: "z")) }.runs == ["Tags", "Tag[3]"])
  }
}
