import Observant
import ObservantStore
import ObservantTestSupport
import Testing

// Hunt 5: values moving between two stores and a `@Tracked` holder, at random. The docs promise
// (README "Identity rules"): "Copies of a value share its identity, and each field's storage
// carries a stamp of its last write, so readers keep showing the current state whatever happens to
// copies." So after every step, every reader (row stores of both stores, the child stores, and
// reactions over the holder) must show what its state holds now, and no reader runs more than once
// per step (each step is one transaction). Written against the documentation only.

final class H5Holder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var root = H5Root(rows: [H5Row(id: 1, count: 1), H5Row(id: 2, count: 2)])
}

@MainActor
@Suite("Hunt 5: values moving between stores and holders, at random")
struct Hunt5CrossStoreRandomTests {
  enum Place: CaseIterable { case a, b, holder }

  @MainActor
  final class World {
    let a = h5Store([H5Row(id: 1, count: 1, title: "a1"), H5Row(id: 2, count: 2, title: "a2")])
    let b = h5Store([H5Row(id: 1, count: 10, title: "b1"), H5Row(id: 3, count: 30, title: "b3")])
    let holder = H5Holder()
    var saved: [H5Root] = []
    var screenA: H5Screen
    var screenB: H5Screen
    var screenH: H5Screen

    init() {
      screenA = World.screen(a, "A")
      screenB = World.screen(b, "B")
      let holder = holder
      let h = H5Screen(a)
      for id in 1...4 {
        h.probe("H.row\(id).count", show: { "\(holder.root.rows[id: id]?.count ?? -1)" }) {
          "\(holder.root.rows[id: id]?.count ?? -1)"
        }
        h.probe("H.row\(id).title", show: { holder.root.rows[id: id]?.title ?? "-" }) {
          holder.root.rows[id: id]?.title ?? "-"
        }
      }
      h.probe("H.child", show: { "\(holder.root.child.count)/\(holder.root.child.leaf.value)" }) {
        "\(holder.root.child.count)/\(holder.root.child.leaf.value)"
      }
      h.probe("H.sibling", show: { "\(holder.root.sibling.count)" }) { "\(holder.root.sibling.count)" }
      h.probe("H.mode", show: { holder.root.mode?.editing.map { "\($0.id):\($0.count):\($0.title)" } ?? "-" }) {
        holder.root.mode?.editing.map { "\($0.id):\($0.count):\($0.title)" } ?? "-"
      }
      h.probe("H.optional", show: { holder.root.optional.map { "\($0.id):\($0.count)" } ?? "-" }) {
        holder.root.optional.map { "\($0.id):\($0.count)" } ?? "-"
      }
      screenH = h
    }

    static func screen(_ store: H5Store, _ name: String) -> H5Screen {
      let s = H5Screen(store)
      // Readers through the root store, by id (they re-run when rows come and go).
      for id in 1...4 {
        s.probe("\(name).rows[\(id)].count", show: { "\(store.rows[id: id]?.count ?? -1)" }) {
          "\(store.state.rows[id: id]?.count ?? -1)"
        }
        s.probe("\(name).rows[\(id)].title", show: { store.rows[id: id]?.title ?? "-" }) {
          store.state.rows[id: id]?.title ?? "-"
        }
      }
      let child = store.scope(state: \.child, action: H5Action.child)
      s.probe("\(name).child", show: { "\(child.count)/\(child.leaf.value)" }) {
        "\(store.state.child.count)/\(store.state.child.leaf.value)"
      }
      let sibling = store.scope(state: \.sibling, action: H5Action.sibling)
      s.probe("\(name).sibling", show: { "\(sibling.count)" }) { "\(store.state.sibling.count)" }
      s.probe("\(name).mode", show: { store.mode?.editing.map { "\($0.id):\($0.count):\($0.title)" } ?? "-" }) {
        store.state.mode?.editing.map { "\($0.id):\($0.count):\($0.title)" } ?? "-"
      }
      s.probe(
        "\(name).editorStore",
        show: {
          store.scope(state: \.mode?.editing, action: H5Action.editing).map { "\($0.id):\($0.count):\($0.title)" }
            ?? "-"
        }
      ) {
        store.state.mode?.editing.map { "\($0.id):\($0.count):\($0.title)" } ?? "-"
      }
      s.probe(
        "\(name).optional",
        show: {
          store.scope(state: \.optional, action: H5Action.optional).map { "\($0.id):\($0.count)" } ?? "-"
        }
      ) {
        store.state.optional.map { "\($0.id):\($0.count)" } ?? "-"
      }
      return s
    }

    /// Row-store readers, bound to whatever rows exist now (cells), re-bound at random.
    var cells: [H5Probe] = []
    func bindCells(_ store: H5Store, _ name: String) {
      for row in h5RowStores(store) {
        let id = row.id
        cells.append(
          H5Probe("\(name).cell\(id)", show: { "\(row.count)/\(row.title)" }) {
            row.isValid
              ? "\(store.state.rows[id: id]!.count)/\(store.state.rows[id: id]!.title)"
              : "\(row.state.count)/\(row.state.title)"
          })
      }
    }

    func read(_ place: Place) -> H5Root {
      switch place {
      case .a: a.state
      case .b: b.state
      case .holder: holder.root
      }
    }

    func edit(_ place: Place, _ body: @escaping (inout H5Root) -> Void) {
      switch place {
      case .a: a.run(body)
      case .b: b.run(body)
      case .holder: body(&holder.root)
      }
    }
  }

  @Test("random moves of rows, children and whole states between two stores and a holder: no stale reader")
  func randomMoves() {
    for seed in 0..<UInt64(RandomTestBudget.scaled(300)) {
      var rng = SplitMix64(state: seed &* 0x9E37_79B9 &+ 5)
      let w = World()
      w.bindCells(w.a, "A")
      w.bindCells(w.b, "B")
      var log: [String] = []
      for stepIndex in 0..<60 {
        let from = Place.allCases[Int(rng.next() % 3)]
        let to = Place.allCases[Int(rng.next() % 3)]
        let id = Int(rng.next() % 4) + 1
        let v = Int(rng.next() % 100)
        let op = Int(rng.next() % 22)
        var text = ""
        let step = {
          switch op {
          case 0:
            text = "\(to).rows[\(id)].count = \(v)"
            w.edit(to) { $0.rows[id: id]?.count = v }
          case 1:
            text = "copy \(from).rows[\(id)] into \(to) (replace or append)"
            guard let row = w.read(from).rows[id: id] else { return }
            w.edit(to) { s in
              if s.rows[id: id] != nil { s.rows[id: id] = row } else { s.rows.append(row) }
            }
          case 2:
            text = "\(to).rows.remove(id: \(id))"
            w.edit(to) { $0.rows.remove(id: id) }
          case 3:
            text = "snapshot \(from)"
            w.saved.append(w.read(from))
          case 4:
            text = "restore last snapshot into \(to) (whole state)"
            guard let s = w.saved.last else { return }
            w.edit(to) { $0 = s }
          case 5:
            text = "restore last snapshot's rows into \(to)"
            guard let s = w.saved.last else { return }
            w.edit(to) { $0.rows = s.rows }
          case 6:
            text = "\(to).child = \(from).child"
            let c = w.read(from).child
            w.edit(to) { $0.child = c }
          case 7:
            text = "\(to).child.count = \(v); leaf = \(v)"
            w.edit(to) {
              $0.child.count = v
              $0.child.leaf.value = v
            }
          case 8:
            text = "\(to).sibling = \(to).child, then child.count += 1"
            w.edit(to) {
              $0.sibling = $0.child
              $0.child.count += 1
            }
          case 9:
            text = "copy-mutate-assign \(to).rows[\(id)] title=t\(v)"
            w.edit(to) { s in
              guard var row = s.rows[id: id] else { return }
              row.title = "t\(v)"
              row.count += 1
              s.rows[id: id] = row
            }
          case 10:
            text = "\(to).rows[\(id)] = \(from).rows[\(id)] after editing \(from)'s by +1 (two transactions)"
            w.edit(from) { $0.rows[id: id]?.count += 1 }
            guard let row = w.read(from).rows[id: id] else { return }
            w.edit(to) { s in if s.rows[id: id] != nil { s.rows[id: id] = row } }
          case 11:
            text = "\(to): set \(id) count \(v) and back in one transaction"
            w.edit(to) { s in
              let old = s.rows[id: id]?.count
              s.rows[id: id]?.count = v
              if let old { s.rows[id: id]?.count = old }
            }
          case 12:
            text = "swap \(to).child and \(to).sibling"
            w.edit(to) { s in
              let c = s.child
              s.child = s.sibling
              s.sibling = c
            }
          case 14:
            text = "\(to).mode = .editing(rows[\(id)])"
            w.edit(to) { s in s.mode = s.rows[id: id].map(H5Mode.editing) }
          case 15:
            text = "\(to): edit the draft (count = \(v), title = d\(v))"
            w.edit(to) { s in
              guard case .editing(var draft) = s.mode else { return }
              draft.count = v
              draft.title = "d\(v)"
              s.mode = .editing(draft)
            }
          case 16:
            text = "\(to): save the draft"
            w.edit(to) { s in
              guard case .editing(let draft) = s.mode else { return }
              if s.rows[id: draft.id] != nil { s.rows[id: draft.id] = draft }
              s.mode = nil
            }
          case 17:
            text = "\(to): let saved = state; rows[\(id)].count += 1; child.count += 1; state = saved (one transaction)"
            w.edit(to) { s in
              let saved = s
              s.rows[id: id]?.count += 1
              s.child.count += 1
              s = saved
            }
          case 18:
            text = "transaction { \(from).rows[\(id)].count = \(v); \(to).rows[\(id)] = that row }"
            transaction {
              w.edit(from) { $0.rows[id: id]?.count = v }
              if let row = w.read(from).rows[id: id] {
                w.edit(to) { s in if s.rows[id: id] != nil { s.rows[id: id] = row } }
              }
            }
          case 19:
            text = "\(to): restore an older snapshot's row \(id) only"
            guard let snap = w.saved.first, let row = snap.rows[id: id] else { return }
            w.edit(to) { s in if s.rows[id: id] != nil { s.rows[id: id] = row } else { s.rows.append(row) } }
          case 20:
            text = "\(to).rows.move first to last"
            w.edit(to) { s in if s.rows.count > 1 { s.rows.move(fromOffsets: [0], toOffset: s.rows.count) } }
          case 21:
            text = "\(to).optional = \(from).rows[\(id)]; then optional.count += 1"
            let row = w.read(from).rows[id: id]
            w.edit(to) { s in
              s.optional = row
              s.optional?.count += 1
            }
          default:
            text = "rebind cells"
            for c in w.cells { c.reaction.cancel() }
            w.cells.removeAll()
            w.bindCells(w.a, "A")
            w.bindCells(w.b, "B")
          }
        }
        let before = (w.screenA.probes + w.screenB.probes + w.screenH.probes + w.cells).map(\.runs)
        step()
        log.append("\(stepIndex): \(text)")
        let label = "seed \(seed) step \(stepIndex)"
        var ok = true
        for (i, p) in (w.screenA.probes + w.screenB.probes + w.screenH.probes + w.cells).enumerated() {
          let truth = withoutTracking { p.truth() }
          if p.shown != truth {
            ok = false
            Issue.record("\(label): \(p.name) shows \(p.shown), state holds \(truth)\n\(log.joined(separator: "\n"))")
          }
          if i < before.count, p.runs - before[i] > (op == 10 ? 2 : 1) {
            ok = false
            Issue.record(
              "\(label): \(p.name) ran \(p.runs - before[i]) times in one step\n\(log.joined(separator: "\n"))")
          }
        }
        if !ok { break }
      }
      w.screenA.cancel()
      w.screenB.cancel()
      w.screenH.cancel()
      for c in w.cells { c.reaction.cancel() }
    }
  }
}
