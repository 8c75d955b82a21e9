import Dispatch
import Foundation
import Observant
import Synchronization
import Testing

/// A model for reactions: a few fields and a switch.
final class Panel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var first = "Ada"
  @Tracked var last = "Lovelace"
  @Tracked var count = 0
  @Tracked var showsCount = true
  @Tracked var ratio = 0.0
}

/// Collects the order in which reaction bodies ran.
final class RunLog: @unchecked Sendable {
  private let entries = Mutex<[String]>([])
  func append(_ name: String) { entries.withLock { $0.append(name) } }
  var all: [String] { entries.withLock { $0 } }
  func clear() { entries.withLock { $0.removeAll() } }
}

@Suite("Reactions and transactions")
struct ReactionTests {
  @Test("a reaction runs once at creation and records what it read")
  func runsAtCreation() {
    let panel = Panel()
    let reaction = Reaction("Header") { _ = panel.first + panel.last }
    #expect(reaction.runCount == 1)
    #expect(reaction.lastAccessLog.fields == ["Panel.first", "Panel.last"])
  }

  @Test("a write outside any transaction is its own transaction: one re-run per write")
  func implicitTransactions() {
    let panel = Panel()
    let reaction = Reaction { _ = panel.count }
    panel.count = 1
    panel.count = 2
    #expect(reaction.runCount == 3)
  }

  @Test("several writes to one field in a transaction re-run a dependent once")
  func batchingOneField() {
    let panel = Panel()
    let reaction = Reaction { _ = panel.count }
    transaction {
      for value in 1...10 { panel.count = value }
    }
    #expect(reaction.runCount == 2)
  }

  @Test("writes to several fields in a transaction re-run a dependent once")
  func batchingSeveralFields() {
    let panel = Panel()
    let reaction = Reaction { _ = (panel.first, panel.last, panel.count) }
    transaction {
      panel.first = "Augusta"
      panel.last = "King"
      panel.count += 1
    }
    #expect(reaction.runCount == 2)
  }

  @Test("nested transactions flush once, at the end of the outermost")
  func nestedTransactions() {
    let panel = Panel()
    let reaction = Reaction { _ = (panel.first, panel.count) }
    transaction {
      panel.first = "A"
      transaction { panel.count = 1 }
      #expect(reaction.runCount == 1)  // the inner end does not flush
      panel.count = 2
    }
    #expect(reaction.runCount == 2)
  }

  @Test("no reaction sees a half-applied transaction")
  func noGlitches() {
    let panel = Panel()
    let seen = Mutex<[String]>([])
    let reaction = Reaction { seen.withLock { $0.append("\(panel.first) \(panel.last)") } }
    transaction {
      panel.first = "Augusta"
      panel.last = "King"
    }
    #expect(seen.withLock { $0 } == ["Ada Lovelace", "Augusta King"])
    withExtendedLifetime(reaction) {}
  }

  @Test("an equal write re-runs nothing")
  func equalWrites() {
    let panel = Panel()
    let reaction = Reaction { _ = (panel.first, panel.count) }
    panel.first = "Ada"
    panel.count = 0
    panel.count += 0
    #expect(reaction.runCount == 1)
  }

  @Test("a write set back before the transaction ends re-runs nothing")
  func revertedWrites() {
    let panel = Panel()
    var parent = Parent()
    let reaction = Reaction { _ = (panel.first, panel.count, parent.title, parent.score) }
    transaction {
      panel.first = "Augusta"
      panel.count += 1
      parent.title = "Changed"
      parent.score += 5
      panel.first = "Ada"
      panel.count -= 1
      parent.title = "Parent"
      parent.score -= 5
    }
    #expect(reaction.runCount == 1)
  }

  @Test("a reaction created mid-transaction that saw an intermediate value re-runs when it is set back")
  func intermediateValueIsNotReverted() {
    let panel = Panel()
    let seen = Mutex<[Int]>([])
    var late: Reaction?
    transaction {
      panel.count = 5
      late = Reaction { seen.withLock { $0.append(panel.count) } }
      panel.count = 0
    }
    #expect(seen.withLock { $0 } == [5, 0])
    #expect(late?.runCount == 2)
  }

  @Test("switching a condition drops the branch no longer taken")
  func dynamicDependencies() {
    let panel = Panel()
    let reaction = Reaction {
      if panel.showsCount { _ = panel.count } else { _ = panel.first }
    }
    panel.first = "ignored while the count shows"
    #expect(reaction.runCount == 1)
    panel.showsCount = false
    #expect(reaction.runCount == 2)
    #expect(reaction.lastAccessLog.fields == ["Panel.showsCount", "Panel.first"])
    panel.count = 99  // the old branch no longer triggers
    #expect(reaction.runCount == 2)
    panel.first = "Augusta"
    #expect(reaction.runCount == 3)
  }

  @Test("two reactions with overlapping dynamic dependencies each re-run only for their own reads")
  func overlappingDynamicDependencies() {
    let panel = Panel()
    let names = Reaction {
      _ = panel.showsCount ? panel.count : 0; _ = panel.first
    }
    let counts = Reaction {
      _ = panel.count; if !panel.showsCount { _ = panel.last }
    }
    panel.count = 1  // both read count
    #expect((names.runCount, counts.runCount) == (2, 2))
    panel.last = "King"  // nobody reads last yet
    #expect((names.runCount, counts.runCount) == (2, 2))
    panel.showsCount = false  // names drops count, counts starts reading last
    #expect((names.runCount, counts.runCount) == (3, 3))
    panel.count = 2  // only counts still reads count
    #expect((names.runCount, counts.runCount) == (3, 4))
    panel.last = "Byron"  // only counts reads last now
    #expect((names.runCount, counts.runCount) == (3, 5))
    panel.first = "Augusta"  // only names reads first
    #expect((names.runCount, counts.runCount) == (4, 5))
  }

  @Test(
    "a child's write re-runs only the child; a parent re-run replaces the child, and the old child never runs again")
  func nestedReactions() {
    let panel = Panel()
    let log = RunLog()
    var children: [Reaction] = []
    let parent = Reaction("Parent") {
      log.append("Parent")
      _ = panel.first
      children.append(
        Reaction("Child") {
          log.append("Child")
          _ = panel.count
        })
    }
    #expect(log.all == ["Parent", "Child"])
    log.clear()

    panel.count = 1  // only the child reads count: the parent's reads do not include it
    #expect(log.all == ["Child"])
    #expect(!parent.lastAccessLog.contains("Panel.count"))
    log.clear()

    panel.first = "Augusta"  // the parent re-runs and creates a new child
    #expect(log.all == ["Parent", "Child"])
    #expect(children.count == 2)
    #expect(children[0].isCancelled)
    log.clear()

    panel.count = 2  // the old child never runs again; the new one does
    #expect(log.all == ["Child"])
    #expect(children[0].runCount == 2)
    #expect(children[1].runCount == 2)
  }

  @Test("a parent dirtied with its child runs first, and the child it replaces never runs")
  func parentBeforeChild() {
    let panel = Panel()
    let log = RunLog()
    var children: [Reaction] = []
    let parent = Reaction("Parent") {
      log.append("Parent")
      _ = panel.first
      children.append(
        Reaction("Child") {
          log.append("Child")
          _ = panel.count
        })
    }
    log.clear()
    transaction {
      panel.count = 1  // dirties the child
      panel.first = "Augusta"  // dirties the parent, which replaces the child
    }
    #expect(log.all == ["Parent", "Child"])  // the new child at creation; the old one skipped
    #expect(children[0].runCount == 1)
    withExtendedLifetime(parent) {}
  }

  @Test("dirty reactions run in creation order")
  func creationOrder() {
    let panel = Panel()
    let log = RunLog()
    let reactions = ["A", "B", "C"].map { name in
      Reaction(name) {
        log.append(name); _ = panel.count
      }
    }
    log.clear()
    panel.count = 1
    #expect(log.all == ["A", "B", "C"])
    withExtendedLifetime(reactions) {}
  }

  @Test("a cancelled reaction never runs, and releases its observer entries")
  func cancelled() {
    let panel = Panel()
    let reaction = Reaction { _ = (panel.first, panel.count) }
    #expect(panel.trackingRegistrar.observerEntryCount == 2)
    reaction.cancel()
    #expect(panel.trackingRegistrar.observerEntryCount == 0)
    panel.count = 1
    #expect(reaction.runCount == 1)
    #expect(reaction.isCancelled)
  }

  @Test("a reaction cancelled inside a pending batch does not run")
  func cancelledInsidePendingBatch() {
    let panel = Panel()
    let reaction = Reaction { _ = panel.count }
    transaction {
      panel.count = 1
      reaction.cancel()
    }
    #expect(reaction.runCount == 1)
  }

  @Test("a reaction cancelled by an earlier reaction in the same flush does not run")
  func cancelledByEarlierReaction() {
    let panel = Panel()
    let victim = Mutex<Reaction?>(nil)
    let killer = Reaction("killer") {
      if panel.count > 0 { victim.withLock { $0?.cancel() } }
    }
    let target = Reaction("victim") { _ = panel.count }
    victim.withLock { $0 = target }
    panel.count = 1
    #expect(killer.runCount == 2)
    #expect(target.runCount == 1)
  }

  @Test("a reaction that cancels itself mid-run finishes that run and never runs again")
  func cancelledByItself() {
    let panel = Panel()
    let handle = Mutex<Reaction?>(nil)
    let reaction = Reaction {
      _ = panel.count
      if panel.count == 1 { handle.withLock { $0?.cancel() } }
    }
    handle.withLock { $0 = reaction }
    panel.count = 1
    #expect(reaction.runCount == 2)
    #expect(panel.trackingRegistrar.observerEntryCount == 0)
    panel.count = 2
    #expect(reaction.runCount == 2)
  }

  @Test("deallocating a reaction stops it and releases its observer entries")
  func deallocated() {
    let panel = Panel()
    var reaction: Reaction? = Reaction { _ = panel.count }
    #expect(panel.trackingRegistrar.observerEntryCount == 1)
    reaction = nil
    #expect(panel.trackingRegistrar.observerEntryCount == 0)
    panel.count = 1
    withExtendedLifetime(reaction) {}
  }

  @Test("writes made during a flush start another round")
  func writesDuringFlush() {
    let panel = Panel()
    let log = RunLog()
    let doubler = Reaction("doubler") {
      log.append("doubler")
      panel.ratio = Double(panel.count) * 2
    }
    let reader = Reaction("reader") {
      log.append("reader")
      _ = panel.ratio
    }
    log.clear()
    panel.count = 3
    #expect(log.all == ["doubler", "reader"])  // reader comes later: same round, runs once
    #expect(panel.ratio == 6)

    let early = Reaction("early") {
      log.append("early"); _ = panel.first
    }
    let writer = Reaction("writer") {
      log.append("writer"); panel.first = "count \(panel.count)"
    }
    log.clear()
    panel.count = 4  // writer (later) writes what early (earlier) read: early runs in round 2
    // Creation order: doubler, reader, early, writer. doubler's write joins reader to round 1
    // (reader comes later); writer's write to what early read (early comes earlier) needs round 2.
    #expect(log.all == ["doubler", "reader", "writer", "early"])
    #expect(early.runCount == 3)
    _ = (doubler, reader, writer)
  }

  @Test("a reaction still waiting in the flush is not queued twice when an earlier one writes what it reads")
  func notQueuedTwice() {
    let panel = Panel()
    let writer = Reaction("writer") { panel.first = "n\(panel.count)" }
    let reader = Reaction("reader") { _ = (panel.count, panel.first) }
    panel.count = 1  // dirties both; the writer then writes `first`, which reader reads
    #expect(reader.runCount == 2)
    withExtendedLifetime(writer) {}
  }

  @Test("a loop that never settles stops after a bounded number of rounds with a diagnostic naming the reactions")
  func runawayLoop() {
    let panel = Panel()
    let diagnostics = Mutex<[ReactionDiagnostic]>([])
    Reaction.withDiagnosticHandler({ diagnostic in diagnostics.withLock { $0.append(diagnostic) } }) {
      Reaction.$maximumFlushRounds.withValue(10) {
        panel.showsCount = false
        let ping = Reaction("ping") { if panel.showsCount { panel.first = "ping \(panel.count)" } }
        let pong = Reaction("pong") {
          _ = panel.first; if panel.showsCount { panel.count += 1 }
        }
        #expect(diagnostics.withLock { $0.isEmpty })
        panel.showsCount = true  // starts the loop: ping writes first, pong writes count, ...
        #expect(diagnostics.withLock { $0.count } == 1)
        let diagnostic = diagnostics.withLock { $0[0] }
        #expect(diagnostic.kind == .runawayFlush)
        #expect(diagnostic.reactionNames == ["ping"])
        #expect(diagnostic.message.contains("did not settle after 10 rounds"))
        // State is consistent: both still observe, and a later write runs them again.
        #expect(!ping.isCancelled && !pong.isCancelled)
        #expect(panel.trackingRegistrar.observerEntryCount == 4)
        panel.showsCount = false  // and stopping the loop settles
        #expect(diagnostics.withLock { $0.count } == 1)
      }
    }
  }

  @Test("invalidate() re-runs a reaction once, after the current transaction")
  func invalidation() {
    let panel = Panel()
    let reaction = Reaction { _ = panel.count }
    reaction.invalidate()
    #expect(reaction.runCount == 2)
    transaction {
      reaction.invalidate()
      panel.count = 1
      #expect(reaction.runCount == 2)
    }
    #expect(reaction.runCount == 3)
  }

  @Test("value-type state held by a @Tracked property drives reactions field by field")
  func valueTypes() {
    let holder = Holder()
    holder.state.rows = [Row(id: 1), Row(id: 2)]
    let list = Reaction("List") { _ = holder.state.rows.count }
    let row2 = Reaction("Row 2") { _ = holder.state.rows[id: 2]?.count }
    // Both read `rows` (the list's count, row 2's lookup): a row mutation notifies neither slot,
    // only row 2's own field.
    holder.state.rows[id: 2]?.count += 1
    #expect((list.runCount, row2.runCount) == (1, 2))
    holder.state.rows.append(Row(id: 3))  // structural: both re-read `rows`
    #expect((list.runCount, row2.runCount) == (2, 3))
    holder.state.child.count += 1  // nobody reads it
    #expect((list.runCount, row2.runCount) == (2, 3))
  }

  @Test("reactions dirtied inside an in-place mutation run after it, when the state can be read again")
  func reactionsRunAfterInPlaceMutation() {
    let holder = Holder()
    let seen = Mutex<[Int]>([])
    let reaction = Reaction { seen.withLock { $0.append(holder.state.child.count) } }
    holder.state.child.count += 1  // the reaction reads `holder.state` while... nothing is modifying it
    holder.state.child.count = 5
    #expect(seen.withLock { $0 } == [0, 1, 5])
    withExtendedLifetime(reaction) {}
  }

  @Test("a value-type root outside any owner re-runs its reactions at the end of a transaction")
  func valueTypeRootInTransaction() {
    let parent = Mutex(Parent())
    let seen = Mutex<[String]>([])
    let reaction = Reaction { seen.withLock { $0.append(parent.withLock { $0.title }) } }
    transaction {
      parent.withLock { $0.title = "A" }
      parent.withLock { $0.title = "B" }
    }
    #expect(seen.withLock { $0 } == ["Parent", "B"])
    withExtendedLifetime(reaction) {}
  }

}

@Suite("Reactions under contention")
struct ReactionContentionTests {
  @Test("writes from several threads never lose a re-run: every reaction ends up seeing the final values")
  func noLostReruns() {
    let panel = Panel()
    final class Seen: Sendable { let values = Mutex<(Int, Double)>((0, 0)) }
    let seen = (0..<8).map { _ in Seen() }
    // The fields are read and written under a lock (a field's storage is not atomic: without it,
    // the test itself would race). Each write's transaction ends outside the lock, so the
    // reactions it re-runs (which take the lock to read) re-run on both threads all the same.
    let fields = NSLock()
    let reactions = (0..<8).map { index in
      Reaction("r\(index)") {
        let read = fields.withLock { (panel.count, panel.ratio) }
        seen[index].values.withLock { $0 = read }
      }
    }
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
      for value in 1...2000 {
        transaction {
          fields.withLock {
            if thread == 0 { panel.count = value } else { panel.ratio = Double(value) }
          }
        }
      }
    }
    for index in 0..<8 { #expect(seen[index].values.withLock { $0 } == (2000, 2000.0)) }
    #expect(reactions.allSatisfy { $0.runCount >= 2 })
  }

  @Test("reactions created, run and cancelled on several threads leave no observer entries")
  func createAndCancelConcurrently() {
    let panel = Panel()
    // The count is read and written under a lock (a field's storage is not atomic: without it, the
    // test itself would race). The write's transaction ends outside the lock, so the reactions it
    // re-runs take the lock to read; they are still created, run and cancelled concurrently.
    let values = NSLock()
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for value in 0..<500 {
        let reaction = Reaction { values.withLock { _ = (panel.first, panel.count) } }
        if thread == 0 { transaction { values.withLock { panel.count = value } } }
        reaction.cancel()
      }
    }
    #expect(panel.trackingRegistrar.observerEntryCount == 0)
  }
}
