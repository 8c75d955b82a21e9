import Observant
import ObservantHarness
import Testing

// The harness keeps the first of two children declared with one key and reports a diagnostic
// (it does not stop the program): nothing already rendered is lost, and tests can assert it.
@Suite("Duplicate keys")
struct DuplicateKeyTests {
  @Test("a forEach id repeated in one run keeps the first child and reports the key and the parent")
  func duplicateForEachID() {
    let sink = DiagnosticSink()
    RenderTree.withDiagnosticHandler({ sink.append($0) }) {
      let catalog = Catalog([
        Item(id: 1, label: "a"), Item(id: 2, label: "b"), Item(id: 2, label: "b again"), Item(id: 3, label: "c"),
      ])
      let tree = RenderTree("List") { list in
        list.forEach(catalog.items, name: { "Item[\($0.id)]" }) { item, context in context.text(item.label) }
      }
      #expect(tree.log.last?.runs == ["List", "Item[1]", "Item[2]", "Item[3]"])
      #expect(tree.liveNodeNames == ["List", "Item[1]", "Item[2]", "Item[3]"])
      #expect(tree.output(of: "Item[2]") == "b")

      #expect(tree.diagnostics.count == 1)
      let diagnostic = tree.diagnostics[0]
      #expect(diagnostic.kind == .duplicateKey)
      #expect(diagnostic.parentName == "List")
      #expect(diagnostic.key == "2")
      #expect(diagnostic.message.contains("the key 2 occurs more than once among the children of \"List\""))
      #expect(sink.all == tree.diagnostics)

      // Every run reports it again; the kept child stays and is not re-run for the duplicate.
      let step = tree.step { catalog.items[3].label = "c2" }
      #expect(step.runs == ["List", "Item[3]"])
      #expect(tree.diagnostics.count == 2)
    }
  }

  @Test("two children with the same name and no key collide on the name as key")
  func duplicateChildName() {
    let sink = DiagnosticSink()
    RenderTree.withDiagnosticHandler({ sink.append($0) }) {
      let tree = RenderTree("Screen") { screen in
        screen.child("Header") { header in header.text("first") }
        screen.child("Header") { header in header.text("second") }
        screen.child("Header", key: 2) { header in header.text("keyed") }
      }
      #expect(tree.liveNodeNames == ["Screen", "Header", "Header"])
      #expect(tree.output(of: "Header") == "first")
      #expect(tree.diagnostics.map(\.key) == ["\"Header\""])
      #expect(sink.all.count == 1)
    }
  }
}
