import Observant
import Testing

// "Why did this re-run": the causes a recording reaction reports, under copies of value-type state.
// WhyDidThisRerun.md: each cause names the field (`Row.count`) "with the value the previous run
// could have read and the new one"; "Several writes of one field before the run make one cause,
// from the first old value to the latest new value; writes of several fields are listed in the
// order of their first write"; "A write set back within its transaction re-runs nothing and is
// no cause"; "A run caused by a derived value names it (`Derived.total 3 -> 4`)".

@MainActor
@Suite("BH why did this re-run, with copies")
struct BHRunCauseTests {
  func causes(_ reaction: Reaction) -> [String] { reaction.lastRunCauses.map(\.description) }

  /// The causes with the field's name left out (`BHRow.count 0 -> 6` becomes `BHRow 0 -> 6`),
  /// after checking that each names its field: the tests below check the rest.
  func unnamed(_ reaction: Reaction) -> [String] {
    // Every cause names its field (a diff found it: `BHRow.count`, not `BHRow.?`).
    for cause in reaction.lastRunCauses { #expect(!cause.field.hasSuffix(".?"), "\(cause.field)") }
    return reaction.lastRunCauses.map { cause in
      let type = cause.field.split(separator: ".").first.map(String.init) ?? cause.field
      return "\(type) \(cause.oldValue ?? "nil") -> \(cause.newValue ?? "nil")"
    }
  }

  /// WhyDidThisRerun.md: "Each ``RunCause`` names the field as an ``AccessLog`` does
  /// (`Row.count`)". A run caused by a copy assigned back (a row restored from a saved copy) named
  /// the field `?` (`BHLeaf.? 3 -> 0`), as did drafts saved back, undo snapshots,
  /// copy-mutate-assign and enum payloads (the tests below).
  @Test func copyAssignedBackNamesTheField() {
    let model = BHModel()
    let reader = Reaction("Reader", recordingCauses: true) { _ = model.state.nested.leaf.value }
    let saved = model.state.nested.leaf
    model.state.nested.leaf.value = 3
    #expect(causes(reader) == ["BHLeaf.value 0 -> 3"])  // written through the setter: named
    model.state.nested.leaf = saved
    #expect(causes(reader) == ["BHLeaf.value 3 -> 0"])
    #expect(reader.lastAccessLog.description.contains("BHLeaf.value"))
  }

  @Test func draftSavedBack() {
    let model = BHModel()
    let row = Reaction("Row", recordingCauses: true) { _ = model.state.rows[id: 1]?.count }
    model.state.draft = model.state.rows[id: 1]
    model.state.draft?.count = 5
    model.state.draft?.count = 6
    let before = row.runCount
    model.state.rows[id: 1] = model.state.draft!
    #expect(row.runCount == before + 1)
    #expect(unnamed(row) == ["BHRow 0 -> 6"])
  }

  @Test func undoSnapshotRestored() {
    let model = BHModel()
    let row = Reaction("Row", recordingCauses: true) {
      _ = model.state.rows[id: 1]?.count
      _ = model.state.nested.leaf.value
    }
    let saved = model.state
    model.state.rows[id: 1]?.count = 3
    #expect(causes(row) == ["BHRow.count 0 -> 3"])
    model.state.nested.leaf.value = 4
    #expect(causes(row) == ["BHLeaf.value 0 -> 4"])
    model.state = saved
    #expect(Set(unnamed(row)) == ["BHRow 3 -> 0", "BHLeaf 4 -> 0"])
  }

  @Test func copyMutateAssignListsOnlyFieldsThatDiffer() {
    let model = BHModel()
    let row = Reaction("Row", recordingCauses: true) {
      _ = model.state.rows[id: 1]?.count
      _ = model.state.rows[id: 1]?.title
      _ = model.state.flag
    }
    var copy = model.state
    copy.rows[id: 1]?.title = "x"
    copy.flag = 2
    model.state = copy
    #expect(Set(unnamed(row)) == ["BHRow  -> x", "BHState 0 -> 2"])
  }

  @Test func severalWritesOfOneFieldInATransaction() {
    let model = BHModel()
    let row = Reaction("Row", recordingCauses: true) {
      _ = model.state.rows[id: 1]?.count
      _ = model.state.rows[id: 1]?.title
    }
    transaction {
      model.state.rows[id: 1]?.count = 1
      model.state.rows[id: 1]?.title = "a"
      model.state.rows[id: 1]?.count = 2
    }
    #expect(causes(row) == ["BHRow.count 0 -> 2", "BHRow.title  -> a"])
  }

  @Test func severalWritesThroughACopyInATransaction() {
    let model = BHModel()
    var snapshot = model.state.rows
    snapshot[id: 1]?.count = 5
    let row = Reaction("Row", recordingCauses: true) { _ = model.state.rows[id: 1]?.count }
    let before = row.runCount
    transaction {
      model.state.rows[id: 1]?.count = 1
      model.state.rows = snapshot
    }
    #expect(row.runCount == before + 1)
    #expect(causes(row) == ["BHRow.count 0 -> 5"])
  }

  @Test func setBackIsNoCause() {
    let model = BHModel()
    let row = Reaction("Row", recordingCauses: true) {
      _ = model.state.rows[id: 1]?.count
      _ = model.state.flag
      _ = model.state.nested.leaf.value
    }
    transaction {
      model.state.rows[id: 1]?.count = 1
      model.state.flag = 1
      model.state.rows[id: 1]?.count = 0
    }
    #expect(causes(row) == ["BHState.flag 0 -> 1"])
    transaction {
      let saved = model.state.rows
      model.state.rows[id: 1]?.count = 9
      model.state.rows = saved
      model.state.nested.leaf.value = 2
    }
    #expect(causes(row) == ["BHLeaf.value 0 -> 2"])
    transaction {
      let saved = model.state.nested
      model.state.nested.leaf.value = 7
      model.state.nested = saved
      model.state.flag = 2
    }
    #expect(causes(row) == ["BHState.flag 1 -> 2"])
  }

  @Test func nestedTwoLevelsRestoredFromACopy() {
    let model = BHModel()
    let row = Reaction("Row", recordingCauses: true) { _ = model.state.rows[id: 2]?.child.value }
    let saved = model.state.rows[id: 2]!
    model.state.rows[id: 2]?.child.value = 3
    #expect(causes(row) == ["BHLeaf.value 0 -> 3"])
    model.state.rows[id: 2] = saved
    #expect(unnamed(row) == ["BHLeaf 3 -> 0"])
  }

  @Test func enumPayloadRestored() {
    let model = BHModel()
    model.state.mode = .editing(BHRow(id: 5, count: 1))
    let payload = Reaction("Payload", recordingCauses: true) { _ = model.state.mode.editing?.count }
    let saved = model.state.mode
    guard case .editing(var row) = model.state.mode else { Issue.record("no payload"); return }
    row.count = 2
    model.state.mode = .editing(row)
    #expect(unnamed(payload) == ["BHRow 1 -> 2"])
    model.state.mode = saved
    #expect(unnamed(payload) == ["BHRow 2 -> 1"])
  }

  @Test func derivedCauseAfterARestore() {
    let model = BHModel()
    let sum = Derived("sum") { model.state.rows.reduce(0) { $0 + $1.count } }
    let reader = Reaction("Reader", recordingCauses: true) { _ = sum.value }
    let saved = model.state.rows
    model.state.rows[id: 1]?.count = 3
    #expect(causes(reader) == ["Derived.sum 0 -> 3"])
    model.state.rows[id: 2]?.count = 4
    #expect(causes(reader) == ["Derived.sum 3 -> 7"])
    model.state.rows = saved
    #expect(causes(reader) == ["Derived.sum 7 -> 0"])
  }
}
