import Dispatch
import Observant
import ObservantTestSupport
import Synchronization
import Testing

// Hunt 5: `Reaction.invalidate()`, whose doc comment promises: "Schedules a re-run as if something
// the body read had changed: when the current transaction on this thread ends, or right away if
// there is none. Within a flush it runs in creation order like any dirty reaction. Does nothing
// once cancelled." And the loop rule of ReactionsAndTransactions.md: "Writes made by reactions
// while they re-run start another round. A loop that never settles stops after
// Reaction/maximumFlushRounds rounds". Written against the documentation only.

private final class H5IModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var a = 0
  @Tracked var b = 0
}

private final class H5ILines: Sendable {
  private let storage = Mutex<[String]>([])
  func append(_ line: String) { storage.withLock { $0.append(line) } }
  var lines: [String] { storage.withLock { $0 } }
}

private final class H5IRef<T>: @unchecked Sendable {
  var value: T
  init(_ value: T) { self.value = value }
}

private final class H5IDiagnostics: Sendable {
  private let storage = Mutex<[ReactionDiagnostic]>([])
  func append(_ d: ReactionDiagnostic) { storage.withLock { $0.append(d) } }
  var all: [ReactionDiagnostic] { storage.withLock { $0 } }
}

@Suite("Hunt 5: Reaction.invalidate()")
struct Hunt5InvalidateTests {
  @Test("invalidate twice in one transaction, and together with a write it read: one run")
  func coalescedInTransaction() {
    let m = H5IModel()
    let r = Reaction("r") { _ = m.a }
    transaction {
      r.invalidate()
      r.invalidate()
      m.a = 1
      r.invalidate()
    }
    #expect(r.runCount == 2)
    r.cancel()
  }

  @Test("invalidate on a cancelled reaction does nothing; on a reaction that reads nothing, it runs again")
  func cancelledAndEmpty() {
    var runs = 0
    let empty = Reaction("empty") { runs += 1 }
    empty.invalidate()
    #expect(runs == 2)
    empty.cancel()
    empty.invalidate()
    transaction { empty.invalidate() }
    #expect(runs == 2)
  }

  @Test("a reaction invalidating itself in its body the first two runs: runs three times, then settles")
  func selfInvalidateBounded() {
    let holder = H5IRef<Reaction?>(nil)
    var runs = 0
    holder.value = Reaction("self", ownedByParent: false) {
      runs += 1
      if runs < 3 { holder.value?.invalidate() }
    }
    // The first run happens in the initializer, before `holder.value` is set: it cannot invalidate.
    #expect(runs == 1)
    holder.value?.invalidate()
    #expect(runs == 3)  // the invalidation, then one more run invalidated by its body
    holder.value?.cancel()
    holder.value = nil
  }

  @Test(
    "a reaction invalidating itself on every run is stopped after maximumFlushRounds rounds, reported as runawayFlush")
  func selfInvalidateRunaway() {
    let holder = H5IRef<Reaction?>(nil)
    var runs = 0
    let diagnostics = H5IDiagnostics()
    Reaction.$maximumFlushRounds.withValue(5) {
      Reaction.withDiagnosticHandler({ diagnostics.append($0) }) {
        holder.value = Reaction("spinner", ownedByParent: false) {
          runs += 1
          holder.value?.invalidate()
        }
        holder.value?.invalidate()
      }
    }
    #expect(diagnostics.all.count == 1)
    #expect(diagnostics.all.first?.kind == .runawayFlush)
    #expect(diagnostics.all.first?.reactionNames == ["spinner"])
    #expect(runs <= 1 + 5 + 1)
    #expect(runs >= 1 + 5)
    #expect(holder.value?.isCancelled == false)
    holder.value?.cancel()
    holder.value = nil
  }

  @Test("an earlier reaction invalidates a later one dirtied by the same write: the later one runs once")
  func earlierInvalidatesLaterDirty() {
    let m = H5IModel()
    let later = H5IRef<Reaction?>(nil)
    let order = H5ILines()
    let earlier = Reaction("earlier", ownedByParent: false) {
      order.append("earlier \(m.a)")
      later.value?.invalidate()
    }
    later.value = Reaction("later", ownedByParent: false) { order.append("later \(m.a)") }
    m.a = 1
    #expect(order.lines == ["earlier 0", "later 0", "earlier 1", "later 1"])
    earlier.cancel()
    later.value?.cancel()
  }

  @Test("a later reaction invalidates an earlier one that already ran in this flush: it runs again in the next round")
  func laterInvalidatesEarlier() {
    let m = H5IModel()
    let order = H5ILines()
    let earlier = Reaction("earlier", ownedByParent: false) { order.append("earlier \(m.a)") }
    let later = Reaction("later", ownedByParent: false) {
      order.append("later \(m.a)")
      if m.a == 1 { earlier.invalidate() }
    }
    m.a = 1
    #expect(order.lines == ["earlier 0", "later 0", "earlier 1", "later 1", "earlier 1"])
    earlier.cancel()
    later.cancel()
  }

  @Test("a child invalidated in the same flush as its parent's re-run that disposes of it does not run")
  func invalidatedChildDisposedByParent() {
    let m = H5IModel()
    let children = H5IRef<[Reaction]>([])
    let childRuns = H5IRef(0)
    let parent = Reaction("parent", ownedByParent: false) {
      _ = m.a
      children.value.append(Reaction("child") { childRuns.value += 1 })
    }
    #expect(childRuns.value == 1)
    let first = children.value[0]
    transaction {
      first.invalidate()
      m.a = 1
    }
    // The parent ran first and cancelled `first`; the new child ran once, at creation.
    #expect(first.isCancelled)
    #expect(first.runCount == 1)
    #expect(childRuns.value == 2)
    parent.cancel()
  }

  // Reaction's doc: "Main actor. A re-run happens only on the main actor. A transaction that ends
  // on the main actor re-runs it there, synchronously; one that ends on another thread ... hands
  // the re-run to the main actor's next turn." invalidate(): "Schedules a re-run as if something
  // the body read had changed".
  @MainActor
  @Test(
    "invalidate from another thread on a main-actor reaction re-runs it on the main actor, not on the caller's thread")
  func invalidateFromAnotherThreadOnMainActorReaction() async {
    let onMain = H5IRef<[Bool]>([])
    let r = Reaction("main") { onMain.value.append(haIsOnMainQueue()) }
    let handle = r
    await Task.detached { handle.invalidate() }.value
    #expect(await waitUntil { r.runCount >= 2 })
    #expect(onMain.value == [true, true])
    r.cancel()
  }

  @MainActor
  @Test("for comparison: a write from another thread hands the main-actor reaction's re-run to the main actor")
  func writeFromAnotherThreadOnMainActorReaction() async {
    let m = H5IModel()
    let onMain = H5IRef<[Bool]>([])
    let r = Reaction("main") {
      _ = m.a
      onMain.value.append(haIsOnMainQueue())
    }
    await Task.detached { m.a = 1 }.value
    #expect(await waitUntil { r.runCount >= 2 })
    #expect(onMain.value == [true, true])
    r.cancel()
  }

  @MainActor
  @Test("two invalidations from another thread while the main actor is busy: coalesced into one run on the main actor")
  func invalidationsFromAnotherThreadCoalesce() async {
    let onMain = H5IRef<[Bool]>([])
    let r = Reaction("main") { onMain.value.append(haIsOnMainQueue()) }
    let handle = r
    // The main actor is held (a blocking wait) while another thread invalidates twice: both
    // hand-offs land before the main actor's next turn and are coalesced. (Not `sync`, which may
    // run the block on the calling thread, inside the main actor's job.)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      handle.invalidate()
      handle.invalidate()
      done.signal()
    }
    done.wait()
    #expect(r.runCount == 1)  // not run on the invalidating thread
    #expect(await waitUntil { r.runCount >= 2 })
    await Task.yield()
    await Task.yield()
    #expect(r.runCount == 2)
    #expect(onMain.value == [true, true])
    r.cancel()
  }

  @MainActor @Test("invalidate from another thread on a .mainActor-scheduled reaction re-runs it on the main actor")
  func invalidateFromAnotherThreadOnScheduledReaction() async {
    let onMain = H5IRef<[Bool]>([])
    let r = Reaction("scheduled", scheduling: .mainActor) { onMain.value.append(haIsOnMainQueue()) }
    let handle = r
    await Task.detached { handle.invalidate() }.value
    #expect(await waitUntil { r.runCount >= 2 })
    #expect(onMain.value == [true, true])
    r.cancel()
  }

  @Test("invalidate from outside a custom actor on the actor's reaction re-runs it on the actor")
  func invalidateFromOutsideOnActorReaction() async {
    let actor = HAQueueActor()
    let counters = HACounters()
    let model = HAModel()
    let r = await actor.makeReaction(model: model, counters: counters)
    r.invalidate()  // from this test's (nonisolated) task, not the actor
    #expect(await waitUntil { r.runCount >= 2 })
    #expect(counters.offIsolation.load(ordering: .relaxed) == 0)
    r.cancel()
  }

  @MainActor @Test(".mainActor reaction: invalidate defers the run to the next turn, once however often it is called")
  func invalidateScheduled() async {
    var runs = 0
    let r = Reaction("scheduled", scheduling: .mainActor) { runs += 1 }
    r.invalidate()
    r.invalidate()
    #expect(runs == 1)
    #expect(await waitUntil { runs >= 2 })
    await Task.yield()
    await Task.yield()
    #expect(runs == 2)
    r.cancel()
  }
}
