import Synchronization

/// A derived value's state: the computation, the cached value and its version, and the recorder
/// whose dependencies are the inputs the last computation read (reused across computations that
/// read the same inputs, like a reaction's).
///
/// Its inputs' dependencies hold it strongly (it is their observer); the public `Derived` handle
/// holds it too, and its `deinit` unlinks the inputs, which lets it go.
internal final class DerivedCore<Value>: DerivedNode, ComputedSource, @unchecked Sendable {
  /// Computing, reading the cache and unlinking take this lock: one thread at a time brings the
  /// value up to date. Never taken by the thread that holds it (a cycle is reported first).
  private let computeLock = Mutex<Void>(())
  /// The thread computing or validating the value, to report cycles instead of deadlocking.
  private let busyThread = Atomic<UInt>(0)
  private let computations = Atomic<Int>(0)

  // Touched only under `computeLock`.
  @exclusivity(unchecked) private var compute: (() -> Value)?
  @exclusivity(unchecked) private var isEqual: (Value, Value) -> Bool
  @exclusivity(unchecked) private var recorder: Recorder!
  @exclusivity(unchecked) private var cached: Value?
  @exclusivity(unchecked) private var version: UInt64 = Stamp.none
  /// The value before the latest change and its version, for the causes of readers' runs.
  @exclusivity(unchecked) private var previous: Value?
  @exclusivity(unchecked) private var previousVersion: UInt64 = Stamp.none
  @exclusivity(unchecked) private var isDisposed = false

  init(name: String, isEqual: @escaping (Value, Value) -> Bool, compute: @escaping () -> Value) {
    self.compute = compute
    self.isEqual = isEqual
    super.init(name: name)
    recorder = Recorder(owner: self)
    registrar.table.computedSource = self
  }

  var computationCount: Int { computations.load(ordering: .relaxed) }

  // MARK: Reading

  /// The current value, recorded as a read of this derived value in the active tracking scope.
  func read() -> Value {
    var result: Value?
    var readVersion = Stamp.none
    withValueUpToDate {
      result = cached
      readVersion = version
    }
    _recordAccess(registrar, Self.fieldKey, fieldName, seen: readVersion)
    guard let result else { observantFatalError("Observant: the derived value \"\(name)\" has no value") }
    return result
  }

  func refreshedVersion() -> UInt64 {
    var current = Stamp.none
    withValueUpToDate { current = version }
    return current
  }

  func changeDescription(since seen: UInt64) -> RunCause {
    var cause = RunCause(field: "Derived.\(name)")
    computeLock.withLock { _ in
      let old = seen == previousVersion ? previous : (seen == version ? cached : nil)
      cause = RunCause(
        field: "Derived.\(name)", oldValue: old.flatMap(Self.printed), newValue: cached.flatMap(Self.printed))
    }
    return cause
  }

  private static func printed(_ value: Value) -> String? {
    (value as? any CustomStringConvertible)?.description
  }

  // MARK: Bringing up to date

  /// Runs `body` under the compute lock once the cached value is the value of the current inputs.
  private func withValueUpToDate(_ body: () -> Void) {
    // The lock is free unless another thread computes, or this one does (a cycle): only then is
    // the thread's identity needed.
    let done = computeLock.withLockIfAvailable { _ -> Bool in
      upToDate(on: nil, body)
      return true
    }
    guard done == nil else { return }
    let thread = UInt(bitPattern: ObjectIdentifier(TransactionContext.current))
    if busyThread.load(ordering: .acquiring) == thread {
      observantFatalError(
        "Observant: the derived value \"\(name)\" reads itself while it computes (a cycle of derived values)")
    }
    computeLock.withLock { _ in upToDate(on: thread, body) }
  }

  /// Under the compute lock: brings the value up to date, noting the thread while it may compute.
  private func upToDate(on thread: UInt?, _ body: () -> Void) {
    if freshness != .clean {
      let thread = thread ?? UInt(bitPattern: ObjectIdentifier(TransactionContext.current))
      busyThread.store(thread, ordering: .releasing)
      bringUpToDate()
      busyThread.store(0, ordering: .releasing)
    }
    body()
  }

  private func bringUpToDate() {
    if isDisposed { return }  // a reader's check racing the release: nothing changes any more
    switch freshness {
    case .clean:
      return
    case .dirty:
      recompute()
    case .check:
      // Marked clean first: a mark that arrives while the inputs are checked is kept.
      setFreshness(.clean)
      for dependency in recorder.dependencies {
        guard let source = dependency.table.computedSource else { continue }
        if source.refreshedVersion() != dependency.seen.load(ordering: .relaxed) {
          recompute()
          return
        }
      }
    }
  }

  private func recompute() {
    guard let compute else { return }
    // Clean from the start: a write to an input while computing marks it out of date again.
    setFreshness(.clean)
    recorder.beginRun()
    let new = withRecorder(recorder, propagating: false, compute)
    let stale = recorder.endRun()
    if !stale.isEmpty { stale.unlinkAll() }
    computations.add(1, ordering: .relaxed)
    if let old = cached, isEqual(old, new) { return }
    previous = cached
    previousVersion = version
    cached = new
    version = Stamp.next()
  }

  // MARK: Listening

  override func stopListening() {
    _ = computeLock.withLockIfAvailable { _ in
      guard !registrar.hasObservers, !recorder.dependencies.isEmpty else { return }
      setFreshness(.dirty)
      recorder.removeAll().unlinkAll()
    }
  }

  /// Unlinks every input and releases the computation (and what it captured); called once, when
  /// the handle goes away.
  func dispose() {
    var released: (() -> Value)?
    computeLock.withLock { _ in
      isDisposed = true
      registrar.existingTable?.computedSource = nil
      released = compute
      compute = nil
      recorder.removeAll().unlinkAll()
      cached = nil
      previous = nil
    }
    // Released here, outside the lock: its captures' deinits may do anything.
    withExtendedLifetime(released) {}
  }
}
