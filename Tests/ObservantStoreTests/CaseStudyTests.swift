import Observant
import ObservantHarness
import ObservantStore
import Testing

/// The seed case studies, rendered with the harness, with exact body counts.
@MainActor
@Suite("Case studies")
struct CaseStudyTests {
  /// Seed 004: a list whose header shows the row count and the first row's count, and whose rows
  /// are rendered by a keyed ForEach over a StoreCollection, one row store each.
  private func identifiedList(rows: ClosedRange<Int>, showing limit: Int? = nil)
    -> (Store<ListFeature.State, ListFeature.Action>, RenderTree, StoreDiagnostics)
  {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: ListFeature.State(rows: rows), reducer: ListFeature.reduce, diagnostics: diagnostics)
    let tree = RenderTree("List") { list in
      let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
      list.text("\(rows.count) rows; first: \(rows.first?.count ?? 0)")
      let shown = limit.map { Array(rows.prefix($0)) } ?? Array(rows)
      list.forEach(shown, id: \.id, name: { row in "Row[\(withoutTracking { row.state.id })]" }) { row, context in
        context.text("\(row.count)")
      }
    }
    return (store, tree, diagnostics)
  }

  @Test("identified list: the initial render runs the list and each row once")
  func initialRender() {
    let (_, tree, _) = identifiedList(rows: 1...5)
    #expect(
      tree.log.description
        == "initial: List.body x1, Row[1].body x1, Row[2].body x1, Row[3].body x1, Row[4].body x1, Row[5].body x1")
  }

  @Test("identified list: adding a row runs the list and only the new row")
  func addRow() {
    let (store, tree, _) = identifiedList(rows: 1...5)
    let step = tree.step { store.send(.add(6)) }
    #expect(step.runs == ["List", "Row[6]"])
  }

  @Test("identified list: incrementing a middle row runs only that row")
  func incrementMiddleRow() {
    let (store, tree, _) = identifiedList(rows: 1...5)
    let step = tree.step { store.send(.row(id: 3, action: .increment)) }
    #expect(step.runs == ["Row[3]"])
    #expect(tree.output(of: "Row[3]") == "1")
  }

  @Test("identified list: incrementing the first row runs that row and the list, whose header shows it")
  func incrementFirstRow() {
    let (store, tree, _) = identifiedList(rows: 1...5)
    let step = tree.step { store.send(.row(id: 1, action: .increment)) }
    #expect(step.runs == ["List", "Row[1]"])
    #expect(tree.output(of: "List") == "5 rows; first: 1")
  }

  @Test("identified list: removing a row runs the list only and invalidates that row's store")
  func removeRow() {
    let (store, tree, diagnostics) = identifiedList(rows: 1...5)
    let row3 = store.scope(state: \.rows, action: ListFeature.Action.row)[2]
    let step = tree.step { store.send(.remove(3)) }
    #expect(step.runs == ["List"])
    #expect(!row3.isValid)
    #expect(!tree.liveNodeNames.contains("Row[3]"))
    row3.send(.increment)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
  }

  @Test("identified list: replacing a row by a new value with the same id runs only that row")
  func replaceRow() {
    let (store, tree, _) = identifiedList(rows: 1...5)
    let step = tree.step { store.send(.replace(4)) }
    // The list depends on the ids, which did not change; row 4's store tells its readers that
    // its row is a new value; the other rows do not run.
    #expect(step.runs == ["Row[4]"])
    #expect(tree.output(of: "Row[4]") == "100")
  }

  @Test("identified list: showing only the first 3 rows of 10 creates exactly 3 row stores")
  func firstThreeOfTen() {
    let (store, tree, diagnostics) = identifiedList(rows: 1...10, showing: 3)
    // The root store, plus the stores of the first row (the header reads it) through the third.
    #expect(diagnostics.storesCreated == 1 + 3)
    let step = tree.step { store.send(.add(11)) }
    #expect(step.runs == ["List"])
    #expect(diagnostics.storesCreated == 1 + 3)
  }

  /// Seeds 000 and 001: a UIKit list whose cells are bound to per-item stores by id.
  @Test("UIKit list: a deleted row's cell is harmless, and the reused cell shows the new item")
  func uikitCells() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: ListFeature.State(rows: 1...3), reducer: ListFeature.reduce, diagnostics: diagnostics)
    let pool = CellPool("Cell")
    func bind(_ row: Store<RowFeature.State, RowFeature.Action>) -> Cell {
      pool.dequeue(for: withoutTracking { row.state.id }) { "Row \(withoutTracking { row.state.id }): \(row.count)" }
    }
    let rows = store.scope(state: \.rows, action: ListFeature.Action.row)
    let cells = rows.map(bind)
    let staleStore = rows[1]
    let staleCell = cells[1]
    #expect(staleCell.content == "Row 2: 0")

    store.send(.remove(2))  // swipe to delete; the cell still holds its store
    #expect(!staleStore.isValid)
    staleStore.send(.increment)  // a tap on the stale cell: dropped and reported, no crash
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
    store.send(.row(id: 1, action: .increment))
    store.send(.row(id: 3, action: .increment))
    #expect(staleCell.renderCount == 1)  // the stale cell's observation did not fire

    pool.enqueue(staleCell)  // prepareForReuse
    store.send(.add(4))
    let reused = bind(store.scope(state: \.rows, action: ListFeature.Action.row)[2])
    #expect(reused === staleCell)
    #expect(reused.content == "Row 4: 0")
    store.send(.row(id: 4, action: .increment))
    #expect(reused.history == ["Row 2: 0", "Row 4: 0", "Row 4: 1"])
    #expect(cells[0].content == "Row 1: 1")
  }

  /// Seed 001: a counter screen with one label bound to the count.
  @Test("counter: each increment re-renders the label once")
  func counter() {
    let store = Store(initialState: CounterFeature.State(), reducer: CounterFeature.reduce)
    let tree = RenderTree("Counter") { counter in
      counter.child("Label") { label in label.text("\(store.count)") }
    }
    for expected in 1...3 {
      let step = tree.step { store.send(.increment) }
      #expect(step.runs == ["Label"])
      #expect(tree.output(of: "Label") == "\(expected)")
    }
    #expect(tree.runCount(of: "Label") == 4)
    #expect(tree.runCount(of: "Counter") == 1)
  }

  @Test("optional child: present, mutate inside, a parent showing the child's count, dismiss, send after dismiss")
  func optionalChildRendered() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(initialState: ListFeature.State(rows: [1]), reducer: ListFeature.reduce, diagnostics: diagnostics)
    let row = store.scope(state: \.rows, action: ListFeature.Action.row)[0]
    let tree = RenderTree("Row") { node in
      if let child = row.scope(state: \.child, action: RowFeature.Action.child) {
        node.text("child: \(child.count)")
      } else {
        node.text("no child")
      }
    }
    #expect(tree.step { row.send(.showChild) }.runs == ["Row"])
    let child = row.scope(state: \.child, action: RowFeature.Action.child)!
    #expect(tree.step { child.send(.increment) }.runs == ["Row"])
    #expect(tree.output(of: "Row") == "child: 1")
    #expect(tree.step { row.send(.increment) }.runs == [])  // the row's own count is not shown
    #expect(tree.step { row.send(.dismissChild) }.runs == ["Row"])
    #expect(tree.output(of: "Row") == "no child")
    #expect(!child.isValid)
    #expect(child.count == 1)
    #expect(tree.step { child.send(.increment) }.runs == [])
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
  }
}
