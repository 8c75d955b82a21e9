import Dispatch
import Foundation
import Observant
import ObservantTestSupport
import Synchronization
import Testing

// Tests written from the documentation (README, ReactionsAndTransactions.md, DerivedValues.md,
// SwiftUIAndUIKit.md and the doc comments of the public API) for the asynchronous and
// multi-threaded surface: TrackedValues, scheduled reactions, cancellation from other threads,
// transactions on several threads, derived values read from several threads, memory.

// MARK: - TrackedValues

@Suite("HA: TrackedValues across threads")
struct HATrackedValuesTests {
  /// "the current value first, then a new value after each transaction that changed what the
  /// closure read"; "a loop that falls behind gets the latest value once".
  @Test("values from another thread: each one a state that existed, none repeated, the last one the final state")
  func valuesFromAnotherThread() async {
    let model = HAModel()
    let counters = HACounters()
    let total = 300
    let consumer = Task.detached {
      for await value in TrackedValues({ model.a }) {
        counters.append(value)
        if value == total { break }
      }
      counters.flag.store(true, ordering: .sequentiallyConsistent)
    }
    #expect(await waitUntil { counters.count >= 1 })
    let writer = Task.detached {
      for value in 1...total { model.a = value }
    }
    await writer.value
    let finished = await waitUntil { counters.flag.load(ordering: .sequentiallyConsistent) }
    if !finished { consumer.cancel() }
    #expect(finished)
    let values = counters.values
    #expect(values.first == 0)
    #expect(values.last == total)
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })  // never stale, never repeated
    #expect(model.observerEntryCount == 0)  // leaving the loop released it
  }

  /// "a burst of transactions between two iterations yields one value"; "nothing buffered".
  @Test("a burst between two iterations yields one value and keeps none of the values it missed")
  func burstIsCoalescedAndNotBuffered() async {
    let tag = 101
    let plain = HAPlain()
    plain.box = HABox(0, tag: tag)
    let counters = HACounters()
    let liveBeforeSecond = HAInt(-1)
    let consumer = Task.detached { () -> [Int] in
      var iterator = TrackedValues { plain.box.id }.makeAsyncIterator()
      var seen: [Int] = []
      if let first = await iterator.next() { seen.append(first) }
      counters.runs.store(1, ordering: .sequentiallyConsistent)  // the first value is taken
      _ = await waitUntil { counters.flag.load(ordering: .sequentiallyConsistent) }  // the burst is over
      liveBeforeSecond.store(HABox.liveCount(tag: tag))
      if let second = await iterator.next() { seen.append(second) }
      return seen
    }
    #expect(await waitUntil { counters.runs.load(ordering: .sequentiallyConsistent) == 1 })
    haThread {
      for id in 1...500 { plain.box = HABox(id, tag: tag) }
      counters.flag.store(true, ordering: .sequentiallyConsistent)
    }
    let seen = await consumer.value
    #expect(seen == [0, 500])
    // Only the current box is alive: the 499 boxes in between were not kept for the loop.
    #expect(liveBeforeSecond.value == 1)
  }

  /// "The sequence ends when the iterating task is cancelled (a loop waiting for a change returns
  /// at once)"; "Leaving the loop releases every observer entry."
  @Test("cancelling the task ends a waiting loop, releases the observer entries and the closure")
  func cancelWhileWaiting() async {
    let model = HAModel()
    let counters = HACounters()
    var probe: HAProbe? = HAProbe()
    let weakProbe = HAWeak(probe!)
    let consumer = Task.detached { [probe] in
      for await value in TrackedValues({ withExtendedLifetime(probe) { model.a } }) {
        counters.append(value)
      }
      counters.flag.store(true, ordering: .sequentiallyConsistent)
    }
    probe = nil
    #expect(await waitUntil { counters.count == 1 })
    consumer.cancel()
    let ended = await waitUntil { counters.flag.load(ordering: .sequentiallyConsistent) }
    #expect(ended)
    await consumer.value
    #expect(counters.values == [0])
    #expect(model.observerEntryCount == 0)
    #expect(weakProbe.isNil)
    model.a = 1  // nobody listens any more
    #expect(counters.values == [0])
  }

  /// "`nil` once the task is cancelled".
  @Test("a task cancelled before the first next() gets nil")
  func cancelledBeforeFirstValue() async {
    let model = HAModel()
    let task = Task.detached { () -> Int? in
      withUnsafeCurrentTask { $0?.cancel() }
      var iterator = TrackedValues { model.a }.makeAsyncIterator()
      return await iterator.next()
    }
    let value = await task.value
    #expect(value == nil)
    #expect(model.observerEntryCount == 0)
  }

  /// "When an object the closure read goes away (on any thread), that counts as a change: the
  /// closure runs again (with a `weak` capture it now reads nothing of that object, and if it
  /// reads nothing tracked at all, the sequence ends after that value)."
  @Test("an object released on another thread while the loop waits: one more value, then the end")
  func objectReleasedOnAnotherThread() async {
    let holder = HAHolder(HAModel())
    let counters = HACounters()
    let seen = Mutex<[Int?]>([])
    let weakModel = HAWeak(holder.peek()!)
    let consumer = Task.detached {
      for await value in TrackedValues({ weakModel.object?.a }) {
        seen.withLock { $0.append(value) }
      }
      counters.flag.store(true, ordering: .sequentiallyConsistent)
    }
    #expect(await waitUntil { seen.withLock { $0.count } == 1 })
    haThread { holder.drop() }
    let ended = await waitUntil { counters.flag.load(ordering: .sequentiallyConsistent) }
    if !ended { consumer.cancel() }
    #expect(ended)
    #expect(seen.withLock { $0 } == [0, nil])
    #expect(weakModel.isNil)
  }

  /// "Leaving the loop releases every observer entry": an iterator abandoned after one value.
  @Test("an iterator dropped between two values releases its observer entries")
  func abandonedIterator() async {
    let model = HAModel()
    let task = Task.detached { () -> Int? in
      var iterator = TrackedValues { model.a + model.b }.makeAsyncIterator()
      return await iterator.next()
    }
    #expect(await task.value == 0)
    model.a = 1  // the iterator is gone: whatever it installed must not keep listening
    model.b = 1
    #expect(model.observerEntryCount == 0)
  }

  /// "The closure runs on the iterating task, inside `next()`" (here an actor's).
  @Test("iterated on an actor: the closure runs on the actor, the last value is the final state")
  func iteratedOnAnActor() async {
    let model = HAModel()
    let actor = HAQueueActor()
    let counters = HACounters()
    let total = 100
    let consumer = Task { await actor.consume(model: model, until: total, counters: counters) }
    #expect(await waitUntil { counters.count >= 1 })
    await haRun { for value in 1...total { model.a = value } }
    let finished = await waitUntil { counters.flag.load(ordering: .sequentiallyConsistent) }
    if !finished { consumer.cancel() }
    #expect(finished)
    #expect(counters.last == total)
    #expect(counters.offIsolation.load(ordering: .relaxed) == 0)
  }

  @Test("a derived value awaited from another thread: the last value is the final state")
  func derivedValues() async {
    let model = HAModel()
    let counters = HACounters()
    let total = 200
    let consumer = Task.detached {
      let doubled = Derived("doubled") { model.a * 2 }
      for await value in TrackedValues({ doubled.value }) {
        counters.append(value)
        if value == 2 * total { break }
      }
      counters.flag.store(true, ordering: .sequentiallyConsistent)
    }
    #expect(await waitUntil { counters.count >= 1 })
    await haRun { for value in 1...total { model.a = value } }
    let finished = await waitUntil { counters.flag.load(ordering: .sequentiallyConsistent) }
    if !finished { consumer.cancel() }
    #expect(finished)
    let values = counters.values
    #expect(values.last == 2 * total)
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
  }
}

extension HAQueueActor {
  /// Iterates `TrackedValues({ model.a })` on this actor until `until`.
  func consume(model: HAModel, until last: Int, counters: HACounters) async {
    for await value in TrackedValues({ () -> Int in
      if !HAQueueExecutor.isCurrent { counters.offIsolation.add(1, ordering: .relaxed) }
      return model.a
    }) {
      counters.append(value)
      if value == last { break }
    }
    counters.flag.store(true, ordering: .sequentiallyConsistent)
  }
}

// MARK: - Reactions on several threads

@Suite("HA: reactions across threads")
struct HAReactionThreadTests {
  /// "A reaction never runs concurrently with itself: if it is dirtied while it runs on another
  /// thread, that thread runs it again before returning."
  @Test("dirtied from two threads: never concurrent with itself, and its last run read the final state")
  func neverConcurrentWithItself() async {
    for _ in 0..<RandomTestBudget.scaled(8) {
      let model = HAModel()
      let counters = HACounters()
      let reaction = Reaction("HAPair") {
        counters.enter()
        let pair = HACounters.Pair(a: model.a, b: model.b)
        counters.pairs.withLock { $0.append(pair) }
        counters.leave()
      }
      let total = 200
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await haRun { for value in 1...total { model.a = value } } }
        group.addTask { await haRun { for value in 1...total { model.b = value } } }
      }
      #expect(counters.overlaps.load(ordering: .relaxed) == 0)
      #expect(counters.pairs.withLock { $0.last } == HACounters.Pair(a: total, b: total))
      withExtendedLifetime(reaction) {}
    }
  }

  /// "Stops the reaction for good: it never runs again, not even if it was already scheduled ...
  /// or is running right now (the current run completes), and every observer entry is removed.
  /// The body, and what it captured, is released (at the end of the current run, if it is
  /// running)."
  @Test("cancelled on one thread while another thread's writes re-run it: at most the run in progress completes")
  func cancelFromAnotherThread() async {
    for _ in 0..<RandomTestBudget.scaled(8) {
      let model = HAModel()
      let counters = HACounters()
      var probe: HAProbe? = HAProbe()
      let weakProbe = HAWeak(probe!)
      let reaction = Reaction("HACancelled") { [probe] in
        withExtendedLifetime(probe) {}
        if counters.cancelled.load(ordering: .sequentiallyConsistent) {
          counters.startsAfterCancel.add(1, ordering: .relaxed)
        }
        counters.append(model.a)
      }
      probe = nil
      let writer = Task {
        await haRun {
          var value = 0
          while !counters.flag.load(ordering: .sequentiallyConsistent) {
            value += 1
            model.a = value
          }
        }
      }
      #expect(await waitUntil { counters.count >= 5 })
      await haRun {
        reaction.cancel()
        counters.cancelled.store(true, ordering: .sequentiallyConsistent)
      }
      let countAtCancel = counters.count
      for _ in 0..<3 { await Task.yield() }
      counters.flag.store(true, ordering: .sequentiallyConsistent)
      await writer.value
      #expect(counters.startsAfterCancel.load(ordering: .relaxed) <= 1)
      #expect(counters.count <= countAtCancel + 1)
      #expect(reaction.isCancelled)
      #expect(model.observerEntryCount == 0)
      #expect(weakProbe.isNil)
    }
  }

  /// "Cancelled means done ... so does deallocating it."
  @Test("released on one thread while another thread's writes re-run it: it stops, and what it captured goes")
  func releasedOnAnotherThread() async {
    for _ in 0..<RandomTestBudget.scaled(8) {
      let model = HAModel()
      let counters = HACounters()
      var probe: HAProbe? = HAProbe()
      let weakProbe = HAWeak(probe!)
      let holder = HAHolder(
        Reaction("HAReleased") { [probe] in
          withExtendedLifetime(probe) {}
          if counters.cancelled.load(ordering: .sequentiallyConsistent) {
            counters.startsAfterCancel.add(1, ordering: .relaxed)
          }
          counters.append(model.a)
        })
      probe = nil
      let writer = Task {
        await haRun {
          var value = 0
          while !counters.flag.load(ordering: .sequentiallyConsistent) {
            value += 1
            model.a = value
          }
        }
      }
      #expect(await waitUntil { counters.count >= 5 })
      await haRun {
        holder.drop()
        counters.cancelled.store(true, ordering: .sequentiallyConsistent)
      }
      for _ in 0..<3 { await Task.yield() }
      counters.flag.store(true, ordering: .sequentiallyConsistent)
      await writer.value
      let countAfter = counters.count
      model.a = -1
      #expect(counters.count == countAfter)
      #expect(counters.startsAfterCancel.load(ordering: .relaxed) <= 1)
      #expect(model.observerEntryCount == 0)
      #expect(weakProbe.isNil)
    }
  }

  /// "Created on another actor ... the same with that actor. A transaction that ends on the actor
  /// re-runs it at once; one that ends elsewhere hands the re-run to the actor through a task."
  @Test("created on an actor: re-runs only on it, also for writes from other threads, ending with the latest value")
  func actorReaction() async {
    let model = HAModel()
    let counters = HACounters()
    let actor = HAQueueActor()
    let reaction = await actor.makeReaction(model: model, counters: counters)
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await haRun { for value in 1...100 { model.a = value } } }
      group.addTask { await haRun { for value in 1...100 { model.b = value } } }  // not read
    }
    await actor.write(model, 101)
    #expect(await waitUntil { counters.last == 101 })
    #expect(counters.offIsolation.load(ordering: .relaxed) == 0)
    reaction.cancel()
  }

  /// "Schedules a re-run as if something the body read had changed: when the current transaction
  /// on this thread ends, or right away if there is none." Created outside any actor, it re-runs on
  /// the thread that invalidated it.
  @Test("invalidate() from another thread re-runs a reaction created outside any actor right away")
  func invalidateFromAnotherThread() async {
    let model = HAModel()
    let reaction = Reaction("HAInvalidated") { _ = model.a }
    let runsAfter = HAInt()
    await Task.detached {
      reaction.invalidate()
      runsAfter.store(reaction.runCount)
    }.value
    #expect(runsAfter.value == 2)
  }

  /// "A transaction belongs to the thread that opened it: writes made on other threads meanwhile
  /// form transactions of their own."
  @Test("a write on another thread while a transaction is open re-runs its own readers at once, not the transaction's")
  func transactionsOnTwoThreads() async {
    let model = HAModel()
    let seenA = Mutex<[Int]>([])
    let readerA = Reaction("HAReaderA") {
      let a = model.a; seenA.withLock { $0.append(a) }
    }
    let readerB = Reaction("HAReaderB") { _ = model.b }
    let inside = HAFlag()
    let finished = HAFlag()
    let proceed = DispatchSemaphore(value: 0)
    haThread {
      transaction {
        model.a = 1
        inside.set()
        proceed.wait()
        model.a = 2
      }
      finished.set()
    }
    #expect(await waitUntil { inside.isSet })
    model.b = 1  // its own transaction: readerB re-runs now, here
    #expect(readerB.runCount == 2)
    #expect(readerA.runCount == 1)
    proceed.signal()
    #expect(await waitUntil { finished.isSet })
    #expect(readerA.runCount == 2)
    #expect(seenA.withLock { $0 } == [0, 2])
  }

  /// "Transactions on different threads are not isolated from each other ... it runs again when
  /// that transaction ends, and that run sees all of it." A reaction that reads fields of a
  /// transaction open on one thread and a field written on another thread.
  @Test(
    "a reaction re-run by another thread's write while a transaction is open runs again when it ends, seeing all of it"
  )
  func noHalfTransactionAcrossThreads() async {
    let model = HAModel()
    let counters = HACounters()
    let reaction = Reaction("HAWhole") {
      let pair = HACounters.Pair(a: model.a, b: model.b)
      _ = model.c
      counters.pairs.withLock { $0.append(pair) }
    }
    let inside = HAFlag()
    let finished = HAFlag()
    let proceed = DispatchSemaphore(value: 0)
    haThread {
      transaction {
        model.a = 1
        inside.set()
        proceed.wait()
        model.b = 1
      }
      finished.set()
    }
    #expect(await waitUntil { inside.isSet })
    model.c = 1  // a transaction of its own on this thread
    proceed.signal()
    #expect(await waitUntil { finished.isSet })
    let pairs = counters.pairs.withLock { $0 }
    // Documented (ReactionsAndTransactions, "Once per transaction"): transactions on different
    // threads are not isolated, so the run on this thread may see (1, 0); the run that follows
    // the other thread's transaction sees all of it.
    #expect(pairs.last == HACounters.Pair(a: 1, b: 1))
    withExtendedLifetime(reaction) {}
  }
}

// MARK: - Reactions scheduled on the main actor

@Suite("HA: .mainActor reactions")
struct HAMainActorReactionTests {
  /// "`Reaction(scheduling: .mainActor)` moves every re-run to the main actor's next turn, once per
  /// turn with the latest values."
  @Test("writes from background threads: every re-run on the main thread, the last one with the final value")
  func backgroundWrites() async {
    let model = HAModel()
    let counters = HACounters()
    let reaction = Reaction("HAMain", scheduling: .mainActor) {
      if counters.runs.add(1, ordering: .relaxed).newValue > 1, !haIsOnMainQueue() {
        counters.offIsolation.add(1, ordering: .relaxed)
      }
      counters.append(model.a)
    }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await haRun { for value in 1...100 { model.a = value } } }
      group.addTask { await haRun { for value in 1...100 { model.b = value } } }
    }
    #expect(await waitUntil { counters.last == 100 })
    #expect(counters.offIsolation.load(ordering: .relaxed) == 0)
    reaction.cancel()
  }

  @Test("many transactions in one main-actor turn: one re-run, at the next turn, with the latest value")
  func oneRunPerTurn() async {
    let model = HAModel()
    let counters = HACounters()
    let reaction = Reaction("HAMainTurn", scheduling: .mainActor) { counters.append(model.a) }
    let runsInTurn = await MainActor.run {
      for value in 1...50 { model.a = value }
      return reaction.runCount
    }
    #expect(runsInTurn == 1)
    #expect(await waitUntil { reaction.runCount >= 2 })
    for _ in 0..<3 { await MainActor.run {} }
    #expect(reaction.runCount == 2)
    #expect(counters.values == [0, 50])
  }

  /// `cancel()`: "it never runs again, not even if it was already scheduled".
  @Test("cancelled from another thread while its re-run is pending: it never runs, and its closure is released")
  func cancelledWhilePending() async {
    let model = HAModel()
    let counters = HACounters()
    var probe: HAProbe? = HAProbe()
    let weakProbe = HAWeak(probe!)
    let reaction = Reaction("HAPending", scheduling: .mainActor) { [probe] in
      withExtendedLifetime(probe) {}
      counters.append(model.a)
    }
    probe = nil
    await MainActor.run {
      model.a = 1  // due at the next turn
      haThread { reaction.cancel() }.wait()
    }
    for _ in 0..<3 { await MainActor.run {} }
    #expect(counters.values == [0])
    #expect(model.observerEntryCount == 0)
    #expect(weakProbe.isNil)
  }

  @Test("released on another thread while its re-run is pending: it never runs, and its closure is released")
  func releasedWhilePending() async {
    let model = HAModel()
    let counters = HACounters()
    var probe: HAProbe? = HAProbe()
    let weakProbe = HAWeak(probe!)
    let holder = HAHolder(
      Reaction("HAPendingReleased", scheduling: .mainActor) { [probe] in
        withExtendedLifetime(probe) {}
        counters.append(model.a)
      })
    probe = nil
    await MainActor.run {
      model.a = 1  // due at the next turn
      haThread { holder.drop() }.wait()
    }
    for _ in 0..<3 { await MainActor.run {} }
    #expect(counters.values == [0])
    #expect(model.observerEntryCount == 0)
    #expect(weakProbe.isNil)
  }

  /// `lastRunCauses`: "the field writes that dirtied it (one per field, from the value the previous
  /// run read to the latest)"; `isRecordingCauses`: "makes the writes that dirty this reaction keep
  /// their old and new values until the transaction ends."
  @Test("recording causes over a burst of background transactions: one cause, and the values in between are not kept")
  func causesOfACoalescedRun() async {
    let tag = 102
    let plain = HAPlain()
    plain.box = HABox(0, tag: tag)
    let reaction = Reaction("HACauses", scheduling: .mainActor, recordingCauses: true) { _ = plain.box }
    let liveWhilePending = await MainActor.run {
      haThread { for id in 1...300 { plain.box = HABox(id, tag: tag) } }.wait()
      return HABox.liveCount(tag: tag)
    }
    #expect(liveWhilePending <= 2)  // the current box, and at most the one the last run read
    #expect(await waitUntil { reaction.runCount == 2 })
    let causes = await MainActor.run { reaction.lastRunCauses }
    #expect(causes.count == 1)
    #expect(causes.first?.oldValue == "box0")
    #expect(causes.first?.newValue == "box300")
    reaction.cancel()
  }
}

// MARK: - withTracking across threads

@Suite("HA: withTracking across threads")
struct HAWithTrackingTests {
  /// "`onChange` fires exactly once even when several threads write at the same time"
  @Test("two threads writing two fields read: onChange exactly once")
  func exactlyOnceUnderContention() async {
    for _ in 0..<RandomTestBudget.scaled(20) {
      let model = HAModel()
      let counters = HACounters()
      withTracking {
        _ = model.a
        _ = model.b
      } onChange: {
        counters.runs.add(1, ordering: .relaxed)
      }
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await haRun { for value in 1...50 { model.a = value } } }
        group.addTask { await haRun { for value in 1...50 { model.b = value } } }
      }
      #expect(counters.runs.load(ordering: .relaxed) == 1)
    }
  }

  /// `TrackingObservation.cancel()`: "Stops the observation: `onChange` will not be called, and
  /// every observer entry is removed (the closure is released)."
  @Test("cancelled on one thread while another writes: at most one call, then nothing installed, closure released")
  func cancelRacingAWrite() async {
    for _ in 0..<RandomTestBudget.scaled(20) {
      let model = HAModel()
      let counters = HACounters()
      var probe: HAProbe? = HAProbe()
      let weakProbe = HAWeak(probe!)
      let (_, observation) = withCancellableTracking {
        model.a + model.b
      } onChange: { [probe] in
        withExtendedLifetime(probe) {}
        counters.runs.add(1, ordering: .relaxed)
      }
      probe = nil
      let go = HAFlag()
      // Both threads started here, not from tasks: a spinning writer started by one task, waiting
      // for another task still queued behind the suite's other work, held a core for minutes in
      // sanitizer runs.
      let writer = haThread {
        while !go.isSet {}
        model.a = 1
        model.b = 1
      }
      await haRun {
        go.set()
        observation.cancel()
      }
      await haRun { writer.wait() }
      #expect(counters.runs.load(ordering: .relaxed) <= 1)
      #expect(!observation.isActive)
      #expect(model.observerEntryCount == 0)
      #expect(weakProbe.isNil)
    }
  }

  /// "It runs exactly once, also when several threads write at the same time or `onChange` itself
  /// writes a tracked field."
  @Test("onChange that writes the field it observed, while another thread writes it too: once, no crash")
  func onChangeWritesWhatItRead() async {
    for _ in 0..<RandomTestBudget.scaled(20) {
      let model = HAModel()
      let counters = HACounters()
      withTracking {
        _ = model.a
      } onChange: {
        counters.runs.add(1, ordering: .relaxed)
        model.a = -1
      }
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await haRun { for value in 1...20 { model.a = value } } }
        group.addTask { await haRun { for value in 21...40 { model.a = value } } }
      }
      #expect(counters.runs.load(ordering: .relaxed) == 1)
    }
  }

  /// "`onChange` runs on the thread that makes the change, before the new value is stored (the
  /// object still shows the old value) — except for writes nested in an in-place mutation of a
  /// tracked property ..., where it runs as soon as that mutation ends, after the value changed,
  /// so that it can read anything without overlapping the mutation's exclusive access."
  @Test("onChange reading and writing the @Tracked property being written: the old value, no exclusivity abort")
  func onChangeReadsDuringAWrite() {
    let plain = HAPlain()
    let seen = Mutex<[Int]>([])
    withTracking {
      _ = plain.count
    } onChange: {
      seen.withLock { $0.append(plain.count) }
      plain.count += 10
    }
    plain.count = 1
    #expect(seen.withLock { $0 } == [0])
    #expect(plain.count == 1 || plain.count == 11)
  }

  @Test("onChange reading and writing a @Tracked array appended to in place: the old value, no exclusivity abort")
  func onChangeReadsDuringAnInPlaceMutation() {
    let plain = HAPlain()
    let seen = Mutex<[[Int]]>([])
    withTracking {
      _ = plain.list
    } onChange: {
      seen.withLock { $0.append(plain.list) }
      plain.list.append(2)
    }
    plain.list.append(1)
    #expect(seen.withLock { $0 } == [[]])  // before the new value is stored
    #expect(plain.list.sorted() == [1, 2])  // no write lost
  }

  /// "An object whose field `apply` read going away ... is a change too ...: `onChange` runs once,
  /// on the thread that released the object".
  @Test("an object released on another thread: onChange once, on that thread")
  func objectReleasedOnAnotherThread() async {
    let counters = HACounters()
    let holder = HAHolder(HAModel())
    let weakModel = HAWeak(holder.peek()!)
    withTracking {
      _ = weakModel.object?.a
    } onChange: {
      counters.runs.add(1, ordering: .relaxed)
      if Thread.current.threadDictionary["HARelease"] == nil {
        counters.offIsolation.add(1, ordering: .relaxed)
      }
    }
    await withCheckedContinuation { continuation in
      Thread {
        Thread.current.threadDictionary["HARelease"] = true
        holder.drop()
        continuation.resume()
      }.start()
    }
    #expect(counters.runs.load(ordering: .relaxed) == 1)
    #expect(counters.offIsolation.load(ordering: .relaxed) == 0)
  }
}

// MARK: - Derived values and threads

/// A derived value shared by threads that take turns reading it (under a lock), as the
/// documentation asks ("Read it from one isolation at a time").
final class HATurns<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var derived: Derived<Value>?

  init(_ derived: Derived<Value>) { self.derived = derived }

  var value: Value? { lock.withLock { derived?.value } }
  func drop() { lock.withLock { derived = nil } }
}

@Suite("HA: derived values and threads")
struct HADerivedThreadTests {
  /// "Read it from one isolation at a time ...; writes to its inputs may come from any thread."
  @Test("read by a reaction that two writing threads re-run: the last value read is the final sum")
  func readByAReactionOfTwoThreads() async {
    for _ in 0..<RandomTestBudget.scaled(8) {
      let model = HAModel()
      let counters = HACounters()
      let sum = Derived("sum") { model.a + model.b }
      let reaction = Reaction("HASum") {
        counters.enter()
        counters.append(sum.value)
        counters.leave()
      }
      let total = 150
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await haRun { for value in 1...total { model.a = value } } }
        group.addTask { await haRun { for value in 1...total { model.b = value } } }
      }
      #expect(counters.overlaps.load(ordering: .relaxed) == 0)
      #expect(counters.last == 2 * total)
      #expect(sum.value == 2 * total)
      withExtendedLifetime(reaction) {}
    }
  }

  @Test("read in turns by two threads while a third writes its input: values only grow, and the last read is current")
  func readInTurnsWhileWritten() async {
    for _ in 0..<RandomTestBudget.scaled(8) {
      let model = HAModel()
      let turns = HATurns(Derived("a") { model.a })
      let total = 300
      let done = HAFlag()
      let seenByReader = (0..<2).map { _ in HACounters() }
      let readers = seenByReader.map { seen in
        Task {
          await haRun {
            while !done.isSet {
              seen.append(turns.value ?? -1)
            }
          }
        }
      }
      await haRun { for value in 1...total { model.a = value } }
      done.set()
      for reader in readers { await reader.value }
      for reader in seenByReader {
        let seen = reader.values
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(seen.allSatisfy { (0...total).contains($0) })
      }
      #expect(turns.value == total)  // never stale once the writes are over
    }
  }

  /// "Releasing the value unlinks it from its inputs."
  @Test("released on another thread: nothing left on its inputs")
  func releasedOnAnotherThread() async {
    let model = HAModel()
    var turns: HATurns<Int>? = HATurns(Derived("sum") { model.a + model.b })
    let reader = Reaction("HAReader") { [turns] in _ = turns?.value }
    #expect(model.observerEntryCount > 0)
    reader.cancel()
    let shared = turns!
    turns = nil
    await Task.detached { shared.drop() }.value
    model.a = 1
    #expect(model.observerEntryCount == 0)
  }

  /// "A value nobody reads stops listening the first time its inputs change".
  @Test("read once outside any scope, then an input written on another thread: it stops listening")
  func unreadStopsListening() async {
    let model = HAModel()
    let sum = Derived("sum") { model.a + model.b }
    #expect(sum.value == 0)
    await Task.detached { model.a = 1 }.value
    #expect(model.observerEntryCount == 0)
    #expect(sum.value == 1)
  }
}

// MARK: - Hand-written tracked properties

/// The class of `DeclaringObservableTypes.md` ("A property whose storage cannot be `@Tracked` ...
/// reports its reads and changes by hand"), with two such properties.
final class HADocument: Trackable {
  struct Storage {
    var title = ""
    var subtitle = ""
  }

  let trackingRegistrar = TrackingRegistrar()
  private var storage = Storage()

  var title: String {
    get {
      trackAccess()
      return storage.title
    }
    set { trackMutation { storage.title = newValue } }
  }

  var subtitle: String {
    get {
      trackAccess()
      return storage.subtitle
    }
    set { trackMutation { storage.subtitle = newValue } }
  }
}

final class HATwinHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state = HATwinFields()
}

/// Two fields whose storages carry the same stamp: the second was initialized with a copy of the
/// first's storage (a sibling of the hand-written case: both fields are keyed by name, and the
/// stamps matched too).
// swift-format-ignore
struct HATwinFields: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _left = StateField(0)
  var left: Int { get { registrar.read(_left) } set { registrar.write(&_left, newValue) } }

  private var _right = StateField(0)
  var right: Int { get { registrar.read(_right) } set { registrar.write(&_right, newValue) } }

  init() {
    _right = _left
  }
}

@Suite("HA: hand-written tracked properties")
struct HAHandWrittenFieldTests {
  @Test("two state fields with storages of the same stamp, read one after the other, are both dependencies")
  func twinStampsBothRecorded() {
    let holder = HATwinHolder()
    // One read of the holder's field, then the two fields back to back.
    let reaction = Reaction("twins") {
      let state = holder.state
      _ = state.left + state.right
    }
    holder.state.right = 1
    #expect(reaction.runCount == 2)
    let (_, accesses) = recordAccesses {
      let state = holder.state
      _ = state.left
      _ = state.right
    }
    #expect(accesses.fields.contains("HATwinFields.left") && accesses.fields.contains("HATwinFields.right"))
    reaction.cancel()
  }

  /// `trackAccess(_:)`: "Records a read of a hand-written tracked property ...: call it from the
  /// getter. The property is identified by its name."
  @Test("two hand-written properties of one object read in one scope are both recorded")
  func bothRecorded() {
    let document = HADocument()
    let (_, accesses) = recordAccesses {
      _ = document.title
      _ = document.subtitle
    }
    #expect(accesses.fields == ["HADocument.title", "HADocument.subtitle"])
  }

  @Test("a reaction reading two hand-written properties re-runs when the second one changes")
  func secondPropertyReRuns() {
    let document = HADocument()
    let seen = Mutex<[String]>([])
    let reaction = Reaction("HADocument") {
      let line = document.title + "|" + document.subtitle
      seen.withLock { $0.append(line) }
    }
    document.subtitle = "b"
    #expect(reaction.runCount == 2)
    #expect(seen.withLock { $0 } == ["|", "|b"])
    document.title = "a"
    #expect(seen.withLock { $0 } == ["|", "|b", "a|b"])
  }
}

// MARK: - A reaction created on the main actor

/// A synchronous nonisolated helper: `#isolation` is `nil` here.
func haMakeReaction(model: HAModel, counters: HACounters) -> Reaction {
  Reaction("HAHelper") {
    if counters.runs.add(1, ordering: .relaxed).newValue > 1, !haIsOnMainQueue() {
      counters.offIsolation.add(1, ordering: .relaxed)
    }
    counters.append(model.a)
  }
}

@Suite("HA: reactions created on the main actor")
struct HAMainActorCreatedTests {
  /// "Created on the main actor (also from a synchronous nonisolated helper called there), it
  /// re-runs only on the main actor: ... on the main actor's next turn when it ends on another
  /// thread". Handed-off re-runs are coalesced and read the latest values.
  @Test("created by a nonisolated helper called on the main actor: background writes re-run it on the main actor only")
  func helperOnTheMainActor() async {
    let model = HAModel()
    let counters = HACounters()
    let reaction = await MainActor.run { haMakeReaction(model: model, counters: counters) }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await haRun { for value in 1...100 { model.a = value } } }
      group.addTask { await haRun { for value in 101...200 { model.c = value } } }  // not read
    }
    #expect(await waitUntil { counters.last == 100 })
    #expect(counters.offIsolation.load(ordering: .relaxed) == 0)
    reaction.cancel()
  }
}

// MARK: - Writes from another thread while a scope still runs

/// Runs `body` on a new thread and blocks the caller until it has finished (for synchronous code
/// that must make another thread write in the middle of a run).
func haRunAndWait(_ body: @escaping @Sendable () -> Void) {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  done.wait()
}

@Suite("HA: writes from another thread during a run")
struct HAWriteDuringRunTests {
  /// withTracking: "Each field is observed from the moment it is read, so no write that follows a
  /// read is missed: not one from another thread while `apply` still runs".
  @Test("withTracking: a write from another thread while apply still runs, after the read, calls onChange once")
  func withTrackingWriteDuringApply() {
    let model = HAModel()
    let counters = HACounters()
    withTracking {
      _ = model.a
      haRunAndWait { model.a = 1 }
    } onChange: {
      counters.runs.add(1, ordering: .relaxed)
    }
    #expect(counters.runs.load(ordering: .relaxed) == 1)
  }

  /// Reaction: "It never runs concurrently with itself: if it is dirtied while it runs on another
  /// thread, that thread runs it again before returning."
  @Test("a reaction dirtied by another thread during its re-run runs again before the write that started it returns")
  func reactionDirtiedDuringARun() {
    let model = HAModel()
    let counters = HACounters()
    let reaction = Reaction("HADuringRun") {
      let value = model.a
      counters.append(value)
      if value == 1 { haRunAndWait { model.a = 2 } }
    }
    model.a = 1
    #expect(counters.values == [0, 1, 2])
    withExtendedLifetime(reaction) {}
  }

  @Test(
    "a reaction dirtied by another thread during its first run has read the latest value when its initializer returns")
  func reactionDirtiedDuringTheFirstRun() {
    let model = HAModel()
    let counters = HACounters()
    let reaction = Reaction("HADuringFirstRun") {
      let value = model.a
      counters.append(value)
      if value == 0 { haRunAndWait { model.a = 1 } }
    }
    #expect(counters.last == 1)
    withExtendedLifetime(reaction) {}
  }

  /// TrackedValues: "a new value after each transaction that changed what the closure read".
  @Test("TrackedValues: a write from another thread during an evaluation, after the read, makes the next value due")
  func trackedValuesWriteDuringEvaluation() async {
    let model = HAModel()
    let counters = HACounters()
    let consumer = Task.detached {
      for await value in TrackedValues({ () -> Int in
        let value = model.a
        if value == 0 { haRunAndWait { model.a = 1 } }
        return value
      }) {
        counters.append(value)
        if value == 1 { break }
      }
      counters.flag.store(true, ordering: .sequentiallyConsistent)
    }
    let finished = await waitUntil { counters.flag.load(ordering: .sequentiallyConsistent) }
    if !finished { consumer.cancel() }
    #expect(finished)
    #expect(counters.values == [0, 1])
  }
}

// MARK: - The main actor's runaway limit

@Suite("HA: .mainActor runaway limit")
struct HAMainActorRunawayTests {
  /// "A reaction scheduled on the main actor that keeps dirtying itself ... after
  /// `Reaction.maximumFlushRounds` consecutive self-dirtying turns it is reported the same way
  /// (`.runawayFlush`, naming it) and not scheduled again until a change made outside its runs
  /// dirties it." `maximumFlushRounds`: "Override for a task with `withValue`";
  /// `withDiagnosticHandler`: "the diagnostics raised on this task".
  @Test("a .mainActor reaction writing what it reads stops after the limit and is reported")
  func selfDirtyingStops() async {
    let model = HAModel()
    let diagnostics = Mutex<[ReactionDiagnostic]>([])
    let reaction = await Reaction.withDiagnosticHandler({ diagnostic in
      diagnostics.withLock { $0.append(diagnostic) }
    }) {
      await Reaction.$maximumFlushRounds.withValue(5) {
        let reaction = Reaction("HARunaway", scheduling: .mainActor) {
          let value = model.a
          if value > 0 { model.a = value + 1 }
        }
        model.a = 1
        _ = await waitUntil { model.a > 150 || diagnostics.withLock { !$0.isEmpty } }
        return reaction
      }
    }
    let stoppedAt = model.a
    for _ in 0..<5 { await MainActor.run {} }
    #expect(model.a == stoppedAt)  // not scheduled again
    let reported = diagnostics.withLock { $0 }
    #expect(reported.count == 1)
    #expect(reported.first?.kind == .runawayFlush)
    #expect(reported.first?.reactionNames == ["HARunaway"])
    #expect(stoppedAt <= 8)  // the limit of the task that created it (5), not the default (100)
    reaction.cancel()
  }
}
