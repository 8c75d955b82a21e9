import Observant
import ObservantHarness
import Testing

// The code of the Observant article "Why did this re-run" (WhyDidThisRerun.md), verbatim
// (`ArticleCodeTests` checks it), and what the article says about it.

@Suite("Article: Why did this re-run")
struct WhyArticle {
  @Test("a reaction names the write that re-ran it; a render tree prints the causes of each body")
  func causes() {
    final class Row: Trackable, Identifiable {
      let trackingRegistrar = TrackingRegistrar()
      let id: Int
      @Tracked var count = 0
      init(id: Int) { self.id = id }
    }

    let row = Row(id: 1)
    let label = Reaction("Label", recordingCauses: true) { print(row.count) }
    row.count = 1
    print(label.lastRunCauses.map(\.description))  // ["Row.count 0 -> 1"]

    #expect(label.lastRunCauses.map(\.description) == ["Row.count 0 -> 1"])
    #expect(label.runCount == 2)

    let rows = (1...5).map(Row.init)
    let tree = RenderTree("List", tracking: ReactionTracking(recordingCauses: true)) { list in
      list.forEach(rows, name: { "Row[\($0.id)]" }) { row, context in
        context.text("\(row.count)")
      }
    }
    tree.step("bump") { rows[2].count += 1 }
    print(tree.log.last!)  // Row[3].body x1 (Row.count 0 -> 1)

    #expect(tree.log.last!.description == "Row[3].body x1 (Row.count 0 -> 1)")
    #expect(tree.log.description.hasSuffix("bump: Row[3].body x1 (Row.count 0 -> 1)"))
    #expect(tree.output(of: "Row[3]") == "1")
  }
}
