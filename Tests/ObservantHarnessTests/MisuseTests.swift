import ObservantHarness
import Testing

// Programming errors stop the program with a message, like SwiftUI's runtime checks; exit tests
// run each in a child process.
@Suite("Misuse")
struct MisuseTests {
  @Test("using a context after its body returned stops the program")
  func staleContext() async {
    await #expect(processExitsWith: .failure) {
      var escaped: RenderContext?
      let tree = RenderTree("Screen") { screen in escaped = screen }
      escaped?.text("too late")
      withExtendedLifetime(tree) {}
    }
  }

  @Test("nesting steps stops the program")
  func nestedSteps() async {
    await #expect(processExitsWith: .failure) {
      let tree = RenderTree("Screen") { _ in }
      tree.step("outer") { tree.step("inner") {} }
    }
  }

  @Test("enqueueing a cell into another pool stops the program")
  func foreignCell() async {
    await #expect(processExitsWith: .failure) {
      let pool = CellPool("A")
      let other = CellPool("B")
      other.enqueue(pool.dequeue(for: 1) { "" })
    }
  }
}
