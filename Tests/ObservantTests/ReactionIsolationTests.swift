import Dispatch
import ObservantTestSupport
import Synchronization
import Testing

@testable import Observant

/// Makes reactions from a nonisolated helper: `#isolation` is `nil` inside it, whoever calls it.
private enum NonisolatedFactory {
  nonisolated static func make(_ body: @escaping () -> Void) -> Reaction {
    Reaction("r", ownedByParent: false, body)
  }

  nonisolated static func makeScheduled(_ body: @escaping () -> Void) -> Reaction {
    Reaction("scheduled", ownedByParent: false, scheduling: .mainActor, body)
  }
}

/// An actor owning reactions whose bodies record where they ran.
private actor Worker {
  let profile: Profile
  private(set) var reaction: Reaction?
  /// For each run of the reaction's body: whether it ran on this actor.
  let onWorker = Shared<[Bool]>([])
  /// For each run of the reaction's body: whether it ran on the main actor.
  let onMain = Shared<[Bool]>([])

  init(profile: Profile) {
    self.profile = profile
  }

  /// A reaction created here: it belongs to this actor.
  func start(scheduling: ReactionScheduling = .synchronous) {
    let profile = self.profile
    reaction = Reaction("worker", ownedByParent: false, scheduling: scheduling) { [onWorker, onMain] in
      _ = profile.count
      let here = ThreadLocal.isOnExecutor(of: self)
      onWorker.value.append(here)
      let main = ThreadLocal.isOnMainActor
      onMain.value.append(main)
    }
  }

  /// Writes what the reaction read, on this actor, and returns its run count right after.
  func writeAndCountRuns(_ value: Int) -> Int {
    profile.count = value
    return reaction?.runCount ?? -1
  }

  var runCount: Int { reaction?.runCount ?? -1 }

  func stop() {
    reaction?.cancel()
  }
}

/// An actor whose reaction creates a child reaction on each run (both belong to the actor), and
/// that can be held busy while other threads make changes, so that several hand-offs wait for it.
/// Its jobs run on a dispatch queue of their own: holding it blocks that queue's thread, not one of
/// the cooperative pool's (two threads here), which other tests' tasks need (a held pool thread
/// and another test waiting synchronously for the pool stalled every task for minutes).
private actor Family {
  let profile: Profile
  let log = Shared<[String]>([])
  private var parent: Reaction?
  private let executor = HAQueueExecutor()
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  init(profile: Profile) {
    self.profile = profile
  }

  func start() {
    let profile = self.profile
    parent = Reaction("parent", ownedByParent: false) { [log, unowned self] in
      let count = profile.count
      log.value.append("parent")
      // The body is not isolated to the actor: the child is given it.
      _ = Reaction("child", isolation: self) { log.value.append("child \(profile.first) \(count)") }
    }
  }

  /// Keeps the actor busy until `gate` is signalled (at most `safetyNetSeconds`), after setting `entered`.
  func hold(until gate: DispatchSemaphore, entered: Shared<Bool>) {
    entered.value = true
    _ = gate.wait(timeout: .now() + .seconds(safetyNetSeconds))
  }

  func stop() {
    parent?.cancel()
  }
}

/// Waits until `condition` holds, letting the main actor run what was handed to it (the suite's
/// time limit stops a wait that never ends).
@MainActor
private func eventually(_ condition: () -> Bool) async {
  while !condition() {
    await nextMainActorTurn()
    try? await Task.sleep(for: .milliseconds(1))
  }
}

/// Waits until the worker's reaction ran `runs` times (its re-runs are handed to an actor).
private func waitForRuns(_ runs: Int, of worker: Worker) async {
  while await worker.runCount < runs { try? await Task.sleep(for: .milliseconds(1)) }
}

/// The isolation a reaction belongs to, where it re-runs, and where `.mainActor` re-runs go
/// (issue 10, item 3; issue 14, scheduled reactions).
@Suite("Reaction isolation", .timeLimit(.minutes(10)))
struct ReactionIsolationTests {
  @Test(
    "a reaction created by a nonisolated helper called on the main actor belongs to the main actor: a write on another thread re-runs it there"
  )
  @MainActor func nonisolatedHelperOnMainActor() async {
    let profile = Profile()
    let offMain = Counter()
    let shown = Shared(-1)
    let reaction = NonisolatedFactory.make {
      if !ThreadLocal.isOnMainActor { offMain.increment() }
      shown.value = profile.count
    }
    #expect(reaction.runCount == 1)
    await Task.detached { profile.count = 3 }.value
    await eventually { shown.value == 3 }
    #expect(shown.value == 3)
    #expect(offMain.value == 0)
    #expect(reaction.runCount == 2)
    profile.count = 4  // a write on the main actor: re-runs at once, here
    #expect(reaction.runCount == 3)
    #expect(offMain.value == 0)
    reaction.cancel()
  }

  @Test("a reaction created by a nonisolated helper off every actor re-runs on the writing thread, synchronously")
  func nonisolatedHelperOffActors() async {
    let profile = Profile()
    let runs = Counter()
    let reaction = await Task.detached {
      NonisolatedFactory.make {
        _ = profile.count
        runs.increment()
      }
    }.value
    let runsAfterWrite = await Task.detached {
      profile.count = 1
      return runs.value
    }.value
    #expect(runsAfterWrite == 2)  // ran on the writing thread, before the write returned
    reaction.cancel()
  }

  @Test("a reaction of a custom actor re-runs synchronously when the write happens on that actor")
  func customActorWriteOnTheActor() async {
    let worker = Worker(profile: Profile())
    await worker.start()
    #expect(await worker.runCount == 1)
    #expect(await worker.writeAndCountRuns(1) == 2)  // not handed off: already on the actor
    #expect(await worker.writeAndCountRuns(2) == 3)
    #expect(worker.onWorker.value == [true, true, true])
    await worker.stop()
  }

  @Test("a reaction of a custom actor hands a write made elsewhere to the actor")
  func customActorWriteElsewhere() async {
    let profile = Profile()
    let worker = Worker(profile: profile)
    await worker.start()
    await Task.detached { profile.count = 1 }.value
    await waitForRuns(2, of: worker)
    #expect(await worker.runCount == 2)
    #expect(worker.onWorker.value == [true, true])
    await worker.stop()
  }

  @Test("an actor that keeps its reaction is released with it: the reaction does not keep its actor alive")
  func actorKeepingItsReaction() async {
    final class Released: Sendable {
      private let flag = Atomic<Bool>(false)
      var value: Bool { flag.load(ordering: .relaxed) }
      func set() { flag.store(true, ordering: .relaxed) }
    }
    actor Owner {
      let released: Released
      private var reaction: Reaction?
      init(released: Released) { self.released = released }
      deinit { released.set() }
      func start(reading profile: Profile) {
        reaction = Reaction("owned", ownedByParent: false) { _ = profile.count }
      }
    }
    let profile = Profile()
    let released = Released()
    var owner: Owner? = Owner(released: released)
    await owner?.start(reading: profile)
    #expect(profile.trackingRegistrar.observerEntryCount == 1)
    owner = nil
    // Bounded by time (a loaded machine under a sanitizer may need more than a second).
    let start = ContinuousClock.now
    while !released.value && ContinuousClock.now - start < .seconds(60) {
      try? await Task.sleep(for: .milliseconds(1))
    }
    #expect(released.value)
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
    profile.count = 1  // nothing left to run
  }

  @Test(
    "a .mainActor reaction created inside an actor method re-runs on the main actor, not on that actor"
  )
  func scheduledFromActor() async {
    let profile = Profile()
    let worker = Worker(profile: profile)
    await worker.start(scheduling: .mainActor)
    await Task.detached { profile.count = 1 }.value
    await waitForRuns(2, of: worker)
    #expect(await worker.runCount == 2)
    #expect(worker.onMain.value == [false, true])  // created on the worker; re-run on the main actor
    _ = await worker.writeAndCountRuns(2)  // a write on the worker: handed to the main actor too
    await waitForRuns(3, of: worker)
    #expect(worker.onMain.value == [false, true, true])
    await worker.stop()
  }

  @Test(
    "runs handed to an actor by several transactions run in creation order on it: a parent before its child, the child once"
  )
  func handedOffToAnActorInCreationOrder() async {
    let profile = Profile()
    let family = Family(profile: profile)
    await family.start()
    family.log.value = []
    let gate = DispatchSemaphore(value: 0)
    let entered = Shared(false)
    let holder = Task { await family.hold(until: gate, entered: entered) }
    #expect(await waitUntil { entered.value })
    // Off the actor, while it is busy: the child is dirtied first, then its parent.
    profile.first = "Grace"
    profile.count = 1
    gate.signal()
    await holder.value
    #expect(await waitUntil { family.log.value.count >= 2 })
    await family.stop()
    #expect(family.log.value == ["parent", "child Grace 1"])
  }

  @Test("a .mainActor reaction created by a nonisolated helper on the main actor re-runs on the main actor")
  @MainActor func scheduledFromNonisolatedHelper() async {
    let profile = Profile()
    let offMain = Counter()
    let reaction = NonisolatedFactory.makeScheduled {
      _ = profile.count
      if !ThreadLocal.isOnMainActor { offMain.increment() }
    }
    await Task.detached { profile.count = 1 }.value
    await eventually { reaction.runCount == 2 }
    #expect(reaction.runCount == 2)
    #expect(offMain.value == 0)
    reaction.cancel()
  }
}
