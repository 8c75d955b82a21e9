import Observant
import ObservantStore
import ObservantTestSupport
import Testing

// Memory-growth hunt for the store: ever-new row ids, optional children keyed by ever-new ids,
// snapshots, reactions through row stores. Each test runs in an exit test's child process, after
// a warm-up, in two equal phases, and reports each phase's heap growth.

struct MGStoreRow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int {
    get { registrar.read(_count) }
    set { registrar.write(&_count, newValue) }
  }
  init(id: Int) { self.id = id }
}

enum MGRowAction: Sendable {
  case increment
}

struct MGStoreState: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField(IdentifiedArrayOf<MGStoreRow>())
  var rows: IdentifiedArrayOf<MGStoreRow> {
    get { registrar.read(_rows) }
    set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _tabs = StateField([Int: MGStoreRow]())
  var tabs: [Int: MGStoreRow] {
    get { registrar.read(_tabs) }
    set { registrar.write(&_tabs, newValue) }
    _modify { yield &self[tracking: \._tabs] }
  }
  private var _sheet = StateField<MGStoreRow?>(nil)
  var sheet: MGStoreRow? {
    get { registrar.read(_sheet) }
    set { registrar.write(&_sheet, newValue) }
    _modify { yield &self[tracking: \._sheet] }
  }
  init() {}

  /// A tab by id: a convenience subscript over the tracked dictionary.
  subscript(tab id: Int) -> MGStoreRow? { tabs[id] }
}

enum MGStoreAction: Sendable {
  case add(Int)
  case remove(Int)
  case row(id: Int, action: MGRowAction)
  case openTab(Int)
  case closeTab(Int)
  case tab(Int, MGRowAction)
  case showSheet(Int)
  case hideSheet
  case sheet(MGRowAction)
}

@MainActor
enum MGStoreCycles {
  static func reduce(_ state: inout MGStoreState, _ action: MGStoreAction) -> Effect<MGStoreAction> {
    switch action {
    case .add(let id): state.rows.append(MGStoreRow(id: id))
    case .remove(let id): state.rows.remove(id: id)
    case .row(let id, .increment): state.rows[id: id]?.count += 1
    case .openTab(let id): state.tabs[id] = MGStoreRow(id: id)
    case .closeTab(let id): state.tabs[id] = nil
    case .tab(let id, .increment): state.tabs[id]?.count += 1
    case .showSheet(let id): state.sheet = MGStoreRow(id: id)
    case .hideSheet: state.sheet = nil
    case .sheet(.increment): state.sheet?.count += 1
    }
    return .none
  }

  static func makeStore() -> Store<MGStoreState, MGStoreAction> {
    Store(initialState: MGStoreState(), reducer: reduce, diagnostics: StoreDiagnostics(printing: false))
  }

  static var cycles: Int { RandomTestBudget.underSanitizer(20_000) }

  static func trackedValuesCycles() async -> CycleReport {
    let store = makeStore()
    store.send(.add(1))
    let row = store.scope(state: \.rows, action: MGStoreAction.row)[0]
    return await measureHeapGrowth(warmup: 10_000, cycles: cycles) { _ in
      var iterator = TrackedValues { row.count }.makeAsyncIterator()
      _ = await iterator.next()
      row.send(.increment)
      _ = await iterator.next()
    }
  }

  /// Runs `cycle` for a warm-up, then twice `cycles` times; reports each phase's heap growth.
  static func measure(warmup: Int = 1_000, _ cycle: (Int) -> Void) -> CycleReport {
    measureHeapGrowth(warmup: warmup, cycles: cycles, cycle)
  }
}

/// Checks a child's report: both phases flat (4 bytes a cycle, as the core's memory hunt allows),
/// and `expected` fields as expected.
func mgStoreCheck(
  _ output: [UInt8]?, expecting expected: [String: Int] = [:], sourceLocation: SourceLocation = #_sourceLocation
) {
  for problem in heapGrowthProblems(output: output, bytesPerCycle: 4, expecting: expected) {
    Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
  }
}

@MainActor
@Suite("MG hunt: store memory stays flat under long-running use")
struct MGHuntStoreTests {
  @Test("row stores for ever-new ids: add, scope, render through the row store, act, remove")
  func everNewRowIDs() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let store = MGStoreCycles.makeStore()
        for id in 0..<5 { store.send(.add(-1 - id)) }
        let list = Reaction("list", ownedByParent: false) {
          _ = store.scope(state: \.rows, action: MGStoreAction.row).count
        }
        var report = MGStoreCycles.measure { step in
          store.send(.add(step))
          let rows = store.scope(state: \.rows, action: MGStoreAction.row)
          guard let row = rows.store(id: step) else { return }
          let render = Reaction("row", ownedByParent: false) { _ = row.count }
          row.send(.increment)
          store.send(.row(id: -1, action: .increment))
          store.send(.remove(step))
          render.cancel()
        }
        list.cancel()
        report["rows"] = store.rows.count
        report.print()
      }
    }
    mgStoreCheck(result?.standardOutputContent, expecting: ["rows": 5])
  }

  @Test("a StoreCollection snapshot kept across commits (a view keeping its data), ever-new ids")
  func keptSnapshots() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let store = MGStoreCycles.makeStore()
        var kept = store.scope(state: \.rows, action: MGStoreAction.row)
        var report = MGStoreCycles.measure { step in
          store.send(.add(step))
          kept = store.scope(state: \.rows, action: MGStoreAction.row)
          let row = kept[kept.count - 1]
          _ = row.count
          store.send(.remove(step))
          _ = kept[kept.count - 1].count  // the removed row, through the kept snapshot
        }
        report["rows"] = store.rows.count
        withExtendedLifetime(kept) {}
        report.print()
      }
    }
    mgStoreCheck(result?.standardOutputContent, expecting: ["rows": 0])
  }

  @Test("optional children keyed by ever-new ids (a dictionary of tabs), scoped by key path")
  func dictionaryChildScopes() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let store = MGStoreCycles.makeStore()
        var report = MGStoreCycles.measure { step in
          store.send(.openTab(step))
          guard let tab = store.scope(state: \.tabs[step], action: { MGStoreAction.tab(step, $0) }) else { return }
          let render = Reaction("tab", ownedByParent: false) { _ = tab.count }
          tab.send(.increment)
          store.send(.closeTab(step))
          render.cancel()
        }
        report["tabs"] = store.tabs.count
        report.print()
      }
    }
    mgStoreCheck(result?.standardOutputContent, expecting: ["tabs": 0])
  }

  @Test("optional children keyed by ever-new ids, scoped through a subscript of the state (\\.[tab: id])")
  func subscriptChildScopes() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let store = MGStoreCycles.makeStore()
        var report = MGStoreCycles.measure { step in
          store.send(.openTab(step))
          guard let tab = store.scope(state: \.[tab: step], action: { MGStoreAction.tab(step, $0) }) else { return }
          let render = Reaction("tab", ownedByParent: false) { _ = tab.count }
          tab.send(.increment)
          store.send(.closeTab(step))
          render.cancel()
        }
        report["tabs"] = store.tabs.count
        report.print()
      }
    }
    mgStoreCheck(result?.standardOutputContent, expecting: ["tabs": 0])
  }

  @Test("a stale row store sending one action after its row is gone (an onDisappear), with the default diagnostics")
  func staleStoreActions() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        // As an app makes it: the default diagnostics (printing to standard error, whose output
        // the parent does not observe).
        let store = Store(initialState: MGStoreState(), reducer: MGStoreCycles.reduce)
        var report = MGStoreCycles.measure { step in
          store.send(.add(step))
          guard let row = store.scope(state: \.rows, action: MGStoreAction.row).store(id: step) else { return }
          row.send(.increment)
          store.send(.remove(step))
          row.send(.increment)  // dropped and reported: the row is gone
        }
        report["rows"] = store.rows.count
        report.print()
      }
    }
    mgStoreCheck(result?.standardOutputContent, expecting: ["rows": 0])
  }

  @Test("drafts of the store's state edited outside the store (an undo snapshot, a preview), no action sent meanwhile")
  func draftsWithoutSends() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let store = MGStoreCycles.makeStore()
        for id in 0..<5 { store.send(.add(id)) }
        store.send(.showSheet(1))
        let rows = store.scope(state: \.rows, action: MGStoreAction.row)
        let sheet = store.scope(state: \.sheet, action: MGStoreAction.sheet)
        let render = Reaction("list", ownedByParent: false) { for row in rows { _ = row.count } }
        var report = MGStoreCycles.measure { step in
          var draft = store.state
          draft.rows.append(MGStoreRow(id: 1_000 + step))
          draft.sheet = nil
        }
        render.cancel()
        report["sheetValid"] = sheet?.isValid == true ? 1 : 0
        report.print()
      }
    }
    mgStoreCheck(result?.standardOutputContent, expecting: ["sheetValid": 1])
  }

  @Test("TrackedValues iterations over a long-lived row store (guarded reads), started, advanced and abandoned")
  func trackedValuesThroughStore() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MGStoreCycles.trackedValuesCycles().print()
    }
    mgStoreCheck(result?.standardOutputContent)
  }

  @Test("an optional child shown and hidden with ever-new ids (one key path)")
  func sheetCycles() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let store = MGStoreCycles.makeStore()
        let report = MGStoreCycles.measure { step in
          store.send(.showSheet(step))
          guard let sheet = store.scope(state: \.sheet, action: MGStoreAction.sheet) else { return }
          let render = Reaction("sheet", ownedByParent: false) { _ = sheet.count }
          sheet.send(.increment)
          store.send(.hideSheet)
          render.cancel()
        }
        report.print()
      }
    }
    mgStoreCheck(result?.standardOutputContent)
  }

  @Test("a long-lived reaction rendering every row store while rows with ever-new ids come and go")
  func longLivedListRender() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let store = MGStoreCycles.makeStore()
        for id in 0..<5 { store.send(.add(-1 - id)) }
        let list = Reaction("list", ownedByParent: false) {
          for row in store.scope(state: \.rows, action: MGStoreAction.row) { _ = row.count }
        }
        var report = MGStoreCycles.measure { step in
          store.send(.add(step))
          store.send(.row(id: step, action: .increment))
          store.send(.remove(step))
        }
        list.cancel()
        report["rows"] = store.rows.count
        report.print()
      }
    }
    mgStoreCheck(result?.standardOutputContent, expecting: ["rows": 5])
  }
}
