// swift-format-ignore-file
import Observant
import Synchronization
import Testing

// Derived values, one-shot tracking scopes and reactions over value-type state whose copies come
// and go (drafts, undo snapshots, copy-mutate-assign, older copies coming back after a detour,
// rows moved between an identified array, a plain array, a dictionary, an optional, an enum
// payload and a state field). Written against the documentation only.

final class EHFlag: Sendable {
  private let v = Atomic<Bool>(false)
  var isSet: Bool { v.load(ordering: .acquiring) }
  func set() { v.store(true, ordering: .releasing) }
}

final class EHShown {
  var value = Int.min
  var equalReruns = 0
  var history: [Int] = []
}

struct EHReader {
  let name: String
  let read: (EHModel) -> Int
}

/// Readers of every kind over one world: a reaction reading the path directly, a derived value of
/// the path and a reaction reading only that derived value (its re-runs must change what it
/// shows: the cut-off), a diamond of derived values, and one-shot `withTracking` scopes armed
/// before each step.
final class EHObservers {
  let world: EHWorld
  let readers: [EHReader]
  var direct: [(EHReader, Reaction, EHShown)] = []
  var derived: [(EHReader, Derived<Int>, Reaction, EHShown)] = []
  var diamond: (Derived<Int>, Reaction, EHShown, (EHModel) -> Int)!
  var armed: [(String, Int, () -> Int, TrackingObservation, EHFlag)] = []

  init(_ world: EHWorld, readers: [EHReader]) {
    self.world = world
    self.readers = readers
    let m = world.m
    for r in readers {
      let shown = EHShown()
      let reaction = Reaction("direct \(r.name)") { shown.value = r.read(m); shown.history.append(shown.value) }
      direct.append((r, reaction, shown))
      let d = Derived("D \(r.name)") { r.read(m) }
      let dShown = EHShown()
      let dReaction = Reaction("via D \(r.name)") {
        let v = d.value
        if dShown.value == v { dShown.equalReruns += 1 }
        dShown.value = v
        dShown.history.append(v)
      }
      derived.append((r, d, dReaction, dShown))
    }
    // A diamond: two derived values over different places, one derived value over both.
    let a = derived[0].1
    let b = derived[derived.count / 2].1
    let ra = derived[0].0.read
    let rb = derived[derived.count / 2].0.read
    let sum = Derived("sum") { a.value * 100 + b.value }
    let sumShown = EHShown()
    let sumReaction = Reaction("via sum") {
      let v = sum.value
      if sumShown.value == v { sumShown.equalReruns += 1 }
      sumShown.value = v
    }
    diamond = (sum, sumReaction, sumShown, { ra($0) * 100 + rb($0) })
  }

  func arm() {
    let m = world.m
    armed = []
    for r in readers {
      let flag = EHFlag()
      let (v, obs) = withCancellableTracking { r.read(m) } onChange: { flag.set() }
      armed.append(("withTracking \(r.name)", v, { r.read(m) }, obs, flag))
    }
    for (r, d, _, _) in derived {
      let flag = EHFlag()
      let (v, obs) = withCancellableTracking { d.value } onChange: { flag.set() }
      armed.append(("withTracking D \(r.name)", v, { r.read(m) }, obs, flag))
    }
  }

  /// The first broken promise, or nil.
  func check() -> String? {
    let m = world.m
    var problem: String?
    for (name, before, now, obs, flag) in armed {
      let truth = withoutTracking { now() }
      if problem == nil, truth != before, !flag.isSet {
        problem = "missed: \(name) read \(before), state now \(truth), onChange not called"
      }
      obs.cancel()
    }
    armed = []
    if let problem { return problem }
    for (r, _, shown) in direct {
      let truth = withoutTracking { r.read(m) }
      if shown.value != truth { return "stale: reaction of \(r.name) shows \(shown.value), state holds \(truth)" }
    }
    for (r, d, _, shown) in derived {
      let truth = withoutTracking { r.read(m) }
      let dv = withoutTracking { d.value }
      if dv != truth { return "stale derived: D \(r.name).value is \(dv), recomputing gives \(truth)" }
      if shown.value != truth { return "stale: reaction over D \(r.name) shows \(shown.value), state holds \(truth)" }
      if shown.equalReruns > 0 {
        return "cut-off: reaction over D \(r.name) re-ran with an equal value (history \(shown.history))"
      }
    }
    let (sum, _, sumShown, sumTruth) = diamond!
    let t = withoutTracking { sumTruth(m) }
    if withoutTracking({ sum.value }) != t { return "stale derived: sum.value, recomputing gives \(t)" }
    if sumShown.value != t { return "stale: reaction over sum shows \(sumShown.value), state holds \(t)" }
    if sumShown.equalReruns > 0 { return "cut-off: reaction over sum re-ran with an equal value" }
    return nil
  }
}

func ehReaders() -> [EHReader] {
  var readers = EHPath.all.map { p in EHReader(name: p.description, read: { p.read($0) }) }
  readers.append(EHReader(name: "sum rows.x") { $0.rows.reduce(0) { $0 + $1.x } })
  readers.append(EHReader(name: "sum plain.inner.z") { $0.plain.reduce(0) { $0 + $1.inner.z } })
  readers.append(EHReader(name: "sum table.deep.w") { $0.table.values.reduce(0) { $0 + $1.inner.deep.w } })
  readers.append(EHReader(name: "maybe ?? slot") { m in m.maybe != nil ? (m.maybe?.x ?? -5) : m.slot.inner.z })
  readers.append(EHReader(name: "rows.count") { $0.rows.count })
  readers.append(EHReader(name: "holder.rows.count + pick") { $0.holder.rows.count * 10 + ($0.holder.pick?.id ?? 0) })
  return readers
}

/// Runs `ops` on a fresh world with every kind of reader; the first broken promise, with the step.
func ehRun(_ ops: [EHOp]) -> String? {
  let world = EHWorld()
  let observers = EHObservers(world, readers: ehReaders())
  if let p = observers.check() { return "initially: \(p)" }
  for (i, op) in ops.enumerated() {
    observers.arm()
    world.apply(op)
    if let p = observers.check() { return "after step \(i) (\(op)): \(p)" }
  }
  return nil
}

func ehKind(_ failure: String) -> String {
  let body = failure.components(separatedBy: "): ").last ?? failure
  return String(body.prefix { $0 != ":" })
}

@Suite("Eco hunt: derived values and one-shot scopes over copies")
struct EcoHuntTests {
  @Test("random copies, detours and restores: readers, derived values, cut-off, withTracking")
  func randomizedDerived() {
    var found: [String: (UInt64, [EHOp], String)] = [:]
    let seeds: [UInt64] = Array(1...300)
    for seed in seeds {
      var rng = EHRandom(seed: seed)
      let ops = (0..<25).map { _ in rng.op() }
      guard let failure = ehRun(ops) else { continue }
      let kind = ehKind(failure)
      if let existing = found[kind], existing.1.count <= ops.count { continue }
      let shrunk = ehShrink(ops) { candidate in
        guard let f = ehRun(candidate) else { return nil }
        return ehKind(f) == kind ? f : nil
      }
      found[kind] = (seed, shrunk, ehRun(shrunk) ?? failure)
    }
    for (kind, (seed, ops, failure)) in found.sorted(by: { $0.key < $1.key }) {
      let steps = ops.enumerated().map { "\($0.offset): \($0.element)" }.joined(separator: "\n  ")
      Issue.record(Comment(rawValue: "\(kind) (seed \(seed)):\n  \(steps)\n  => \(failure)"))
    }
  }
}

/// Readers scheduled on the main actor (directly and through derived values) and a synchronous
/// reaction that writes what it computed into another field during the flush.
@MainActor
final class EHScheduledObservers {
  let world: EHWorld
  var direct: [(EHReader, Reaction, EHShown)] = []
  var derived: [(EHReader, Derived<Int>, Reaction, EHShown)] = []
  var mirror: Reaction!
  var tickReader: (Reaction, EHShown)!
  /// Whether a reader over a derived value that re-ran with an equal value is a failure (it was
  /// for every `.mainActor` reader before handed-off runs checked their derived inputs).
  var checkCutOff = true

  init(_ world: EHWorld, readers: [EHReader]) {
    self.world = world
    let m = world.m
    mirror = Reaction("mirror") {
      let v = (m.rows[id: 1]?.x ?? -1) + 10 * m.slot.inner.z
      if withoutTracking({ m.tick }) != v { m.tick = v }
    }
    let tickShown = EHShown()
    tickReader = (Reaction("tick", scheduling: .mainActor) { tickShown.value = m.tick }, tickShown)
    for r in readers {
      let shown = EHShown()
      let reaction = Reaction("direct \(r.name)", scheduling: .mainActor) {
        shown.value = r.read(m)
        shown.history.append(shown.value)
      }
      direct.append((r, reaction, shown))
      let d = Derived("D \(r.name)") { r.read(m) }
      let dShown = EHShown()
      let dReaction = Reaction("via D \(r.name)", scheduling: .mainActor) {
        let v = d.value
        if dShown.value == v { dShown.equalReruns += 1 }
        dShown.value = v
        dShown.history.append(v)
      }
      derived.append((r, d, dReaction, dShown))
    }
  }

  func check() -> String? {
    let m = world.m
    let tick = withoutTracking { (m.rows[id: 1]?.x ?? -1) + 10 * m.slot.inner.z }
    if withoutTracking({ m.tick }) != tick { return "stale mirror: tick is \(withoutTracking { m.tick }), should be \(tick)" }
    if tickReader.1.value != tick { return "stale: scheduled reader of tick shows \(tickReader.1.value), state holds \(tick)" }
    for (r, _, shown) in direct {
      let truth = withoutTracking { r.read(m) }
      if shown.value != truth { return "stale: scheduled reaction of \(r.name) shows \(shown.value), state holds \(truth)" }
    }
    for (r, d, _, shown) in derived {
      let truth = withoutTracking { r.read(m) }
      let dv = withoutTracking { d.value }
      if dv != truth { return "stale derived: D \(r.name).value is \(dv), recomputing gives \(truth)" }
      if shown.value != truth { return "stale: scheduled reaction over D \(r.name) shows \(shown.value), state holds \(truth)" }
      if checkCutOff, shown.equalReruns > 0 {
        return "cut-off: scheduled reaction over D \(r.name) re-ran with an equal value (history \(shown.history))"
      }
    }
    return nil
  }
}

/// Applies each turn's steps, then lets the main actor turn (bounded), then checks.
@MainActor
func ehRunScheduled(_ turns: [[EHOp]]) async -> String? {
  let world = EHWorld()
  let observers = EHScheduledObservers(world, readers: ehReaders())
  if let p = observers.check() { return "initially: \(p)" }
  for (i, ops) in turns.enumerated() {
    for op in ops { world.apply(op) }
    var problem = observers.check()
    // Bounded by time, not by a number of turns (a loaded machine, a sanitizer).
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      await Task.yield()
      problem = observers.check()
      if problem == nil || problem!.hasPrefix("cut-off") { break }
    }
    if let problem { return "after turn \(i) (\(ops.map(\.description).joined(separator: "; "))): \(problem)" }
  }
  return nil
}

@MainActor
@Suite("Eco hunt: scheduled reactions over copies")
struct EcoHuntScheduledTests {
  @Test("random copies and restores, several per turn: .mainActor readers and their derived values end on the state")
  func randomizedScheduled() async {
    var found: [String: (UInt64, [[EHOp]], String)] = [:]
    for seed in UInt64(1)...300 {
      var rng = EHRandom(seed: seed &* 7919)
      let turns = (0..<12).map { _ in (0..<(1 + rng.int(3))).map { _ in rng.op() } }
      guard let failure = await ehRunScheduled(turns) else { continue }
      let kind = ehKind(failure)
      if found[kind] != nil { continue }
      // Shrink: drop whole turns, then single steps.
      var current = turns
      var changed = true
      while changed {
        changed = false
        for i in current.indices.reversed() {
          for j in current[i].indices.reversed() {
            var cand = current
            cand[i].remove(at: j)
            if cand[i].isEmpty { cand.remove(at: i) }
            if let f = await ehRunScheduled(cand), ehKind(f) == kind {
              current = cand
              changed = true
              break
            }
          }
          if changed { break }
        }
      }
      found[kind] = (seed, current, await ehRunScheduled(current) ?? failure)
    }
    for (kind, (seed, turns, failure)) in found.sorted(by: { $0.key < $1.key }) {
      let steps = turns.enumerated().map { "turn \($0.offset): " + $0.element.map(\.description).joined(separator: "; ") }
        .joined(separator: "\n  ")
      Issue.record(Comment(rawValue: "\(kind) (seed \(seed)):\n  \(steps)\n  => \(failure)"))
    }
  }
}

@MainActor
func ehTurns(_ n: Int = 5) async { for _ in 0..<n { await Task.yield() } }

@MainActor
@Suite("Eco hunt: scheduled reactions over derived values, directed")
struct EcoHuntScheduledDirectedTests {
  @Test("a .mainActor reaction over a derived value of a tracked Int: an input change that keeps the value re-runs nothing")
  func scheduledCutOffScalar() async {
    let m = EHModel()
    let d = Derived("parity") { m.tick % 2 }
    let r = Reaction("reader", scheduling: .mainActor) { _ = d.value }
    m.tick = 2
    await ehTurns()
    #expect(d.value == 0)
    #expect(r.runCount == 1)
  }

  @Test("a .mainActor reaction over a derived value of rows[id: 2].x: removing row 1 re-runs nothing")
  func scheduledCutOffRowsRemove() async {
    let m = EHModel()
    let d = Derived("row2.x") { m.rows[id: 2]?.x ?? -1 }
    let r = Reaction("reader", scheduling: .mainActor) { _ = d.value }
    m.rows.remove(id: 1)
    await ehTurns()
    #expect(d.value == 0)
    #expect(r.runCount == 1)
  }

  @Test("a .mainActor reaction over a derived value of holder.rows[id: 2].x: removing row 1 re-runs nothing")
  func scheduledCutOffHolderRowsRemove() async {
    let m = EHModel()
    let d = Derived("holder.row2.x") { m.holder.rows[id: 2]?.x ?? -1 }
    let r = Reaction("reader", scheduling: .mainActor) { _ = d.value }
    m.holder.rows.remove(id: 1)
    await ehTurns()
    #expect(d.value == 0)
    #expect(r.runCount == 1)
  }

  @Test("a main-actor reaction over a derived value, its input written on another thread (handed-off re-run): an equal value re-runs nothing")
  func handedOffCutOffScalar() async {
    let m = EHModel()
    let d = Derived("parity") { m.tick % 2 }
    let r = Reaction("reader") { _ = d.value }
    await Task.detached { m.tick = 2 }.value
    await ehTurns()
    #expect(d.value == 0)
    #expect(r.runCount == 1)
  }

  @Test("a .mainActor reaction over a derived value: a change that does change the value re-runs it once, with the value")
  func scheduledDerivedChange() async {
    let m = EHModel()
    let d = Derived("parity") { m.tick % 2 }
    var shown: [Int] = []
    let r = Reaction("reader", scheduling: .mainActor) { shown.append(d.value) }
    m.tick = 1
    m.tick = 3
    await ehTurns()
    #expect(shown == [0, 1])
    #expect(r.runCount == 2)
  }

  @Test("the same with a synchronous reaction created on the main actor: removing row 1 re-runs nothing")
  func syncCutOffHolderRowsRemove() async {
    let m = EHModel()
    let d = Derived("holder.row2.x") { m.holder.rows[id: 2]?.x ?? -1 }
    let r = Reaction("reader") { _ = d.value }
    m.holder.rows.remove(id: 1)
    await ehTurns()
    #expect(d.value == 0)
    #expect(r.runCount == 1)
  }
}
