import Dispatch
import Foundation
import ObservantTestSupport
import Synchronization
import Testing

@testable import Observant

// Review of the compact core (the observer table in one block with its first field's list inline
// and the first slot reused once empty; the one-shot observer's state in one atomic word): one-shot
// scopes reading one, two and many fields of one and several objects, fields observed, abandoned
// and observed again in varying orders, writers, cancellers and objects going away on other
// threads at once. Assertions are exact (`onChange` exactly once, nothing left installed, every
// closure and table released); only the interleaving varies. Threads are real threads (`Thread`),
// not tasks.

// MARK: Support

/// An observable object with as many fields as a test wants, of the runtime's own kind: reading
/// and writing them needs no lock (no value is stored), and the object going away is a change for
/// the scopes that read it (they are read with `Stamp.none`, as class fields are).
private final class Bag: @unchecked Sendable {
  let registrar = TrackingRegistrar()
  static let fieldCount = 24
  static let fields = (0..<fieldCount).map { InternalField($0 + 1, name: "f\($0)", owner: Bag.self) }

  func read(_ field: Int) { registrar.access(Self.fields[field]) }
  func write(_ field: Int) { registrar.notifyChange(of: Self.fields[field]) }

  /// The observer table, if a field was ever tracked.
  var table: ObserverTable? { registrar.existingTable }
}

/// Weak references to objects and tables, checked once everything should be gone.
private final class WeakReferences: @unchecked Sendable {
  private let lock = Mutex(())
  private final class Box {
    weak var object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
  }
  private var boxes: [Box] = []

  func add(_ object: AnyObject?) {
    guard let object else { return }
    let box = Box(object)
    lock.withLock { _ in boxes.append(box) }
  }

  /// Adds the object and, if it has one, the observer table of `registrar`.
  func add(_ object: AnyObject, registrar: TrackingRegistrar) {
    add(object)
    add(registrar.existingTable)
  }

  var alive: Int { lock.withLock { _ in boxes.filter { $0.object != nil }.count } }
  var count: Int { lock.withLock { _ in boxes.count } }
}

/// Runs `body(0..<count)` on `count` new threads, started together, and waits for all of them.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let start = DispatchSemaphore(value: 0)
  let done = DispatchSemaphore(value: 0)
  for index in 0..<count {
    let thread = Thread {
      start.wait()
      body(index)
      done.signal()
    }
    thread.stackSize = 4 << 20
    thread.start()
  }
  for _ in 0..<count { start.signal() }
  for _ in 0..<count { done.wait() }
}

/// One scope of a test: how often its `onChange` ran, whether it read anything, whether someone
/// cancelled it, and its handle (for `withCancellableTracking`).
private final class ScopeRecord: @unchecked Sendable {
  let fired = Counter()
  private let readFlag = Atomic<Bool>(false)
  private let cancelledFlag = Atomic<Bool>(false)
  var hasRead: Bool { readFlag.load(ordering: .relaxed) }
  var isCancelled: Bool { cancelledFlag.load(ordering: .relaxed) }
  func markRead() { readFlag.store(true, ordering: .relaxed) }
  func markCancelled() { cancelledFlag.store(true, ordering: .relaxed) }
  /// Set once, by the thread that made the scope, before anyone else sees the record.
  var observation: TrackingObservation?

  /// Installs a scope that reads with `read`: a one-shot `withTracking`, or a cancellable one (its
  /// handle kept in `observation`). Its onChange counts in `fired` and keeps `marker`, which goes
  /// when the scope lets go of its closure.
  func install(cancellable: Bool, marker: ReleaseMarker, read: () -> Void) {
    if !cancellable {
      withTracking(read) {
        _ = marker
        self.fired.increment()
      }
    } else {
      observation =
        withCancellableTracking(read) {
          _ = marker
          self.fired.increment()
        }.observation
    }
  }

  /// Expects the scope to have fired exactly once (at most once if it was cancelled) and to be
  /// active no more.
  func expectFiredOnce(_ label: String, _ index: Int) {
    let fired = fired.value
    if isCancelled {
      #expect(fired <= 1, "\(label)cancelled scope \(index) fired \(fired) times")
    } else {
      #expect(fired == 1, "\(label)scope \(index) fired \(fired) times")
    }
    #expect(observation?.isActive != true)
  }
}

private struct ReviewError: Error {}

/// Two threads keeping in step: each says where it is and waits for the other to get there.
private final class Turns: Sendable {
  private let first = Atomic<Int>(0)
  private let second = Atomic<Int>(0)

  func reach(_ point: Int, _ role: Int) {
    if role == 0 {
      first.store(point, ordering: .releasing)
      while second.load(ordering: .acquiring) < point {}
    } else {
      second.store(point, ordering: .releasing)
      while first.load(ordering: .acquiring) < point {}
    }
  }
}

// MARK: Tests

@Suite("Core layout review")
struct CoreLayoutReviewTests {
  // MARK: An exact oracle, one thread

  /// A scope of the oracle: the fields it read (object serial, field), and whether it is installed.
  private struct ModelScope {
    let fields: Set<[Int]>
    var installed = true
    var expectedFired = 0
  }

  @Test(
    "random sequences of scopes reading 1, 2 or many fields of up to three objects, cancellations, writes and objects going away: each write fires exactly the scopes installed on its field, the tables hold their invariants and counts after every step, and everything is released"
  )
  func oracle() {
    for seed in 0..<RandomTestBudget.scaled(200) { runOracle(seed: UInt64(seed)) }
  }

  private func runOracle(seed: UInt64) {
    var random = SplitMix64(state: seed &* 0x2545_F491_4F6C_DD1D &+ 17)
    // Few fields (the first slot and one more), or enough that the slots after the first are
    // indexed (more than 8).
    let fieldChoices = [1, 2, 3, 9, 10, Bag.fieldCount]
    let fieldsInUse = fieldChoices[random.int(fieldChoices.count)]
    let references = WeakReferences()
    let released = Counter()
    var serial = 0
    func makeBag() -> (serial: Int, bag: Bag) {
      serial += 1
      return (serial, Bag())
    }
    var bags = (0..<3).map { _ in makeBag() }
    var scopes: [ModelScope] = []
    var counters: [Counter] = []
    var observations: [Int: TrackingObservation] = [:]
    var madeScopes = 0

    func check(_ step: Int) {
      for (bagSerial, bag) in bags {
        guard let table = bag.table else { continue }
        table._checkInvariants()
        let installedFields = scopes.filter(\.installed).reduce(0) { sum, scope in
          sum + scope.fields.filter { $0[0] == bagSerial }.count
        }
        #expect(
          bag.registrar.observerEntryCount == installedFields,
          "seed \(seed) step \(step): object \(bagSerial) has \(bag.registrar.observerEntryCount) entries, expected \(installedFields)"
        )
        #expect(bag.registrar.hasObservers == (installedFields > 0), "seed \(seed) step \(step)")
      }
      for index in scopes.indices where counters[index].value != scopes[index].expectedFired {
        Issue.record(
          "seed \(seed) step \(step): scope \(index) fired \(counters[index].value) times, expected \(scopes[index].expectedFired)"
        )
      }
      for (index, observation) in observations where observation.isActive != scopes[index].installed {
        Issue.record("seed \(seed) step \(step): scope \(index) isActive \(observation.isActive)")
      }
    }

    /// Fires, in the model, every installed scope that read `matches`.
    func fireModel(where matches: ([Int]) -> Bool) {
      for index in scopes.indices where scopes[index].installed && scopes[index].fields.contains(where: matches) {
        scopes[index].installed = false
        scopes[index].expectedFired += 1
      }
    }

    for step in 0..<300 {
      switch random.int(20) {
      case 0..<8:
        // A scope over one object (mostly), two or three; one field, two, or many, in any order,
        // some read twice.
        let objectCount = [1, 1, 1, 2, 3][random.int(5)]
        var plan: [(bag: Int, field: Int)] = []
        for _ in 0..<objectCount {
          let bag = random.int(bags.count)
          let fieldCount = [1, 1, 2, 1 + random.int(fieldsInUse)][random.int(4)]
          for _ in 0..<fieldCount { plan.append((bag, random.int(fieldsInUse))) }
        }
        if random.int(4) == 0, let repeated = plan.first { plan.append(repeated) }
        let counter = Counter()
        let marker = ReleaseMarker { released.increment() }
        let current = bags
        let read = { for entry in plan { current[entry.bag].bag.read(entry.field) } }
        let index = scopes.count
        if random.int(2) == 0 {
          withTracking(read) {
            _ = marker
            counter.increment()
          }
        } else {
          observations[index] =
            withCancellableTracking(read) {
              _ = marker
              counter.increment()
            }.observation
        }
        madeScopes += 1
        scopes.append(ModelScope(fields: Set(plan.map { [current[$0.bag].serial, $0.field] })))
        counters.append(counter)
      case 8..<11:
        // Cancels an installed scope (or a spent one: nothing happens).
        guard let index = observations.keys.sorted().randomElement(using: &random) else { break }
        observations[index]!.cancel()
        scopes[index].installed = false
        if random.int(3) == 0 { observations[index] = nil }
      case 11..<18:
        let bag = random.int(bags.count)
        let field = random.int(fieldsInUse)
        let bagSerial = bags[bag].serial
        bags[bag].bag.write(field)
        fireModel { $0 == [bagSerial, field] }
      default:
        // An object goes away: a change for every scope that read it.
        let bag = random.int(bags.count)
        let gone = bags[bag]
        references.add(gone.bag, registrar: gone.bag.registrar)
        bags[bag] = makeBag()
        fireModel { $0[0] == gone.serial }
      }
      check(step)
    }
    // Every object goes away: every scope still installed fires.
    for (bagSerial, bag) in bags { references.add(bag, registrar: bag.registrar); _ = bagSerial }
    let lastSerials = Set(bags.map(\.serial))
    bags.removeAll()
    fireModel { lastSerials.contains($0[0]) }
    check(300)
    #expect(released.value == madeScopes, "seed \(seed): closures released \(released.value) of \(madeScopes)")
    for observation in observations.values { #expect(!observation.isActive) }
    observations.removeAll()
    #expect(references.alive == 0, "seed \(seed): \(references.alive) of \(references.count) objects or tables alive")
  }

  // MARK: The first slot taken, freed and retaken

  @Test(
    "the first slot freed and retaken while the other slots are in use, in every order of three fields: writes reach exactly their field's readers"
  )
  func firstSlotOrders() throws {
    // For each order of observing, abandoning and observing again fields a, b, c (the first read
    // takes the first slot), each field's write fires exactly its own scopes.
    let orders: [[Int]] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
    for order in orders {
      for abandon in order {
        let bag = Bag()
        var scopes: [(field: Int, counter: Counter, observation: TrackingObservation)] = []
        func observe(_ field: Int) {
          let counter = Counter()
          let observation = withCancellableTracking {
            bag.read(field)
          } onChange: {
            counter.increment()
          }.observation
          scopes.append((field, counter, observation))
        }
        for field in order { observe(field) }
        let table = try #require(bag.table)
        // Abandon one field (maybe the one in the first slot), read a new one (d = 3), read the
        // abandoned one again.
        for scope in scopes where scope.field == abandon { scope.observation.cancel() }
        scopes.removeAll { $0.field == abandon }
        table._checkInvariants()
        observe(3)
        table._checkInvariants()
        observe(abandon)
        observe(3)
        table._checkInvariants()
        #expect(table.count == 5)
        for field in [3, abandon] + order.filter({ $0 != abandon }) {
          let before = scopes.map { $0.counter.value }
          bag.write(field)
          table._checkInvariants()
          for (index, scope) in scopes.enumerated() {
            let expected = before[index] + (scope.field == field && before[index] == 0 ? 1 : 0)
            #expect(scope.counter.value == expected, "order \(order), abandoned \(abandon), write \(field)")
          }
        }
        #expect(scopes.allSatisfy { $0.counter.value == 1 && !$0.observation.isActive })
        #expect(table.count == 0 && !bag.registrar.hasObservers)
      }
    }
  }

  // MARK: Under contention

  @Test(
    "threads making scopes (withTracking and withCancellableTracking, 1 to many fields of 1 to 3 objects) while they write, cancel each other's scopes and release the objects: every scope not cancelled fires exactly once, a cancelled one at most once, and every closure, object and table is released"
  )
  func mixedContention() {
    let rounds = RandomTestBudget.underSanitizer(6, dividedBy: 3)
    for round in 0..<rounds { contentionRound(seed: UInt64(round)) }
  }

  private final class World: @unchecked Sendable {
    let bags: Mutex<[Bag]>
    let profiles: Mutex<[Profile]>
    /// Held around every read and write of a `Profile` field (the fields themselves are plain
    /// stored properties).
    let values = Mutex(())
    let references = WeakReferences()
    let released = Counter()
    let records = Mutex<[ScopeRecord]>([])
    /// Scopes any thread may cancel.
    let cancellable = Mutex<[ScopeRecord]>([])

    init() {
      bags = Mutex((0..<4).map { _ in Bag() })
      profiles = Mutex((0..<2).map { _ in Profile() })
    }

    func bag(_ index: Int) -> Bag { bags.withLock { $0[index] } }
    func profile(_ index: Int) -> Profile { profiles.withLock { $0[index] } }

    func releaseBag(_ index: Int) {
      let gone = bags.withLock { bags in
        let gone = bags[index]
        bags[index] = Bag()
        return gone
      }
      references.add(gone, registrar: gone.registrar)
    }

    func releaseProfile(_ index: Int) {
      let gone = profiles.withLock { profiles in
        let gone = profiles[index]
        profiles[index] = Profile()
        return gone
      }
      references.add(gone, registrar: gone.trackingRegistrar)
    }

    func readProfile(_ index: Int, _ field: Int) {
      let profile = profile(index)
      values.withLock { _ in
        switch field {
        case 0: _ = profile.count
        case 1: _ = profile.other
        default: _ = profile.first
        }
      }
    }

    func writeProfile(_ index: Int, _ field: Int, _ value: Int) {
      let profile = profile(index)
      values.withLock { _ in
        switch field {
        case 0: profile.count = value
        case 1: profile.other = value
        default: profile.first = "\(value)"
        }
      }
    }
  }

  private func contentionRound(seed: UInt64) {
    let world = World()
    let threads = 3
    let steps = RandomTestBudget.underSanitizer(600, dividedBy: 4)
    onThreads(threads) { thread in
      var random = SplitMix64(state: seed &* 1_000_003 &+ UInt64(thread))
      var mine: [ScopeRecord] = []
      for step in 0..<steps {
        switch random.int(20) {
        case 0..<9:
          // What the scope reads: (object kind, slot, field) per read.
          var plan: [(isBag: Bool, slot: Int, field: Int)] = []
          let objectCount = [1, 1, 2, 3][random.int(4)]
          for _ in 0..<objectCount {
            let isBag = random.int(3) != 0
            let slot = random.int(isBag ? 4 : 2)
            let fieldCount = [1, 2, 1 + random.int(isBag ? Bag.fieldCount : 3)][random.int(3)]
            for _ in 0..<fieldCount {
              plan.append((isBag, slot, random.int(isBag ? Bag.fieldCount : 3)))
            }
          }
          let record = ScopeRecord()
          let marker = ReleaseMarker { world.released.increment() }
          let read = {
            for entry in plan {
              if entry.isBag {
                // The object may go away on another thread between two reads, or here, when
                // this reference is the last.
                world.bag(entry.slot).read(entry.field)
              } else {
                world.readProfile(entry.slot, entry.field)
              }
              record.markRead()
            }
          }
          let cancellable = random.int(2) != 0
          record.install(cancellable: cancellable, marker: marker, read: read)
          if cancellable { world.cancellable.withLock { $0.append(record) } }
          mine.append(record)
        case 9..<14:
          if random.int(3) == 0 {
            world.writeProfile(random.int(2), random.int(3), step)
          } else {
            world.bag(random.int(4)).write(random.int(Bag.fieldCount))
          }
        case 14..<17:
          // Cancels a scope, maybe another thread's.
          let record = world.cancellable.withLock { scopes -> ScopeRecord? in
            guard !scopes.isEmpty else { return nil }
            return scopes.remove(at: random.int(scopes.count))
          }
          if let record {
            record.markCancelled()
            record.observation?.cancel()
          }
        case 17, 18:
          world.releaseBag(random.int(4))
        default:
          world.releaseProfile(random.int(2))
        }
      }
      world.records.withLock { $0.append(contentsOf: mine) }
    }
    // Every object still there goes away: every scope still installed fires.
    for index in 0..<4 { world.releaseBag(index) }
    for index in 0..<2 { world.releaseProfile(index) }
    world.bags.withLock { $0.removeAll() }
    world.profiles.withLock { $0.removeAll() }

    let records = world.records.withLock { $0 }
    for (index, record) in records.enumerated() {
      #expect(record.hasRead)
      record.expectFiredOnce("seed \(seed): ", index)
    }
    #expect(
      world.released.value == records.count,
      "seed \(seed): closures released \(world.released.value) of \(records.count)")
    // Handles keep their dependencies (and so the tables): dropped, everything goes.
    for record in records { record.observation = nil }
    world.cancellable.withLock { $0.removeAll() }
    #expect(world.references.alive == 0, "seed \(seed): \(world.references.alive) objects or tables alive")
  }

  @Test(
    "each scope raced by three threads at once: one writes a field it read, one releases another object it read, one cancels it (scopes of one field, of two and of many, on one and on two objects)"
  )
  func threeWayRace() {
    let scopes = RandomTestBudget.underSanitizer(3_000, dividedBy: 6)
    for shape in 0..<4 { threeWayRace(shape: shape, scopes: scopes) }
  }

  private final class Transients: @unchecked Sendable {
    let lock = Mutex(())
    var bags: [Bag?] = []
    func take(_ index: Int) -> Bag? { lock.withLock { _ in bags[index].take() } }
  }

  /// `shape` 0: one field of the transient object (held alone); 1: one field of each object; 2:
  /// many fields of the transient object; 3: many of both.
  private func threeWayRace(shape: Int, scopes: Int) {
    let kept = Bag()
    let transients = Transients()
    transients.bags = (0..<scopes).map { _ in Bag() }
    let references = WeakReferences()
    let released = Counter()
    let records = (0..<scopes).map { _ in ScopeRecord() }
    for index in 0..<scopes {
      let transient = transients.bags[index]!
      references.add(transient)
      let record = records[index]
      let marker = ReleaseMarker { released.increment() }
      let read = {
        switch shape {
        case 0: transient.read(index % Bag.fieldCount)
        case 1:
          transient.read(0)
          kept.read(index % 3)
        case 2: for field in 0..<(2 + index % 12) { transient.read((field + index) % Bag.fieldCount) }
        default:
          for field in 0..<(1 + index % 10) {
            transient.read(field)
            kept.read((field + index) % Bag.fieldCount)
          }
        }
        record.markRead()
      }
      record.install(cancellable: index % 2 == 1, marker: marker, read: read)
      references.add(transient.table)
    }
    onThreads(3) { role in
      switch role {
      case 0:
        // Releases the transients in order.
        for index in 0..<scopes { _ = transients.take(index) }
      case 1:
        // Writes the fields the scopes read, from the last scope to the first.
        for index in (0..<scopes).reversed() {
          switch shape {
          case 0, 2:
            transients.lock.withLock { _ in transients.bags[index] }?.write(index % Bag.fieldCount)
          default:
            kept.write(shape == 1 ? index % 3 : index % Bag.fieldCount)
          }
        }
      default:
        // Cancels every fourth scope's handle, from the middle outwards.
        let order = (0..<scopes).filter { $0 % 4 == 1 }
        for index in order.sorted(by: { abs($0 - scopes / 2) < abs($1 - scopes / 2) }) {
          records[index].markCancelled()
          records[index].observation?.cancel()
        }
      }
    }
    for (index, record) in records.enumerated() { record.expectFiredOnce("shape \(shape): ", index) }
    #expect(kept.registrar.observerEntryCount == 0, "shape \(shape)")
    if let table = kept.table { table._checkInvariants() }
    #expect(released.value == scopes, "shape \(shape): closures released \(released.value) of \(scopes)")
    for record in records { record.observation = nil }
    #expect(references.alive == 0, "shape \(shape): \(references.alive) transient objects or tables alive")
  }

  @Test(
    "several objects one scope read go away on several threads at once (the observer's dependencies looked at by several threads) while another thread writes a field it read and another cancels it: exactly once"
  )
  func severalObjectsGoneAtOnce() {
    let scopes = RandomTestBudget.underSanitizer(2_000, dividedBy: 4)
    let kept = Bag()
    let groups = (0..<3).map { _ in Transients() }
    for group in groups { group.bags = (0..<scopes).map { _ in Bag() } }
    let references = WeakReferences()
    let released = Counter()
    let records = (0..<scopes).map { _ in ScopeRecord() }
    for index in 0..<scopes {
      let record = records[index]
      let transients = groups.map { $0.bags[index]! }
      for transient in transients { references.add(transient) }
      let marker = ReleaseMarker { released.increment() }
      let read = {
        // One field of each transient object, or many; one field of the kept object.
        for (offset, transient) in transients.enumerated() {
          for field in 0..<(index % 3 == 0 ? 1 : 2 + (index + offset) % 9) { transient.read(field) }
        }
        kept.read(index % Bag.fieldCount)
        record.markRead()
      }
      record.install(cancellable: index % 2 == 1, marker: marker, read: read)
      for transient in transients { references.add(transient.table) }
    }
    onThreads(5) { role in
      switch role {
      case 0, 1, 2:
        for index in 0..<scopes { _ = groups[role].take(index) }
      case 3:
        for index in 0..<scopes { kept.write(index % Bag.fieldCount) }
      default:
        for index in stride(from: 1, to: scopes, by: 4) {
          records[index].markCancelled()
          records[index].observation?.cancel()
        }
      }
    }
    for (index, record) in records.enumerated() { record.expectFiredOnce("", index) }
    #expect(kept.registrar.observerEntryCount == 0)
    #expect(released.value == scopes)
    for record in records { record.observation = nil }
    #expect(references.alive == 0, "\(references.alive) transient objects or tables alive")
  }

  @Test(
    "a scope's last entry on an object unlinked (cancelled, or fired by a write to another object) on one thread while another releases the object: no crash, exactly once, nothing left"
  )
  func unlinkWhileOwnerGoes() {
    // The unlinking thread, holding the object's table lock, publishes "no observers" on the
    // object's registrar; the registrar must not be retained there: if the object's last
    // reference goes meanwhile, the release would run the registrar's deinit on the unlinking
    // thread, which takes the table's lock again (a recursive lock: a crash).
    let count = RandomTestBudget.underSanitizer(20_000, dividedBy: 4)
    for fires in [false, true] {
      let kept = Bag()
      let transients = Transients()
      transients.bags = (0..<count).map { _ in Bag() }
      let records = (0..<count).map { _ in ScopeRecord() }
      for index in 0..<count {
        let transient = transients.bags[index]!
        let record = records[index]
        record.observation =
          withCancellableTracking {
            if fires { kept.read(index % Bag.fieldCount) }
            transient.read(0)
          } onChange: {
            record.fired.increment()
          }.observation
      }
      // Both threads go through the scopes in the same order, in lockstep, 32 at a time.
      let turns = Turns()
      onThreads(2) { role in
        for chunk in stride(from: 0, to: count, by: 32) {
          turns.reach(chunk, role)
          for index in chunk..<min(chunk + 32, count) {
            if role == 0 {
              _ = transients.take(index)
            } else if fires {
              kept.write(index % Bag.fieldCount)
            } else {
              records[index].markCancelled()
              records[index].observation?.cancel()
            }
          }
        }
        turns.reach(count, role)
      }
      for (index, record) in records.enumerated() {
        // Cancelled: fired only if the object went first; otherwise fired once, by the write or
        // by the object going away.
        if record.isCancelled {
          #expect(record.fired.value <= 1, "scope \(index)")
        } else {
          #expect(record.fired.value == 1, "scope \(index) fired \(record.fired.value) times")
        }
        #expect(record.observation?.isActive == false)
      }
      #expect(kept.registrar.observerEntryCount == 0)
    }
  }

  @Test(
    "one object's fields observed, abandoned and observed again by several threads at once (the first slot freed and retaken under contention) while others write them and check the table"
  )
  func firstSlotUnderContention() throws {
    let bag = Bag()
    let stop = Atomic<Bool>(false)
    let records = Mutex<[ScopeRecord]>([])
    let released = Counter()
    let rounds = RandomTestBudget.underSanitizer(1_500, dividedBy: 6)
    onThreads(4) { role in
      switch role {
      case 0, 1:
        // Observers: fields 0-2 by thread 0, 1-12 by thread 1 (a field both read, and enough
        // fields that the slots after the first are indexed), abandoned at once or kept a while.
        var random = SplitMix64(state: UInt64(role) + 99)
        var open: [ScopeRecord] = []
        var mine: [ScopeRecord] = []
        for _ in 0..<rounds {
          let record = ScopeRecord()
          let marker = ReleaseMarker { released.increment() }
          let fields = role == 0 ? [random.int(3)] : (0..<(1 + random.int(4))).map { _ in 1 + random.int(12) }
          record.observation =
            withCancellableTracking {
              for field in fields { bag.read(field) }
            } onChange: {
              _ = marker
              record.fired.increment()
            }.observation
          mine.append(record)
          open.append(record)
          if open.count > 1 + random.int(6) {
            let cancelled = open.remove(at: random.int(open.count))
            cancelled.markCancelled()
            cancelled.observation?.cancel()
          }
        }
        records.withLock { $0.append(contentsOf: mine) }
      case 2:
        // A writer of every field the observers read, until they are done.
        var random = SplitMix64(state: 7)
        while !stop.load(ordering: .relaxed) { bag.write(random.int(13)) }
      default:
        var checks = 0
        while !stop.load(ordering: .relaxed) || checks == 0 {
          bag.table?._checkInvariants()
          checks += 1
          if records.withLock({ $0.count }) >= 2 * rounds { stop.store(true, ordering: .relaxed) }
        }
      }
    }
    let table = try #require(bag.table)
    table._checkInvariants()
    // The scopes still installed fire on the next write of their fields.
    for field in 0..<13 { bag.write(field) }
    let all = records.withLock { $0 }
    #expect(all.count == 2 * rounds)
    for record in all {
      if record.isCancelled {
        #expect(record.fired.value <= 1)
      } else {
        #expect(record.fired.value == 1)
      }
      #expect(record.observation?.isActive == false)
    }
    #expect(table.count == 0 && !bag.registrar.hasObservers)
    #expect(released.value == all.count)
    table._checkInvariants()
  }

  // MARK: An object going away while the scope runs

  @Test(
    "an object the scope read goes away on another thread while the scope still runs: onChange runs once, when the scope ends, and nothing stays installed (one field, two objects, many fields)"
  )
  func objectGoneOnAnotherThreadDuringScope() {
    for shape in 0..<3 {
      for cancellable in [false, true] {
        let kept = Bag()
        let fired = Counter()
        let released = Counter()
        let transients = Transients()
        transients.bags = [Bag()]
        let references = WeakReferences()
        references.add(transients.bags[0])
        do {
          let marker = ReleaseMarker { released.increment() }
          let read = {
            // Reads the transient object through a reference dropped before the other thread
            // releases the last one.
            guard readTransient(transients, fields: shape == 2 ? 12 : 1, references: references) else { return }
            // Another thread releases the transient object while this scope still runs: its
            // table tells this scope's observer, which has not adopted its dependencies yet.
            let gone = DispatchSemaphore(value: 0)
            Thread {
              _ = transients.take(0)
              gone.signal()
            }.start()
            gone.wait()
            #expect(fired.value == 0)
            if shape >= 1 { for field in 0..<(shape == 2 ? 12 : 1) { kept.read(field) } }
          }
          if cancellable {
            let (_, observation) = withCancellableTracking(read) {
              _ = marker
              fired.increment()
            }
            #expect(!observation.isActive)
          } else {
            withTracking(read) {
              _ = marker
              fired.increment()
            }
          }
        }
        #expect(fired.value == 1, "shape \(shape), cancellable \(cancellable)")
        #expect(released.value == 1)
        #expect(kept.registrar.observerEntryCount == 0)
        kept.write(0)
        #expect(fired.value == 1)
        #expect(references.alive == 0, "shape \(shape), cancellable \(cancellable)")
      }
    }
  }

  private func readTransient(_ transients: Transients, fields: Int, references: WeakReferences) -> Bool {
    guard let transient = transients.lock.withLock({ _ in transients.bags[0] }) else { return false }
    for field in 0..<fields { transient.read(field) }
    references.add(transient.table)
    return true
  }

  @Test(
    "the last copy of a value the scope read goes away on another thread while the scope runs: not a change; once every registrar the scope read is gone the observation ends, its closure released"
  )
  func valueGoneOnAnotherThreadDuringScope() {
    final class ValueBox: @unchecked Sendable {
      let lock = Mutex(())
      var child: Child? = Child(count: 1)
    }
    for alsoReadsObject in [false, true] {
      let box = ValueBox()
      let kept = Bag()
      let fired = Counter()
      let released = Counter()
      do {
        let (_, observation) = withCancellableTracking {
          _ = box.lock.withLock { _ in box.child?.count }
          if alsoReadsObject { kept.read(0) }
          let gone = DispatchSemaphore(value: 0)
          Thread {
            box.lock.withLock { _ in box.child = nil }
            gone.signal()
          }.start()
          gone.wait()
        } onChange: { [marker = ReleaseMarker { released.increment() }] in
          // Only this closure holds the marker: released when the observation is spent.
          _ = marker
          fired.increment()
        }
        #expect(fired.value == 0)
        #expect(observation.isActive == alsoReadsObject)
        #expect(released.value == (alsoReadsObject ? 0 : 1))
        if alsoReadsObject {
          kept.write(0)
          #expect(fired.value == 1)
          #expect(!observation.isActive)
          #expect(released.value == 1)
        }
      }
      #expect(released.value == 1)
      #expect(kept.registrar.observerEntryCount == 0)
    }
  }

  // MARK: Scopes that throw, read nothing, or write what they read

  @Test(
    "a scope that throws after reading 1 or many fields stays installed and fires once; one that throws before reading, or reads nothing, installs nothing and releases its closure at once"
  )
  func throwingAndEmptyScopes() throws {
    for fieldCount in [0, 1, 2, 12] {
      for cancellable in [false, true] {
        let bag = Bag()
        let fired = Counter()
        let released = Counter()
        do {
          let marker = ReleaseMarker { released.increment() }
          let onChange: @Sendable () -> Void = {
            _ = marker
            fired.increment()
          }
          #expect(throws: ReviewError.self) {
            if cancellable {
              _ = try withCancellableTracking(
                {
                  for field in 0..<fieldCount { bag.read(field) }
                  throw ReviewError()
                }, onChange: onChange)
            } else {
              try withTracking(
                {
                  for field in 0..<fieldCount { bag.read(field) }
                  throw ReviewError()
                }, onChange: onChange)
            }
          }
        }
        #expect(bag.registrar.observerEntryCount == fieldCount)
        #expect(released.value == (fieldCount == 0 ? 1 : 0))
        for field in 0..<max(fieldCount, 1) { bag.write(field) }
        #expect(fired.value == (fieldCount == 0 ? 0 : 1), "\(fieldCount) fields, cancellable \(cancellable)")
        #expect(bag.registrar.observerEntryCount == 0)
        #expect(released.value == 1)
        bag.table?._checkInvariants()
      }
    }
    // Reads nothing: nothing installed, the closure released as the call returns.
    let released = Counter()
    do {
      let marker = ReleaseMarker { released.increment() }
      let (_, observation) = withCancellableTracking {
      } onChange: {
        _ = marker
      }
      #expect(!observation.isActive)
      #expect(observation.accesses.isEmpty)
      withTracking {
      } onChange: {
        _ = marker
      }
    }
    #expect(released.value == 1)
  }

  @Test(
    "onChange writes fields its own scope and other scopes read (re-entrant): each scope fires exactly once, for scopes of 1, 2 and many fields"
  )
  func reentrantWrites() {
    for fieldCount in [1, 2, 12] {
      let bag = Bag()
      let counters = (0..<4).map { _ in Counter() }
      for index in 0..<4 {
        withTracking {
          for field in 0..<fieldCount { bag.read(field) }
        } onChange: {
          counters[index].increment()
          // Writes every field the scopes read, its own included, from inside the notification.
          for field in 0..<fieldCount { bag.write(field) }
        }
      }
      bag.write(fieldCount - 1)
      #expect(counters.map(\.value) == [1, 1, 1, 1], "\(fieldCount) fields")
      #expect(bag.registrar.observerEntryCount == 0)
      bag.table?._checkInvariants()
    }
  }

  @Test(
    "withCancellableTracking keeps what it read after firing and after cancelling, and the handle alone keeps nothing installed"
  )
  func cancellableKeepsDependencies() {
    for fieldCount in [1, 3, 12] {
      let bag = Bag()
      let (_, fired) = withCancellableTracking {
        for field in 0..<fieldCount { bag.read(field) }
      } onChange: {
      }
      let (_, cancelled) = withCancellableTracking {
        for field in 0..<fieldCount { bag.read(field) }
      } onChange: {
      }
      #expect(bag.registrar.observerEntryCount == 2 * fieldCount)
      cancelled.cancel()
      cancelled.cancel()
      bag.write(fieldCount - 1)
      #expect(!fired.isActive && !cancelled.isActive)
      fired.cancel()
      #expect(fired.accesses.count == fieldCount)
      #expect(cancelled.accesses.count == fieldCount)
      #expect(bag.registrar.observerEntryCount == 0)
    }
  }

  // MARK: The epoch

  @Test(
    "the table's 32-bit epoch wrapping: a ticket is never 0, and a reader that starts depending on a field across the wrap is noticed"
  )
  func epochWraps() throws {
    let bag = Bag()
    let (_, first) = withCancellableTracking {
      bag.read(0)
    } onChange: {
    }
    let table = try #require(bag.table)
    for start in [UInt32.max - 1, UInt32.max, 0] {
      table.epoch.store(start, ordering: .relaxed)
      let ticket = bag.registrar._writeTicket
      #expect(ticket != 0 && ticket == UInt64(start) | 1 << 32)
      #expect(!bag.registrar._readersMayHaveMissed(since: ticket))
      // A new reader (a link) moves the epoch, across the wrap for the first two starts.
      let (_, second) = withCancellableTracking {
        bag.read(1)
      } onChange: {
      }
      #expect(bag.registrar._readersMayHaveMissed(since: ticket))
      #expect(bag.registrar._writeTicket != 0)
      second.cancel()
    }
    first.cancel()
    #expect(bag.registrar._writeTicket == 0)
  }

  @Test(
    "one object's fields from a large space (hundreds), observed, abandoned and observed again at random, a few kept throughout: each write fires exactly the scopes installed on its field, and the table holds its invariants after every step"
  )
  func manyFieldsComingAndGoing() throws {
    let space = 300
    let fields = (0..<space).map { InternalField(1_000 + $0, name: "n\($0)", owner: Bag.self) }
    for seed in 0..<RandomTestBudget.scaled(12) {
      var random = SplitMix64(state: UInt64(seed) &* 7_919 &+ 3)
      let registrar = TrackingRegistrar()
      var scopes: [(fields: Set<Int>, installed: Bool, counter: Counter, observation: TrackingObservation)] = []
      var expectedFired: [Int] = []
      func observe(_ read: [Int]) {
        let counter = Counter()
        let observation = withCancellableTracking {
          for field in read { registrar.access(fields[field]) }
        } onChange: {
          counter.increment()
        }.observation
        scopes.append((Set(read), true, counter, observation))
        expectedFired.append(0)
      }
      // Kept throughout: the first slot and a few others stay in use.
      for field in [0, 1, 2, 3] { observe([field]) }
      // Fields drawn mostly from a window that moves on (ever-new fields), sometimes from the
      // whole space (fields coming back).
      for step in 0..<1_500 {
        let window = 4 + (step / 5) % (space - 24)
        func field() -> Int { random.int(4) == 0 ? 4 + random.int(space - 4) : window + random.int(20) }
        switch random.int(10) {
        case 0..<5:
          observe((0..<[1, 1, 2, 5][random.int(4)]).map { _ in field() })
        case 5..<8:
          // Cancels a recent scope (never one of the four kept).
          guard scopes.count > 4 else { break }
          let index = max(4, scopes.count - 1 - random.int(min(30, scopes.count - 4)))
          scopes[index].observation.cancel()
          scopes[index].installed = false
        default:
          let written = field()
          registrar.notifyChange(of: fields[written])
          for index in scopes.indices where scopes[index].installed && scopes[index].fields.contains(written) {
            scopes[index].installed = false
            expectedFired[index] = 1
          }
        }
        let table = try #require(registrar.existingTable)
        table._checkInvariants()
        let installed = scopes.filter(\.installed).reduce(0) { $0 + $1.fields.count }
        #expect(table.count == installed, "seed \(seed) step \(step)")
      }
      for (index, scope) in scopes.enumerated() {
        #expect(scope.counter.value == expectedFired[index], "seed \(seed): scope \(index)")
        #expect(scope.observation.isActive == scope.installed)
      }
      // Every field written: every scope still installed fires, once.
      for field in 0..<space { registrar.notifyChange(of: fields[field]) }
      #expect(scopes.allSatisfy { !$0.observation.isActive })
      #expect(registrar.observerEntryCount == 0)
      registrar.existingTable?._checkInvariants()
    }
  }

  // MARK: Memory

  @Test(
    "ever-new fields of one long-lived object, each observed once and abandoned (a store's identity field is numbered per store, and every store ever made over copies of one state records its own in the state's table): the table's memory stays flat"
  )
  func everNewFieldsOnOneObject() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let bag = Bag()
      // The first slot stays taken: every new field goes to the slots after it.
      let (_, kept) = withCancellableTracking {
        bag.read(0)
      } onChange: {
      }
      let identity = InternalField(0, name: "state", owner: Bag.self)
      var report = measureHeapGrowth(warmup: 2_000, cycles: RandomTestBudget.underSanitizer(40_000)) { step in
        let (_, observation) = withCancellableTracking {
          bag.registrar.access(identity.numbered(100 + step))
        } onChange: {
        }
        observation.cancel()
      }
      report["entries"] = bag.registrar.observerEntryCount
      kept.cancel()
      report.print()
    }
    for problem in heapGrowthProblems(
      output: result?.standardOutputContent, bytesPerCycle: 4, expecting: ["entries": 1])
    {
      Issue.record(Comment(rawValue: problem))
    }
  }
}
