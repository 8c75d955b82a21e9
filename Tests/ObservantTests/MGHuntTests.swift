import Dispatch
import Foundation
@testable import Observant
import ObservantCollections
import ObservantTestSupport
import Synchronization
import Testing

// Memory-growth hunt: each test runs a cycle of legitimate use many times in the child process of
// an exit test (so that no other test allocates meanwhile), after a warm-up, in two equal phases,
// and reports the heap growth of each phase. Steady state must be flat: a phase that grows by more
// than `MGBudget.bound` bytes fails, and the report says how many bytes a cycle kept.

struct MGRow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int {
    get { registrar.read(_count) }
    set { registrar.write(&_count, newValue) }
  }
  init(id: Int) { self.id = id }
}

struct MGList: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField(IdentifiedArrayOf<MGRow>())
  var rows: IdentifiedArrayOf<MGRow> {
    get { registrar.read(_rows) }
    set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] }
  }
  private var _count = StateField(0)
  var count: Int {
    get { registrar.read(_count) }
    set { registrar.write(&_count, newValue) }
  }
  private var _table = StateField([Int: MGRow]())
  var table: [Int: MGRow] {
    get { registrar.read(_table) }
    set { registrar.write(&_table, newValue) }
    _modify { yield &self[tracking: \._table] }
  }
  init() {}
}

final class MGItem: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var text = ""
}

final class MGChat: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var messages: [Int: String] = [:]
  @Tracked var title = ""
  @Tracked var list = MGList()
  @Tracked var items: [Int: MGItem] = [:]
  @Tracked var current = MGItem()
}

enum MGBudget {
  /// Cycles per phase.
  static var cycles: Int { RandomTestBudget.underSanitizer(40_000) }
  /// Allowed growth per phase: 4 bytes a cycle (the leaks found so far were 53 to 280 bytes a
  /// cycle; the allocator's noise reached about 1).
  static var bound: Int { cycles * 4 }
}

/// Runs `cycle` `warmup` times, then twice `cycles` times, reporting each phase's heap growth.
func mgMeasure(warmup: Int = 2_000, cycles: Int = MGBudget.cycles, _ cycle: (Int) -> Void) -> CycleReport {
  measureHeapGrowth(warmup: warmup, cycles: cycles, cycle)
}

/// Checks a child's report: both phases flat, and `expected` fields as expected.
func mgCheck(
  _ output: [UInt8]?, expecting expected: [String: Int] = [:], bound: Int = MGBudget.bound,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  guard let report = CycleReport(output: output) else {
    Issue.record("no report: \(String(decoding: output ?? [], as: UTF8.self))", sourceLocation: sourceLocation)
    return
  }
  for problem in heapGrowthProblems(report, bound: bound, expecting: expected) {
    Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
  }
}

@Suite("MG hunt: memory stays flat under long-running use")
struct MGHuntTests {
  @Test("a @Tracked dictionary read by keyed subscripts with ever-new keys (chat message ids)")
  func dictionaryKeyedReads() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      let counter = Reaction("count", ownedByParent: false) { _ = chat.messages.count }
      var report = mgMeasure { step in
        chat.messages[step] = "m"
        let row = Reaction("row", ownedByParent: false) { _ = chat.messages[step] }
        chat.messages[step] = "edited"
        chat.messages[step] = nil
        row.cancel()
      }
      counter.cancel()
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("rows of an IdentifiedArray in value state, ever-new ids: append, read, change in place, remove")
  func identifiedRows() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      for id in 0..<10 { chat.list.rows.append(MGRow(id: -1 - id)) }
      let list = Reaction("list", ownedByParent: false) { _ = chat.list.rows.count }
      var report = mgMeasure { step in
        chat.list.rows.append(MGRow(id: step))
        let row = Reaction("row", ownedByParent: false) { _ = chat.list.rows[id: step]?.count }
        chat.list.rows[id: step]?.count += 1
        transaction {
          chat.list.rows[id: step]?.count += 1
          chat.list.rows[id: -1]?.count += 1
        }
        chat.list.rows.remove(id: step)
        row.cancel()
      }
      list.cancel()
      report["entries"] = chat.trackingRegistrar.observerEntryCount + chat.list.registrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("the same, with the array's structural journal started")
  func identifiedRowsJournal() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      chat.list.rows.recordStructuralChanges()
      var version = chat.list.rows.structuralVersion
      var report = mgMeasure { step in
        chat.list.rows.append(MGRow(id: step))
        let row = Reaction("row", ownedByParent: false) { _ = chat.list.rows[id: step]?.count }
        chat.list.rows[id: step]?.count += 1
        chat.list.rows.remove(id: step)
        row.cancel()
        if step % 3 == 0 {
          _ = chat.list.rows.structuralChanges(since: version)
          version = chat.list.rows.structuralVersion
        }
      }
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("a dictionary of value rows in value state, ever-new keys, read and changed in place")
  func dictionaryOfStates() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      var report = mgMeasure { step in
        chat.list.table[step] = MGRow(id: step)
        let row = Reaction("row", ownedByParent: false) { _ = chat.list.table[step]?.count }
        chat.list.table[step]?.count += 1
        chat.list.table[step] = nil
        row.cancel()
      }
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("detached copies written and dropped, copy-mutate-assign, while a reaction reads the live state")
  func detachedCopies() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      let reader = Reaction("reader", ownedByParent: false) { _ = chat.list.count }
      var report = mgMeasure { step in
        var copy = chat.list
        copy.count = step
        var draft = chat.list
        draft.count += 1
        chat.list = draft
      }
      reader.cancel()
      report["entries"] = chat.trackingRegistrar.observerEntryCount + chat.list.registrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("objects in a @Tracked dictionary come and go while a long-lived reaction reads them")
  func objectsComeAndGo() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      let reader = Reaction("reader", ownedByParent: false) {
        for item in chat.items.values { _ = item.text }
        _ = chat.current.text
      }
      var report = mgMeasure { step in
        let item = MGItem()
        chat.items[step] = item
        item.text = "x"
        chat.items[step - 3] = nil
        chat.current = MGItem()
      }
      reader.cancel()
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("derived values created, read by a reaction, and dropped")
  func derivedCycles() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      let longLived = Derived("long") { chat.title.count }
      let keep = Reaction("keep", ownedByParent: false) { _ = longLived.value }
      var report = mgMeasure { step in
        let derived = Derived("d") { chat.title.count + longLived.value + step }
        let reader = Reaction("r", ownedByParent: false) { _ = derived.value }
        chat.title = String(step % 7)
        reader.cancel()
      }
      keep.cancel()
      withExtendedLifetime(longLived) {}
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 1])  // the long-lived derived value's
  }

  @Test("a reaction recording causes, re-run many times; reactions recording causes created and cancelled")
  func causesRecording() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      let recording = Reaction("rec", ownedByParent: false, recordingCauses: true) {
        _ = chat.title
        _ = chat.messages[0]
      }
      var report = mgMeasure { step in
        chat.title = String(step)
        chat.messages[0] = String(step)
        let other = Reaction("other", ownedByParent: false, recordingCauses: true) { _ = chat.title }
        transaction {
          chat.title = "a"
          chat.title = "b\(step)"
        }
        other.cancel()
      }
      report["causes"] = recording.lastRunCauses.count
      recording.cancel()
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("withTracking that fires, withCancellableTracking cancelled, recordAccesses, on a long-lived object")
  func oneShotScopes() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      var report = mgMeasure { step in
        withTracking {
          _ = chat.title; _ = chat.list.rows.count
        } onChange: {
        }
        let (_, observation) = withCancellableTracking {
          _ = chat.messages[step]
        } onChange: {
        }
        _ = recordAccesses { _ = chat.list.count }
        chat.title = String(step)
        _ = observation.accesses
        observation.cancel()
      }
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("a nested reaction tree re-run many times (children created and disposed by the parent)")
  func nestedReactions() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      let parent = Reaction("parent", ownedByParent: false) {
        _ = chat.title
        for index in 0..<3 {
          _ = Reaction("child \(index)") { _ = chat.messages[index] }
        }
      }
      var report = mgMeasure { step in
        chat.title = String(step)
        chat.messages[step % 3] = String(step)
      }
      parent.cancel()
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }

  @Test("threads that come and go, each writing, reacting and tracking (thread-local contexts)")
  func threadChurn() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      let watcher = Reaction("watcher", ownedByParent: false) { _ = chat.title }
      var report = mgMeasure(warmup: 300, cycles: 2_000) { step in
        onAnotherThread {
          let reaction = Reaction("t", ownedByParent: false) { _ = chat.messages[1] }
          transaction {
            chat.title = String(step)
            chat.messages[1] = String(step)
          }
          withTracking {
            _ = chat.title
          } onChange: {
          }
          chat.title = "x\(step)"
          reaction.cancel()
        }
      }
      watcher.cancel()
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    let report = CycleReport(output: result?.standardOutputContent)
    #expect(report?["entries"] == 0)
    // Threads cost some heap of their own (Foundation's Thread objects): compare with a control.
    let control = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let report = mgMeasure(warmup: 300, cycles: 2_000) { _ in onAnotherThread {} }
      report.print()
    }
    let controlReport = CycleReport(output: control?.standardOutputContent)
    print("MGREPORT threads \(report?.fields ?? [:]) control \(controlReport?.fields ?? [:])")
    let growth = (report?["growth2"] ?? 0) - (controlReport?["growth2"] ?? 0)
    // 16 bytes a thread: a context left behind per thread costs hundreds; thread arenas' noise
    // reached about 3.
    #expect(growth < 16 * 2_000, "threads: \(report?.fields ?? [:]), control: \(controlReport?.fields ?? [:])")
  }

  @Test("TrackedValues iterations started, advanced and abandoned")
  func trackedValuesCycles() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      var report = await measureHeapGrowth(warmup: 1_000, cycles: 10_000) { step in
        var iterator = TrackedValues { chat.title.count + chat.list.count }.makeAsyncIterator()
        _ = await iterator.next()
        chat.title = String(step)
        _ = await iterator.next()
      }
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0])
  }
}

final class MGLeakBox: @unchecked Sendable {
  var kept: [AnyObject] = []
}

@Suite("MG hunt: the measurement itself")
struct MGHuntControlTests {
  @Test("a deliberate leak of one small object per cycle shows (the measurement works)")
  func deliberateLeakShows() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let box = MGLeakBox()
      box.kept.reserveCapacity(200_000)
      let report = mgMeasure { _ in box.kept.append(MGItem()) }
      report.print()
    }
    let report = CycleReport(output: result?.standardOutputContent)
    print("MGREPORT control \(report?.fields ?? [:])")
    // Under a sanitizer the heap is not measured (`heapBytesInUse()` is nil).
    guard !RandomTestBudget.isSanitized else { return }
    #expect((report?["growth2"] ?? 0) > MGBudget.bound)
  }
}

actor MGWorker {
  private var reaction: Reaction?
  func start(_ chat: MGChat) {
    reaction = Reaction("worker", ownedByParent: false) { _ = chat.title }
  }
  func runs() -> Int { reaction?.runCount ?? 0 }
  func stop() {
    reaction?.cancel()
    reaction = nil
  }
}

/// Measures an async cycle: a warm-up, then two phases of `cycles`.
func mgMeasureAsync(warmup: Int = 10_000, cycles: Int = 40_000, _ cycle: (Int) async -> Void) async -> CycleReport {
  var step = 0
  for _ in 0..<warmup {
    await cycle(step)
    step += 1
  }
  let heap0 = heapBytesInUse()
  for _ in 0..<cycles {
    await cycle(step)
    step += 1
  }
  let heap1 = heapBytesInUse()
  for _ in 0..<cycles {
    await cycle(step)
    step += 1
  }
  let heap2 = heapBytesInUse()
  var report = CycleReport()
  report["cycles"] = cycles
  if let heap0, let heap1, let heap2 {
    report["growth1"] = heap1 - heap0
    report["growth2"] = heap2 - heap1
  }
  return report
}

@Suite("MG hunt: handed-off runs")
struct MGHuntHandOffTests {
  @Test("reactions of ever-new actors, re-run by writes from elsewhere (handed off), then cancelled")
  func actorReactions() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      var stuck = 0
      var stuckForever = 0
      var report = await mgMeasureAsync { step in
        let worker = MGWorker()
        await worker.start(chat)
        chat.title = String(step)
        var waited = 0
        while await worker.runs() < 2 && waited < 10_000 {
          await Task.yield()
          waited += 1
        }
        if waited == 10_000 {
          stuck += 1
          var slept = 0
          while await worker.runs() < 2 && slept < 300 {
            try? await Task.sleep(nanoseconds: 10_000_000)
            slept += 1
          }
          if slept == 300 { stuckForever += 1 }
        }
        await worker.stop()
      }
      report["stuck"] = stuck
      report["stuckForever"] = stuckForever
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    // A run that took more than 10,000 yields under load is slow, not missed; one that never came
    // is a missed update.
    // Async cycles hop between the cooperative pool's threads: the concurrency runtime's own
    // allocations add up to 0 to 2 bytes a cycle of noise under load, mostly in the first phase (measured: 71,440 then -2,176; 9,040 then 1,984): not growth.
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0, "stuckForever": 0], bound: 4 * MGBudget.cycles)
  }

  @Test("main-actor scheduled reactions re-run by writes from another thread, then cancelled")
  func mainActorReactions() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let chat = MGChat()
      var stuck = 0
      var report = await mgMeasureAsync { step in
        let reaction = await MainActor.run {
          Reaction("main", ownedByParent: false, scheduling: .mainActor) { _ = chat.title }
        }
        await Task.detached { chat.title = String(step) }.value
        var waited = 0
        while reaction.runCount < 2 && waited < 10_000 {
          await MainActor.run {}
          waited += 1
        }
        if waited == 10_000 { stuck += 1 }
        reaction.cancel()
      }
      report["stuck"] = stuck
      report["entries"] = chat.trackingRegistrar.observerEntryCount
      report.print()
    }
    mgCheck(result?.standardOutputContent, expecting: ["entries": 0], bound: 4 * MGBudget.cycles)
  }
}
