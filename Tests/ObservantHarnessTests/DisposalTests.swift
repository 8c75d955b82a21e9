import Observant
import ObservantHarness
import Synchronization
import Testing

@Suite("Disposal and tear-down")
struct DisposalTests {
  /// `Screen` shows `Detail` (with a `Footer` child) while `showsDetail` is on.
  private func makeTree(_ panel: Panel) -> RenderTree {
    RenderTree("Screen") { screen in
      guard panel.showsDetail else { return }
      screen.child("Detail") { detail in
        detail.text(panel.detail)
        detail.child("Footer") { footer in footer.text("\(panel.count)") }
      }
    }
  }

  @Test("a child not declared any more never runs again and leaves liveNodeNames, with its subtree")
  func disposedChild() {
    let panel = Panel()
    let tree = makeTree(panel)
    #expect(tree.log.last?.runs == ["Screen", "Detail", "Footer"])

    #expect(tree.step("hide") { panel.showsDetail = false }.runs == ["Screen"])
    #expect(tree.liveNodeNames == ["Screen"])
    #expect(tree.output(of: "Detail") == nil)
    #expect(tree.runCount(of: "Footer") == 0)
    #expect(panel.trackingRegistrar.observerEntryCount == 1)  // only Screen's read of showsDetail

    #expect(
      tree.step("edit hidden") {
        panel.detail = "x"; panel.count = 5
      }.runs.isEmpty)
  }

  @Test("declaring a disposed key again creates a fresh child")
  func redeclaredChild() {
    let panel = Panel()
    let tree = makeTree(panel)
    tree.step("hide") { panel.showsDetail = false }
    #expect(tree.step("show") { panel.showsDetail = true }.runs == ["Screen", "Detail", "Footer"])
    #expect(tree.runCount(of: "Detail") == 1)  // the new node's runs
    #expect(tree.log.totalRuns(of: "Detail") == 2)  // both nodes' runs
    #expect(tree.step { panel.count = 1 }.runs == ["Footer"])
  }

  @Test("tearDown cancels every node: later changes run nothing, and calling it again does nothing")
  func tearDown() {
    let model = ListModel(rowIDs: 1...3)
    let tree = model.makeListTree()
    let row = model.state.rows[id: 2]!
    tree.tearDown()
    #expect(tree.liveNodeNames.isEmpty)
    #expect(tree.runCount(of: "List") == 0)
    #expect(model.trackingRegistrar.observerEntryCount == 0)
    #expect(row.registrar.observerEntryCount == 0)

    let step = tree.step {
      model.state.rows[id: 2]!.count += 1
      model.state.appendRow(Row(id: 4))
    }
    #expect(step.runs.isEmpty)
    tree.tearDown()
    #expect(tree.log.steps.map(\.runs.count) == [4, 0])
  }

  @Test("releasing a tree cancels its nodes")
  func releasingTree() {
    let panel = Panel()
    let runs = Mutex(0)
    var tree: RenderTree? = RenderTree("Screen") { screen in
      runs.withLock { $0 += 1 }
      _ = panel.title
      screen.child("Badge") { _ in
        runs.withLock { $0 += 1 }
        _ = panel.count
      }
    }
    #expect(runs.withLock { $0 } == 2)
    tree = nil
    panel.title = "Outbox"
    panel.count = 1
    #expect(runs.withLock { $0 } == 2)
    #expect(panel.trackingRegistrar.observerEntryCount == 0)
    withExtendedLifetime(tree) {}
  }
}
