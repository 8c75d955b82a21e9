import Observant
import ObservantHarness
import ObservantStore

/// The identified list (seed 004): a root "List" whose header shows the number of rows and the
/// first row's count, and one "Row[id]" per shown row (a keyed ForEach) showing its count.
enum ListChange: Sendable {
  case add(id: Int)
  case increment(id: Int)
  case decrement(id: Int)
  case set(id: Int, count: Int)
  case remove(id: Int)
  case move(from: Int, to: Int)
  case replace(id: Int, count: Int)
  /// Several changes in one action.
  indirect case batch([ListChange])
}

// Each screen is built from rows `ids` (counts 0) and renders the first `shown` rows (all when
// `nil`). The scaling section builds them too.

// MARK: - Observant

@MainActor
final class ObservantListScreen: ScenarioScreen {
  private let diagnostics = StoreDiagnostics(printing: false)
  private let store: Store<ListFeature.State, ListFeature.Action>
  private let tree: RenderTree

  init(ids: [Int], shown: Int?, tracking: any RenderTracking = ReactionTracking()) {
    let store = Store(initialState: ListFeature.State(ids: ids), reducer: ListFeature.reduce, diagnostics: diagnostics)
    self.store = store
    tree = RenderTree("List", tracking: tracking) { list in
      let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
      list.text("\(rows.count) rows; first: \(rows.first?.count ?? 0)")
      let name = { (row: Store<RowFeature.State, RowFeature.Action>) in "Row[\(withoutTracking { row.state.id })]" }
      let body = { (row: Store<RowFeature.State, RowFeature.Action>, context: RenderContext) in
        context.text("\(row.count)")
      }
      if let shown, shown < rows.count {
        list.forEach(rows.prefix(shown), id: \.id, name: name, body: body)
      } else {
        list.forEach(rows, id: \.id, name: name, body: body)
      }
    }
  }

  func apply(_ change: ListChange) -> StepCount? {
    let action = Self.action(for: change)
    return StepCount(runs: tree.step { store.send(action) }.runCount)
  }

  func measure(_ measure: ScreenMeasure) -> StepCount? {
    switch measure {
    case .initialRender: tree.log.steps.first.map { StepCount(runs: $0.runCount) }
    case .rowStoresCreated: StepCount(runs: diagnostics.storesCreated - 1)  // minus the root store
    case .staleCellRenders, .reusedCellRenders: nil
    }
  }

  private static func action(for change: ListChange) -> ListFeature.Action {
    switch change {
    case .add(let id): .add(id: id)
    case .increment(let id): .row(id: id, action: .increment)
    case .decrement(let id): .row(id: id, action: .decrement)
    case .set(let id, let count): .row(id: id, action: .set(count))
    case .remove(let id): .remove(id: id)
    case .move(let from, let to): .move(from: from, to: to)
    case .replace(let id, let count): .replace(id: id, count: count)
    case .batch(let changes): .batch(changes.map(action(for:)))
    }
  }
}

// MARK: - Apple, value array

@MainActor
final class AppleValueListScreen: ScenarioScreen {
  private let model: AppleValueListModel
  private let tree: RenderTree
  private var index = RowIndex()

  init(ids: [Int], shown: Int?) {
    let model = AppleValueListModel(rows: ids.map { RowValue(id: $0, count: 0) })
    self.model = model
    tree = RenderTree("List", tracking: AppleObservationTracking()) { list in
      let rows = model.rows
      list.text("\(rows.count) rows; first: \(rows.first?.count ?? 0)")
      let count = min(shown ?? rows.count, rows.count)
      // `ForEach($model.rows)`: the row reads its element through the model's array; its input
      // is its position.
      list.forEach(0..<count, id: { rows[$0].id }, name: { "Row[\(rows[$0].id)]" }) { position, row in
        row.text("\(model.rows[position].count)")
      }
    }
  }

  func apply(_ change: ListChange) -> StepCount? {
    StepCount(runs: tree.step { mutate(change) }.runCount)
  }

  func measure(_ measure: ScreenMeasure) -> StepCount? {
    measure == .initialRender ? tree.log.steps.first.map { StepCount(runs: $0.runCount) } : nil
  }

  private func mutate(_ change: ListChange) {
    switch change {
    case .add(let id):
      model.rows.append(RowValue(id: id, count: 0))
      index.invalidate()
    case .increment(let id):
      if let position = position(of: id) { model.rows[position].count += 1 }
    case .decrement(let id):
      if let position = position(of: id) { model.rows[position].count -= 1 }
    case .set(let id, let count):
      if let position = position(of: id) { model.rows[position].count = count }
    case .remove(let id):
      if let position = position(of: id) { model.rows.remove(at: position) }
      index.invalidate()
    case .move(let from, let to):
      let row = model.rows.remove(at: from)
      model.rows.insert(row, at: to)
      index.invalidate()
    case .replace(let id, let count):
      if let position = position(of: id) { model.rows[position] = RowValue(id: id, count: count) }
    case .batch(let changes):
      changes.forEach(mutate)
    }
  }

  private func position(of id: Int) -> Int? { index.position(of: id, in: model.rows) }
}

// MARK: - Apple, one class per row

@MainActor
final class AppleClassListScreen: ScenarioScreen {
  private let model: AppleClassListModel
  private let tree: RenderTree
  private var index = RowIndex()
  private var rowObjectsCreated: Int

  init(ids: [Int], shown: Int?) {
    let model = AppleClassListModel(rows: ids.map { AppleRowModel(id: $0) })
    self.model = model
    rowObjectsCreated = ids.count
    tree = RenderTree("List", tracking: AppleObservationTracking()) { list in
      let rows = model.rows
      list.text("\(rows.count) rows; first: \(rows.first?.count ?? 0)")
      let count = min(shown ?? rows.count, rows.count)
      // `ForEach(model.rows) { RowView(row: $0) }`: the row object is the child's input.
      list.forEach(
        rows[..<count].lazy.map(ObjectInput.init), id: { $0.object.id }, name: { "Row[\($0.object.id)]" }
      ) { row, context in
        context.text("\(row.object.count)")
      }
    }
  }

  func apply(_ change: ListChange) -> StepCount? {
    StepCount(runs: tree.step { mutate(change) }.runCount)
  }

  func measure(_ measure: ScreenMeasure) -> StepCount? {
    switch measure {
    case .initialRender: tree.log.steps.first.map { StepCount(runs: $0.runCount) }
    case .rowStoresCreated: StepCount(runs: rowObjectsCreated)
    case .staleCellRenders, .reusedCellRenders: nil
    }
  }

  private func mutate(_ change: ListChange) {
    switch change {
    case .add(let id):
      model.rows.append(AppleRowModel(id: id))
      rowObjectsCreated += 1
      index.invalidate()
    case .increment(let id):
      if let position = position(of: id) { model.rows[position].count += 1 }
    case .decrement(let id):
      if let position = position(of: id) { model.rows[position].count -= 1 }
    case .set(let id, let count):
      if let position = position(of: id) { model.rows[position].count = count }
    case .remove(let id):
      if let position = position(of: id) { model.rows.remove(at: position) }
      index.invalidate()
    case .move(let from, let to):
      let row = model.rows.remove(at: from)
      model.rows.insert(row, at: to)
      index.invalidate()
    case .replace(let id, let count):
      if let position = position(of: id) {
        model.rows[position] = AppleRowModel(id: id, count: count)
        rowObjectsCreated += 1
      }
    case .batch(let changes):
      changes.forEach(mutate)
    }
  }

  private func position(of id: Int) -> Int? { index.position(of: id, in: model.rows) }
}

// MARK: - Whole state and Equatable diffing

@MainActor
final class PlainListScreen: ScenarioScreen {
  private final class Box {
    var rows: [RowValue]
    var index = RowIndex()
    init(rows: [RowValue]) { self.rows = rows }
    func count(of id: Int) -> Int? { index.position(of: id, in: rows).map { rows[$0].count } }
  }

  /// What the list renders, for the diffing policy.
  private struct ListViewState: Hashable {
    let count: Int
    let firstCount: Int?
    let shownIDs: [Int]
  }

  private let box: Box
  private let tracking: BroadcastTracking
  private let tree: RenderTree
  private let initialComputations: Int

  init(ids: [Int], shown: Int?, policy: BroadcastPolicy) {
    let box = Box(rows: ids.map { RowValue(id: $0, count: 0) })
    self.box = box
    let tracking = BroadcastTracking(policy)
    self.tracking = tracking
    tree = RenderTree("List", tracking: tracking) { list in
      tracking.viewState {
        let count = min(shown ?? box.rows.count, box.rows.count)
        return AnyHashable(
          ListViewState(
            count: box.rows.count, firstCount: box.rows.first?.count, shownIDs: box.rows[..<count].map(\.id)))
      }
      let rows = box.rows
      list.text("\(rows.count) rows; first: \(rows.first?.count ?? 0)")
      let count = min(shown ?? rows.count, rows.count)
      for position in 0..<count {
        let id = rows[position].id
        // Reads its row by id: no input from the list.
        list.child("Row[\(id)]", key: id) { row in
          tracking.viewState { AnyHashable(box.count(of: id)) }
          row.text("\(box.count(of: id) ?? 0)")
        }
      }
    }
    initialComputations = tracking.viewStateComputations
  }

  func apply(_ change: ListChange) -> StepCount? {
    tracking.count { tree.step { tracking.action { mutate(change) } }.runCount }
  }

  func measure(_ measure: ScreenMeasure) -> StepCount? {
    switch measure {
    case .initialRender:
      tree.log.steps.first.map {
        StepCount(runs: $0.runCount, computations: tracking.policy == .equatableDiffing ? initialComputations : nil)
      }
    case .rowStoresCreated, .staleCellRenders, .reusedCellRenders: nil
    }
  }

  private func mutate(_ change: ListChange) {
    switch change {
    case .add(let id):
      box.rows.append(RowValue(id: id, count: 0))
      box.index.invalidate()
    case .increment(let id):
      if let position = position(of: id) { box.rows[position].count += 1 }
    case .decrement(let id):
      if let position = position(of: id) { box.rows[position].count -= 1 }
    case .set(let id, let count):
      if let position = position(of: id) { box.rows[position].count = count }
    case .remove(let id):
      if let position = position(of: id) { box.rows.remove(at: position) }
      box.index.invalidate()
    case .move(let from, let to):
      let row = box.rows.remove(at: from)
      box.rows.insert(row, at: to)
      box.index.invalidate()
    case .replace(let id, let count):
      if let position = position(of: id) { box.rows[position] = RowValue(id: id, count: count) }
    case .batch(let changes):
      changes.forEach(mutate)
    }
  }

  private func position(of id: Int) -> Int? { box.index.position(of: id, in: box.rows) }
}

/// A child input compared by object identity (a SwiftUI view holding a class reference). Holds
/// the object, so an address cannot be reused while it is compared.
struct ObjectInput<Object: AnyObject>: Equatable {
  let object: Object
  init(_ object: Object) { self.object = object }
  static func == (lhs: Self, rhs: Self) -> Bool { lhs.object === rhs.object }
}

// MARK: - Scripts

enum ListScenario {
  /// Rows 1...5; each step continues from the previous one.
  static let steps: [ScriptStep<ListChange>] = [
    .change("list.add-row", .add(id: 6), minimal: 2, "append row 6: the list (row count) and the new row"),
    .change("list.increment-middle-row", .increment(id: 3), minimal: 1, "increment row 3: that row"),
    .change(
      "list.increment-first-row", .increment(id: 1), minimal: 2,
      "increment row 1, whose count the list's header shows: the list and that row"),
    .change("list.remove-row", .remove(id: 4), minimal: 1, "remove row 4: the list (row count)"),
    .change(
      "list.move-row", .move(from: 4, to: 1), minimal: 1, "move row 6 from the end to position 1: the list (order)"),
    .change(
      "list.replace-row", .replace(id: 2, count: 100), minimal: 1,
      "replace row 2 by a new value with the same id (count 100): that row; the list shows nothing that changed"),
  ]

  static let equalValueSteps: [ScriptStep<ListChange>] = [
    .change("equal-value.list-row", .set(id: 3, count: 0), minimal: 0, "set row 3's count to the value it has: nothing")
  ]

  static let batchSteps: [ScriptStep<ListChange>] = [
    .change(
      "batch.three-rows",
      .batch([.increment(id: 2), .increment(id: 3), .increment(id: 3), .increment(id: 4)]), minimal: 3,
      "one action: increment rows 2, 3 (twice) and 4: each of those rows once"),
    .change(
      "batch.set-and-set-back", .batch([.increment(id: 3), .decrement(id: 3)]), minimal: 0,
      "one action: increment row 3 and decrement it back: nothing"),
  ]

  static let firstRowsSteps: [ScriptStep<ListChange>] = [
    .measure(
      "first-3-of-1000.initial-render", .initialRender, minimal: 4,
      "initial render of 1,000 rows, 3 shown: the list and 3 rows"),
    .measure(
      "first-3-of-1000.row-stores-created", .rowStoresCreated, minimal: 3,
      "per-row stores or objects created: one per shown row (n/a: no per-row objects)"),
    .change(
      "first-3-of-1000.add-row", .add(id: 1001), minimal: 1, "append row 1,001 (not shown): the list (row count)"),
    .change(
      "first-3-of-1000.increment-hidden-row", .increment(id: 500), minimal: 0, "increment row 500 (not shown): nothing"),
  ]

  @MainActor
  static func screens(ids: [Int], shown: Int? = nil) -> [Strategy: @MainActor () -> (any ScenarioScreen<ListChange>)?] {
    [
      .observant: { ObservantListScreen(ids: ids, shown: shown) },
      .observantAppleBridge: { ObservantListScreen(ids: ids, shown: shown, tracking: AppleObservationTracking()) },
      .appleValueArray: { AppleValueListScreen(ids: ids, shown: shown) },
      .appleRowClasses: { AppleClassListScreen(ids: ids, shown: shown) },
      .wholeState: { PlainListScreen(ids: ids, shown: shown, policy: .wholeState) },
      .equatableDiffing: { PlainListScreen(ids: ids, shown: shown, policy: .equatableDiffing) },
    ]
  }
}
