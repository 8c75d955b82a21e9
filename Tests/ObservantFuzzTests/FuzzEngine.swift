import Observant
import ObservantStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Environment knobs for long runs (Scripts/fuzz): OBSERVANT_FUZZ_SEED, OBSERVANT_FUZZ_TRANSACTIONS;
/// OBSERVANT_FUZZ_STRICT=0 counts redundant re-runs instead of failing on the first.
func environment(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}

/// One transaction of a session: mutations applied together (relative to the node at `target`).
struct FuzzTransaction: CustomStringConvertible {
  /// Store mode: the store that sends (its node's path); plain mode: always the root.
  let target: NodePath
  let mutations: [Mutation]

  var description: String {
    let body = mutations.map(\.description).joined(separator: "; ")
    return target.isEmpty ? body : "via store at \(describe(target)): \(body)"
  }
}

/// What a session checks after every transaction, per render.
enum FuzzProblem: String {
  /// The render shows something else than a fresh evaluation: it missed an update.
  case missedUpdate = "missed update"
  /// It ran more than once for one transaction.
  case ranTwice = "ran twice in one transaction"
  /// It ran although its store was already invalid.
  case ranThroughInvalidStore = "ran through an invalid store"
  /// A send reached the diagnostics (the session sends only to valid stores).
  case droppedSend = "a send was dropped"
  /// It re-ran although everything it read is as it was (values and identities).
  case redundantRun = "re-ran although nothing it read changed"
}

struct FuzzFailure: Error, CustomStringConvertible {
  let seed: UInt64
  let mode: FuzzMode
  let problem: FuzzProblem
  let render: String
  let expected: String
  let shown: String
  let reproduction: [FuzzTransaction]
  let originalCount: Int

  var description: String {
    """
    Fuzz failure (\(problem.rawValue)), seed \(seed), \(mode) mode.
    Render: \(render)
    Expected: \(expected)
    Shown:    \(shown)
    Reproduction (\(reproduction.count) of \(originalCount) transactions, minimized):
    \(reproduction.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
    Replay: OBSERVANT_FUZZ_SEED=\(seed) Scripts/fuzz
    """
  }
}

enum FuzzMode: String, CustomStringConvertible {
  case plain, store
  var description: String { rawValue }
}

/// Counts of one or more sessions.
struct FuzzStatistics {
  var transactions = 0
  var renderRuns = 0
  /// Re-runs whose render read exactly what it read before (values and identities).
  var redundantRuns = 0
  /// Redundant re-runs by the kind of the transaction's first mutation.
  var redundantByCause: [String: Int] = [:]
  /// Re-runs of renders whose store was already invalid.
  var runsThroughInvalidStores = 0
  var redundantExamples: [String] = []

  mutating func add(_ other: FuzzStatistics) {
    transactions += other.transactions
    renderRuns += other.renderRuns
    redundantRuns += other.redundantRuns
    redundantByCause.merge(other.redundantByCause, uniquingKeysWith: +)
    runsThroughInvalidStores += other.runsThroughInvalidStores
    redundantExamples += other.redundantExamples.prefix(max(0, 12 - redundantExamples.count))
  }
}

/// A differential fuzzing session: a random state, random renders that re-run as reactions, and
/// random transactions; after each transaction every render is evaluated again from scratch and
/// compared with what it shows. Deterministic for a seed.
@MainActor
final class FuzzSession {
  let seed: UInt64
  let mode: FuzzMode
  let renderCount: Int

  init(seed: UInt64, mode: FuzzMode, renderCount: Int = 16) {
    self.seed = seed
    self.mode = mode
    self.renderCount = renderCount
  }

  /// Generates and runs `count` random transactions; on a problem, minimizes the reproduction.
  func run(transactions count: Int) -> Result<FuzzStatistics, FuzzFailure> {
    var generator = SeededRandom(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1)
    var recorded: [FuzzTransaction] = []
    let world = World(seed: seed, mode: mode, renderCount: renderCount)
    for _ in 0..<count {
      let transaction = world.randomTransaction(using: &generator)
      recorded.append(transaction)
      if let problem = world.apply(transaction) {
        return .failure(minimize(recorded, first: problem))
      }
    }
    return .success(world.statistics)
  }

  /// Replays `transactions` on a fresh world (same seed); returns the first problem.
  private func replay(_ transactions: [FuzzTransaction]) -> World.Problem? {
    let world = World(seed: seed, mode: mode, renderCount: renderCount)
    for transaction in transactions {
      if let problem = world.apply(transaction) { return problem }
    }
    return nil
  }

  /// Greedy shrinking: drop every transaction whose removal keeps the same kind of problem.
  private func minimize(_ transactions: [FuzzTransaction], first: World.Problem) -> FuzzFailure {
    var kept = transactions
    var index = kept.count - 2  // the last one triggered it
    while index >= 0 {
      var candidate = kept
      candidate.remove(at: index)
      if let problem = replay(candidate), problem.kind == first.kind { kept = candidate }
      index -= 1
    }
    let final = replay(kept) ?? first
    return FuzzFailure(
      seed: seed, mode: mode, problem: final.kind, render: final.render, expected: final.expected,
      shown: final.shown, reproduction: kept, originalCount: transactions.count)
  }
}

/// The live objects of one session.
@MainActor
private final class World {
  struct Problem {
    let kind: FuzzProblem
    let render: String
    let expected: String
    let shown: String
  }

  /// One render: its reaction and what it showed at its last run.
  final class Render {
    let spec: RenderSpec
    var shown: [String] = []
    var reaction: Reaction?
    /// Store mode: the pre-resolved store it reads through.
    var store: Store<Node, NodeAction>?
    init(spec: RenderSpec) { self.spec = spec }
  }

  let mode: FuzzMode
  var ids: IDSource
  let holder: Holder
  let store: Store<Node, NodeAction>
  let diagnostics = StoreDiagnostics(printing: false)
  var renders: [Render] = []
  var statistics = FuzzStatistics()
  /// Whether a run through an invalid store fails the session (otherwise it is counted).
  var strictInvalidStores = true
  /// A redundant re-run is a failure unless OBSERVANT_FUZZ_STRICT=0 (then it is only counted).
  var strictRedundancy = environment("OBSERVANT_FUZZ_STRICT") != "0"

  init(seed: UInt64, mode: FuzzMode, renderCount: Int) {
    self.mode = mode
    var setup = SeededRandom(seed: seed)
    var ids = IDSource(startingAt: 1)
    let root = setup.node(depth: 3, ids: &ids)
    self.holder = Holder(root: root)
    self.store = Store(initialState: root, reducer: NodeFeature.reduce, diagnostics: diagnostics)
    // New nodes made by transactions get ids above any id of the setup.
    self.ids = IDSource(startingAt: ids.next + 1_000_000)
    let rootStore = self.store
    for _ in 0..<renderCount {
      let spec = setup.render(in: root)
      let render = Render(spec: spec)
      switch mode {
      case .plain:
        let holder = self.holder
        render.reaction = Reaction(spec.description) { [unowned render] in
          render.shown = spec.trace(from: holder.root)
        }
      case .store:
        guard let store = withoutTracking({ NodeFeature.store(rootStore, at: spec.path[...]) }) else { continue }
        render.store = store
        render.reaction = Reaction(spec.description) { [unowned render] in
          render.shown = spec.trace(through: store)
        }
      }
      renders.append(render)
    }
  }

  func randomTransaction(using random: inout SeededRandom) -> FuzzTransaction {
    let count = random.int(1...3)
    switch mode {
    case .plain:
      let root = withoutTracking { holder.root }
      var mutations: [Mutation] = []
      for _ in 0..<count { mutations.append(random.mutation(of: root, ids: &ids)) }
      return FuzzTransaction(target: [], mutations: mutations)
    case .store:
      let root = withoutTracking { store.state }
      // Send through the root or through the store of a node deeper down.
      let target = random.chance(0.5) ? [] : random.path(in: root, depth: 2)
      let node = resolve(root, target[...]) ?? root
      var mutations: [Mutation] = []
      for _ in 0..<count { mutations.append(random.mutation(of: node, ids: &ids)) }
      return FuzzTransaction(target: resolve(root, target[...]) == nil ? [] : target, mutations: mutations)
    }
  }

  /// Applies one transaction and checks every render.
  func apply(_ change: FuzzTransaction) -> Problem? {
    let transaction = change
    let before = renders.map { (runs: $0.reaction?.runCount ?? 0, shown: $0.shown, valid: $0.store?.isValid ?? true) }
    switch mode {
    case .plain:
      Observant.transaction {
        for mutation in change.mutations { mutation.apply(to: &holder.root) }
      }
    case .store:
      let sender = withoutTracking { NodeFeature.store(store, at: transaction.target[...]) } ?? store
      sender.send(.apply(transaction.mutations))
      if diagnostics.count(of: .actionSentToInvalidStore) + diagnostics.count(of: .actionSentToDeallocatedStore) > 0 {
        return Problem(kind: .droppedSend, render: "(send)", expected: "no diagnostics", shown: "\(diagnostics.all)")
      }
    }
    statistics.transactions += 1
    for (render, old) in zip(renders, before) {
      let runs = (render.reaction?.runCount ?? 0) - old.runs
      statistics.renderRuns += runs
      if runs > 1 {
        return Problem(kind: .ranTwice, render: render.spec.description, expected: "1 run", shown: "\(runs) runs")
      }
      if runs > 0, !old.valid {
        if strictInvalidStores {
          return Problem(kind: .ranThroughInvalidStore, render: render.spec.description, expected: "no run", shown: "\(runs) run")
        }
        statistics.runsThroughInvalidStores += 1
      }
      let expected = withoutTracking { fresh(render) }
      if expected != render.shown {
        return Problem(
          kind: .missedUpdate, render: render.spec.description,
          expected: expected.joined(separator: " | "), shown: render.shown.joined(separator: " | "))
      }
      if runs > 0 && render.shown == old.shown {
        if strictRedundancy {
          return Problem(kind: .redundantRun, render: render.spec.description, expected: "no run", shown: "\(runs) run")
        }
        statistics.redundantRuns += 1
        if statistics.redundantExamples.count < 12 {
          statistics.redundantExamples.append("\(mode): \(render.spec) after [\(change)] shows \(render.shown)")
        }
        let cause = transaction.mutations.first.map { String("\($0)".prefix { $0 != "(" }) } ?? "?"
        statistics.redundantByCause[cause, default: 0] += 1
      }
    }
    return nil
  }

  /// A from-scratch evaluation of what `render` should show now.
  private func fresh(_ render: Render) -> [String] {
    switch mode {
    case .plain: render.spec.trace(from: holder.root)
    case .store: render.store.map { render.spec.trace(through: $0) } ?? []
    }
  }
}
