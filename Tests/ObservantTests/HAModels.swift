import Dispatch
import Foundation
import Observant
import Synchronization

/// One tracked field, hand-written over a lock (`trackAccess` / `trackMutation`), so that threads
/// may read and write it at once without a data race of the test's own: the documentation says a
/// field written from two threads needs synchronization, and this is it. (One field per object:
/// see `HAHandWrittenFieldTests` for why.)
final class HACell: Trackable, Sendable {
  let trackingRegistrar = TrackingRegistrar()
  private let storage = Mutex<Int>(0)

  var value: Int {
    get {
      trackAccess()
      return storage.withLock { $0 }
    }
    set { trackMutation { storage.withLock { $0 = newValue } } }
  }
}

/// Three thread-safe tracked fields (each in a cell of its own).
final class HAModel: Sendable {
  let cellA = HACell()
  let cellB = HACell()
  let cellC = HACell()

  var a: Int {
    get { cellA.value }
    set { cellA.value = newValue }
  }

  var b: Int {
    get { cellB.value }
    set { cellB.value = newValue }
  }

  var c: Int {
    get { cellC.value }
    set { cellC.value = newValue }
  }

  /// The observer entries installed on the three fields.
  var observerEntryCount: Int {
    [cellA, cellB, cellC].map(\.trackingRegistrar.observerEntryCount).reduce(0, +)
  }
}

/// Whether the caller runs on the main actor's queue (where the main actor's jobs run; on Linux
/// that is not always the main thread).
let haMainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()

func haIsOnMainQueue() -> Bool { DispatchQueue.getSpecific(key: haMainQueueKey) == true }

/// A plain `@Tracked` class, for tests where the threads touching it are ordered by the test.
final class HAPlain: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var count = 0
  @Tracked var box = HABox(0)
  @Tracked var list: [Int] = []
}

/// A class value whose live instances are counted (per test: each test uses its own `tag`).
final class HABox: Sendable, CustomStringConvertible {
  static let live = Mutex<[Int: Int]>([:])
  let id: Int
  let tag: Int

  init(_ id: Int, tag: Int = 0) {
    self.id = id
    self.tag = tag
    Self.live.withLock { $0[tag, default: 0] += 1 }
  }

  deinit { Self.live.withLock { $0[tag, default: 0] -= 1 } }

  static func liveCount(tag: Int) -> Int { live.withLock { $0[tag, default: 0] } }

  var description: String { "box\(id)" }
}

/// Something a closure captures, to see when the closure is released (a weak reference to it
/// becomes nil).
final class HAProbe: Sendable {}

/// Thread-safe counters and a log for the tests' closures.
final class HACounters: Sendable {
  let runs = Atomic<Int>(0)
  let inFlight = Atomic<Int>(0)
  let overlaps = Atomic<Int>(0)
  let offIsolation = Atomic<Int>(0)
  let startsAfterCancel = Atomic<Int>(0)
  let cancelled = Atomic<Bool>(false)
  let flag = Atomic<Bool>(false)
  let log = Mutex<[Int]>([])
  let pairs = Mutex<[Pair]>([])

  struct Pair: Equatable, Sendable {
    var a: Int
    var b: Int
  }

  func enter() {
    if inFlight.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
      overlaps.add(1, ordering: .relaxed)
    }
  }

  func leave() { inFlight.subtract(1, ordering: .sequentiallyConsistent) }

  func append(_ value: Int) { log.withLock { $0.append(value) } }
  var values: [Int] { log.withLock { $0 } }
  var last: Int? { log.withLock { $0.last } }
  var count: Int { log.withLock { $0.count } }
}

/// A weak reference that can cross threads.
final class HAWeak<Object: AnyObject & Sendable>: Sendable {
  private let weakStorage = Mutex<WeakBox>(WeakBox())

  struct WeakBox: @unchecked Sendable { weak var object: Object? }

  init(_ object: Object) {
    weakStorage.withLock { $0.object = object }
  }

  var object: Object? { weakStorage.withLock { $0.object } }
  var isNil: Bool { object == nil }
}

/// Holds a value that one thread releases: `take()` hands the only reference out once.
final class HAHolder<Value: Sendable>: Sendable {
  private let storage: Mutex<Value?>
  init(_ value: Value) { storage = Mutex(value) }
  func take() -> Value? {
    storage.withLock { value in
      defer { value = nil }; return value
    }
  }
  func drop() { storage.withLock { $0 = nil } }
  func peek() -> Value? { storage.withLock { $0 } }
}

/// Runs `body` on a new thread (not the cooperative pool, so it may block on a semaphore), and
/// returns a semaphore signalled when it has finished.
@discardableResult
func haThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    body()
    done.signal()
  }
  thread.start()
  return done
}

/// An executor running its jobs on one serial dispatch queue, so that a closure can tell whether it
/// runs on the actor (`HAQueueExecutor.isCurrent`) without stopping the program when it does not.
final class HAQueueExecutor: SerialExecutor {
  let queue: DispatchQueue
  static let key = DispatchSpecificKey<Bool>()

  init() {
    queue = DispatchQueue(label: "HAQueueExecutor")
    queue.setSpecific(key: Self.key, value: true)
  }

  static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }

  func checkIsolated() {
    dispatchPrecondition(condition: .onQueue(queue))
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// An actor whose jobs run on `HAQueueExecutor`'s queue.
actor HAQueueActor {
  let executor = HAQueueExecutor()
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  /// Creates, on this actor, a reaction reading `model.a`, counting runs off the actor.
  func makeReaction(model: HAModel, counters: HACounters) -> Reaction {
    Reaction("HAActorReaction") {
      if !HAQueueExecutor.isCurrent { counters.offIsolation.add(1, ordering: .relaxed) }
      counters.append(model.a)
    }
  }

  /// Writes `model.a` on this actor.
  func write(_ model: HAModel, _ value: Int) { model.a = value }
}

/// An atomic flag closures can capture.
final class HAFlag: Sendable {
  private let storage = Atomic<Bool>(false)
  var isSet: Bool { storage.load(ordering: .sequentiallyConsistent) }
  func set() { storage.store(true, ordering: .sequentiallyConsistent) }
}

/// An atomic integer closures can capture.
final class HAInt: Sendable {
  private let storage: Atomic<Int>
  init(_ value: Int = 0) { storage = Atomic(value) }
  var value: Int { storage.load(ordering: .sequentiallyConsistent) }
  func store(_ value: Int) { storage.store(value, ordering: .sequentiallyConsistent) }
}

/// Runs `body` on a new thread and waits for it without holding a thread of the cooperative pool
/// (so that a loop spinning in `body` cannot starve the tasks it waits for).
func haRun(_ body: @escaping @Sendable () -> Void) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    Thread {
      body()
      continuation.resume()
    }.start()
  }
}
