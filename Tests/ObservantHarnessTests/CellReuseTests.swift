import Observant
import ObservantHarness
import Testing

@Suite("Cell reuse")
struct CellReuseTests {
  /// What a row's cell shows, read through the row's own source.
  private func render(_ model: ListModel, _ id: Int) -> () -> String {
    { "Row \(id): \(model.row(id)?.count ?? -1)" }
  }

  @Test("a reused cell shows its new row, and the old row's updates never reach it")
  func reuse() {
    let model = ListModel(rowIDs: 1...3)
    let pool = CellPool("Cell")
    let cells = (1...3).map { id in pool.dequeue(for: id, render: render(model, id)) }
    #expect(cells.map(\.number) == [0, 1, 2])
    #expect(cells.map(\.content) == ["Row 1: 0", "Row 2: 0", "Row 3: 0"])

    // Swipe-delete row 2: the table removes the row and returns its cell to the pool.
    var oldRow2 = model.state.removeRow(id: 2)!
    pool.enqueue(cells[1])
    #expect(cells[1].boundID == nil)
    #expect(oldRow2.registrar.observerEntryCount == 0)

    // Row 4 scrolls in and takes the free cell.
    model.state.appendRow(Row(id: 4))
    let reused = pool.dequeue(for: 4, render: render(model, 4))
    #expect(reused === cells[1])
    #expect(pool.cells.count == 3)
    #expect(reused.boundID == AnyHashable(4))
    #expect(reused.content == "Row 4: 0")
    #expect(reused.renderCount == 2)

    oldRow2.count += 1  // the deleted row changes: the cell it used to show does not re-render
    #expect(reused.renderCount == 2)
    #expect(reused.content == "Row 4: 0")

    model.state.rows[id: 4]!.count += 1  // its new row changes: it does
    #expect(reused.renderCount == 3)
    #expect(reused.content == "Row 4: 1")
    #expect(reused.history == ["Row 2: 0", "Row 4: 0", "Row 4: 1"])
    #expect(cells[0].renderCount == 1 && cells[2].renderCount == 1)
  }

  @Test("a bound cell re-renders once per change of what it read, and for nothing else")
  func boundCell() {
    let model = ListModel(rowIDs: 1...2)
    let pool = CellPool()
    let cell = pool.dequeue(for: 1, render: render(model, 1))
    model.state.rows[id: 2]!.count += 1
    model.state.appendRow(Row(id: 3))
    #expect(cell.renderCount == 1)
    transaction {
      model.state.rows[id: 1]!.count += 1
      model.state.rows[id: 1]!.count += 1
    }
    #expect(cell.renderCount == 2)
    #expect(cell.description == "Cell#0 [1]: Row 1: 2 (2 renders)")
  }

  @Test("a pool makes a new cell only when none is free, and reuses the most recently enqueued first")
  func freeList() {
    let model = ListModel(rowIDs: 1...4)
    let pool = CellPool()
    let first = pool.dequeue(for: 1, render: render(model, 1))
    let second = pool.dequeue(for: 2, render: render(model, 2))
    pool.enqueue(first)
    pool.enqueue(second)
    pool.enqueue(second)  // already free: nothing happens
    #expect(pool.dequeue(for: 3, render: render(model, 3)) === second)
    #expect(pool.dequeue(for: 4, render: render(model, 4)) === first)
    #expect(pool.dequeue(for: 1, render: render(model, 1)).number == 2)
    #expect(pool.cells.count == 3)
  }

  @Test("an enqueued cell keeps its last content and stops rendering")
  func enqueuedCell() {
    let model = ListModel(rowIDs: 1...1)
    let pool = CellPool()
    let cell = pool.dequeue(for: 1, render: render(model, 1))
    pool.enqueue(cell)
    model.state.rows[id: 1]!.count += 1
    #expect(cell.renderCount == 1)
    #expect(cell.content == "Row 1: 0")
    #expect(!cell.isBound)
    #expect(cell.description == "Cell#0 free: Row 1: 0 (1 renders)")
  }

  @Test("releasing a pool unbinds its cells")
  func releasingPool() {
    let model = ListModel(rowIDs: 1...1)
    var pool: CellPool? = CellPool()
    let cell = pool!.dequeue(for: 1, render: render(model, 1))
    pool = nil
    model.state.rows[id: 1]!.count += 1
    #expect(cell.renderCount == 1)
    #expect(!cell.isBound)
    withExtendedLifetime(pool) {}
  }

  @Test("cells dequeued inside a render-tree body outlive that body's re-runs until enqueued")
  func cellsInsideTree() {
    let model = ListModel(rowIDs: 1...2)
    let pool = CellPool()
    var visible: [Int: Cell] = [:]
    let tree = RenderTree("Table") { _ in
      for row in model.state.rows where visible[row.id] == nil {
        visible[row.id] = pool.dequeue(for: row.id, render: render(model, row.id))
      }
    }
    tree.step { model.state.appendRow(Row(id: 3)) }  // the table re-runs
    tree.step { model.state.rows[id: 1]!.count += 1 }
    #expect(visible[1]?.history == ["Row 1: 0", "Row 1: 1"])
    #expect(pool.cells.count == 3)
  }
}
