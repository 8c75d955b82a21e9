import Foundation
import Observant
import ObservantHarness
import Synchronization
import ObservantTestSupport
import Testing

/// A value handed to another thread by a test that waits for it.
private final class Handoff<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}

/// Marks the main dispatch queue, which runs the main actor's jobs. On Linux these need not run
/// on the main thread (`Thread.isMainThread` is false in them), but they run on the main queue.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()

/// The threads bodies ran on, and whether each run was on the main actor.
private final class ThreadLog: Sendable {
  private let entries = Mutex<[(thread: pthread_t, onMainActor: Bool)]>([])

  init() {
    _ = mainQueueKey
  }

  func record() {
    let entry = (thread: pthread_self(), onMainActor: DispatchQueue.getSpecific(key: mainQueueKey) == true)
    entries.withLock { $0.append(entry) }
  }

  var count: Int { entries.withLock { $0.count } }
  var offMainActor: Int { entries.withLock { $0.filter { !$0.onMainActor }.count } }
  func ran(on thread: pthread_t) -> Bool { entries.withLock { $0.contains { pthread_equal($0.thread, thread) != 0 } } }
}

/// Runs `body` on a new thread, waits for it, and returns that thread.
private func onBackgroundThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
  let done = DispatchSemaphore(value: 0)
  let writer = Handoff<pthread_t?>(nil)
  let thread = Thread {
    writer.value = pthread_self()
    body()
    done.signal()
  }
  thread.start()
  done.wait()
  return writer.value!
}

/// DESIGN: "a reader of a @MainActor store never re-runs off the main actor". A background
/// thread writing a copy of the state a body read reaches that body (copies share registrars).
@Suite("Isolation")
struct IsolationTests {
  @Test("a tree created on the main actor re-runs a body only on the main actor when a background thread writes a copy")
  @MainActor func treeStaysOnMainActor() async throws {
    let model = ListModel(rowIDs: [1])
    let log = ThreadLog()
    let tree = RenderTree("Screen") { screen in
      log.record()
      screen.text("\(model.state.rows.count) rows")
    }
    #expect(log.count == 1)

    let copy = Handoff(model.state)  // shares the registrars of the live state
    let writer = onBackgroundThread {
      var state = copy.value
      state.rows.append(Row(id: 2))
    }
    #expect(!log.ran(on: writer))
    _ = await waitUntil { tree.runCount(of: "Screen") >= 2 }
    #expect(tree.runCount(of: "Screen") == 2)  // handed to the main actor, run there once
    #expect(!log.ran(on: writer))
    #expect(log.offMainActor == 0)
    #expect(tree.output(of: "Screen") == "1 rows")  // the live state did not change
    // Writes on the main actor still re-run at once, inside the step.
    #expect(tree.step { model.state.appendRow(Row(id: 3)) }.runs == ["Screen"])
  }

  @Test(
    "a cell pool created on the main actor re-renders only on the main actor when a background thread writes a copy")
  @MainActor func poolStaysOnMainActor() async throws {
    let model = ListModel(rowIDs: [1])
    let log = ThreadLog()
    let pool = CellPool("Cell")
    let cell = pool.dequeue(for: 1) {
      log.record()
      return "Row 1: \(model.row(1)?.count ?? -1)"
    }
    let copy = Handoff(model.state.rows[id: 1]!)
    let writer = onBackgroundThread {
      var row = copy.value
      row.count = 5
    }
    #expect(!log.ran(on: writer))
    _ = await waitUntil { cell.renderCount >= 2 }
    #expect(cell.renderCount == 2)
    #expect(!log.ran(on: writer))
    #expect(log.offMainActor == 0)
    #expect(cell.content == "Row 1: 0")
  }

  @Test("a tree created outside any actor re-runs a body on the thread whose write dirtied it")
  func treeOutsideActorsRunsOnWriter() {
    let model = ListModel(rowIDs: [1])
    let log = ThreadLog()
    let tree = RenderTree("Screen") { screen in
      log.record()
      screen.text("\(model.state.rows.count) rows")
    }
    let copy = Handoff(model.state)
    let writer = onBackgroundThread {
      var state = copy.value
      state.rows.append(Row(id: 2))
    }
    #expect(log.ran(on: writer))
    #expect(log.offMainActor == 2)
    #expect(tree.runCount(of: "Screen") == 2)
  }
}
