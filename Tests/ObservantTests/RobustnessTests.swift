import Dispatch
import Foundation
@testable import Observant
import ObservantCollections
import ObservantTestSupport
import Synchronization
import Testing

// The runtime under concurrency and misuse: each test here failed (a crash, a missed update, a
// race, a leak or a silent stop) before the fix it names, and a crash is caught in a child process.

/// A generic observable state: its field's storage type depends on the type argument.
struct GenericBox<Value>: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _value: StateField<Value>
  var value: Value {
    get { registrar.read(_value) }
    set { registrar.write(&_value, newValue) }
  }
  init(_ value: Value) { _value = StateField(value) }
}

final class GenericHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var intBox = GenericBox(0)
  @Tracked var stringBox = GenericBox("")
  @Tracked var table: [String: Int] = [:]
}

/// Runs `body` on a new thread and waits for it.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    body()
    done.signal()
  }
  thread.start()
  done.wait()
}

/// A box for values handed between threads in tests (accesses are serialized by the test).
final class Shared<Value>: @unchecked Sendable {
  private let lock = Mutex(())
  private var _value: Value
  init(_ value: Value) { _value = value }
  var value: Value {
    get { lock.withLock { _ in _value } }
    set { lock.withLock { _ in _value = newValue } }
  }
}

@Suite("Robustness: never crash, never race, never leak")
struct RobustnessTests {
  // MARK: 1. onChange during a nested in-place write

  @Test(
    "an onChange that reads the @Tracked holder during a nested in-place write does not crash; it runs when the mutation ends and sees the new value"
  )
  func onChangeReadsHolderDuringInPlaceWrite() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let holder = Holder()
      holder.state.rows.append(Row(id: 1))
      let seen = Shared<[Int]>([])
      withTracking {
        _ = holder.state.child.count
      } onChange: {
        seen.value.append(holder.state.child.count)
      }
      holder.state.child.count += 1
      withTracking {
        _ = holder.state.rows[id: 1]?.count
      } onChange: {
        seen.value.append(holder.state.rows[id: 1]?.count ?? -1)
      }
      holder.state.rows[id: 1]?.count += 5
      print("seen \(seen.value.map(String.init).joined(separator: ","))")
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(output.contains("seen 1,5"), "\(output)")
  }

  @Test("a ChangeObserver whose onChange reads the holder during a nested in-place write does not crash")
  func changeObserverReadsHolderDuringInPlaceWrite() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let holder = Holder()
      let seen = Shared<[Int]>([])
      let observer = ChangeObserver { seen.value.append(holder.state.child.count) }
      observer.track { _ = holder.state.child.count }
      holder.state.child.count += 1
      observer.track { _ = holder.state.child.count }  // the owner re-tracks after a change
      holder.state.child.count += 1
      observer.cancel()
      print("seen \(seen.value.map(String.init).joined(separator: ","))")
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(output.contains("seen 1,2"), "\(output)")
  }

  @Test("an onChange of a write outside any in-place mutation runs before the write (the old value is readable)")
  func onChangeBeforePlainWrite() {
    let holder = Holder()
    let seen = Shared<[Int]>([])
    withTracking {
      _ = holder.state.child.count
    } onChange: {
      seen.value.append(holder.state.child.count)
    }
    var copy = holder.state
    copy.child.count = 7
    holder.state = copy
    #expect(seen.value == [0])
    #expect(holder.state.child.count == 7)
  }

  // MARK: 2. No window between a read and its observation

  @Test("a write from another thread after the tracked read, while the closure still runs, fires onChange")
  func otherThreadWriteDuringApply() {
    let profile = Profile()
    let fired = Counter()
    let value = withTracking { () -> Int in
      let value = profile.count
      onAnotherThread { profile.count = 1 }
      return value
    } onChange: {
      fired.increment()
    }
    #expect(value == 0)
    #expect(fired.value == 1)
    profile.count = 2
    #expect(fired.value == 1)
  }

  /// A reader on another thread that starts depending on a field while a write of it is under way
  /// (after the write told the field's observers, before it stored the value) reads the old value:
  /// it must hear the write. The window is opened on purpose: an observer of the field, told before
  /// the store on the writing thread, lets the reader read and install, then lets the write go on.
  private func readerInsideTheWindow<Value: Sendable>(
    read: @escaping @Sendable () -> Value, write: () -> Void
  ) -> (seen: Value?, fired: Int) {
    let readerMayRead = DispatchSemaphore(value: 0)
    let readerDone = DispatchSemaphore(value: 0)
    withTracking {
      _ = read()
    } onChange: {
      readerMayRead.signal()
      readerDone.wait()
    }
    let seen = Shared<Value?>(nil)
    let fired = Counter()
    let reader = Thread {
      readerMayRead.wait()
      seen.value = withTracking {
        read()
      } onChange: {
        fired.increment()
      }
      readerDone.signal()
    }
    reader.start()
    write()
    return (seen.value, fired.value)
  }

  #if DEBUG
  @Test(
    "a reaction that re-runs on another thread between a write's record and its store runs again once the value is stored"
  )
  func reactionRerunInsideTheWriteWindow() {
    // A reaction whose run started after a write was recorded used to count as having seen
    // it, although it read the value before the store (the write's flush skipped it: a stale
    // screen). Opened on purpose: right after the write of `count` is recorded, another thread
    // writes `other`, which re-runs the reaction there (reading `count` before its store).
    let profile = Profile()
    let shown = Shared<(Int, Int)>((-1, -1))
    let reaction = Reaction("both", ownedByParent: false) { shown.value = (profile.count, profile.other) }
    let once = Shared(true)
    // The hook belongs to this thread's context: only this thread's writes call it.
    let context = TransactionContext.current
    context._afterRecordingWrite = {
      guard once.value else { return }
      once.value = false
      onAnotherThread { profile.other = 1 }
    }
    defer { context._afterRecordingWrite = nil }
    profile.count = 1
    context._afterRecordingWrite = nil
    #expect(shown.value == (1, 1))
    #expect(reaction.runCount == 3)  // its first run, the other thread's, and this write's
    reaction.cancel()
  }
  #endif

  @Test("a reader that reads between a write's announcement and its store hears the write (class field)")
  func readerInsideTheWriteWindow() {
    let profile = Profile()
    let scalar = readerInsideTheWindow(read: { profile.count }, write: { profile.count = 1 })
    #expect(scalar.seen == 0 && scalar.fired == 1)
    let inPlace = readerInsideTheWindow(read: { profile.tags.count }, write: { profile.tags.append("x") })
    #expect(inPlace.seen == 0 && inPlace.fired == 1)
  }

  @Test("a reader that reads between a write's announcement and its store hears the write (@TrackedWeak)")
  func readerInsideTheWriteWindowWeak() {
    final class Owner: Trackable, @unchecked Sendable {
      let trackingRegistrar = TrackingRegistrar()
      @TrackedWeak var target: Profile?
    }
    let owner = Owner()
    let target = Profile()
    let result = readerInsideTheWindow(read: { owner.target == nil }, write: { owner.target = target })
    #expect(result.seen == true && result.fired == 1)
    withExtendedLifetime(target) {}
  }

  @Test("a reader on another thread while a value-type field is written never keeps showing the old value")
  func readerInsideTheWriteWindowValueType() {
    // The write is nested in the in-place mutation of `state`, so the observer that opens the
    // window runs after the store (never inside the exclusive access): the reader reads the new
    // value. Either way, it must not be left with the old one.
    let holder = Holder()
    let result = readerInsideTheWindow(read: { holder.state.child.count }, write: { holder.state.child.count = 1 })
    #expect((result.seen == 1 && result.fired == 0) || (result.seen == 0 && result.fired == 1))
  }

  @Test("a write the tracked closure itself makes after reading the field fires onChange, during the closure")
  func sameThreadWriteDuringApply() {
    let profile = Profile()
    let fired = Counter()
    withTracking {
      _ = profile.count
      #expect(fired.value == 0)
      profile.count = 5
      #expect(fired.value == 1)
    } onChange: {
      fired.increment()
    }
    profile.count = 6
    #expect(fired.value == 1)
  }

  @Test(
    "a write of a value-type field from another thread during a reaction's first run re-runs it, and it ends up showing the write"
  )
  func reactionFirstRunRace() {
    let holder = Holder()
    let shown = Shared<[Int]>([])
    let first = Shared(true)
    let reaction = Reaction("racy", ownedByParent: false) {
      let count = holder.state.child.count
      if first.value {
        first.value = false
        onAnotherThread { holder.state.child.count = 1 }
      }
      shown.value.append(count)
    }
    #expect(reaction.runCount == 2)
    #expect(shown.value == [0, 1])
    reaction.cancel()
  }

  @Test(
    "scopes installed while another thread writes: every scope whose field changed after its read fires exactly once")
  func installWhileWriting() {
    let profile = Profile()
    let rounds = 2_000
    var scopes: [(seen: Int, fired: Counter)] = []
    // The writer has a thread of its own, started by the installing loop and stopped when it ends:
    // a writer task spinning on one of the cooperative pool's two threads, while the installing
    // task waited for the other behind the rest of the suite, took half the machine for minutes
    // in sanitizer runs.
    let done = Atomic<Bool>(false)
    // The value is read and written under a lock (a field's storage is not atomic: without it, the
    // test itself would race); scopes are installed while the writes are announced all the same.
    let value = NSLock()
    let writer = haThread {
      var step = 0
      while !done.load(ordering: .acquiring) {
        step += 1
        value.withLock { profile.count = step }
      }
    }
    for _ in 0..<rounds {
      let fired = Counter()
      let seen = withTracking {
        value.withLock { profile.count }
      } onChange: {
        fired.increment()
      }
      scopes.append((seen, fired))
      // Until the writer has written again (bounded by time, not by a number of spins: on a
      // loaded machine the writer may wait long for a core).
      let deadline = ContinuousClock.now + .seconds(2)
      while value.withLock({ profile.count }) == seen && ContinuousClock.now < deadline {}
    }
    done.store(true, ordering: .releasing)
    writer.wait()
    // Every scope that read a value later overwritten fired exactly once (a late notification
    // may come after the store, so this is checked once the writer is done).
    let final = profile.count
    let changed = scopes.filter { $0.seen != final }
    #expect(changed.count > rounds / 2)
    #expect(changed.filter { $0.fired.value == 0 }.count == 0)
    #expect(scopes.filter { $0.fired.value > 1 }.count == 0)
  }

  // MARK: 3. Isolation

  @Test(
    "a reaction created on the main actor re-runs only on the main actor, also when another thread writes a copy of what it read"
  )
  @MainActor func mainActorReactionStaysOnMainActor() async throws {
    let holder = Holder()
    let offActor = Counter()
    let shown = Shared(-1)
    let reaction = Reaction("main") {
      if !ThreadLocal.isOnMainActor { offActor.increment() }
      shown.value = holder.state.child.count
    }
    #expect(reaction.runCount == 1)
    await Task.detached {
      transaction {
        var copy = holder.state  // shares the registrar with the live value
        copy.child.count = 10
        holder.state.child.count = 3
      }
    }.value
    _ = await waitUntil { shown.value == 3 }
    #expect(shown.value == 3)
    #expect(offActor.value == 0)
    #expect(reaction.runCount == 2)  // both background writes absorbed into one handed-off run
    reaction.cancel()
  }

  @Test(
    "a main-actor reaction under four background writers: never off the main actor, and it ends up showing the final value"
  )
  @MainActor func mainActorReactionUnderWriters() async throws {
    let profile = Profile()
    let offActor = Counter()
    let shown = Shared(-1)
    // A field is as thread-safe as the code that uses it (README, Threads): the writers and the
    // reaction take turns through this lock. The handed-off runs never run inside it, so the
    // writers never wait for the main actor.
    let turns = NSLock()
    let reaction = Reaction("main") {
      if !ThreadLocal.isOnMainActor { offActor.increment() }
      shown.value = turns.withLock { profile.count }
    }
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<4 {
        group.addTask {
          for step in 0..<500 { turns.withLock { transaction { profile.count = writer * 1_000 + step } } }
        }
      }
    }
    profile.count = -7  // the writers are done; a main-actor write re-runs the reaction here, outside the lock
    _ = await waitUntil { shown.value == -7 }
    #expect(shown.value == -7)
    #expect(offActor.value == 0)
    reaction.cancel()
  }

  // MARK: 4. Unbalanced mutation reports

  @Test(
    "a hand-written mutation report is one closure, balanced even when the mutation throws: later reactions still run")
  func trackMutationBalancedOnThrow() {
    struct Failure: Error {}
    final class Manual: Trackable, @unchecked Sendable {
      let trackingRegistrar = TrackingRegistrar()
      private var storage = 0
      var value: Int {
        get { trackAccess(); return storage }
        set { trackMutation { storage = newValue } }
      }
      func failingWrite() throws {
        try trackMutation("value") {
          storage += 1; throw Failure()
        }
      }
    }
    let manual = Manual()
    let reaction = Reaction("manual", ownedByParent: false) { _ = manual.value }
    #expect(throws: Failure.self) { try manual.failingWrite() }
    #expect(reaction.runCount == 2)
    manual.value = 5
    #expect(reaction.runCount == 3)
    reaction.cancel()
  }

  // MARK: 5. Memory stays bounded

  @Test(
    "no memory growth over 100,000 (6,250 under a sanitizer) tracked reads and writes of generic observable state and of a dictionary field"
  )
  func genericStateMemory() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let holder = GenericHolder()
      let reaction = Reaction("generic", ownedByParent: false) {
        _ = holder.intBox.value
        _ = holder.stringBox.value
        _ = holder.table["k"]
      }
      // One thread: the fields are not atomic (a String or Dictionary written by two threads at
      // once is a data race in any Swift class).
      func cycle(_ step: Int) {
        let (_, observation) = withCancellableTracking {
          _ = holder.intBox.value
          _ = holder.table["k\(step % 16)"]
        } onChange: {
        }
        holder.intBox.value = step
        holder.stringBox.value = String(step % 3)
        holder.table["k\(step % 16)"] = step
        observation.cancel()
      }
      for step in 0..<2_000 { cycle(step) }
      let heapBefore = heapBytesInUse()
      for step in 0..<RandomTestBudget.leakCycles { cycle(step) }
      let heapAfter = heapBytesInUse()
      var report = CycleReport()
      report["cycles"] = RandomTestBudget.leakCycles
      if let heapBefore, let heapAfter { report["heapGrowth"] = heapAfter - heapBefore }
      report["runs"] = reaction.runCount > RandomTestBudget.leakCycles ? 1 : 0
      reaction.cancel()
      report["entries"] = holder.trackingRegistrar.observerEntryCount
      report.print()
    }
    let report = CycleReport(output: result?.standardOutputContent)
    #expect(report != nil)
    guard let report else { return }
    #expect(report["cycles"] == RandomTestBudget.leakCycles)
    #expect(report["runs"] == 1)  // the reaction re-ran on every cycle
    #expect(report["entries"] == 0)
    if let growth = report["heapGrowth"] {
      #expect(growth < CycleLeakTests.heapGrowthBound, "heap grew by \(growth) bytes")
    }
  }

  // MARK: 6. No data race between reading what was read and cancelling

  @Test("reading lastAccessLog and ChangeObserver.accesses while other threads cancel is race-free")
  func accessLogsWhileCancelling() async {
    let profile = Profile()
    for _ in 0..<200 {
      let reaction = Reaction("log", ownedByParent: false) {
        _ = profile.count; _ = profile.first
      }
      let observer = ChangeObserver {}
      observer.track { _ = profile.count }
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          for _ in 0..<20 {
            _ = reaction.lastAccessLog.count
            _ = observer.accesses.count
          }
        }
        group.addTask {
          reaction.cancel()
          observer.cancel()
        }
      }
      #expect(reaction.lastAccessLog.isEmpty)
      #expect(observer.accesses.isEmpty)
    }
  }

  // MARK: 7. Cancel releases what the closure captured

  @Test("ChangeObserver.cancel() releases onChange and its captures, while the observer is still held")
  func changeObserverCancelReleasesClosure() {
    final class Payload: Sendable {}
    weak var weakPayload: Payload?
    let profile = Profile()
    let observer: ChangeObserver
    do {
      let payload = Payload()
      weakPayload = payload
      observer = ChangeObserver { _ = payload }
      observer.track { _ = profile.count }
    }
    #expect(weakPayload != nil)
    observer.cancel()
    #expect(weakPayload == nil)
    #expect(observer.isCancelled)
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
  }

  @Test(
    "ChangeObserver.cancel() releases onChange outside its lock: a capture whose deinit asks the observer does not crash"
  )
  func changeObserverReleasesOutsideItsLock() {
    /// Asks the observer it is attached to, as it goes.
    final class Inquirer: @unchecked Sendable {
      weak var observer: ChangeObserver?
      let answers = Shared<[String]>([])
      deinit {
        guard let observer else { return }
        answers.value.append("cancelled: \(observer.isCancelled), fields: \(observer.accesses.count)")
      }
    }
    let profile = Profile()
    let answers: Shared<[String]>
    let observer: ChangeObserver
    do {
      let inquirer = Inquirer()
      answers = inquirer.answers
      observer = ChangeObserver { _ = inquirer }
      inquirer.observer = observer
      observer.track { _ = profile.count }
    }
    observer.cancel()  // releases the inquirer, whose deinit takes the observer's lock
    #expect(answers.value == ["cancelled: true, fields: 0"])
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
  }

  // MARK: 9. Messages in release builds

  @Test("an out-of-bounds IdentifiedArray.insert(_:at:) stops with a message naming the index and the bounds")
  func identifiedArrayInsertOutOfBounds() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var rows: IdentifiedArrayOf<Row> = [Row(id: 1)]
      rows.insert(Row(id: 2), at: 5)
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("IdentifiedArray insertion index 5 is out of bounds 0...1"), "\(output)")
  }

  // MARK: 10. Flush limits

  @Test(
    "a maximumFlushRounds below 1 is reported with a clear message, and the default limit is used: no dirty reaction is dropped"
  )
  func invalidFlushLimit() {
    for limit in [0, -3] {
      let profile = Profile()
      let diagnostics = Shared<[ReactionDiagnostic]>([])
      let first = Reaction("first", ownedByParent: false) { _ = profile.count }
      let second = Reaction("second", ownedByParent: false) { _ = profile.count }
      Reaction.withDiagnosticHandler({ diagnostics.value.append($0) }) {
        Reaction.$maximumFlushRounds.withValue(limit) {
          profile.count += 1
        }
      }
      #expect(first.runCount == 2)
      #expect(second.runCount == 2)
      #expect(diagnostics.value.count == 1)
      #expect(diagnostics.value.first?.kind == .invalidFlushLimit)
      let message = diagnostics.value.first.map { "\($0)" } ?? ""
      #expect(message.contains("\(limit)"), "\(message)")
      first.cancel()
      second.cancel()
    }
  }

  @Test(
    "an invalid maximumFlushRounds is reported by each flush that consults it; one field dirtying one reaction re-runs it without consulting it"
  )
  func invalidFlushLimitConsultedOnlyWhenQueued() {
    let profile = Profile()
    let diagnostics = Shared<[ReactionDiagnostic]>([])
    let only = Reaction("only", ownedByParent: false) { _ = (profile.count, profile.other) }
    Reaction.withDiagnosticHandler({ diagnostics.value.append($0) }) {
      Reaction.$maximumFlushRounds.withValue(0) {
        profile.count += 1  // one field, one reaction: the limit is not consulted
        #expect(only.runCount == 2)
        #expect(diagnostics.value.isEmpty)
        transaction {  // two fields: the reaction is queued, the limit consulted and reported
          profile.count += 1
          profile.other += 1
        }
        #expect(only.runCount == 3)
        #expect(diagnostics.value.map(\.kind) == [.invalidFlushLimit])
        profile.count += 1  // one field again: nothing more
        #expect(only.runCount == 4)
        #expect(diagnostics.value.count == 1)
      }
    }
    only.cancel()
  }
}
