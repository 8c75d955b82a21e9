import Dispatch
import Foundation
import Observant
import Synchronization
import Testing

// A soak test: eight threads of transactions on shared objects, reactions created on one thread
// and cancelled on another, one-shot scopes installed while others write. In the suite it runs for
// a second; `Scripts/soak` runs it for 60 seconds under the thread sanitizer
// (`OBSERVANT_SOAK_SECONDS` sets the duration).

/// What one reaction saw: the values of the two objects it reads, and whether its body ever
/// overlapped itself.
private final class ReactionProbe: @unchecked Sendable {
  let lock = Mutex(())
  var seen: (Int, Int) = (-1, -1)
  /// What the first run read: with the final values, it bounds the re-runs (one per change at most).
  var first: (Int, Int)?
  let running = Atomic<Int>(0)
  let overlaps = Atomic<Int>(0)
}

private final class SoakPool: @unchecked Sendable {
  private let lock = Mutex<[(reaction: Reaction, probe: ReactionProbe, reads: (Int, Int))]>([])
  func add(_ reaction: Reaction, _ probe: ReactionProbe, reads: (Int, Int)) {
    lock.withLock { $0.append((reaction, probe, reads)) }
  }
  /// The oldest reaction, once more than `keeping` are live (so some live to the end).
  func takeOne(keeping: Int) -> Reaction? {
    lock.withLock { entries in
      guard entries.filter({ !$0.reaction.isCancelled }).count > keeping,
        let index = entries.firstIndex(where: { !$0.reaction.isCancelled })
      else { return nil }
      return entries[index].reaction
    }
  }
  var all: [(reaction: Reaction, probe: ReactionProbe, reads: (Int, Int))] { lock.withLock { $0 } }
}

@Suite("Soak: eight threads of transactions, reactions and scopes")
struct SoakTests {
  static var seconds: Double {
    ProcessInfo.processInfo.environment["OBSERVANT_SOAK_SECONDS"].flatMap(Double.init) ?? 1
  }

  @Test("eight threads for the soak duration: no missed and no doubled re-run, no reaction overlapping itself")
  func soak() {
    let threads = 8
    let objects = (0..<threads).map { _ in Profile() }
    let pool = SoakPool()
    let deadline = Date().addingTimeInterval(Self.seconds)
    let missedScopes = Atomic<Int>(0)
    let doubledScopes = Atomic<Int>(0)
    let transactions = Atomic<Int>(0)
    let created = Atomic<Int>(0)
    let cancelled = Atomic<Int>(0)
    let finishedScopes = Mutex<[(object: Int, seen: Int, fired: Counter)]>([])
    let spareScopes = Atomic<Int>(0)
    // One lock per object: its fields are read and written under it (a field's storage is not
    // atomic: without it, the test itself would race). Each write's transaction ends outside the
    // lock, so the reactions it re-runs (which take the locks to read) and the scopes it fires
    // run concurrently all the same.
    let valueLocks = objects.map { _ in NSLock() }

    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      // Each thread is the only writer of its object's `count` (fields are plain storage: two
      // writers of one field at once would be a data race in any class), and reads the others.
      let own = objects[thread]
      var step = 0
      var scopes: [(object: Int, seen: Int, fired: Counter)] = []
      while Date() < deadline {
        step += 1
        transaction {
          valueLocks[thread].withLock {
            own.count = step
            if step % 3 == 0 { own.other = step }
          }
        }
        transactions.add(1, ordering: .relaxed)
        switch step % 8 {
        case 0:
          // A reaction reading two other threads' objects, cancelled later by whichever thread
          // gets to it first.
          let reads = ((thread + 1) % threads, (thread + 2) % threads)
          let probe = ReactionProbe()
          let reaction = Reaction("soak", ownedByParent: false) {
            if probe.running.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
              probe.overlaps.add(1, ordering: .relaxed)
            }
            let values = (
              valueLocks[reads.0].withLock { objects[reads.0].count },
              valueLocks[reads.1].withLock { objects[reads.1].count }
            )
            probe.lock.withLock { _ in
              probe.seen = values
              if probe.first == nil { probe.first = values }
            }
            probe.running.subtract(1, ordering: .acquiringAndReleasing)
          }
          pool.add(reaction, probe, reads: reads)
          created.add(1, ordering: .relaxed)
        case 4:
          if let reaction = pool.takeOne(keeping: 64) {
            reaction.cancel()
            cancelled.add(1, ordering: .relaxed)
          }
        default:
          // A one-shot scope over another thread's object, installed while it writes.
          let index = (thread + step) % threads
          guard index != thread else { continue }
          let fired = Counter()
          let seen = withTracking {
            valueLocks[index].withLock { objects[index].count }
          } onChange: {
            fired.increment()
          }
          scopes.append((index, seen, fired))
        }
        if scopes.count > 4_096 {
          check(
            &scopes, objects, locks: valueLocks, final: false, missed: missedScopes, doubled: doubledScopes,
            spare: spareScopes)
        }
      }
      finishedScopes.withLock { $0.append(contentsOf: scopes) }
    }

    // Writers are done: every scope whose object moved on since its read fired exactly once, and
    // every other one has not fired.
    var remaining = finishedScopes.withLock { $0 }
    check(
      &remaining, objects, locks: valueLocks, final: true, missed: missedScopes, doubled: doubledScopes,
      spare: spareScopes)

    // Writers are done: every live reaction shows the final values, no body overlapped itself.
    var stale = 0
    var overlaps = 0
    var live = 0
    var doubledRuns = 0
    var spareRuns = 0
    for entry in pool.all where !entry.reaction.isCancelled {
      live += 1
      let (seen, first) = entry.probe.lock.withLock { _ in (entry.probe.seen, entry.probe.first) }
      let final = (objects[entry.reads.0].count, objects[entry.reads.1].count)
      if seen != final { stale += 1 }
      overlaps += entry.probe.overlaps.load(ordering: .relaxed)
      // Each write of an object it read is a transaction that changed it (the writer stores its
      // step, which only grows). A reaction may re-run once more than that: a writer that finds a
      // reader started depending on the field while its write was under way delivers the write
      // again, after the fact, and a reaction that had already re-run runs once more (by design:
      // never stale, at the price of a spare run). Twice the changes would be a doubled re-run.
      if let first {
        let changes = (final.0 - first.0) + (final.1 - first.1)
        let reruns = entry.reaction.runCount - 1
        if reruns > changes { spareRuns += reruns - changes }
        if reruns > 2 * max(changes, 1) { doubledRuns += 1 }
      }
    }
    for entry in pool.all { entry.reaction.cancel() }
    print(
      "soak: \(Self.seconds) s, \(transactions.load(ordering: .relaxed)) transactions, "
        + "\(created.load(ordering: .relaxed)) reactions created, \(cancelled.load(ordering: .relaxed)) cancelled "
        + "from other threads, \(live) live at the end; \(stale) stale, \(overlaps) overlapping runs, "
        + "\(doubledRuns) re-run twice as often as their inputs changed (\(spareRuns) spare runs after late "
        + "deliveries), \(spareScopes.load(ordering: .relaxed)) scopes fired by a late delivery, "
        + "\(missedScopes.load(ordering: .relaxed)) missed and \(doubledScopes.load(ordering: .relaxed)) doubled scopes"
    )
    #expect(stale == 0)
    #expect(overlaps == 0)
    #expect(doubledRuns == 0)
    #expect(missedScopes.load(ordering: .relaxed) == 0)
    #expect(doubledScopes.load(ordering: .relaxed) == 0)
    // One more write of each object fires the scopes still waiting: nothing stays installed.
    for object in objects { object.count += 1 }
    #expect(objects.allSatisfy { $0.trackingRegistrar.observerEntryCount == 0 })
  }

  /// Checks the scopes whose object has moved on (they must have fired exactly once); a scope
  /// whose value may still be current is kept for later. The final check, once every writer is
  /// done: a scope whose object moved on fired once; one whose object did not may have fired once,
  /// from a late delivery of the write it read (counted in `spare`), never twice. An object's value
  /// is read under its lock in `locks` (before the final check, its writer may be writing it).
  private func check(
    _ scopes: inout [(object: Int, seen: Int, fired: Counter)], _ objects: [Profile], locks: [NSLock], final: Bool,
    missed: borrowing Atomic<Int>, doubled: borrowing Atomic<Int>, spare: borrowing Atomic<Int>
  ) {
    var kept: [(object: Int, seen: Int, fired: Counter)] = []
    for scope in scopes {
      if scope.fired.value > 1 { doubled.add(1, ordering: .relaxed) }
      if final {
        let movedOn = objects[scope.object].count > scope.seen
        if movedOn && scope.fired.value == 0 { missed.add(1, ordering: .relaxed) }
        if !movedOn && scope.fired.value == 1 { spare.add(1, ordering: .relaxed) }
        continue
      }
      // The writer of that object may still be between its store and a late notification; a
      // scope counts as missed only once the value moved on by more than one write.
      if locks[scope.object].withLock({ objects[scope.object].count }) > scope.seen + 1 {
        if scope.fired.value == 0 { missed.add(1, ordering: .relaxed) }
      } else if !final {
        kept.append(scope)
      }
    }
    scopes = kept
  }
}
