import Dispatch
import Observant
import ObservantTestSupport
import Synchronization
import Testing

// Hunt 5: swift-navigation's `observe { }` tests (ObserveTests, ObserveTests+Nesting, LifetimeTests,
// IsolationTests) ported to `Reaction`, written in our own words against Observant's documentation.
// swift-navigation's unscoped `observe` re-runs the outer closure for a change only the inner one
// read; Observant's reactions promise "Reads are not shared" (ReactionsAndTransactions.md), so
// these tests assert the precise counts the docs promise.

private final class H5NavLog: @unchecked Sendable {
  private let lock = Mutex<[String]>([])
  func append(_ line: String) { lock.withLock { $0.append(line) } }
  var lines: [String] { lock.withLock { $0 } }
  func clear() { lock.withLock { $0.removeAll() } }
}

private final class H5NavB: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var value = 0
}

private final class H5NavA: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var b = H5NavB()
}

/// A plain (not tracked) object whose field is bound to a model by a reaction, as swift-navigation's
/// `ChildObject.bind`.
private final class H5NavChildObject: @unchecked Sendable {
  let log: H5NavLog
  var tokens: [Reaction] = []
  var value = 0 { didSet { log.append("ChildObject.value.didSet \(value)") } }
  init(log: H5NavLog) { self.log = log }

  final class Model: Trackable, @unchecked Sendable {
    let trackingRegistrar = TrackingRegistrar()
    let log: H5NavLog
    @Tracked var value = 0 { didSet { log.append("ChildObject.Model.value.didSet \(value)") } }
    init(log: H5NavLog) { self.log = log }
  }

  func bind(_ model: Model) {
    log.append("ChildObject.bind")
    tokens = [
      Reaction("ChildObject.valueUpdate") { [weak self, log] in
        log.append("ChildObject.valueUpdate \(model.value)")
        self?.value = model.value
      }
    ]
  }
}

private final class H5NavParentObject: @unchecked Sendable {
  let log: H5NavLog
  var tokens: [Reaction] = []
  var value = 0 { didSet { log.append("ParentObject.value.didSet \(value)") } }
  let child: H5NavChildObject
  init(log: H5NavLog) {
    self.log = log
    child = H5NavChildObject(log: log)
  }

  final class Model: Trackable, @unchecked Sendable {
    let trackingRegistrar = TrackingRegistrar()
    let log: H5NavLog
    @Tracked var value = 0 { didSet { log.append("ParentObject.Model.value.didSet \(value)") } }
    @Tracked var child: H5NavChildObject.Model { didSet { log.append("ParentObject.Model.child.didSet") } }
    init(log: H5NavLog) {
      self.log = log
      self.child = H5NavChildObject.Model(log: log)
    }
  }

  /// Unscoped, as swift-navigation's misuse test: each reaction reads what it uses, the second one
  /// binds the child, whose reaction is created inside this reaction's body (owned by it).
  func bind(_ model: Model) {
    log.append("ParentObject.bind")
    tokens = [
      Reaction("ParentObject.valueUpdate") { [weak self, log] in
        log.append("ParentObject.valueUpdate \(model.value)")
        self?.value = model.value
      },
      Reaction("ParentObject.childUpdate") { [weak self, log] in
        log.append("ParentObject.childUpdate")
        self?.child.bind(model.child)
      },
    ]
  }
}

private final class H5NavCounter: Sendable {
  private let storage = Atomic(0)
  func add(_ n: Int) { storage.add(n, ordering: .sequentiallyConsistent) }
  var value: Int { storage.load(ordering: .sequentiallyConsistent) }
}

@globalActor private actor H5NavGlobalActor {
  static let shared = H5NavGlobalActor()
  let executor = HAQueueExecutor()
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
}

/// Not isolated, so that the main actor can write it too (registrars are thread-safe).
private final class H5NavGlobalModel: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var count = 0
}

@MainActor private final class H5NavMainModel: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var count = 0
}

/// Lives on the global actor: a reaction created there, and writes made there.
@H5NavGlobalActor private final class H5NavGlobalHarness {
  let model = H5NavGlobalModel()
  let offActorRuns = H5NavCounter()
  let runs = H5NavCounter()
  var reaction: Reaction?

  func start() {
    let model = model
    let offActorRuns = offActorRuns
    let runs = runs
    reaction = Reaction("global") {
      if !HAQueueExecutor.isCurrent { offActorRuns.add(1) }
      _ = model.count
      runs.add(1)
    }
  }

  func write(_ value: Int) -> Int {
    model.count = value
    return runs.value
  }

  func drain() {}

  func cancel() {
    reaction?.cancel()
    reaction = nil
  }
}

@Suite("Hunt 5: swift-navigation observe ports")
struct Hunt5NavigationTests {
  @MainActor @Test("observe runs its closure at once, where it is created (SimpleObserve, Compiles)")
  func runsAtOnce() {
    var count = 0
    let token = Reaction("simple") { count = 1 }
    #expect(count == 1)
    #expect(token.runCount == 1)
    token.cancel()
  }

  @MainActor @Test("two observations stored together each run once at creation (TokenStorage)")
  func tokenStorage() {
    var count = 0
    var tokens: [Reaction] = []
    tokens.append(Reaction { count += 1 })
    tokens.append(Reaction { count += 1 })
    #expect(count == 2)
    tokens.removeAll()
    #expect(count == 2)
  }

  @MainActor
  @Test(
    "nested observe without scoping: a change only the inner closure read re-runs the inner one alone (NestedObserve)"
  )
  func nestedObserveIsPrecise() {
    let a = H5NavA()
    var value = 0
    var outerCount = 0
    var innerCount = 0
    var inner: Reaction?
    let outer = Reaction("outer") {
      outerCount += 1
      let b = a.b
      if inner == nil {
        inner = Reaction("inner", ownedByParent: false) {
          value = b.value
          innerCount += 1
        }
      }
    }
    a.b.value += 1
    #expect(value == 1)
    // swift-navigation counts 3 and 3 (redundant runs of the unscoped outer closure); Observant's
    // reads are not shared: the outer read `a.b` only.
    #expect(outerCount == 1)
    #expect(innerCount == 2)
    a.b.value += 1
    #expect((value, outerCount, innerCount) == (2, 1, 3))
    outer.cancel()
    inner?.cancel()
  }

  @MainActor
  @Test(
    "nested observe, inner owned by the outer: replacing what the outer read cancels the inner one, which never runs again"
  )
  func nestedOwnedInnerIsCancelledByOuterRerun() {
    let a = H5NavA()
    let oldB = a.b
    var innerCount = 0
    var inner: Reaction?
    var outerCount = 0
    let outer = Reaction("outer") {
      outerCount += 1
      let b = a.b
      if inner == nil {
        inner = Reaction("inner") {  // owned by "outer" (the default)
          _ = b.value
          innerCount += 1
        }
      }
    }
    oldB.value = 1
    #expect((outerCount, innerCount) == (1, 2))
    a.b = H5NavB()  // the outer re-runs: it cancels the inner it created, and (guarded) makes none
    #expect(outerCount == 2)
    #expect(inner?.isCancelled == true)
    oldB.value = 2
    a.b.value = 3
    #expect(innerCount == 2)
    #expect(oldB.trackingRegistrar.observerEntryCount == 0)
    outer.cancel()
  }

  @MainActor
  @Test(
    "scoped nested observe: the outer observes the child reference, the inner its value (ScopedNestedObserve)"
  )
  func scopedNestedObserve() {
    let a = H5NavA()
    var value = 0
    var outerCount = 0
    var innerCount = 0
    var inner: Reaction?
    let outer = Reaction("outer") {
      _ = a.b
      outerCount += 1
      let b = a.b
      if inner == nil {
        inner = Reaction("inner", ownedByParent: false) {
          value = b.value
          innerCount += 1
        }
      }
    }
    a.b.value += 1
    #expect(value == 1)
    #expect(outerCount == 1)
    #expect(innerCount == 2)  // the initial value, then the updated one
    outer.cancel()
    inner?.cancel()
  }

  @MainActor
  @Test(
    "parent object binding a child object inside a reaction: a change of the child model runs the child's binding only (NestedObservation)"
  )
  func nestedBinding() {
    let log = H5NavLog()
    let object = H5NavParentObject(log: log)
    let model = H5NavParentObject.Model(log: log)
    log.clear()
    object.bind(model)
    #expect(
      log.lines == [
        "ParentObject.bind",
        "ParentObject.valueUpdate 0",
        "ParentObject.value.didSet 0",
        "ParentObject.childUpdate",
        "ChildObject.bind",
        "ChildObject.valueUpdate 0",
        "ChildObject.value.didSet 0",
      ])
    log.clear()
    model.child.value = 1
    // swift-navigation needs scoped observation to get exactly this; Observant's unscoped
    // reactions already do: the parent's childUpdate read `model.child`, not its value.
    // A write outside a transaction is a transaction of its own, which ends inside the `@Tracked`
    // setter: the reaction runs there, before the property's own `didSet` (DeclaringObservableTypes:
    // observers "run around the store"; a clamping didSet's second write is seen after the first).
    // swift-navigation's observe runs later, after didSet.
    #expect(
      log.lines == [
        "ChildObject.valueUpdate 1",
        "ChildObject.value.didSet 1",
        "ChildObject.Model.value.didSet 1",
      ])
    log.clear()
    model.value = 5
    #expect(
      log.lines == [
        "ParentObject.valueUpdate 5",
        "ParentObject.value.didSet 5",
        "ParentObject.Model.value.didSet 5",
      ])
    log.clear()
    // Inside a transaction the reactions run when it ends, after the property's didSet.
    transaction { model.value = 6 }
    #expect(
      log.lines == [
        "ParentObject.Model.value.didSet 6",
        "ParentObject.valueUpdate 6",
        "ParentObject.value.didSet 6",
      ])
    log.clear()
    // A new child model: childUpdate re-runs, cancelling the child binding it owned and making a
    // new one, which reads the new model. The old model's changes reach nobody.
    let oldChild = model.child
    let newChild = H5NavChildObject.Model(log: log)
    newChild.value = 7
    log.clear()
    model.child = newChild
    #expect(
      log.lines == [
        "ParentObject.childUpdate",
        "ChildObject.bind",
        "ChildObject.valueUpdate 7",
        "ChildObject.value.didSet 7",
        "ParentObject.Model.child.didSet",
      ])
    log.clear()
    oldChild.value = 100
    #expect(log.lines == ["ChildObject.Model.value.didSet 100"])
    #expect(oldChild.trackingRegistrar.observerEntryCount == 0)
    #expect(object.child.value == 7)
    object.tokens.removeAll()
    object.child.tokens.removeAll()
  }

  @MainActor @Test("a read-logging model: one get per run, and += reads once then writes (AutoclosureObservation)")
  func readLoggingModel() {
    let log = H5NavLog()
    final class Model: Trackable, @unchecked Sendable {
      let trackingRegistrar = TrackingRegistrar()
      let log: H5NavLog
      @Tracked private var _value = 0
      var value: Int {
        get {
          let v = _value
          log.append("get \(v)")
          return v
        }
        set {
          log.append("set \(newValue)")
          _value = newValue
        }
      }
      init(log: H5NavLog) { self.log = log }
    }
    let model = Model(log: log)
    var token: Reaction? = Reaction("observe") {
      log.append("didSet \(model.value)")
    }
    model.value += 1
    #expect(log.lines == ["get 0", "didSet 0", "get 0", "set 1", "get 1", "didSet 1"])
    token?.cancel()
    token = nil
    log.clear()
    model.value = 0
    #expect(log.lines == ["set 0"])
    _ = token
  }

  @MainActor @Test("releasing the token stops observation (LifetimeTests.ObservationToken)")
  func releasingTheTokenStops() {
    let model = H5NavMainModel()
    var counts: [Int] = []
    var token: Reaction?
    do {
      token = Reaction("lifetime") { counts.append(model.count) }
    }
    #expect(counts == [0])
    model.count += 1
    #expect(counts == [0, 1])
    _ = token
    token = nil
    model.count += 1
    #expect(counts == [0, 1])
    #expect(model.trackingRegistrar.observerEntryCount == 0)
  }

  @MainActor @Test("a main-actor model observed on the main actor re-runs on the main actor (Isolation, main actor)")
  func mainActorIsolation() async {
    let model = H5NavMainModel()
    var runs = 0
    let token = Reaction("main") {
      _ = model.count
      MainActor.preconditionIsolated()
      runs += 1
    }
    model.count += 1
    #expect(runs == 2)  // synchronously: the write ended on the reaction's actor
    await Task.detached { @MainActor in model.count += 1 }.value
    #expect(runs == 3)
    token.cancel()
  }

  @H5NavGlobalActor
  @Test(
    "a reaction created on a global actor re-runs there: at once for a write made there (Isolation, global actor)"
  )
  func globalActorIsolation() async {
    let harness = H5NavGlobalHarness()
    harness.start()
    #expect(harness.runs.value == 1)
    #expect(harness.write(1) == 2)  // not handed off: the write ended on the reaction's actor
    #expect(harness.write(1) == 2)  // an equal value: nothing
    #expect(harness.write(2) == 3)
    #expect(harness.offActorRuns.value == 0)
    harness.cancel()
  }

  @Test("a global actor's reaction dirtied by a write on the main actor re-runs on the global actor, once")
  func globalActorIsolationWriteElsewhere() async {
    let harness = H5NavGlobalHarness()
    await harness.start()
    let model = harness.model
    let runs = harness.runs
    #expect(runs.value == 1)
    await MainActor.run { model.count = 5 }
    #expect(await waitUntil { runs.value >= 2 })
    // Hop onto the actor once more: no further run is queued behind the first.
    await harness.drain()
    #expect(runs.value == 2)
    #expect(harness.offActorRuns.value == 0)
    await harness.cancel()
  }
}
