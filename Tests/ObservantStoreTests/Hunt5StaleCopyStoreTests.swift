import Observant
import ObservantStore
import Testing

// Hunt 5 finding (fixed): a row store's reader re-ran, showing the same value, when an
// optional-child store (or an enum-case store) over a copy of that row was handed another value
// (another row's copy). The row did not change. Docs: README, Store: "a row's readers re-run when
// that row changes, never when another row changes or rows come and go". Cause: every scoped store
// of observable state recorded its identity slot as the same internal field of the state's
// observer table, which copies share; the draft store, handed another state, told that field's
// readers, the row store's among them. Each such store now has an identity field of its own.
// Reactions and the observation bridge alike (see Hunt5BridgeStaleCopyTests).

@MainActor
@Suite("Hunt 5: a scoped store over a copy of a row, handed another value")
struct Hunt5StaleCopyStoreTests {
  @Test("a draft (optional child) copied from row 2, then replaced by a copy of row 1: row 2's reader does not re-run")
  func draftReplacedByAnotherRowsCopy() {
    let store = h5Store()
    let row2 = h5RowStores(store).store(id: 2)!
    var shown: [Int] = []
    let reader = Reaction("row 2") { shown.append(row2.count) }
    store.run { $0.optional = $0.rows[id: 2] }  // the draft: a copy of row 2
    let draft = store.scope(state: \.optional, action: H5Action.optional)!
    var draftShown: [Int] = []
    let draftReader = Reaction("draft") { draftShown.append(draft.count) }
    store.run { $0.optional = $0.rows[id: 1] }  // now a copy of row 1: row 2 untouched
    #expect(shown == [2])
    #expect(draftShown == [2, 1])  // the draft's own reader hears its new state, once
    draftReader.cancel()
    reader.cancel()
  }

  @Test("dismissing the same draft (set to nil) does not re-run row 2's reader")
  func draftDismissed() {
    let store = h5Store()
    let row2 = h5RowStores(store).store(id: 2)!
    var shown: [Int] = []
    let reader = Reaction("row 2") { shown.append(row2.count) }
    store.run { $0.optional = $0.rows[id: 2] }
    let draft = store.scope(state: \.optional, action: H5Action.optional)!
    #expect(draft.count == 2)
    store.run { $0.optional = nil }
    #expect(!draft.isValid)
    #expect(shown == [2])
    reader.cancel()
  }

  @Test("an editor (enum case store) over a copy of row 1, switched to editing row 2: row 1's reader does not re-run")
  func editorSwitchedToAnotherRow() {
    let store = h5Store()
    let row1 = h5RowStores(store).store(id: 1)!
    var shown: [String] = []
    let reader = Reaction("row 1") { shown.append(row1.title) }
    store.run { $0.mode = .editing($0.rows[id: 1]!) }
    let editor = store.scope(state: \.mode?.editing, action: H5Action.editing)!
    #expect(editor.title == "a")
    store.run { $0.mode = .editing($0.rows[id: 2]!) }  // as Playlist's .edit(id: 2) while editing 1
    #expect(shown == ["a"])
    reader.cancel()
  }

  @Test("a reader of the row through the root store (not a row store) is not disturbed")
  func rootReaderUndisturbed() {
    let store = h5Store()
    var shown: [Int] = []
    let reader = Reaction("row 2 via root") { shown.append(store.rows[id: 2]?.count ?? -1) }
    store.run { $0.optional = $0.rows[id: 2] }
    let draft = store.scope(state: \.optional, action: H5Action.optional)!
    #expect(draft.count == 2)
    store.run { $0.optional = $0.rows[id: 1] }
    #expect(shown == [2])
    reader.cancel()
  }

  @Test(
    "a row copied into another store and replaced there by a new value: the first store's row reader does not re-run")
  func copyInAnotherStoreReplaced() {
    let a = h5Store()
    let b = h5Store([])
    let rowA = h5RowStores(a).store(id: 1)!
    var shownA: [Int] = []
    let readerA = Reaction("A row 1") { shownA.append(rowA.count) }
    let copy = a.state.rows[id: 1]!
    b.run { $0.rows.append(copy) }
    let rowB = h5RowStores(b).store(id: 1)!
    var shownB: [Int] = []
    let readerB = Reaction("B row 1") { shownB.append(rowB.count) }
    b.run { $0.rows[id: 1] = H5Row(id: 1, count: 9) }  // B's row store follows the new value
    #expect(shownB == [1, 9])
    #expect(shownA == [1])
    readerA.cancel()
    readerB.cancel()
  }
}
