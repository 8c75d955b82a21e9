import Observant
import Testing

@MainActor
@Suite("Differential fuzzing")
struct DifferentialFuzzTests {
  /// Runs `sessions` sessions of `transactions` each, alternating modes; returns the totals or
  /// records the first failure (with its seed and minimized reproduction).
  ///
  /// `OBSERVANT_FUZZ_MODE` (`plain` or `store`) runs every session in one mode (to replay a failure).
  private func fuzz(baseSeed: UInt64, totalTransactions: Int, perSession: Int) -> FuzzStatistics {
    var total = FuzzStatistics()
    let sessions = max(1, totalTransactions / perSession)
    let onlyMode = environment("OBSERVANT_FUZZ_MODE").flatMap(FuzzMode.init(rawValue:))
    for index in 0..<sessions {
      let seed = baseSeed &+ UInt64(index)
      let mode: FuzzMode = onlyMode ?? (index.isMultiple(of: 2) ? .plain : .store)
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

  /// Seeds that once found a bug, replayed on every run (each with what it found).
  nonisolated static let regressionSeeds: [(seed: UInt64, mode: FuzzMode, found: String)] = [
    (1_444_715_973, .plain, "a render re-ran although nothing it read changed, after renew() and a remove-all / re-assign of the same rows"),
    (202_821_723, .plain, "a missed update: a snapshot restored twice took back the snapshot's stamps, orphaning what readers read"),
  ]

  @Test("seeds that once found a bug stay green", arguments: 0..<regressionSeeds.count)
  func regressionSeed(_ index: Int) {
    let (seed, mode, found) = Self.regressionSeeds[index]
    for offset in 0..<4 {
      if case .failure(let failure) = FuzzSession(seed: seed &+ UInt64(offset), mode: mode).run(transactions: 250) {
        Issue.record("regression (once: \(found)): \(failure)")
        return
      }
    }
  }
}
