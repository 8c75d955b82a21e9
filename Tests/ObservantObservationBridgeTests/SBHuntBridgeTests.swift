import Observant
import ObservantHarness
import ObservantObservationBridge
import ObservantStore
import Observation
import Testing

enum SBBRow {
  struct State: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _title = StateField("")
    var title: String {
      get { registrar.read(_title) }
      set { registrar.write(&_title, newValue) }
    }
    private var _plays = StateField(0)
    var plays: Int {
      get { registrar.read(_plays) }
      set { registrar.write(&_plays, newValue) }
    }
    init(id: Int, title: String) {
      self.id = id
      _title = StateField(title)
    }
  }
  enum Action: Sendable { case play, rename(String), playAndBack }
  static func reduce(_ s: inout State, _ a: Action) -> Effect<Action> {
    switch a {
    case .play: s.plays += 1
    case .rename(let t): s.title = t
    case .playAndBack:
      s.plays += 1
      s.plays -= 1
    }
    return .none
  }
}

enum SBBDest: IdentityComparable {
  case editor(SBBRow.State)
  static func isIdentityEqual(_ l: Self, _ r: Self) -> Bool {
    switch (l, r) {
    case let (.editor(a), .editor(b)): Observant.isIdentityEqual(a, b)
    }
  }
  var editor: SBBRow.State? { if case .editor(let d) = self { d } else { nil } }
}

enum SBBList {
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows: StateField<IdentifiedArrayOf<SBBRow.State>>
    var rows: IdentifiedArrayOf<SBBRow.State> {
      get { registrar.read(_rows) }
      set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    private var _destination = StateField<SBBDest?>(nil)
    var destination: SBBDest? {
      get { registrar.read(_destination) }
      set { registrar.write(&_destination, newValue) }
    }
    private var _counter = StateField(0)
    var counter: Int {
      get { registrar.read(_counter) }
      set { registrar.write(&_counter, newValue) }
    }
    init() {
      _rows = StateField(IdentifiedArray(uniqueElements: (1...3).map { SBBRow.State(id: $0, title: "T\($0)") }))
    }
  }
  enum Action: Sendable {
    case row(id: Int, action: SBBRow.Action)
    case remove(id: Int)
    case add(id: Int)
    case edit(id: Int)
    case editor(SBBRow.Action)
    case save
    case moveToEditor(id: Int)
    case copyEditAssign(id: Int, title: String)
    case restoreRows(IdentifiedArrayOf<SBBRow.State>)
    case restore(State)
    case bump
  }
  static func reduce(_ s: inout State, _ a: Action) -> Effect<Action> {
    switch a {
    case .row(let id, let a):
      guard s.rows[id: id] != nil else { return .none }
      return SBBRow.reduce(&s.rows[id: id]!, a).map { Action.row(id: id, action: $0) }
    case .remove(let id): s.rows.remove(id: id)
    case .add(let id): s.rows.append(SBBRow.State(id: id, title: "T\(id)"))
    case .edit(let id): s.destination = .editor(s.rows[id: id]!)
    case .editor(let a):
      guard case .editor(var d) = s.destination else { return .none }
      let e = SBBRow.reduce(&d, a)
      s.destination = .editor(d)
      return e.map(Action.editor)
    case .save:
      guard case .editor(let d) = s.destination else { return .none }
      s.rows[id: d.id] = d
      s.destination = nil
    case .moveToEditor(let id):
      guard let r = s.rows.remove(id: id) else { return .none }
      s.destination = .editor(r)
    case .copyEditAssign(let id, let t):
      var c = s.rows[id: id]!
      c.title = t
      s.rows[id: id] = c
    case .restoreRows(let saved): s.rows = saved
    case .restore(let saved): s = saved
    case .bump: s.counter += 1
    }
    return .none
  }
}

extension SBBList.State: @unchecked Sendable {}
extension SBBRow.State: @unchecked Sendable {}

final class SBBCounter: @unchecked Sendable {
  var value = 0
  var seen: [String] = []
}

@MainActor
@Suite("SBHunt: bridge")
struct SBHuntBridgeTests {
  private func makeStore() -> Store<SBBList.State, SBBList.Action> {
    Store(initialState: SBBList.State(), reducer: SBBList.reduce, diagnostics: StoreDiagnostics(printing: false))
  }

  private func observe<Value>(_ read: () -> Value) -> Firings {
    let firings = Firings()
    _ = withObservationTracking(read, onChange: firings.onChange)
    return firings
  }

  @Test(
    "SB render tree through Apple tracking: the draft flow re-renders a row once per field the draft first changes and at save, never with the draft"
  )
  func draftTree() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let tree = RenderTree("SBList", tracking: AppleObservationTracking()) { list in
        list.forEach(store.scope(state: \.rows, action: SBBList.Action.row), name: { "SBRow[\($0.id)]" }) { row, view in
          view.text("\(row.title) \(row.plays)")
        }
      }
      tree.step("edit") { store.send(.edit(id: 1)) }
      let editor = store.scope(state: \.destination?.editor, action: SBBList.Action.editor)!
      tree.step("rename") { editor.send(.rename("A")) }
      tree.step("play") { editor.send(.play) }
      tree.step("rename2") { editor.send(.rename("B")) }
      tree.step("save") { store.send(.save) }
      #expect(tree.output(of: "SBRow[1]") == "B 1")
      let log = tree.log.description
      #expect(!log.contains("edit: SBRow"), "\(log)")
      #expect(log.contains("play: SBRow[1].body x1"), "\(log)")  // the draft's first change of plays
      #expect(!log.contains("rename2: SBRow"), "\(log)")
      #expect(log.contains("save: SBRow[1].body x1"), "\(log)")
    }
  }

  @Test("SB copy-edit-assign fires the changed field's reader only")
  func copyEditAssign() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let two = store.scope(state: \.rows, action: SBBList.Action.row).store(id: 2)!
      let title = observe { two.title }
      let plays = observe { two.plays }
      let ids = observe { store.scope(state: \.rows, action: SBBList.Action.row).ids }
      store.send(.copyEditAssign(id: 2, title: "C"))
      #expect(title.value == 1)
      #expect(plays.value == 0)
      #expect(ids.value == 0)
    }
  }

  @Test("SB undo by rows = saved: fires changed fields, not unchanged ones")
  func undoRows() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let saved = store.rows
      let rows = store.scope(state: \.rows, action: SBBList.Action.row)
      let one = rows.store(id: 1)!
      let two = rows.store(id: 2)!
      store.send(.row(id: 1, action: .play))
      let onePlays = observe { one.plays }
      let oneTitle = observe { one.title }
      let twoPlays = observe { two.plays }
      let ids = observe { store.scope(state: \.rows, action: SBBList.Action.row).ids }
      store.send(.restoreRows(saved))
      #expect(onePlays.value == 1)
      #expect(one.plays == 0)
      #expect(oneTitle.value == 0)
      #expect(twoPlays.value == 0)
      #expect(ids.value == 0)
    }
  }

  @Test("SB undo by state = saved: fires changed fields, not unchanged ones")
  func undoRoot() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let saved = store.state
      let rows = store.scope(state: \.rows, action: SBBList.Action.row)
      let one = rows.store(id: 1)!
      let two = rows.store(id: 2)!
      store.send(.row(id: 1, action: .play))
      store.send(.bump)
      let onePlays = observe { one.plays }
      let twoPlays = observe { two.plays }
      let counter = observe { store.counter }
      let ids = observe { store.scope(state: \.rows, action: SBBList.Action.row).ids }
      store.send(.restore(saved))
      #expect(onePlays.value == 1)
      #expect(twoPlays.value == 0)
      #expect(counter.value == 1)
      #expect(ids.value == 0)
      #expect(one.plays == 0 && store.counter == 0)
    }
  }

  @Test("SB set and set back in a send, equal writes: no firing")
  func setBack() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let one = store.scope(state: \.rows, action: SBBList.Action.row).store(id: 1)!
      let plays = observe { one.plays }
      store.send(.row(id: 1, action: .playAndBack))
      store.send(.row(id: 1, action: .rename("T1")))
      let title = observe { one.title }
      store.send(.row(id: 1, action: .rename("T1")))
      #expect(plays.value == 0)
      #expect(title.value == 0)
    }
  }

  @Test("SB onChange is called after the value changed, once per send")
  func afterChange() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let box = SBBCounter()
      _ = withObservationTracking(
        { store.counter },
        onChange: {
          box.value += 1
          MainActor.assumeIsolated { box.seen.append("\(store.withState { $0.counter })") }
        })
      store.send(.bump)
      #expect(box.value == 1)
      #expect(box.seen == ["1"])
    }
  }

  @Test("SB a removed row whose payload lives on in an enum case: its reader's Apple scope")
  func payloadLivesOn() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let two = store.scope(state: \.rows, action: SBBList.Action.row).store(id: 2)!
      let title = observe { two.title }
      store.send(.moveToEditor(id: 2))
      let fired = title.value
      let editor = store.scope(state: \.destination?.editor, action: SBBList.Action.editor)!
      editor.send(.rename("moved"))
      // An Apple scope is a one-shot reader: it may fire once when the removed value changes where it
      // lives on (StoreAndStaleStores.md), showing the store's last state; a scope installed after
      // the removal records nothing.
      #expect(title.value <= fired + 1, "fired \(fired) at removal, \(title.value) after")
      let again = observe { two.title }
      editor.send(.rename("moved2"))
      #expect(again.value == 0)
    }
  }

  @Test("SB withTracking(propagatingToOuterScope:) inside withObservationTracking is heard; a plain one is not")
  func propagating() {
    ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let one = store.scope(state: \.rows, action: SBBList.Action.row).store(id: 1)!
      let heard = observe {
        withTracking(propagatingToOuterScope: true, { one.plays }, onChange: {})
      }
      let notHeard = observe {
        withTracking({ one.title }, onChange: {})
      }
      let untracked = observe { withoutTracking { store.counter } }
      store.send(.row(id: 1, action: .play))
      store.send(.row(id: 1, action: .rename("x")))
      store.send(.bump)
      #expect(heard.value == 1)
      #expect(notHeard.value == 0)
      #expect(untracked.value == 0)
    }
  }

  @Test("SB Observations over a row store yields its values and nothing for other rows")
  func observations() async {
    guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
    await ObservationBridge.withBridgeForTesting {
      let store = makeStore()
      let one = store.scope(state: \.rows, action: SBBList.Action.row).store(id: 1)!
      let values = Observations { one.plays }
      var it = values.makeAsyncIterator()
      #expect(await it.next() == 0)
      store.send(.row(id: 2, action: .play))
      store.send(.row(id: 1, action: .playAndBack))
      store.send(.add(id: 4))
      Task { @MainActor in store.send(.row(id: 1, action: .play)) }
      #expect(await it.next() == 1)
    }
  }
}
