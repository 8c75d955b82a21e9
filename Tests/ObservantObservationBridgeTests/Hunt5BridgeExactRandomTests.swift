import Observant
import ObservantObservationBridge
import ObservantStore
import ObservantTestSupport
import Observation
import Synchronization
import Testing

// Hunt 5: the exact random oracle of Hunt5ExactRandomTests (ObservantStoreTests), seen through
// Apple's `withObservationTracking` with the bridge on, as SwiftUI sees a store. Every write
// stores a value never used before, so a field's value names its state. The docs (SwiftUIAndUIKit
// "What Apple's tracking sees through the bridge") promise the fields read, by Observant's rules,
// once per transaction: so a scope fires exactly when what it shows changed, except after
// `state = saved` through inout, which compares by state ("a field changed and changed back to an
// equal value since the copy was taken holds another state", IdentityRules.md): there at most
// once. Written against the documentation only.

private final class H5BFlag: Sendable {
  private let storage = Atomic(0)
  func fire() { storage.add(1, ordering: .sequentiallyConsistent) }
  var count: Int { storage.load(ordering: .sequentiallyConsistent) }
}

/// A view body under Apple's tracking: evaluated inside `withObservationTracking`, re-evaluated
/// (and tracked again) after its tracking fired, as SwiftUI does.
@MainActor
private final class H5BView {
  let name: String
  let body: () -> String
  let isValid: () -> Bool
  private(set) var shown = ""
  private var flag = H5BFlag()
  private(set) var renders = 0
  init(_ name: String, isValid: @escaping () -> Bool = { true }, _ body: @escaping () -> String) {
    self.name = name
    self.body = body
    self.isValid = isValid
    render()
  }
  func render() {
    let flag = H5BFlag()
    self.flag = flag
    renders += 1
    shown = withObservationTracking {
      body()
    } onChange: {
      flag.fire()
    }
  }
  /// How many times its tracking fired since the last render; renders again if it did.
  func settle() -> Int {
    let fired = flag.count
    if fired > 0 { render() }
    return fired
  }
}

@MainActor
@Suite("Hunt 5: bridge, exact under undo, at random")
struct Hunt5BridgeExactRandomTests {
  @Test(
    "random edits, drafts, snapshots and restores through a store, seen by withObservationTracking: fires exactly when what a view shows changed"
  )
  func exactThroughTheBridge() {
    ObservationBridge.withBridgeForTesting {
      for seed in 0..<UInt64(RandomTestBudget.scaled(300)) {
        run(seed: seed)
      }
    }
  }

  private func run(seed: UInt64) {
    var rng = SplitMix64(state: seed &* 0xD1B5_4A32_D192_ED03 &+ 3)
    var unique = 1000
    func fresh() -> Int {
      unique += 1
      return unique
    }
    let store = Store(
      initialState: H5BRoot(rows: [
        H5BRow(id: 1, count: fresh(), title: "t\(fresh())"), H5BRow(id: 2, count: fresh(), title: "t\(fresh())"),
      ]),
      reducer: H5BAction.reduce, diagnostics: StoreDiagnostics(printing: false))
    var views: [H5BView] = []
    var boundRows: [ObjectIdentifier] = []
    func bind() {
      for row in store.scope(state: \.rows, action: H5BAction.row) where !boundRows.contains(ObjectIdentifier(row)) {
        boundRows.append(ObjectIdentifier(row))
        views.append(H5BView("row\(row.id)#\(views.count)", isValid: { row.isValid }) { "\(row.count)/\(row.title)" })
      }
    }
    bind()
    let child = store.scope(state: \.child, action: H5BAction.child)
    views.append(H5BView("child") { "\(child.count)/\(child.leaf.value)" })
    views.append(
      H5BView("list") { store.scope(state: \.rows, action: H5BAction.row).ids.map(String.init).joined(separator: ",") })
    views.append(
      H5BView("draft") {
        store.scope(state: \.draft, action: H5BAction.draft).map { "\($0.id):\($0.count)/\($0.title)" } ?? "-"
      })
    var snapshots: [H5BRoot] = []
    var log: [String] = []
    for stepIndex in 0..<40 {
      let id = Int(rng.next() % 3) + 1
      let present = store.state.rows.ids.contains(id)
      // One value in two places: while the draft holds a copy of a row, a write to either disturbs
      // the other's readers at most once per field of the copy (README "Identity rules").
      let draftCopyExists = withoutTracking { store.state.draft != nil }
      let op = Int(rng.next() % 13)
      var text = ""
      switch op {
      case 0:
        let v = fresh()
        text = "rows[\(id)].count = \(v)"
        store.send(.row(id, H5BEdit { $0.count = v }))
      case 1:
        let v = fresh()
        text = "rows[\(id)].title = t\(v)"
        store.send(.row(id, H5BEdit { $0.title = "t\(v)" }))
      case 2:
        guard !present else { continue }
        let (c, t) = (fresh(), fresh())
        text = "append \(id)"
        store.send(.edit(H5BEdit { $0.rows.append(H5BRow(id: id, count: c, title: "t\(t)")) }))
      case 3:
        text = "remove \(id)"
        store.send(.edit(H5BEdit { $0.rows.remove(id: id) }))
      case 4:
        text = "snapshot #\(snapshots.count)"
        snapshots.append(store.state)
      case 5:
        guard !snapshots.isEmpty else { continue }
        let k = Int(rng.next() % UInt64(snapshots.count))
        let snap = snapshots[k]
        text = "state = snapshot #\(k)"
        store.send(.edit(H5BEdit { $0 = snap }))
      case 6:
        guard !snapshots.isEmpty else { continue }
        let k = Int(rng.next() % UInt64(snapshots.count))
        let snap = snapshots[k]
        text = "rows = snapshot #\(k).rows"
        store.send(.edit(H5BEdit { $0.rows = snap.rows }))
      case 7:
        let (c, l) = (fresh(), fresh())
        text = "child.count = \(c), leaf = \(l)"
        store.send(
          .child(
            H5BEdit {
              $0.count = c; $0.leaf.value = l
            }))
      case 8:
        text = "draft = rows[\(id)]"
        store.send(.edit(H5BEdit { $0.draft = $0.rows[id: id] }))
      case 9:
        let v = fresh()
        text = "draft.title = t\(v)"
        store.send(.draft(H5BEdit { $0.title = "t\(v)" }))
      case 10:
        text = "save draft"
        store.send(
          .edit(
            H5BEdit { s in
              guard let d = s.draft else { return }
              if s.rows[id: d.id] != nil { s.rows[id: d.id] = d }
              s.draft = nil
            }))
      case 11:
        let v = fresh()
        text = "copy-mutate-assign rows[\(id)].count = \(v)"
        store.send(
          .edit(
            H5BEdit { s in
              guard var r = s.rows[id: id] else { return }
              r.count = v
              s.rows[id: id] = r
            }))
      default:
        guard present else { continue }
        let (c, t) = (fresh(), fresh())
        text = "rows[\(id)] = new row"
        store.send(.edit(H5BEdit { $0.rows[id: id] = H5BRow(id: id, count: c, title: "t\(t)") }))
      }
      log.append("\(stepIndex): \(text)")
      for view in views {
        let before = view.shown
        let valid = view.isValid()
        let truth = valid ? withoutTracking { view.body() } : before
        let fired = view.settle()
        // A draft's writes disturb the live row's readers at most once per field of the copy
        // (README "Identity rules"): the row views may fire once although they show the same.
        // A removed row's view, tracked by Apple while its store was valid, "may fire once" when
        // the removed value changes where it lives on (StoreAndStaleStores.md), still showing the
        // store's last state.
        let copyAllowance = op == 5 || draftCopyExists || !valid
        let expected = truth == before ? (copyAllowance ? 0...1 : 0...0) : 1...1
        if view.shown != truth || !expected.contains(fired) {
          Issue.record(
            """
            seed \(seed) step \(stepIndex): \(view.name) shows \(view.shown) (was \(before)), state holds \(truth); \
            fired \(fired), expected \(expected)
            \(log.joined(separator: "\n"))
            """)
          return
        }
      }
      bind()
    }
  }
}
