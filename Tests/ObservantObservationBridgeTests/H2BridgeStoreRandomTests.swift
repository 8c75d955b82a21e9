// swift-format-ignore-file
import Foundation
import Observant
import ObservantObservationBridge
import ObservantStore
import ObservantTestSupport
import Observation
import Testing

// Hunt 2 (H2): Apple's `withObservationTracking` over STORES with the bridge on, as SwiftUI reads
// them (root store, child stores, optional child and enum-case stores, one store per row of a
// collection scope, recreated like a ForEach), next to Observant reactions reading the same, under
// a seeded random sequence of sends. A shadow model (plain values, with an identity and a write
// stamp per field) says what each view must show and whether it must re-render.

// MARK: - Shadow model

struct H2SRow: Equatable {
  var id: Int
  var inst: Int
  var count: Int
  var countStamp: Int
  var title: String
  var titleStamp: Int
  var child: Int
  var childInst: Int
  var childStamp: Int
}

enum H2SMode: Equatable {
  case none
  case editing(H2SRow)
  case other(Int)
}

struct H2SState: Equatable {
  var rows: [H2SRow]
  var rowsVersion: Int
  var dict: [Int: H2SRow]
  var mode: H2SMode
  var draft: H2SRow?
  var flag: Int
  var flagStamp: Int
  var leaf: Int
  var leafInst: Int
  var leafStamp: Int

  func row(_ id: Int) -> H2SRow? { rows.first { $0.id == id } }
  var ids: [Int] { rows.map(\.id) }
  var editing: H2SRow? { if case .editing(let row) = mode { row } else { nil } }
  var dictKey: [[Int]] { dict.keys.sorted().map { [$0, dict[$0]!.inst] } }
  var modeKey: [Int] {
    switch mode {
    case .none: [0]
    case .editing(let row): [1, row.inst]
    case .other(let n): [2, n]
    }
  }
  /// Row identities present in two live places (a draft, an editor payload, a parked copy).
  var sharedInsts: Set<Int> {
    var seen: [Int: Int] = [:]
    for row in rows { seen[row.inst, default: 0] += 1 }
    for row in dict.values { seen[row.inst, default: 0] += 1 }
    if let row = editing { seen[row.inst, default: 0] += 1 }
    if let row = draft { seen[row.inst, default: 0] += 1 }
    return Set(seen.filter { $0.value > 1 }.keys)
  }
}

/// A real value and its shadow, kept together (old copies, snapshots).
struct H2Saved<Real, Shadow> {
  let real: Real
  let shadow: Shadow
}

// MARK: - Views

/// What a view reads, what it must show, and what it depends on.
@MainActor
struct H2Spec {
  let name: String
  /// Row identities the view depends on (over-firing is allowed while one is in two places).
  let insts: (H2SState) -> Set<Int>
  /// What the view must show for a shadow state (`nil`: no claim).
  let expected: (H2SState) -> String?
  /// What the view depends on; it must not re-render while this is unchanged.
  let key: (H2SState) -> [Int]
  /// Whether a change of the identity in `key` (its first element) must re-render it.
  let mustFireOnKeyChange: Bool
}

@MainActor
final class H2ReactionView {
  let name: String
  private(set) var shown = ""
  private(set) var runs = 0
  private var reaction: Reaction?
  let body: () -> String

  init(_ name: String, _ body: @escaping () -> String) {
    self.name = name
    self.body = body
    reaction = Reaction(name) { [unowned self] in
      runs += 1
      shown = body()
    }
  }

  func cancel() {
    reaction?.cancel()
    reaction = nil
  }
}

@MainActor
final class H2ViewPair {
  let spec: H2Spec
  let apple: BHAppleView<String>
  let reaction: H2ReactionView
  /// Extra check after a step (a row store's validity, say); returns a problem or nil.
  var isAlive: () -> Bool

  init(_ spec: H2Spec, isAlive: @escaping () -> Bool = { true }, _ body: @escaping () -> String) {
    self.spec = spec
    self.isAlive = isAlive
    let excluded = H2Runner.excluded.contains { spec.name.hasPrefix($0) }
    apple = BHAppleView(spec.name, readsAtFire: true, excluded || H2Runner.excluded.contains("apple") ? { "" } : body)
    reaction = H2ReactionView(spec.name, excluded || H2Runner.excluded.contains("reaction") ? { "" } : body)
  }
}

// MARK: - Runner

@MainActor
final class H2Runner {
  var rng: SplitMix64
  let seed: UInt64
  var stamp = 1000
  let store: Store<BHState, BHAction>
  var shadow: H2SState
  var fixed: [H2ViewPair] = []
  var rowViews: [Int: (store: Store<BHRow, BHRowAction>, views: [H2ViewPair])] = [:]
  var editorView: (store: Store<BHRow, BHRowAction>, views: [H2ViewPair])?
  var draftView: (store: Store<BHRow, BHRowAction>, views: [H2ViewPair])?
  var graveyard: [H2Saved<BHRow, H2SRow>] = []
  var rowSnapshots: [H2Saved<IdentifiedArrayOf<BHRow>, (rows: [H2SRow], version: Int)>] = []
  var stateSnapshots: [H2Saved<BHState, H2SState>] = []
  var problems: [String] = []
  var stepNumber = 0
  /// Whether the step being checked assigned the whole state (`state = saved`).
  var wholeStateReplaced = false
  /// Row identities in two places at some point inside the step's send.
  var extraShared: Set<Int> = []
  /// Views whose over-rendering the docs allow in this step.
  var lenientPrefixes: [String] = []
  var log: [String] = []
  let universe = Array(1...6)
  static let tracing = ProcessInfo.processInfo.environment["H2_TRACE"] != nil
  /// For minimizing a crash: steps generated but not sent, and no checks.
  static let skipped = Set((ProcessInfo.processInfo.environment["H2_SKIP"] ?? "").split(separator: ",").compactMap { Int($0) })
  static var excludedOverride: [String]?
  static var excluded: [String] {
    excludedOverride ?? (ProcessInfo.processInfo.environment["H2_EXCLUDE"] ?? "").split(separator: ",").map(String.init)
  }
  static let minimizing = ProcessInfo.processInfo.environment["H2_MIN"] != nil

  func fresh() -> Int {
    stamp += 1
    return stamp
  }

  init(seed: UInt64) {
    self.seed = seed
    rng = SplitMix64(state: seed)
    stamp = 1000
    var rows: [BHRow] = []
    var shadowRows: [H2SRow] = []
    var next = 1000
    func bump() -> Int {
      next += 1
      return next
    }
    for id in 1...4 {
      rows.append(BHRow(id: id, count: id, title: "r\(id)"))
      shadowRows.append(
        H2SRow(
          id: id, inst: bump(), count: id, countStamp: bump(), title: "r\(id)", titleStamp: bump(), child: 0,
          childInst: bump(), childStamp: bump()))
    }
    store = Store(initialState: BHState(rows: rows), reducer: BHFeature.reduce)
    shadow = H2SState(
      rows: shadowRows, rowsVersion: bump(), dict: [:], mode: .none, draft: nil, flag: 0, flagStamp: bump(), leaf: 0,
      leafInst: bump(), leafStamp: bump())
    stamp = next
    buildFixedViews()
    reconcile()
  }

  // MARK: Views

  private func buildFixedViews() {
    let store = self.store
    func add(
      _ name: String, exact: Bool, insts: @escaping (H2SState) -> Set<Int> = { _ in [] },
      expected: @escaping (H2SState) -> String?, key: @escaping (H2SState) -> [Int], _ body: @escaping () -> String
    ) {
      fixed.append(
        H2ViewPair(
          H2Spec(name: name, insts: insts, expected: expected, key: key, mustFireOnKeyChange: exact), body))
    }
    add("flag", exact: false, expected: { "\($0.flag)" }, key: { [$0.flagStamp] }) { "\(store.flag)" }
    add("ids", exact: true, expected: { $0.ids.map(String.init).joined(separator: ",") }, key: { $0.ids }) {
      store.scope(state: \.rows, action: BHAction.row).map { "\($0.id)" }.joined(separator: ",")
    }
    add("rowsCount", exact: false, expected: { "\($0.rows.count)" }, key: { [$0.rowsVersion] }) {
      "\(store.rows.count)"
    }
    add(
      "dictKeys", exact: false, expected: { $0.dict.keys.sorted().map(String.init).joined(separator: ",") },
      key: { $0.dictKey.flatMap { $0 } }
    ) { store.dict.keys.sorted().map(String.init).joined(separator: ",") }
    add(
      "mode", exact: false,
      expected: {
        switch $0.mode {
        case .none: "none"
        case .editing(let row): "editing \(row.id)"
        case .other(let n): "other \(n)"
        }
      }, key: { $0.modeKey }
    ) {
      switch store.mode {
      case .none: "none"
      case .editing(let row): "editing \(row.id)"
      case .other(let n): "other \(n)"
      }
    }
    add("editorSlot", exact: false, expected: { $0.editing == nil ? "absent" : "present" }, key: { $0.modeKey }) {
      store.scope(state: \.mode.editing, action: BHAction.editing) == nil ? "absent" : "present"
    }
    add(
      "draftSlot", exact: false, expected: { $0.draft == nil ? "absent" : "present" },
      key: { $0.draft.map { [$0.inst] } ?? [] }
    ) { store.scope(state: \.draft, action: BHAction.draft) == nil ? "absent" : "present" }
    let nested = store.scope(state: \.nested, action: { (never: Never) -> BHAction in })
    let leaf = nested.scope(state: \.leaf, action: { (never: Never) -> Never in })
    add("leaf", exact: true, expected: { "\($0.leaf)" }, key: { [$0.leafInst, $0.leafStamp] }) { "\(leaf.value)" }
    for id in universe {
      add(
        "byId[\(id)]", exact: false, insts: { $0.row(id).map { [$0.inst] } ?? [] },
        expected: { $0.row(id).map { "\($0.count)" } ?? "-" },
        key: { [$0.rowsVersion] + ($0.row(id).map { [$0.inst, $0.countStamp] } ?? []) }
      ) { store.rows[id: id].map { "\($0.count)" } ?? "-" }
      add(
        "dict[\(id)]", exact: false, insts: { $0.dict[id].map { [$0.inst] } ?? [] },
        expected: { $0.dict[id].map { "\($0.count)" } ?? "-" },
        key: { $0.dictKey.flatMap { $0 } + ($0.dict[id].map { [$0.inst, $0.countStamp] } ?? []) }
      ) { store.dict[id].map { "\($0.count)" } ?? "-" }
    }
  }

  /// The views of one row store (a ForEach row), of the editor's store or of the draft's store.
  private func rowViewPairs(
    _ label: String, _ rowStore: Store<BHRow, BHRowAction>, shadowRow: @escaping (H2SState) -> H2SRow?
  ) -> [H2ViewPair] {
    let child = rowStore.scope(state: \.child, action: { (never: Never) -> BHRowAction in })
    let alive = { rowStore.isValid }
    func insts(_ state: H2SState) -> Set<Int> { shadowRow(state).map { [$0.inst] } ?? [] }
    return [
      H2ViewPair(
        H2Spec(
          name: "\(label).count", insts: insts, expected: { shadowRow($0).map { "\($0.count)" } },
          key: { shadowRow($0).map { [$0.inst, $0.countStamp] } ?? [] }, mustFireOnKeyChange: true),
        isAlive: alive
      ) { "\(rowStore.count)" },
      H2ViewPair(
        H2Spec(
          name: "\(label).title", insts: insts, expected: { shadowRow($0).map { $0.title } },
          key: { shadowRow($0).map { [$0.inst, $0.titleStamp] } ?? [] }, mustFireOnKeyChange: true),
        isAlive: alive
      ) { rowStore.title },
      H2ViewPair(
        H2Spec(
          name: "\(label).child", insts: insts, expected: { shadowRow($0).map { "\($0.child)" } },
          key: { shadowRow($0).map { [$0.childInst, $0.childStamp] } ?? [] }, mustFireOnKeyChange: true),
        isAlive: alive
      ) { "\(child.value)" },
    ]
  }

  /// ForEach: a view per row of the current collection, the editor's and the draft's views.
  func reconcile() {
    let collection = store.scope(state: \.rows, action: BHAction.row)
    var seen: Set<Int> = []
    for rowStore in collection {
      let id = rowStore.id
      seen.insert(id)
      if let held = rowViews[id], held.store === rowStore, rowStore.isValid { continue }
      if let held = rowViews[id], held.store.isValid {
        problems.append("step \(stepNumber): row \(id): the collection handed out another store than the valid one held")
      }
      rowViews[id]?.views.forEach { $0.reaction.cancel() }
      rowViews[id] = (rowStore, rowViewPairs("row[\(id)]", rowStore) { $0.row(id) })
    }
    for id in rowViews.keys where !seen.contains(id) {
      rowViews[id]?.views.forEach { $0.reaction.cancel() }
      rowViews[id] = nil
    }
    if let editor = store.scope(state: \.mode.editing, action: BHAction.editing) {
      if editorView?.store !== editor {
        editorView?.views.forEach { $0.reaction.cancel() }
        editorView = (editor, rowViewPairs("editor", editor) { $0.editing })
      }
    } else {
      editorView?.views.forEach { $0.reaction.cancel() }
      editorView = nil
    }
    if let draft = store.scope(state: \.draft, action: BHAction.draft) {
      if draftView?.store !== draft {
        draftView?.views.forEach { $0.reaction.cancel() }
        draftView = (draft, rowViewPairs("draft", draft) { $0.draft })
      }
    } else {
      draftView?.views.forEach { $0.reaction.cancel() }
      draftView = nil
    }
  }

  var allPairs: [H2ViewPair] {
    fixed + rowViews.keys.sorted().flatMap { rowViews[$0]!.views } + (editorView?.views ?? [])
      + (draftView?.views ?? [])
  }

  // MARK: A step

  /// Sends `body` through the root (one send: one transaction) and checks every view against
  /// `next`, the shadow state after it. `removedIDs`: row ids removed at some point in the send.
  func step(
    _ name: String, removedIDs: Set<Int> = [], next: H2SState, _ body: @escaping @Sendable (inout BHState) -> Void
  ) {
    stepSending(name, removedIDs: removedIDs, next: next) { store.send(.apply(body)) }
  }
}

// MARK: - Random operations

extension H2Runner {
  func pick<T>(_ values: [T]) -> T? { values.isEmpty ? nil : values[rng.int(values.count)] }

  func newShadowRow(id: Int, count: Int, title: String) -> H2SRow {
    H2SRow(
      id: id, inst: fresh(), count: count, countStamp: fresh(), title: title, titleStamp: fresh(), child: 0,
      childInst: fresh(), childStamp: fresh())
  }

  func saveCopy(of id: Int) {
    guard let shadowRow = shadow.row(id) else { return }
    let real = withoutTracking { store.state.rows[id: id]! }
    graveyard.append(H2Saved(real: real, shadow: shadowRow))
    if graveyard.count > 12 { graveyard.removeFirst() }
  }

  func snapshot() {
    if H2Runner.tracing { print("H2 snapshot \(rowSnapshots.count) after step \(stepNumber)") }
    let state = withoutTracking { store.state }
    rowSnapshots.append(H2Saved(real: state.rows, shadow: (shadow.rows, shadow.rowsVersion)))
    stateSnapshots.append(H2Saved(real: state, shadow: shadow))
    if rowSnapshots.count > 6 { rowSnapshots.removeFirst() }
    if stateSnapshots.count > 6 { stateSnapshots.removeFirst() }
  }

  /// One random edit of a row field, in the reducer and in the shadow.
  func fieldEdit(_ id: Int, _ next: inout H2SState) -> (@Sendable (inout BHRow) -> Void)? {
    guard let index = next.rows.firstIndex(where: { $0.id == id }) else { return nil }
    switch rng.int(3) {
    case 0:
      let delta = 1 + rng.int(3)
      next.rows[index].count += delta
      next.rows[index].countStamp = fresh()
      return { $0.count += delta }
    case 1:
      let title = "t\(fresh())"
      next.rows[index].title = title
      next.rows[index].titleStamp = fresh()
      return { $0.title = title }
    default:
      next.rows[index].child += 1
      next.rows[index].childStamp = fresh()
      return { $0.child.value += 1 }
    }
  }

  /// One structural or simple operation usable alone or inside a combined send. Returns the
  /// operation's name and closure; updates `next` and `removed`.
  func simpleOperation(_ next: inout H2SState, removed: inout Set<Int>) -> (String, @Sendable (inout BHState) -> Void)? {
    let present = next.ids
    let absent = universe.filter { id in next.row(id) == nil && next.dict[id] == nil }
    switch rng.int(9) {
    case 0:
      guard let id = pick(present), let edit = fieldEdit(id, &next) else { return nil }
      return ("edit \(id)", { state in if state.rows[id: id] != nil { edit(&state.rows[id: id]!) } })
    case 1:
      guard let id = pick(present) else { return nil }
      saveCopy(of: id)
      next.rows.removeAll { $0.id == id }
      next.rowsVersion = fresh()
      removed.insert(id)
      return ("remove \(id)", { $0.rows.remove(id: id) })
    case 2:
      let candidates = graveyard.filter { saved in absent.contains(saved.shadow.id) }
      guard let old = pick(candidates) else { return nil }
      let position = rng.int(next.rows.count + 1)
      next.rows.insert(old.shadow, at: position)
      next.rowsVersion = fresh()
      let real = old.real
      return ("reinsert old \(old.shadow.id) at \(position)", { $0.rows.insert(real, at: min(position, $0.rows.count)) })
    case 3:
      guard let id = pick(present) else { return nil }
      let row = next.row(id)!
      next.rows.removeAll { $0.id == id }
      next.rowsVersion = fresh()
      next.dict[id] = row
      removed.insert(id)
      return ("park \(id)", { state in if let row = state.rows.remove(id: id) { state.dict[id] = row } })
    case 4:
      guard let id = pick(next.dict.keys.sorted()), next.row(id) == nil else { return nil }
      next.rows.append(next.dict.removeValue(forKey: id)!)
      next.rowsVersion = fresh()
      return ("unpark \(id)", { state in if let row = state.dict.removeValue(forKey: id) { state.rows.append(row) } })
    case 5:
      guard let id = pick(present) else { return nil }
      let count = rng.int(4)
      let index = next.rows.firstIndex { $0.id == id }!
      next.rows[index] = newShadowRow(id: id, count: count, title: "")
      next.rowsVersion = fresh()
      return ("replace \(id) by a new value", { $0.rows[id: id] = BHRow(id: id, count: count) })
    case 6:
      guard let id = pick(present) else { return nil }
      let candidates = graveyard.filter { $0.shadow.id == id }
      guard let old = pick(candidates) else { return nil }
      let index = next.rows.firstIndex { $0.id == id }!
      next.rowsVersion = fresh()
      next.rows[index] = old.shadow
      let real = old.real
      return ("replace \(id) by an older copy", { $0.rows[id: id] = real })
    case 7:
      guard next.rows.count >= 2 else { return nil }
      let from = rng.int(next.rows.count)
      let roll = rng.int(next.rows.count)
      let to = roll == from ? (from + 1) % next.rows.count : roll
      let row = next.rows.remove(at: from)
      next.rows.insert(row, at: to)
      next.rowsVersion = fresh()
      return ("move \(from) to \(to)", { state in
        guard from < state.rows.count else { return }
        let row = state.rows.remove(at: from)
        state.rows.insert(row, at: min(to, state.rows.count))
      })
    default:
      guard let id = pick(next.dict.keys.sorted()) else { return nil }
      let index = next.dict[id]!
      _ = index
      next.dict[id]!.count += 1
      next.dict[id]!.countStamp = fresh()
      return ("edit parked \(id)", { $0.dict[id]?.count += 1 })
    }
  }

  /// A random send; returns false if the chosen operation did not apply.
  func randomStep() -> Bool {
    var next = shadow
    var removed: Set<Int> = []
    let roll = rng.int(100)
    switch roll {
    case 0..<22:
      guard let (name, body) = simpleOperation(&next, removed: &removed) else { return false }
      step(name, removedIDs: removed, next: next, body)
    case 22..<30:
      // Several operations in one send.
      var bodies: [@Sendable (inout BHState) -> Void] = []
      var names: [String] = []
      for _ in 0..<(2 + rng.int(2)) {
        if let (name, body) = simpleOperation(&next, removed: &removed) {
          names.append(name)
          bodies.append(body)
          // A copy in two places midway (an old copy re-inserted, then replaced): its other
          // place's readers may hear it (the docs' "at most once per copy").
          extraShared.formUnion(next.sharedInsts)
        }
      }
      // A dictionary of state changed in place has no O(1) comparison: its readers are told
      // before the change, and a change undone later in the send re-runs them once (documented).
      if names.contains(where: { $0.contains("park") }) { lenientPrefixes = ["dict"] }
      defer {
        extraShared = []
        lenientPrefixes = []
      }
      guard !bodies.isEmpty else { return false }
      let all = bodies
      step("[" + names.joined(separator: "; ") + "]", removedIDs: removed, next: next) { state in
        for body in all { body(&state) }
      }
    case 30..<40:
      // A row edit sent through the row's store.
      guard let id = pick(next.ids), let edit = fieldEdit(id, &next) else { return false }
      if let held = rowViews[id], !H2Runner.minimizing {
        stepThroughStore(held.store, "edit \(id) through its store", next: next) { edit(&$0) }
      } else {
        step("edit \(id) through its store", next: next) { state in if state.rows[id: id] != nil { edit(&state.rows[id: id]!) } }
      }
    case 40..<50:
      // Set and set back in one send: nothing re-renders.
      guard let id = pick(next.ids) else { return false }
      switch rng.int(4) {
      case 0: step("count of \(id) set and set back", next: next) { $0.rows[id: id]?.count += 5; $0.rows[id: id]?.count -= 5 }
      case 1:
        let title = next.row(id)!.title
        step("title of \(id) set and set back", next: next) { $0.rows[id: id]?.title = "zz"; $0.rows[id: id]?.title = title }
      case 2: step("child of \(id) set and set back", next: next) { $0.rows[id: id]?.child.value += 7; $0.rows[id: id]?.child.value -= 7 }
      default: step("flag set and set back", next: next) { $0.flag += 1; $0.flag -= 1 }
      }
    case 50..<54:
      step("equal writes", next: next) { state in
        state.flag = state.flag
        if let id = state.rows.ids.first {
          let count = state.rows[id: id]!.count
          state.rows[id: id]?.count = count
        }
      }
    case 54..<58:
      // Switch the enum's case and back in one send.
      step("mode switched and back", next: next) { state in
        let mode = state.mode
        state.mode = .other(99)
        state.mode = mode
      }
    case 58..<62:
      // Move a row and move it back, or remove and re-insert it, in one send.
      guard next.rows.count >= 2 else { return false }
      let from = rng.int(next.rows.count)
      let to = (from + 1) % next.rows.count
      next.rowsVersion = fresh()
      if rng.int(2) == 0 {
        step("move \(from)->\(to) and back", next: next) { state in
          guard from < state.rows.count, to < state.rows.count else { return }
          let row = state.rows.remove(at: from)
          state.rows.insert(row, at: to)
          let back = state.rows.remove(at: to)
          state.rows.insert(back, at: from)
        }
      } else {
        let id = next.rows[from].id
        step("remove \(id) and re-insert it", removedIDs: [id], next: next) { state in
          guard let row = state.rows.remove(id: id) else { return }
          state.rows.insert(row, at: min(from, state.rows.count))
        }
      }
    case 62..<66:
      guard !H2Runner.excluded.contains("undoRows") else { return false }
      guard let saved = pick(rowSnapshots) else { snapshot(); return false }
      next.rows = saved.shadow.rows
      next.rowsVersion = saved.shadow.version
      let ids = Set(saved.shadow.rows.map(\.id))
      for id in ids { next.dict[id] = nil }
      let real = saved.real
      step("undo rows", removedIDs: Set(shadow.ids).subtracting(ids), next: next) { state in
        state.dict = state.dict.filter { !real.ids.contains($0.key) }
        state.rows = real
      }
    case 66..<69:
      guard !H2Runner.excluded.contains("undoAll") else { return false }
      guard let saved = pick(stateSnapshots) else { snapshot(); return false }
      let real = saved.real
      wholeStateReplaced = true
      step("undo everything", removedIDs: Set(shadow.ids).subtracting(saved.shadow.ids), next: saved.shadow) { state in
        state = real
      }
      wholeStateReplaced = false
    case 69..<75:
      snapshot()
      return false
    case 75..<79:
      guard let id = pick(next.ids) else { return false }
      next.mode = .editing(next.row(id)!)
      step("edit \(id) in the editor", next: next) { state in
        if let row = state.rows[id: id] { state.mode = .editing(row) }
      }
    case 79..<84:
      guard var row = next.editing else { return false }
      row.count += 1
      row.countStamp = fresh()
      next.mode = .editing(row)
      if let editor = editorView, !H2Runner.minimizing {
        stepThroughStore(editor.store, "editor count +1", next: next) { $0.count += 1 }
      } else {
        step("editor count +1", next: next) { state in
          if case .editing(var row) = state.mode {
            row.count += 1
            state.mode = .editing(row)
          }
        }
      }
    case 84..<86:
      guard let draft = next.editing else { return false }
      if let index = next.rows.firstIndex(where: { $0.id == draft.id }) {
        next.rows[index] = draft
        next.rowsVersion = fresh()
      }
      next.mode = .none
      step("save the editor", next: next) { state in
        if case .editing(let draft) = state.mode {
          if state.rows[id: draft.id] != nil { state.rows[id: draft.id] = draft }
          state.mode = .none
        }
      }
    case 86..<88:
      let n = rng.int(3)
      next.mode = n == 0 ? .none : .other(n)
      step("mode \(n)", next: next) { $0.mode = n == 0 ? .none : .other(n) }
    case 88..<91:
      guard let id = pick(next.ids) else { return false }
      next.draft = next.row(id)
      step("draft of \(id)", next: next) { state in state.draft = state.rows[id: id] }
    case 91..<93:
      guard var row = next.draft else { return false }
      row.title = "d\(fresh())"
      row.titleStamp = fresh()
      next.draft = row
      let title = row.title
      if let draftView, !H2Runner.minimizing {
        stepThroughStore(draftView.store, "draft title", next: next) { $0.title = title }
      } else {
        step("draft title", next: next) { state in if state.draft != nil { state.draft!.title = title } }
      }
    case 93..<94:
      next.draft = nil
      step("draft dismissed", next: next) { $0.draft = nil }
    case 94..<96:
      next.flag += 1
      next.flagStamp = fresh()
      step("flag +1", next: next) { $0.flag += 1 }
    case 96..<98:
      next.leaf += 1
      next.leafStamp = fresh()
      step("leaf +1", next: next) { $0.nested.leaf.value += 1 }
    default:
      next.leaf = 0
      next.leafInst = fresh()
      next.leafStamp = fresh()
      step("nested replaced", next: next) { $0.nested = BHMid() }
    }
    return true
  }

  /// A step whose action is sent to a row store (a tap in a row view).
  func stepThroughStore(
    _ rowStore: Store<BHRow, BHRowAction>, _ name: String, next: H2SState,
    _ edit: @escaping @Sendable (inout BHRow) -> Void
  ) {
    stepSending(name, next: next) { rowStore.send(.apply(edit)) }
  }
}

extension H2Runner {
  /// `step` with an arbitrary send.
  func stepSending(_ name: String, removedIDs: Set<Int> = [], next: H2SState, _ send: () -> Void) {
    stepNumber += 1
    log.append(name)
    if H2Runner.tracing { print("H2 step \(stepNumber): \(name) rows \(shadow.rows.map { "\($0.id):\($0.inst)/\($0.countStamp)/\($0.titleStamp)/\($0.childInst)/\($0.childStamp)" })") }
    if H2Runner.skipped.contains(stepNumber) {
      shadow = next
      return
    }
    if H2Runner.minimizing {
      send()
      shadow = next
      for pair in allPairs { pair.apple.settle() }
      reconcile()
      return
    }
    let before = shadow
    let pairs = allPairs
    let counts = pairs.map { ($0.apple.fires, $0.apple.valuesAtFire.count, $0.reaction.runs) }
    let rowStoresBefore = rowViews.mapValues(\.store)
    send()
    shadow = next
    check(name, before: before, pairs: pairs, counts: counts, removedIDs: removedIDs)
    let here = "seed \(seed) step \(stepNumber) (\(name))"
    for (id, rowStore) in rowStoresBefore.sorted(by: { $0.key < $1.key }) {
      let present = next.row(id) != nil
      if !present && rowStore.isValid { problems.append("\(here): row \(id)'s store is valid, its row is gone") }
      if present && before.row(id) != nil && !removedIDs.contains(id) && !rowStore.isValid {
        problems.append("\(here): row \(id)'s store is invalid, its row stayed")
      }
    }
    for pair in allPairs where pair.isAlive() {
      if let expected = pair.spec.expected(shadow), pair.apple.shown != expected {
        problems.append("\(here): \(pair.spec.name): shows \(pair.apple.shown) after reconciling, the state holds \(expected)")
      }
    }
  }

  func check(
    _ name: String, before: H2SState, pairs: [H2ViewPair], counts: [(Int, Int, Int)], removedIDs: Set<Int>
  ) {
    let next = shadow
    let shared = before.sharedInsts.union(next.sharedInsts).union(extraShared)
    let here = "seed \(seed) step \(stepNumber) (\(name))"
    for (pair, count) in zip(pairs, counts) {
      let spec = pair.spec
      let truth = pair.apple.truth
      let fired = pair.apple.fires - count.0
      let atFire = Array(pair.apple.valuesAtFire[count.1...])
      let runs = pair.reaction.runs - count.2
      for value in atFire where value != truth {
        problems.append("\(here): \(spec.name): onChange read \(value), the state after the send is \(truth)")
      }
      if fired > 1 { problems.append("\(here): \(spec.name): onChange \(fired) times") }
      if runs > 1 { problems.append("\(here): \(spec.name): reaction ran \(runs) times") }
      if fired == 0 && pair.apple.shown != truth {
        problems.append("\(here): \(spec.name): missed update: shows \(pair.apple.shown), truth \(truth)")
      }
      if pair.reaction.shown != truth {
        problems.append("\(here): \(spec.name): reaction shows \(pair.reaction.shown), truth \(truth)")
      }
      guard pair.isAlive() else { continue }
      if let expected = spec.expected(next), expected != truth {
        problems.append("\(here): \(spec.name): store shows \(truth), the state holds \(expected)")
      }
      // `state = saved` compares each field of the root by state: a slot written since the
      // snapshot (rows, dict, mode, draft) re-runs its readers once although its identity is back.
      let lenient = !spec.insts(before).union(spec.insts(next)).isDisjoint(with: shared)
        || (wholeStateReplaced && !spec.mustFireOnKeyChange) || lenientPrefixes.contains { spec.name.hasPrefix($0) }
      let keyChanged = spec.key(before) != spec.key(next)
      if !keyChanged && !lenient {
        if fired > 0 { problems.append("\(here): \(spec.name): Apple view told although nothing it read changed (key \(spec.key(next)))") }
        if runs > 0 { problems.append("\(here): \(spec.name): reaction re-ran although nothing it read changed") }
      }
      // A new identity (a row replaced by a new value, a child replaced) must re-render; a new
      // state with an equal value may or may not (the docs' "every field that differs").
      if spec.mustFireOnKeyChange && spec.key(before).first != spec.key(next).first && !spec.key(before).isEmpty
        && !spec.key(next).isEmpty
      {
        if fired == 0 { problems.append("\(here): \(spec.name): Apple view not told of a new state of its field") }
        if runs == 0 { problems.append("\(here): \(spec.name): reaction not re-run for a new state of its field") }
      }
    }
    for pair in pairs {
      pair.apple.settle()
      if pair.isAlive() && pair.apple.shown != pair.apple.truth {
        problems.append("\(here): \(pair.spec.name): after rendering again shows \(pair.apple.shown), truth \(pair.apple.truth)")
      }
    }
    reconcile()
  }
}

// MARK: - Tests

@MainActor
enum H2RandomMain {
  static func run(seed: UInt64, steps: Int) -> H2Runner {
    ObservationBridge.withBridgeForTesting {
      let runner = H2Runner(seed: seed)
      runner.snapshot()
      var done = 0
      var attempts = 0
      while done < steps && attempts < steps * 10 {
        attempts += 1
        if runner.randomStep() { done += 1 }
        if runner.problems.count > 20 { break }
      }
      return runner
    }
  }

  /// Runs the seeds; prints the problems to standard error and exits with 1 if there are any
  /// (run inside an exit test: a crash stops only the child process).
  static func runAndExit(seeds: [UInt64], steps: Int) -> Never {
    var failed = false
    for seed in seeds {
      let runner = run(seed: seed, steps: steps)
      if !runner.problems.isEmpty {
        failed = true
        FileHandle.standardError.write(Data((runner.problems.prefix(12).joined(separator: "\n") + "\n").utf8))
      }
    }
    exit(failed ? 1 : 0)
  }
}

@Suite("H2BridgeStoreRandom")
struct H2BridgeStoreRandomTests {
  static let seeds: [UInt64] = [0x48_32_01, 0x48_32_02, 0x48_32_03]

  /// Seed 0x483201 stopped the process at step 25, an undo of the rows (`state.rows =
  /// savedRows`), with "Index out of range" in WriteRecords.record (see H2BridgeMinimal). Every
  /// operation of the generator, in a child process.
  @Test("random sends over a store, read by Apple views with the bridge on and by reactions")
  func randomSends() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      await H2RandomMain.runAndExit(seeds: H2BridgeStoreRandomTests.seeds, steps: RandomTestBudget.scaled(300))
    }
    if let result, result.exitStatus != .exitCode(0) {
      Issue.record("\(String(decoding: result.standardErrorContent.suffix(4000), as: UTF8.self))")
    }
  }

  /// The same, without the two undo operations whose defects have minimized tests of their own
  /// (an undo of the rows crashes, H2BridgeMinimal; an undo of the whole state after an older copy
  /// came back re-renders, H2BridgeStoreUndo): everything else is checked in this process.
  @MainActor
  @Test("random sends without undo: every view shows the truth and re-renders exactly")
  func randomSendsWithoutUndo() {
    H2Runner.excludedOverride = ["undoRows", "undoAll"]
    defer { H2Runner.excludedOverride = nil }
    for seed in Self.seeds {
      let runner = H2RandomMain.run(seed: seed, steps: RandomTestBudget.scaled(300))
      #expect(runner.problems.isEmpty, "\(runner.problems.prefix(12).joined(separator: "\n"))\nops: \(runner.log.suffix(8))")
    }
  }

  @MainActor
  @Test("fresh seeds from the environment (H2_SEEDS=1,2,3; H2_EXCLUDE=undoRows,undoAll)")
  func freshSeeds() {
    let text = ProcessInfo.processInfo.environment["H2_SEEDS"] ?? ""
    for seed in text.split(separator: ",").compactMap({ UInt64($0) }) {
      let runner = H2RandomMain.run(seed: seed, steps: 400)
      #expect(runner.problems.isEmpty, "\(runner.problems.prefix(12).joined(separator: "\n"))\nops: \(runner.log.suffix(8))")
    }
  }
}
