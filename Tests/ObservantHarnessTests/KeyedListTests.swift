import Observant
import ObservantHarness
import Testing

/// A `List` node reads `state.rows` and declares one `Row[id]` child per row (input: the row
/// value, an `ObservableState`, so compared by identity). Each row body reads only its own row's
/// `count`, through `ListModel.row(_:)`, which looks the row up without reading `rows` in the
/// row's tracking scope.
@Suite("Keyed lists")
struct KeyedListTests {
  @Test("building a list runs the list body once and each row body once")
  func initialBuild() {
    let model = ListModel(rowIDs: 1...5)
    let tree = model.makeListTree()
    #expect(tree.log.steps.map(\.name) == ["initial"])
    #expect(tree.log.last?.runs == ["List", "Row[1]", "Row[2]", "Row[3]", "Row[4]", "Row[5]"])
    #expect(tree.liveNodeNames == ["List", "Row[1]", "Row[2]", "Row[3]", "Row[4]", "Row[5]"])
    #expect(tree.output(of: "Row[3]") == "Row 3: 0")
    #expect(tree.runCount(of: "List") == 1)
  }

  @Test("appending a row runs the list once and only the new row")
  func appendingRow() {
    let model = ListModel(rowIDs: 1...5)
    let tree = model.makeListTree()
    let step = tree.step("append") { model.state.appendRow(Row(id: 6)) }
    #expect(step.runs == ["List", "Row[6]"])
    #expect(tree.liveNodeNames.last == "Row[6]")
    #expect(tree.runCount(of: "Row[1]") == 1)
    #expect(tree.output(of: "Row[6]") == "Row 6: 0")
  }

  @Test("removing a row runs the list once, and the removed row never runs again")
  func removingRow() {
    let model = ListModel(rowIDs: 1...5)
    let tree = model.makeListTree()
    var removed = model.state.rows[id: 3]!
    #expect(removed.registrar.observerEntryCount == 1)  // Row[3] reads its count

    let step = tree.step("remove") { model.state.removeRow(id: 3) }
    #expect(step.runs == ["List"])
    #expect(tree.liveNodeNames == ["List", "Row[1]", "Row[2]", "Row[4]", "Row[5]"])
    #expect(removed.registrar.observerEntryCount == 0)  // its reaction was cancelled

    // The old value still shares the removed row's registrar; writing it reaches nobody.
    let after = tree.step("edit the removed row") { removed.count += 1 }
    #expect(after.runs.isEmpty)
    #expect(tree.log.totalRuns(of: "Row[3]") == 1)
    #expect(tree.runCount(of: "Row[3]") == 0)  // not live
  }

  @Test("moving a row runs the list once and no row, and reorders the children")
  func movingRow() {
    let model = ListModel(rowIDs: 1...5)
    let tree = model.makeListTree()
    let step = tree.step("move") { model.state.rows.move(from: 0, to: 4) }
    #expect(step.runs == ["List"])
    #expect(tree.liveNodeNames == ["List", "Row[2]", "Row[3]", "Row[4]", "Row[5]", "Row[1]"])
  }

  @Test("mutating a middle row's count runs only that row")
  func mutatingRow() {
    let model = ListModel(rowIDs: 1...5)
    let tree = model.makeListTree()
    let step = tree.step("bump 3") { model.state.rows[id: 3]!.count += 1 }
    #expect(step.runs == ["Row[3]"])
    #expect(tree.output(of: "Row[3]") == "Row 3: 1")
    #expect(tree.runCount(of: "List") == 1)
  }

  // A new value under the same id has a new registrar, which the row's reaction has not
  // subscribed to: the array reports the replacement as structural, so the list re-runs, and the
  // new input is not identity-equal to the old one, so the list invalidates that row. The new
  // value here is even `==` to the old one (same id and count): identity, not `==`, decides, or
  // the row would stay subscribed to the old registrar and miss every later change.
  @Test("replacing a row by a new value with the same id runs the list once and that row once")
  func replacingRow() {
    let model = ListModel(rowIDs: 1...5)
    let tree = model.makeListTree()
    var old = model.state.rows[id: 4]!

    let step = tree.step("replace 4") { model.state.rows[id: 4] = Row(id: 4, count: 0) }
    #expect(step.runs == ["List", "Row[4]"])

    // The row now follows the new value, and only it.
    #expect(tree.step("bump new 4") { model.state.rows[id: 4]!.count = 5 }.runs == ["Row[4]"])
    #expect(tree.output(of: "Row[4]") == "Row 4: 5")
    #expect(tree.step("bump old 4") { old.count += 1 }.runs.isEmpty)
  }

  @Test("a one-row change in a 10,000-row list runs only that row's body")
  func largeList() {
    let model = ListModel(rowIDs: 1...10_000)
    let tree = model.makeListTree()
    #expect(tree.log.last?.runs.count == 10_001)
    #expect(tree.step { model.state.rows[id: 5_000]!.count += 1 }.runs == ["Row[5000]"])
    #expect(tree.step { model.state.appendRow(Row(id: 10_001)) }.runs == ["List", "Row[10001]"])
    #expect(tree.step { model.state.removeRow(id: 1) }.runs == ["List"])
    #expect(tree.liveNodeNames.count == 10_001)
  }
}

/// A `Screen` (reading nothing) declares input-less children: two headers and the list. Both
/// headers show the number of rows, read two ways.
@Suite("Headers over a keyed list")
struct HeaderTests {
  private func makeScreen(_ model: ListModel) -> RenderTree {
    RenderTree("Screen") { screen in
      screen.child("Header") { header in header.text("\(model.state.rowCount) rows") }
      screen.child("CountBadge") { badge in badge.text("\(model.state.rows.count)") }
      screen.child("List") { list in
        list.forEach(model.state.rows, name: { "Row[\($0.id)]" }) { row, context in
          context.text("Row \(row.id): \(model.row(row.id)?.count ?? -1)")
        }
      }
    }
  }

  @Test("a header reading a separately tracked row count re-runs on append and remove, not on element edits or moves")
  func separateRowCount() {
    let model = ListModel(rowIDs: 1...3)
    let tree = makeScreen(model)
    #expect(tree.log.last?.runs == ["Screen", "Header", "CountBadge", "List", "Row[1]", "Row[2]", "Row[3]"])

    #expect(tree.step("append") { model.state.appendRow(Row(id: 4)) }.count(of: "Header") == 1)
    #expect(tree.output(of: "Header") == "4 rows")
    #expect(tree.step("remove") { model.state.removeRow(id: 1) }.count(of: "Header") == 1)
    #expect(tree.step("edit") { model.state.rows[id: 2]!.count += 1 }.count(of: "Header") == 0)
    #expect(tree.step("move") { model.state.rows.move(from: 0, to: 2) }.count(of: "Header") == 0)
    #expect(tree.runCount(of: "Header") == 3)
    #expect(tree.runCount(of: "Screen") == 1)
  }

  // `rows.count` reads the `rows` slot, which notifies on every structural change (a move
  // included) and never for a row's own fields, which the rows' registrars report.
  @Test(
    "a header reading rows.count re-runs on every structural change of rows, moves included, but not on element edits")
  func rowsCount() {
    let model = ListModel(rowIDs: 1...3)
    let tree = makeScreen(model)

    #expect(
      tree.step("append") { model.state.appendRow(Row(id: 4)) }.runs == ["Header", "CountBadge", "List", "Row[4]"])
    #expect(tree.step("remove") { model.state.removeRow(id: 1) }.runs == ["Header", "CountBadge", "List"])
    #expect(tree.step("edit") { model.state.rows[id: 2]!.count += 1 }.runs == ["Row[2]"])
    #expect(tree.step("move") { model.state.rows.move(from: 0, to: 2) }.runs == ["CountBadge", "List"])
    #expect(tree.output(of: "CountBadge") == "3")
    #expect(tree.runCount(of: "CountBadge") == 4)
  }
}
