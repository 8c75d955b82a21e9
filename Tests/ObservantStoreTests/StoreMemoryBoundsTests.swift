import Observant
@testable import ObservantStore
import ObservantTestSupport
import Synchronization
import Testing

// What a store tree keeps stays bounded however long it lives: the diagnostics it keeps, the
// names of its scopes' key paths, and the scopes queued for the next commit. Each of these grew
// by one entry per event before (found by the memory hunt, `MGHuntStoreTests`).

@MainActor
@Suite("Store: what a tree keeps stays bounded")
struct StoreMemoryBoundsTests {
  /// Adds rows `ids`, takes each row's store, removes the row, and sends the stale store an
  /// action (dropped and reported, as an `onDisappear` send would be).
  private func dropActions(_ ids: Range<Int>, diagnostics: StoreDiagnostics) {
    let store = Store(initialState: MGStoreState(), reducer: MGStoreCycles.reduce, diagnostics: diagnostics)
    for id in ids {
      store.send(.add(id))
      let row = store.scope(state: \.rows, action: MGStoreAction.row).store(id: id)
      store.send(.remove(id))
      row?.send(.increment)
    }
  }

  @Test("diagnostics count every report and keep the most recent ones, oldest first, up to the limit")
  func diagnosticsKeepTheMostRecent() {
    let diagnostics = StoreDiagnostics(printing: false, keeping: 3)
    dropActions(0..<5, diagnostics: diagnostics)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 5)
    #expect(diagnostics.count(of: .runawayActions) == 0)
    let kept = diagnostics.all.map(\.message)
    #expect(kept.count == 3)
    for (message, id) in zip(kept, 2..<5) {
      #expect(message.contains("rows[id: \(id)]"), "\(message)")
    }
  }

  @Test("by default a tree keeps the 1,000 most recent diagnostics and counts them all")
  func diagnosticsDefaultLimit() {
    let diagnostics = StoreDiagnostics(printing: false)
    dropActions(0..<1_005, diagnostics: diagnostics)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1_005)
    #expect(diagnostics.all.count == 1_000)
    #expect(diagnostics.all.first?.message.contains("rows[id: 5]") == true)
    #expect(diagnostics.all.last?.message.contains("rows[id: 1004]") == true)
  }

  @Test("keeping 0 diagnostics keeps none and still counts them")
  func diagnosticsKeepingNone() {
    let diagnostics = StoreDiagnostics(printing: false, keeping: 0)
    dropActions(0..<3, diagnostics: diagnostics)
    #expect(diagnostics.all.isEmpty)
    #expect(diagnostics.count(of: .actionSentToInvalidStore) == 3)
  }

  @Test("a negative number of diagnostics to keep stops with a message naming it")
  func diagnosticsNegativeLimit() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = StoreDiagnostics(printing: false, keeping: -1)
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("StoreDiagnostics(keeping: -1)"), "\(output)")
  }

  @Test("scoping through key paths that carry ever-new ids keeps a bounded number of names")
  func keyPathNamesBounded() {
    let store = MGStoreCycles.makeStore()
    for id in 0..<(StoreLocation.nameCacheLimit * 3) {
      store.send(.openTab(id))
      let tab = store.scope(state: \.[tab: id], action: { MGStoreAction.tab(id, $0) })
      #expect(tab?.id == id)
      store.send(.closeTab(id))
      #expect(StoreLocation.cachedNameCount <= StoreLocation.nameCacheLimit)
    }
  }

  @Test(
    "drafts of the state edited for a long time without a send queue each scope once; the next send examines them and readers show the state"
  )
  func draftsQueueEachScopeOnce() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(initialState: MGStoreState(), reducer: MGStoreCycles.reduce, diagnostics: diagnostics)
    for id in 0..<3 { store.send(.add(id)) }
    store.send(.showSheet(7))
    let rows = store.scope(state: \.rows, action: MGStoreAction.row)
    let sheet = store.scope(state: \.sheet, action: MGStoreAction.sheet)
    let shown = Mutex<[Int]>([])
    let list = Reaction("list", ownedByParent: false) {
      let ids = store.scope(state: \.rows, action: MGStoreAction.row).map(\.id)
      shown.withLock { $0 = ids }
    }
    for round in 0..<3 {
      for step in 0..<1_000 {
        var draft = store.state
        draft.rows.append(MGStoreRow(id: 1_000 + step))
        draft.sheet = nil
      }
      #expect(store.core.tree.pendingCount <= 2, "round \(round): \(store.core.tree.pendingCount) queued")
      store.send(.add(10 + round))
      #expect(store.core.tree.pendingCount == 0)
      #expect(shown.withLock { $0 } == [0, 1, 2] + (0...round).map { 10 + $0 })
    }
    #expect(list.runCount == 4)
    #expect(sheet?.isValid == true)
    #expect(rows.count == 3)  // a snapshot: the rows when it was scoped
    list.cancel()
  }
}
