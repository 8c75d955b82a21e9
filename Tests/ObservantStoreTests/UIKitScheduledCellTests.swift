import Observant
import ObservantHarness
import ObservantStore
import Testing

/// Waits for the main actor's next turn: jobs enqueued on it before this call (the handed-off
/// re-runs of `.mainActor` reactions) have run when it returns.
@MainActor
private func nextTurn() async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    Task { @MainActor in continuation.resume() }
  }
}

/// The UIKit pattern: table cells bound to row stores, updated once per run-loop turn by
/// `.mainActor` scheduled reactions, reused as rows scroll.
@MainActor
@Suite("UIKit cells with scheduled reactions")
struct UIKitScheduledCellTests {
  private let store = Store(initialState: ListFeature.State(rows: 1...20), reducer: ListFeature.reduce)
  private let pool = CellPool("Cell", tracking: ReactionTracking(scheduling: .mainActor))

  /// `tableView(_:cellForRowAt:)`: a cell bound to the row's store.
  private func cell(for id: Int) -> Cell {
    let row = store.scope(state: \.rows, action: ListFeature.Action.row).store(id: id)!
    return pool.dequeue(for: id) { "Row \(id): \(row.count)" }
  }

  @Test("a burst of 100 actions in one turn re-runs each affected cell once, on the next turn, with the latest values")
  func burst() async {
    let cells = Dictionary(uniqueKeysWithValues: (1...10).map { ($0, cell(for: $0)) })  // rows 1 to 10 on screen
    #expect(cells.values.allSatisfy { $0.renderCount == 1 })
    for action in 0..<100 {
      store.send(.row(id: 1 + action % 5, action: .increment))  // rows 1 to 5, 20 times each
    }
    store.send(.row(id: 15, action: .increment))  // off screen
    store.send(.add(21))  // a new row: no visible cell reads the list
    #expect(cells.values.allSatisfy { $0.renderCount == 1 })  // nothing ran in this turn
    await nextTurn()
    for id in 1...5 {
      #expect(cells[id]!.renderCount == 2)
      #expect(cells[id]!.content == "Row \(id): 20")
    }
    for id in 6...10 { #expect(cells[id]!.renderCount == 1) }
    await nextTurn()
    #expect(cells.values.map(\.renderCount).reduce(0, +) == 15)
  }

  @Test(
    "reuse: a cell enqueued with a re-run pending never shows its old row again; bound to a new row, it follows that row only"
  )
  func reuse() async {
    let rowThree = cell(for: 3)
    store.send(.row(id: 3, action: .increment))  // a re-run is pending for the next turn...
    pool.enqueue(rowThree)  // ...and the row scrolls away first
    let reused = cell(for: 15)  // the same cell, bound to row 15, renders at once
    #expect(reused === rowThree)
    #expect(reused.history == ["Row 3: 0", "Row 15: 0"])
    await nextTurn()
    #expect(reused.history == ["Row 3: 0", "Row 15: 0"])  // the pending re-run for row 3 did not run
    store.send(.row(id: 3, action: .increment))
    store.send(.row(id: 15, action: .increment))
    store.send(.row(id: 15, action: .increment))
    await nextTurn()
    #expect(reused.history == ["Row 3: 0", "Row 15: 0", "Row 15: 2"])
  }

  @Test("a removed row's cell does not re-run; the table reloads it")
  func removedRow() async {
    let rowTwo = cell(for: 2)
    store.send(.row(id: 2, action: .increment))
    store.send(.remove(2))
    await nextTurn()
    // Its store is invalid: what was read through it no longer drives the cell.
    #expect(rowTwo.history == ["Row 2: 0"])
    pool.enqueue(rowTwo)
    #expect(cell(for: 3).content == "Row 3: 0")
  }
}
