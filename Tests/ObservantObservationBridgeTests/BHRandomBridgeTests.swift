import Foundation
import Observant
import ObservantObservationBridge
import ObservantStore
import ObservantTestSupport
import Observation
import Testing

// Random sequences of copy / restore operations on value-type state held in a @Tracked property,
// read by Apple views (withObservationTracking through the bridge), by views reading Derived
// values, by reactions (a control), and by a TrackedValues loop. After each step, every reader
// must show the current state (or have been told that it changed).

/// A reaction showing a body's value: the control, Observant's own reader.
@MainActor
final class BHReactionView<Value: Equatable>: BHCheckable {
  let name: String
  private let body: () -> Value
  private(set) var shown: Value
  private var reaction: Reaction?

  init(_ name: String, _ body: @escaping () -> Value) {
    self.name = name
    self.body = body
    shown = withoutTracking(body)
    reaction = Reaction(name) { [unowned self] in self.shown = body() }
  }

  func checkStale() -> Bool { shown != withoutTracking(body) }
  func settleNow() -> Bool { false }
  func showsWrong() -> Bool { false }
}

@MainActor
final class BHRandomWorld {
  let model = BHModel()
  var rng: SplitMix64
  var trace: [String] = []
  let apple = BHScreen()
  let control = BHScreen()
  var derivedSum: Derived<Int>!
  var derivedDraft: Derived<Int>!
  var derivedNested: Derived<Int>!

  var stateSnapshots: [BHState] = []
  var rowsSnapshots: [IdentifiedArrayOf<BHRow>] = []
  var rowSnapshots: [BHRow] = []
  var nestedSnapshots: [BHMid] = []
  var modeSnapshots: [BHMode] = []
  var nextTitle = 0

  init(seed: UInt64) {
    rng = SplitMix64(state: seed)
    let model = model
    func both<Value: Equatable>(_ name: String, _ body: @escaping () -> Value) {
      _ = apple.add(name, body)
      control.views.append(BHReactionView(name, body))
    }
    for id in 1...5 {
      both("rows[\(id)].count") { model.state.rows[id: id]?.count }
      both("rows[\(id)].child") { model.state.rows[id: id]?.child.value }
      both("rows[\(id)].title") { model.state.rows[id: id]?.title }
      both("dict[\(id)].count") { model.state.dict[id]?.count }
    }
    both("ids") { Array(model.state.rows.ids) }
    both("draft.count") { model.state.draft?.count }
    both("draft.child") { model.state.draft?.child.value }
    both("mode.count") { model.state.mode.editing?.count }
    both("mode.child") { model.state.mode.editing?.child.value }
    both("nested.leaf") { model.state.nested.leaf.value }
    both("nested.name") { model.state.nested.name }
    both("flag") { model.state.flag }
    both("plain.counts") { model.state.plain.map(\.count) }
    derivedSum = Derived("sum") { model.state.rows.reduce(0) { $0 + $1.count + $1.child.value } }
    derivedDraft = Derived("draft") { model.state.draft.map { $0.count * 10 + $0.child.value } ?? -1 }
    derivedNested = Derived("nested") { model.state.nested.leaf.value + model.state.flag * 100 }
    let sum = derivedSum!
    let draft = derivedDraft!
    let nested = derivedNested!
    _ = apple.add("derived.sum") { sum.value }
    _ = apple.add("derived.draft") { draft.value }
    _ = apple.add("derived.nested") { nested.value }
  }

  func int(_ bound: Int) -> Int { rng.int(bound) }
  func pick<T>(_ array: [T]) -> T? { array.isEmpty ? nil : array[int(array.count)] }

  /// One random operation; returns its description.
  func operation(allowTransaction: Bool = true) -> String {
    let ids = Array(model.state.rows.ids)
    switch int(24) {
    case 0, 1:
      guard let id = pick(ids) else { return "noop" }
      let value = int(4)
      switch int(3) {
      case 0: model.state.rows[id: id]?.count = value
      case 1: model.state.rows[id: id]?.child.value = value
      default: model.state.rows[id: id]?.title = "t\(value)"
      }
      return "edit row \(id) -> \(value)"
    case 2:
      stateSnapshots.append(model.state)
      return "snapshot state #\(stateSnapshots.count - 1)"
    case 3:
      guard let index = stateSnapshots.indices.randomElement(using: &rng) else { return "noop" }
      model.state = stateSnapshots[index]
      return "restore state #\(index)"
    case 4:
      rowsSnapshots.append(model.state.rows)
      return "snapshot rows #\(rowsSnapshots.count - 1)"
    case 5:
      guard let index = rowsSnapshots.indices.randomElement(using: &rng) else { return "noop" }
      model.state.rows = rowsSnapshots[index]
      return "restore rows #\(index)"
    case 6:
      guard let id = pick(ids) else { return "noop" }
      rowSnapshots.append(model.state.rows[id: id]!)
      return "snapshot row \(id) #\(rowSnapshots.count - 1)"
    case 7:
      guard let id = pick(ids) else { return "noop" }
      model.state.rows.remove(id: id)
      return "remove row \(id)"
    case 8:
      guard let index = rowSnapshots.indices.randomElement(using: &rng) else { return "noop" }
      let row = rowSnapshots[index]
      if model.state.rows[id: row.id] != nil {
        model.state.rows[id: row.id] = row
        return "replace row \(row.id) by copy #\(index)"
      }
      let position = int(model.state.rows.count + 1)
      model.state.rows.insert(row, at: position)
      return "insert copy #\(index) (row \(row.id)) at \(position)"
    case 9:
      let id = 1 + int(5)
      let row = BHRow(id: id, count: int(3))
      if model.state.rows[id: id] != nil {
        model.state.rows[id: id] = row
        return "replace row \(id) by new (count \(row.count))"
      }
      model.state.rows.append(row)
      return "append new row \(id) (count \(row.count))"
    case 10:
      guard let id = pick(ids) else { return "noop" }
      model.state.draft = model.state.rows[id: id]
      return "draft = row \(id)"
    case 11:
      guard model.state.draft != nil else { return "noop" }
      let value = int(4)
      if int(2) == 0 { model.state.draft?.count = value } else { model.state.draft?.child.value = value }
      return "edit draft -> \(value)"
    case 12:
      guard let draft = model.state.draft else { return "noop" }
      if model.state.rows[id: draft.id] != nil {
        model.state.rows[id: draft.id] = draft
      } else {
        model.state.rows.append(draft)
      }
      if int(2) == 0 { model.state.draft = nil }
      return "save draft (row \(draft.id))"
    case 13:
      model.state.draft = nil
      return "draft = nil"
    case 14:
      if let id = pick(ids), int(2) == 0 {
        transaction {
          let row = model.state.rows.remove(id: id)!
          model.state.dict[id] = row
        }
        return "move row \(id) to dict"
      }
      guard let key = pick(Array(model.state.dict.keys).sorted()) else { return "noop" }
      if int(2) == 0 {
        let value = int(4)
        model.state.dict[key]?.count = value
        return "edit dict[\(key)] -> \(value)"
      }
      if model.state.rows[id: key] == nil {
        let row = model.state.dict.removeValue(forKey: key)!
        model.state.rows.insert(row, at: int(model.state.rows.count + 1))
        return "move dict[\(key)] back to rows"
      }
      model.state.dict[key] = nil
      return "drop dict[\(key)]"
    case 15:
      switch int(4) {
      case 0:
        guard let id = pick(ids) else { return "noop" }
        model.state.mode = .editing(model.state.rows[id: id]!)
        return "mode = editing(row \(id))"
      case 1:
        guard case .editing(var row) = model.state.mode else { return "noop" }
        let value = int(4)
        if int(2) == 0 { row.count = value } else { row.child.value = value }
        model.state.mode = .editing(row)
        return "edit mode payload -> \(value)"
      case 2:
        modeSnapshots.append(model.state.mode)
        return "snapshot mode #\(modeSnapshots.count - 1)"
      default:
        if let saved = pick(modeSnapshots), int(2) == 0 {
          model.state.mode = saved
          return "restore a mode snapshot"
        }
        model.state.mode = int(2) == 0 ? .other(int(2)) : .none
        return "mode = other/none"
      }
    case 16:
      switch int(3) {
      case 0:
        let value = int(4)
        model.state.nested.leaf.value = value
        return "nested.leaf -> \(value)"
      case 1:
        nestedSnapshots.append(model.state.nested)
        return "snapshot nested #\(nestedSnapshots.count - 1)"
      default:
        guard let index = nestedSnapshots.indices.randomElement(using: &rng) else { return "noop" }
        model.state.nested = nestedSnapshots[index]
        return "restore nested #\(index)"
      }
    case 17:
      var copy = model.state
      var done: [String] = []
      for _ in 0..<(1 + int(3)) {
        let value = int(4)
        switch int(4) {
        case 0:
          if let id = pick(ids) { copy.rows[id: id]?.count = value; done.append("row \(id).count=\(value)") }
        case 1:
          copy.nested.leaf.value = value
          done.append("leaf=\(value)")
        case 2:
          copy.flag = value
          done.append("flag=\(value)")
        default:
          if let id = pick(ids) { copy.rows[id: id]?.child.value = value; done.append("row \(id).child=\(value)") }
        }
      }
      model.state = copy
      return "copy-mutate-assign [\(done.joined(separator: ", "))]"
    case 18:
      // A write to a detached copy (a snapshot drifts).
      if let index = stateSnapshots.indices.randomElement(using: &rng), let id = pick(ids) {
        stateSnapshots[index].rows[id: id]?.count = int(4)
        return "edit state snapshot #\(index) row \(id)"
      }
      if let index = rowSnapshots.indices.randomElement(using: &rng) {
        rowSnapshots[index].count = int(4)
        return "edit row snapshot #\(index)"
      }
      return "noop"
    case 19:
      let value = int(3)
      model.state.flag = value
      return "flag -> \(value)"
    case 20:
      switch int(3) {
      case 0:
        guard let id = pick(ids) else { return "noop" }
        model.state.plain.append(model.state.rows[id: id]!)
        return "plain.append(row \(id))"
      case 1:
        guard !model.state.plain.isEmpty else { return "noop" }
        let index = int(model.state.plain.count)
        let value = int(4)
        model.state.plain[index].count = value
        return "plain[\(index)].count -> \(value)"
      default:
        guard !model.state.plain.isEmpty else { return "noop" }
        let index = int(model.state.plain.count)
        model.state.plain.remove(at: index)
        return "plain.remove(at: \(index))"
      }
    case 21:
      guard let id = pick(ids), let other = pick(ids), id != other else { return "noop" }
      let from = model.state.rows.index(id: id)!
      let to = model.state.rows.index(id: other)!
      model.state.rows.swapAt(from, to)
      return "swap rows \(id) and \(other)"
    case 22:
      guard allowTransaction else { return "noop" }
      var inner: [String] = []
      transaction {
        for _ in 0..<(2 + int(3)) { inner.append(operation(allowTransaction: false)) }
      }
      return "transaction { \(inner.joined(separator: "; ")) }"
    default:
      guard allowTransaction, let id = pick(ids) else { return "noop" }
      // Set and set back within one transaction, possibly through a snapshot.
      let old = model.state.rows[id: id]!.count
      let mode = int(3)
      transaction {
        switch mode {
        case 0:
          model.state.rows[id: id]?.count = old + 1
          model.state.rows[id: id]?.count = old
        case 1:
          let saved = model.state.rows
          model.state.rows[id: id]?.count = old + 1
          model.state.rows = saved
        default:
          let saved = model.state
          model.state.rows[id: id]?.count = old + 1
          model.state.nested.leaf.value += 1
          model.state = saved
        }
      }
      return "set and set back row \(id) (mode \(mode))"
    }
  }

  /// Checks every reader; returns the stale ones.
  func check() -> (apple: [String], control: [String], rerendered: [String]) {
    let control = control.step().stale
    let step = apple.step()
    return (step.stale, control, step.rerendered)
  }
}

@MainActor
@Suite("BH bridge: random copies and restores")
struct BHRandomBridgeTests {
  /// Runs `steps` random operations from `seed`; returns the first failure's trace, if any.
  static func run(seed: UInt64, steps: Int) -> String? {
    ObservationBridge.withBridgeForTesting {
      let world = BHRandomWorld(seed: seed)
      for step in 0..<steps {
        let description = world.operation()
        world.trace.append(description)
        let result = world.check()
        if description.hasPrefix("set and set back"), !result.rerendered.isEmpty {
          return "seed \(seed) step \(step): set-and-set-back re-rendered \(result.rerendered)\n"
            + world.trace.joined(separator: "\n")
        }
        if !result.apple.isEmpty || !result.control.isEmpty {
          return "seed \(seed) step \(step): stale apple \(result.apple), stale reactions \(result.control)\n"
            + world.trace.joined(separator: "\n")
        }
      }
      return nil
    }
  }

  @Test func fixedSeeds() {
    for seed: UInt64 in [1, 2, 3, 0xB1D6E, 20_261_127] {
      let failure = Self.run(seed: seed, steps: RandomTestBudget.scaled(400))
      #expect(failure == nil, "\(failure ?? "")")
      if failure != nil { break }
    }
  }

  /// `BH_SEEDS=n swift test --filter BHRandomBridgeTests/freshSeeds`: n fresh seeds.
  @Test func freshSeeds() {
    let count = Int(ProcessInfo.processInfo.environment["BH_SEEDS"] ?? "") ?? 0
    var seeds = SystemRandomNumberGenerator()
    for _ in 0..<count {
      let seed = seeds.next()
      let failure = Self.run(seed: seed, steps: 400)
      print("BH seed \(seed): \(failure == nil ? "ok" : "FAILED")")
      #expect(failure == nil, "\(failure ?? "")")
      if failure != nil { break }
    }
  }
}
