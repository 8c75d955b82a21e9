import Observant
import ObservantHarness
import ObservantStore

/// Seeds 000/001: a UIKit table of rows 1...3 whose cells are bound to their rows (a per-row store
/// or object, or the row's id). Row 2 is deleted while its cell still holds what it was bound to;
/// the cell is then reused for a new row 4. A step counts the renders of every cell.
enum CellChange: Sendable {
  case deleteRow(id: Int)
  /// The stale cell acts on what it holds (a tap on its button).
  case tapDeletedRow
  case incrementRows([Int])
  /// `prepareForReuse` on the stale cell, append the row, bind the cell to it.
  case reuseDeletedCell(newRow: Int)
  case incrementRow(Int)
}

extension CellPool {
  /// Renders of every cell, across bindings.
  fileprivate var totalRenders: Int { cells.reduce(0) { $0 + $1.renderCount } }
}

/// Bookkeeping shared by every strategy's cell screen: which cell went stale and when.
private struct StaleCellLog {
  var staleRendersAtDelete = 0
  var staleRendersWhileStale: Int?
  var reusedRendersBeforeBind = 0
  var reusedCellBound = false

  func measure(_ measure: ScreenMeasure, reusedRenders: Int) -> StepCount? {
    switch measure {
    case .staleCellRenders: staleRendersWhileStale.map { StepCount(runs: $0) }
    case .reusedCellRenders: reusedCellBound ? StepCount(runs: reusedRenders - reusedRendersBeforeBind) : nil
    case .initialRender, .rowStoresCreated: nil
    }
  }
}

@MainActor
final class ObservantCellScreen: ScenarioScreen {
  private typealias RowStore = Store<RowFeature.State, RowFeature.Action>
  private let store = Store(
    initialState: ListFeature.State(ids: 1...3), reducer: ListFeature.reduce,
    diagnostics: StoreDiagnostics(printing: false))
  private let pool: CellPool
  /// Apple's tracking runs the renders that changes made dirty when its step ends; reactions
  /// need no step.
  private let appleTracking: AppleObservationTracking?
  private var cells: [Int: (cell: Cell, store: RowStore)] = [:]
  private var stale: (cell: Cell, store: RowStore)?
  private var reused: Cell?
  private var log = StaleCellLog()

  init(tracking: any RenderTracking = ReactionTracking()) {
    pool = CellPool("Cell", tracking: tracking)
    appleTracking = tracking as? AppleObservationTracking
    for row in store.scope(state: \.rows, action: ListFeature.Action.row) { bind(row) }
  }

  private func bind(_ row: RowStore) {
    let id = withoutTracking { row.state.id }
    cells[id] = (pool.dequeue(for: id) { "Row \(id): \(row.count)" }, row)
  }

  func apply(_ change: CellChange) -> StepCount? {
    let before = pool.totalRenders
    if let appleTracking {
      appleTracking.step { mutate(change) }
    } else {
      mutate(change)
    }
    return StepCount(runs: pool.totalRenders - before)
  }

  private func mutate(_ change: CellChange) {
    switch change {
    case .deleteRow(let id):
      stale = cells.removeValue(forKey: id)
      log.staleRendersAtDelete = stale?.cell.renderCount ?? 0
      store.send(.remove(id: id))
    case .tapDeletedRow:
      stale?.store.send(.increment)
    case .incrementRows(let ids):
      store.send(.batch(ids.map { .row(id: $0, action: .increment) }))
    case .reuseDeletedCell(let newRow):
      guard let stale else { return }
      log.staleRendersWhileStale = stale.cell.renderCount - log.staleRendersAtDelete
      pool.enqueue(stale.cell)
      store.send(.add(id: newRow))
      log.reusedRendersBeforeBind = stale.cell.renderCount
      guard let row = store.scope(state: \.rows, action: ListFeature.Action.row).store(id: newRow) else { return }
      bind(row)
      reused = cells[newRow]?.cell
      log.reusedCellBound = reused === stale.cell
    case .incrementRow(let id):
      store.send(.row(id: id, action: .increment))
    }
  }

  func measure(_ measure: ScreenMeasure) -> StepCount? {
    log.measure(measure, reusedRenders: reused?.renderCount ?? 0)
  }
}

@MainActor
final class AppleValueCellScreen: ScenarioScreen {
  private let model = AppleValueListModel(rows: (1...3).map { RowValue(id: $0, count: 0) })
  private let tracking = AppleObservationTracking()
  private lazy var pool = CellPool("Cell", tracking: tracking)
  private var cells: [Int: Cell] = [:]
  private var stale: (cell: Cell, id: Int)?
  private var reused: Cell?
  private var log = StaleCellLog()

  init() {
    for id in 1...3 { bind(id) }
  }

  /// The cell knows its row's id and reads the row through the model's array.
  private func bind(_ id: Int) {
    let model = self.model
    let cell = pool.dequeue(for: id) {
      "Row \(id): \(model.rows.first { $0.id == id }.map { "\($0.count)" } ?? "deleted")"
    }
    cells[id] = cell
  }

  func apply(_ change: CellChange) -> StepCount? {
    let before = pool.totalRenders
    tracking.step {
      switch change {
      case .deleteRow(let id):
        if let cell = cells.removeValue(forKey: id) { stale = (cell, id) }
        log.staleRendersAtDelete = stale?.cell.renderCount ?? 0
        model.rows.removeAll { $0.id == id }
      case .tapDeletedRow:
        if let stale, let position = model.rows.firstIndex(where: { $0.id == stale.id }) {
          model.rows[position].count += 1
        }
      case .incrementRows(let ids):
        for id in ids {
          if let position = model.rows.firstIndex(where: { $0.id == id }) { model.rows[position].count += 1 }
        }
      case .reuseDeletedCell(let newRow):
        guard let stale else { return }
        log.staleRendersWhileStale = stale.cell.renderCount - log.staleRendersAtDelete
        pool.enqueue(stale.cell)
        model.rows.append(RowValue(id: newRow, count: 0))
        log.reusedRendersBeforeBind = stale.cell.renderCount
        bind(newRow)
        reused = cells[newRow]
        log.reusedCellBound = reused === stale.cell
      case .incrementRow(let id):
        if let position = model.rows.firstIndex(where: { $0.id == id }) { model.rows[position].count += 1 }
      }
    }
    return StepCount(runs: pool.totalRenders - before)
  }

  func measure(_ measure: ScreenMeasure) -> StepCount? {
    log.measure(measure, reusedRenders: reused?.renderCount ?? 0)
  }
}

@MainActor
final class AppleClassCellScreen: ScenarioScreen {
  private let model = AppleClassListModel(rows: (1...3).map { AppleRowModel(id: $0) })
  private let tracking = AppleObservationTracking()
  private lazy var pool = CellPool("Cell", tracking: tracking)
  private var cells: [Int: (cell: Cell, row: AppleRowModel)] = [:]
  private var stale: (cell: Cell, row: AppleRowModel)?
  private var reused: Cell?
  private var log = StaleCellLog()

  init() {
    for row in model.rows { bind(row) }
  }

  /// The cell holds its row's object, as seed 000's cells hold their store.
  private func bind(_ row: AppleRowModel) {
    cells[row.id] = (pool.dequeue(for: row.id) { "Row \(row.id): \(row.count)" }, row)
  }

  func apply(_ change: CellChange) -> StepCount? {
    let before = pool.totalRenders
    tracking.step {
      switch change {
      case .deleteRow(let id):
        stale = cells.removeValue(forKey: id)
        log.staleRendersAtDelete = stale?.cell.renderCount ?? 0
        model.rows.removeAll { $0.id == id }
      case .tapDeletedRow:
        stale?.row.count += 1
      case .incrementRows(let ids):
        for id in ids { cells[id]?.row.count += 1 }
      case .reuseDeletedCell(let newRow):
        guard let stale else { return }
        log.staleRendersWhileStale = stale.cell.renderCount - log.staleRendersAtDelete
        pool.enqueue(stale.cell)
        let row = AppleRowModel(id: newRow)
        model.rows.append(row)
        log.reusedRendersBeforeBind = stale.cell.renderCount
        bind(row)
        reused = cells[newRow]?.cell
        log.reusedCellBound = reused === stale.cell
      case .incrementRow(let id):
        cells[id]?.row.count += 1
      }
    }
    return StepCount(runs: pool.totalRenders - before)
  }

  func measure(_ measure: ScreenMeasure) -> StepCount? {
    log.measure(measure, reusedRenders: reused?.renderCount ?? 0)
  }
}

@MainActor
final class PlainCellScreen: ScenarioScreen {
  private final class Box {
    var rows = (1...3).map { RowValue(id: $0, count: 0) }
    func count(of id: Int) -> Int? { rows.first { $0.id == id }?.count }
  }
  private let box = Box()
  private let tracking: BroadcastTracking
  private let pool: CellPool
  private var cells: [Int: Cell] = [:]
  private var stale: (cell: Cell, id: Int)?
  private var reused: Cell?
  private var log = StaleCellLog()

  init(policy: BroadcastPolicy) {
    tracking = BroadcastTracking(policy)
    pool = CellPool("Cell", tracking: tracking)
    for id in 1...3 { bind(id) }
  }

  /// The cell knows its row's id; its view state is the row's count, or what it last showed once
  /// the row is gone (a cell keeps showing its last content).
  private func bind(_ id: Int) {
    let box = self.box
    var lastShown = 0
    let viewState = { () -> AnyHashable in
      if let count = box.count(of: id) { lastShown = count }
      return AnyHashable(lastShown)
    }
    let tracking = self.tracking
    cells[id] = pool.dequeue(for: id) {
      tracking.viewState(viewState)
      return "Row \(id): \(box.count(of: id) ?? lastShown)"
    }
  }

  func apply(_ change: CellChange) -> StepCount? {
    tracking.count {
      let before = pool.totalRenders
      step(change)
      return pool.totalRenders - before
    }
  }

  /// One step: the actions of `change`, and the binds it makes.
  private func step(_ change: CellChange) {
    tracking.step {
      switch change {
      case .deleteRow(let id):
        if let cell = cells.removeValue(forKey: id) { stale = (cell, id) }
        log.staleRendersAtDelete = stale?.cell.renderCount ?? 0
        tracking.action { box.rows.removeAll { $0.id == id } }
      case .tapDeletedRow:
        // The action goes to the root: the row is gone, so the reducer changes nothing.
        tracking.action {
          if let stale, let position = box.rows.firstIndex(where: { $0.id == stale.id }) {
            box.rows[position].count += 1
          }
        }
      case .incrementRows(let ids):
        tracking.action {
          for id in ids {
            if let position = box.rows.firstIndex(where: { $0.id == id }) { box.rows[position].count += 1 }
          }
        }
      case .reuseDeletedCell(let newRow):
        guard let stale else { return }
        log.staleRendersWhileStale = stale.cell.renderCount - log.staleRendersAtDelete
        pool.enqueue(stale.cell)
        tracking.action { box.rows.append(RowValue(id: newRow, count: 0)) }
        log.reusedRendersBeforeBind = stale.cell.renderCount
        bind(newRow)
        reused = cells[newRow]
        log.reusedCellBound = reused === stale.cell
      case .incrementRow(let id):
        tracking.action {
          if let position = box.rows.firstIndex(where: { $0.id == id }) { box.rows[position].count += 1 }
        }
      }
    }
  }

  func measure(_ measure: ScreenMeasure) -> StepCount? {
    log.measure(measure, reusedRenders: reused?.renderCount ?? 0)
  }
}

enum StaleCellScenario {
  static let steps: [ScriptStep<CellChange>] = [
    .change("stale-cell.delete-row", .deleteRow(id: 2), minimal: 0, "delete row 2 while its cell holds it: no cell"),
    .change(
      "stale-cell.tap-deleted-row", .tapDeletedRow, minimal: 0, "the stale cell acts on its deleted row: no cell"),
    .change(
      "stale-cell.update-other-rows", .incrementRows([1, 3]), minimal: 2,
      "one action increments rows 1 and 3: their two cells"),
    .change(
      "stale-cell.reuse-for-new-row", .reuseDeletedCell(newRow: 4), minimal: 1,
      "reuse the stale cell for a new row 4: that cell, once"),
    .change("stale-cell.update-new-row", .incrementRow(4), minimal: 1, "increment row 4: the reused cell"),
    .measure(
      "stale-cell.stale-cell-renders", .staleCellRenders, minimal: 0,
      "renders of the stale cell between the delete and its reuse"),
    .measure(
      "stale-cell.reused-cell-renders", .reusedCellRenders, minimal: 2,
      "renders of the reused cell for row 4: the bind and the update"),
  ]

  @MainActor
  static let screens: [Strategy: @MainActor () -> (any ScenarioScreen<CellChange>)?] = [
    .observant: { ObservantCellScreen() },
    .observantAppleBridge: { ObservantCellScreen(tracking: AppleObservationTracking()) },
    .appleValueArray: { AppleValueCellScreen() },
    .appleRowClasses: { AppleClassCellScreen() },
    .wholeState: { PlainCellScreen(policy: .wholeState) },
    .equatableDiffing: { PlainCellScreen(policy: .equatableDiffing) },
  ]
}
