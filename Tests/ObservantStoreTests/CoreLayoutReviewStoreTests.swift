import Observant
import ObservantStore
import ObservantTestSupport
import Testing

// Review of the compact observer table: its slots after the first are never removed, on the
// assumption that an object has a bounded number of fields. A scoped store of `ObservableState`
// records its own numbered identity field in the table of the state it reads (see
// `StoreReaders`), and copies share that table: every draft store ever made over a copy of a
// long-lived row adds a field to the row's table for as long as the row lives.

@MainActor
@Suite("Core layout review: the table of a long-lived row over many drafts")
struct CoreLayoutReviewStoreTests {
  @Test(
    "a draft of row 1 (an optional child copied from the row) shown, read through its store and dismissed, over and over: memory stays flat"
  )
  func draftsOfOneRow() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let store = h5Store()
        let report = measureHeapGrowth(warmup: 1_000, cycles: RandomTestBudget.underSanitizer(20_000)) { _ in
          store.run { $0.optional = $0.rows[id: 1] }
          guard let draft = store.scope(state: \.optional, action: H5Action.optional) else { return }
          let reader = Reaction("draft", ownedByParent: false) { _ = draft.count }
          store.run { $0.optional = nil }
          reader.cancel()
        }
        report.print()
      }
    }
    for problem in heapGrowthProblems(output: result?.standardOutputContent, bytesPerCycle: 4) {
      Issue.record(Comment(rawValue: problem))
    }
  }
}
