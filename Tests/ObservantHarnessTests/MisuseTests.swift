import Observant
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

  // Runs reuse a context nothing kept: one a body kept must stay closed through later runs.
  @Test("using a context kept from an earlier run of the same node stops the program")
  func staleContextAfterLaterRuns() async {
    await #expect(processExitsWith: .failure) {
      final class Counter: Trackable, @unchecked Sendable {
        let trackingRegistrar = TrackingRegistrar()
        @Tracked var value = 0
      }
      let counter = Counter()
      var escaped: RenderContext?
      let tree = RenderTree("Screen") { screen in
        // The second run uses the first run's context while its own is open: were that context
        // reused for this run, the call would pass.
        if let escaped { escaped.text("too late") } else { escaped = screen }
        screen.text("\(counter.value)")
      }
      tree.step { counter.value += 1 }
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
