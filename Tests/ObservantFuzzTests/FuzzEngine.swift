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

/// One step of a session: a transaction of mutations, or an operation on a copy kept across
/// transactions (a draft edited outside the state and saved later, an undo snapshot restored later).
struct FuzzTransaction: CustomStringConvertible {
  enum Kind {
    /// Mutations applied together, relative to the node at `target`.
    case mutations([Mutation])
    /// Copies the node at `path` into draft `slot`.
    case takeDraft(NodePath, slot: Int)
    /// Edits draft `slot` outside the state: each write is its own transaction.
    case editDraft(slot: Int, delta: Int, label: String)
    /// Assigns draft `slot` back over the node with its id at its path.
    case saveDraft(slot: Int)
    /// Copies the whole state into snapshot `slot`.
    case snapshot(slot: Int)
    /// Restores snapshot `slot`: by assignment (`holder.root = snapshot`), or in place
    /// (`holder.root.restore(snapshot)`, `state = snapshot` in a reducer).
    case restore(slot: Int, inPlace: Bool)
    /// Gives the node at `path` back one part of its state in snapshot `slot` (an older copy
    /// coming back), after a detour in the same transaction: another state, or none, first.
    case restorePart(slot: Int, path: NodePath, part: RestoredPart)
  }

  /// Store mode: the store that sends (its node's path); plain mode: always the root.
  let target: NodePath
  let kind: Kind

  init(target: NodePath, mutations: [Mutation]) {
    self.target = target
    self.kind = .mutations(mutations)
  }

  init(_ kind: Kind) {
    self.target = []
    self.kind = kind
  }

  var mutations: [Mutation] {
    if case .mutations(let mutations) = kind { return mutations }
    return []
  }

  /// Whether the step writes through a copy of state that readers may be reading (see
  /// `Mutation.writesThroughCopy`).
  var writesThroughCopy: Bool {
    switch kind {
    case .mutations(let mutations):
      // A store reaches an enum payload by taking it out, mutating the copy and putting it back.
      target.contains { $0 == .slot || $0 == .left || $0 == .right } || mutations.contains(where: \.writesThroughCopy)
    case .editDraft, .restorePart: true
    default: false
    }
  }

  /// Whether the step replaces a value wholesale inside an in-place mutation, where the runtime
  /// cannot see the value it replaced and reconciles readers by stamps (documented in the Identity
  /// rules article, "Undo": a reader of a field that holds an equal value written at another time
  /// may run once; in the transaction of such a replacement, only the fields the replacement itself
  /// takes back to where their readers read them count as set back, and not those of an element of
  /// a collection).
  /// Whether the step assigns a value a copy of itself (`rows = saved`, `pinned = saved`, an
  /// edited copy assigned back) and then mutates anything in the same transaction: the place the
  /// assignment stored into is not known to the transaction, so a later write that takes a field
  /// back to where its readers read it cannot be told from a write to another copy, and is not
  /// recognized as a set-back (documented in the Identity rules article, "Undo").
  var writesAfterAssigningACopy: Bool {
    let mutations = self.mutations
    guard let first = mutations.firstIndex(where: \.assignsACopy) else { return false }
    return first < mutations.count - 1
  }

  var replacesInPlace: Bool {
    switch kind {
    case .mutations(let mutations):
      mutations.contains { if case .undoInPlace = $0 { true } else { false } }
    case .restore(_, let inPlace): inPlace
    default: false
    }
  }

  var description: String {
    switch kind {
    case .mutations(let mutations):
      let body = mutations.map(\.description).joined(separator: "; ")
      return target.isEmpty ? body : "via store at \(describe(target)): \(body)"
    case .takeDraft(let path, let slot): return "draft[\(slot)] = copy of \(describe(path))"
    case .editDraft(let slot, let delta, let label):
      return "draft[\(slot)].value += \(delta); .label = \"\(label)\" (outside the state)"
    case .saveDraft(let slot): return "save draft[\(slot)] back at its path"
    case .snapshot(let slot): return "snapshot[\(slot)] = copy of root"
    case .restore(let slot, let inPlace):
      return inPlace ? "restore snapshot[\(slot)] in place" : "root = snapshot[\(slot)]"
    case .restorePart(let slot, let path, let part):
      return "\(describe(path)): \(part.detour); .\(part) = snapshot[\(slot)]'s (an older copy back)"
    }
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
    Replay: OBSERVANT_FUZZ_SEED=\(seed) OBSERVANT_FUZZ_MODE=\(mode) Scripts/fuzz --transactions 250
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
  /// Such re-runs in the documented cases: a write through a copy (at most once per copy), or a
  /// wholesale replacement inside an in-place mutation (reconciled by stamps).
  var documentedCopyRuns = 0
  var documentedReplacementRuns = 0
  /// Redundant re-runs by the kind of the transaction's first mutation.
  var redundantByCause: [String: Int] = [:]
  /// Re-runs of renders whose store was already invalid.
  var runsThroughInvalidStores = 0
  var redundantExamples: [String] = []

  mutating func add(_ other: FuzzStatistics) {
    transactions += other.transactions
    renderRuns += other.renderRuns
    redundantRuns += other.redundantRuns
    documentedCopyRuns += other.documentedCopyRuns
    documentedReplacementRuns += other.documentedReplacementRuns
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
  /// Drafts: copies of nodes taken from the state, edited outside it, saved back later.
  var drafts: [Int: (path: NodePath, node: Node)] = [:]
  /// Undo snapshots of the whole state.
  var snapshots: [Int: Node] = [:]
  /// Whether a run through an invalid store fails the session (otherwise it is counted).
  var strictInvalidStores = true
  /// OBSERVANT_FUZZ_CAUSES=1: renders record why they re-ran, and a redundant run's failure says.
  static let recordsCauses = environment("OBSERVANT_FUZZ_CAUSES") == "1"

  /// A redundant re-run is a failure unless OBSERVANT_FUZZ_STRICT=0 (then it is only counted).
  var strictRedundancy = environment("OBSERVANT_FUZZ_STRICT") != "0"

  init(seed: UInt64, mode: FuzzMode, renderCount: Int) {
    self.mode = mode
    var setup = SeededRandom(seed: seed)
    var ids = IDSource(startingAt: 1)
    let root = setup.node(depth: 3, ids: &ids)
    // Only the mode's own owner holds the state: no other copy of it exists unless a transaction
    // takes one (a draft, a snapshot), so copies are accounted for exactly.
    self.holder = Holder(root: mode == .plain ? root : Node(id: 0))
    self.store = Store(
      initialState: mode == .store ? root : Node(id: 0), reducer: NodeFeature.reduce, diagnostics: diagnostics)
    // New nodes made by transactions get ids above any id of the setup.
    self.ids = IDSource(startingAt: ids.next + 1_000_000)
    let rootStore = self.store
    for _ in 0..<renderCount {
      let spec = setup.render(in: root)
      let render = Render(spec: spec)
      switch mode {
      case .plain:
        let holder = self.holder
        render.reaction = Reaction(spec.description, recordingCauses: Self.recordsCauses) { [unowned render] in
          render.shown = spec.trace(from: holder.root)
        }
      case .store:
        guard let store = withoutTracking({ NodeFeature.store(rootStore, at: spec.path[...]) }) else { continue }
        render.store = store
        render.reaction = Reaction(spec.description, recordingCauses: Self.recordsCauses) { [unowned render] in
          render.shown = spec.trace(through: store)
        }
      }
      renders.append(render)
    }
  }

  func randomTransaction(using random: inout SeededRandom) -> FuzzTransaction {
    let root = withoutTracking { mode == .plain ? holder.root : store.state }
    if random.chance(0.18) {
      switch random.int(0...6) {
      case 0: return FuzzTransaction(.takeDraft(random.path(in: root, depth: 3), slot: random.int(0...1)))
      case 1, 2:
        return FuzzTransaction(
          .editDraft(slot: random.int(0...1), delta: random.pick([-1, 1, 2]), label: random.pick(["a", "b", "d"])))
      case 3: return FuzzTransaction(.saveDraft(slot: random.int(0...1)))
      case 4: return FuzzTransaction(.snapshot(slot: random.int(0...1)))
      case 5: return FuzzTransaction(.restore(slot: random.int(0...1), inPlace: random.chance(0.5)))
      default:
        return FuzzTransaction(
          .restorePart(
            slot: random.int(0...1), path: random.path(in: root, depth: 3),
            part: random.pick(RestoredPart.allCases)))
      }
    }
    let count = random.int(1...3)
    switch mode {
    case .plain:
      var mutations: [Mutation] = []
      for _ in 0..<count { mutations.append(random.mutation(of: root, ids: &ids)) }
      return FuzzTransaction(target: [], mutations: mutations)
    case .store:
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
    let sharedBefore = sharedIdentities()
    // A store's reducer replaces the root wholesale (`state = snapshot`, `state = draft`), inside
    // the reducer's in-place access.
    var storeReplacesRoot = false
    switch transaction.kind {
    case .restore: storeReplacesRoot = true
    case .saveDraft(let slot): storeReplacesRoot = drafts[slot]?.path.isEmpty == true
    default: break
    }
    let before = renders.map { (runs: $0.reaction?.runCount ?? 0, shown: $0.shown, valid: $0.store?.isValid ?? true) }
    switch transaction.kind {
    case .mutations(let mutations):
      switch mode {
      case .plain:
        Observant.transaction {
          for mutation in mutations { mutation.apply(to: &holder.root) }
        }
      case .store:
        let sender = withoutTracking { NodeFeature.store(store, at: transaction.target[...]) } ?? store
        sender.send(.apply(mutations))
      }
    case .takeDraft(let path, let slot):
      let root = withoutTracking { mode == .plain ? holder.root : store.state }
      if let node = resolve(root, path[...]) { drafts[slot] = (path, node) }
    case .editDraft(let slot, let delta, let label):
      // Outside any transaction and outside the state: each write is its own transaction.
      drafts[slot]?.node.value += delta
      drafts[slot]?.node.label = label
    case .saveDraft(let slot):
      guard let draft = drafts[slot] else { break }
      switch mode {
      case .plain:
        if draft.path.isEmpty {
          // The root is saved through the property's setter, not through an inout access.
          if withoutTracking({ holder.root.id }) == draft.node.id { holder.root = draft.node }
        } else {
          Observant.transaction { _ = assign(draft.node, at: draft.path, in: &holder.root) }
        }
      case .store: store.send(.assign(draft.path, draft.node))
      }
    case .snapshot(let slot):
      snapshots[slot] = withoutTracking { mode == .plain ? holder.root : store.state }
    case .restore(let slot, let inPlace):
      guard let snapshot = snapshots[slot] else { break }
      switch mode {
      case .plain:
        if inPlace { holder.root.restore(snapshot) } else { holder.root = snapshot }
      case .store:
        store.send(.restoreRoot(snapshot))
      }
    case .restorePart(let slot, let path, let part):
      guard let saved = snapshots[slot].flatMap({ resolve($0, path[...]) }) else { break }
      switch mode {
      case .plain:
        Observant.transaction { _ = modify(&holder.root, path[...]) { part.restore(from: saved, into: &$0) } }
      case .store: store.send(.restorePart(path, saved, part))
      }
    }
    if mode == .store,
      diagnostics.count(of: .actionSentToInvalidStore) > 0
    {
      return Problem(kind: .droppedSend, render: "(send)", expected: "no diagnostics", shown: "\(diagnostics.all)")
    }
    statistics.transactions += 1
    for (render, old) in zip(renders, before) {
      let runs = (render.reaction?.runCount ?? 0) - old.runs
      statistics.renderRuns += runs
      // A draft edit is two writes outside any transaction: two transactions.
      let allowedRuns = if case .editDraft = transaction.kind { 2 } else { 1 }
      if runs > allowedRuns {
        return Problem(kind: .ranTwice, render: render.spec.description, expected: "1 run", shown: "\(runs) runs")
      }
      if runs > 0, !old.valid {
        if strictInvalidStores {
          return Problem(
            kind: .ranThroughInvalidStore, render: render.spec.description, expected: "no run", shown: "\(runs) run")
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
        // One value in two slots: a write through one copy reaches the readers of the other once.
        let shared = sharedBefore.union(sharedIdentities())
        // What it read, or a value its path goes through (a copy of a row whose nested rows it
        // reads).
        let readShared =
          !shared.isDisjoint(with: pathIdentities(render.spec.path))
          || shared.contains { id in
            render.shown.contains {
              $0.contains("#\(id)=") || $0.contains("#\(id) ") || $0.hasSuffix("#\(id)") || $0.contains("#\(id),")
            }
          }
        // Other copies of the state exist while a draft or a snapshot is kept; in store mode
        // always (a store keeps copies of what its scoped stores showed).
        let copiesExist = mode == .store || !drafts.isEmpty || !snapshots.isEmpty
        let plainElementWithCopies =
          copiesExist && transaction.mutations.contains(where: \.writesPlainCollectionElement)
        if transaction.writesThroughCopy || readShared || plainElementWithCopies {
          statistics.documentedCopyRuns += 1
          continue
        }
        // An identified array changed in place (compared by structure version) and assigned a
        // rebuilt one in the same transaction cannot be recognized as set back (documented:
        // Identity rules, "Undo").
        let mixedRows =
          transaction.mutations.contains(where: \.changesRowsInPlace)
          && transaction.mutations.contains(where: \.assignsRebuiltRows)
        let movedAndRestored =
          transaction.mutations.contains(where: \.movesPinned)
          && transaction.mutations.contains(where: \.restoresPinnedFromCopy)
        if transaction.replacesInPlace || (mode == .store && storeReplacesRoot) || mixedRows || movedAndRestored
          || transaction.writesAfterAssigningACopy
        {
          statistics.documentedReplacementRuns += 1
          continue
        }
        if strictRedundancy {
          let causes = render.reaction.map { Self.recordsCauses ? " (causes: \($0.lastRunCauses))" : "" } ?? ""
          return Problem(
            kind: .redundantRun, render: render.spec.description, expected: "no run", shown: "\(runs) run\(causes)")
        }
        statistics.redundantRuns += 1
        if statistics.redundantExamples.count < 12 {
          statistics.redundantExamples.append("\(mode): \(render.spec) after [\(change)] shows \(render.shown)")
        }
        let cause = transaction.mutations.first.map { String("\($0)".prefix { $0 != "(" }) } ?? "\(transaction.kind)"
        statistics.redundantByCause[cause, default: 0] += 1
      }
    }
    return nil
  }

  /// The identities that occur more than once in the live state (one value in two slots).
  /// The identities of the values a render's path goes through, now.
  private func pathIdentities(_ path: NodePath) -> Set<UInt64> {
    withoutTracking {
      var identities: Set<UInt64> = []
      let root = mode == .plain ? holder.root : store.state
      for length in 0...path.count {
        guard let node = resolve(root, path[..<length]) else { break }
        identities.insert(node.observableStateID.rawValue)
      }
      return identities
    }
  }

  private func sharedIdentities() -> Set<UInt64> {
    var counts: [UInt64: Int] = [:]
    func visit(_ node: Node) {
      counts[node.observableStateID.rawValue, default: 0] += 1
      for row in node.rows { visit(row) }
      if let child = node.slot.node { visit(child) }
      if let child = node.choice.left { visit(child) }
      if let child = node.choice.right { visit(child) }
      for leaf in [node.pinned, node.spare] + (node.leaf.map { [$0] } ?? []) + node.items + Array(node.table.values) {
        counts[leaf.observableStateID.rawValue, default: 0] += 1
      }
    }
    withoutTracking { visit(mode == .plain ? holder.root : store.state) }
    return Set(counts.filter { $0.value > 1 }.keys)
  }

  /// A from-scratch evaluation of what `render` should show now.
  private func fresh(_ render: Render) -> [String] {
    switch mode {
    case .plain: render.spec.trace(from: holder.root)
    case .store: render.store.map { render.spec.trace(through: $0) } ?? []
    }
  }
}
