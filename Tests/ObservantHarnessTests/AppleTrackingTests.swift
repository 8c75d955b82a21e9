import Observation
import ObservantHarness
import Testing

@Observable private final class Note {
  let id: Int
  var title: String

  init(id: Int, title: String) {
    self.id = id
    self.title = title
  }
}

@Observable private final class Notebook {
  var notes: [Note]

  init(ids: some Sequence<Int>) {
    notes = ids.map { Note(id: $0, title: "n\($0)") }
  }
}

@Suite("Apple's tracking")
struct AppleTrackingTests {
  // A `forEach` child reads its element again from `notebook.notes` before a run its parent did
  // not cause; under Apple's tracking that read must happen outside the child's tracking scope,
  // or the child would re-run for every append to `notes`.
  @Test("a forEach child re-run by its own read does not come to depend on the collection")
  func childDoesNotDependOnCollection() {
    let notebook = Notebook(ids: 1...3)
    let tree = RenderTree("Notebook", tracking: AppleObservationTracking()) { screen in
      screen.forEach(notebook.notes, id: \.id, name: { "Note[\($0.id)]" }) { note, row in
        row.text(note.title)
      }
    }
    #expect(tree.step { notebook.notes[0].title = "edited" }.runs == ["Note[1]"])
    #expect(tree.output(of: "Note[1]") == "edited")
    #expect(tree.step { notebook.notes.append(Note(id: 4, title: "n4")) }.runs == ["Notebook", "Note[4]"])
    // A new object under a kept id: its child re-runs once (its reads were the old object's).
    #expect(tree.step { notebook.notes[1] = Note(id: 2, title: "new") }.runs == ["Notebook", "Note[2]"])
    #expect(tree.output(of: "Note[2]") == "new")
  }
}
