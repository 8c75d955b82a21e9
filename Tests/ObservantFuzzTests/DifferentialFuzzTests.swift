import Observant
import Testing

@MainActor
@Suite("Differential fuzzing")
struct DifferentialFuzzTests {
  /// Runs `sessions` sessions of `transactions` each, alternating modes; returns the totals or
  /// records the first failure (with its seed and minimized reproduction).
  private func fuzz(baseSeed: UInt64, totalTransactions: Int, perSession: Int) -> FuzzStatistics {
    var total = FuzzStatistics()
    let sessions = max(1, totalTransactions / perSession)
    for index in 0..<sessions {
      let seed = baseSeed &+ UInt64(index)
      let mode: FuzzMode = index.isMultiple(of: 2) ? .plain : .store
      switch FuzzSession(seed: seed, mode: mode).run(transactions: perSession) {
      case .success(let statistics):
        total.add(statistics)
      case .failure(let failure):
        Issue.record("\(failure)")
        return total
      }
    }
    return total
  }

  @Test("renders never miss an update, never re-run for nothing, never run twice per transaction, never run through invalid stores")
  func fixedBudget() {
    let baseSeed = environment("OBSERVANT_FUZZ_SEED").flatMap(UInt64.init) ?? 20_261_123
    let budget = environment("OBSERVANT_FUZZ_TRANSACTIONS").flatMap(Int.init) ?? 20_000
    let statistics = fuzz(baseSeed: baseSeed, totalTransactions: budget, perSession: 250)
    #expect(statistics.transactions >= budget)
    print(
      "fuzz: \(statistics.transactions) transactions, \(statistics.renderRuns) render runs, "
        + "\(statistics.redundantRuns) redundant, \(statistics.documentedCopyRuns) documented copy re-runs, "
        + "\(statistics.documentedReplacementRuns) documented in-place replacement re-runs, "
        + "\(statistics.runsThroughInvalidStores) through invalid stores")
    for example in statistics.redundantExamples { print("redundant: \(example)") }
  }
}
