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
  //
  // No `Optional<Value>` on the read and compute paths: this generic code runs unspecialized,
  // where every use of `Value?` looks its type metadata up at run time (a third of a derived
  // value's cost). The cached and the previous value live in a two-slot buffer with flags, and a
  // released computation is replaced by a stub.
  @exclusivity(unchecked) private var compute: () -> Value
  @exclusivity(unchecked) private var isEqual: (Value, Value) -> Bool
  @exclusivity(unchecked) private var recorder: Recorder!
  /// Slot 0: the cached value (while `hasCached`); slot 1: an earlier value that readers may still
  /// hold (while `hasPrevious`; see `recompute()`), for the causes of readers' runs and for
  /// recognizing a value that comes back.
  private let values = UnsafeMutablePointer<Value>.allocate(capacity: 2)
  @exclusivity(unchecked) private var hasCached = false
  @exclusivity(unchecked) private var hasPrevious = false
  @exclusivity(unchecked) private var version: UInt64 = Stamp.none
  /// The version of the value in slot 1.
  @exclusivity(unchecked) private var previousVersion: UInt64 = Stamp.none
  /// Whether a recorded read (by a tracking scope, a reaction, a derived value or the observation
  /// bridge) was handed the value in slot 0, or in slot 1: readers may hold it. (Kept per value,
  /// not as the version last recorded: a value that comes back is held by its readers again,
  /// even if a value read midway was recorded after it.)
  @exclusivity(unchecked) private var cachedWasRecorded = false
  @exclusivity(unchecked) private var previousWasRecorded = false
  @exclusivity(unchecked) private var isDisposed = false
  /// The handle went away while this thread computed the value (its computation released the last
  /// reference): disposed once the computation ends, by the thread holding the lock.
  @exclusivity(unchecked) private var disposesAfterComputing = false
  /// Whether a value can hold observable state (see `_StateHolding`). The cached value is then a
  /// copy whose fields can change in place (`state.child.count += 1`) or by an edited copy
  /// assigned back, which tells the readers of those fields but not this derived value (its
  /// inputs, `state.child`, kept their identity). A reader re-run by such a write would read the
  /// old field from the cached copy: so the value is recomputed at every read, and a recomputed
  /// value that is the same (identity, `==`, or `isEqual`) replaces the cached copy without a new
  /// version (its readers do not re-run on its account).
  private let holdsState: Bool

  init(name: String, isEqual: @escaping (Value, Value) -> Bool, compute: @escaping () -> Value) {
    self.compute = compute
    self.isEqual = isEqual
    self.holdsState = _StateHolding.canHoldState(Value.self)
    super.init(name: name)
    recorder = Recorder(owner: self)
    registrar.installComputedTable(source: self)
  }

  deinit {
    if hasCached { values.deinitialize(count: 1) }
    if hasPrevious { (values + 1).deinitialize(count: 1) }
    values.deallocate()
  }

  var computationCount: Int { computations.load(ordering: .relaxed) }

  // MARK: Reading

  /// The current value, recorded as a read of this derived value in the active tracking scope.
  func read() -> Value {
    var readVersion = Stamp.none
    // Copied out under the lock: a recomputation on another thread may replace it.
    // Recorded by a tracking scope, or reported to the observation bridge.
    let recorded = ThreadLocal.isTracking || (_bridgeIsOn && _bridgeReportsReadsHere())
    let result: Value = withValueUpToDate {
      guard hasCached else { observantFatalError("Observant: the derived value \"\(name)\" has no value") }
      readVersion = version
      if recorded { cachedWasRecorded = true }
      return values.pointee
    }
    _recordAccess(registrar, Self.fieldKey, fieldName, seen: readVersion)
    return result
  }

  func refreshedVersion() -> UInt64 {
    withValueUpToDate { version }
  }

  func changeDescription(since seen: UInt64) -> RunCause {
    // The values are copied under the lock and described outside it: a description is user code.
    let (old, cached) = computeLock.withLock { _ -> (Value?, Value?) in
      let cached = hasCached ? values.pointee : nil
      let previous = hasPrevious ? (values + 1).pointee : nil
      return (seen == previousVersion ? previous : (seen == version ? cached : nil), cached)
    }
    return RunCause(
      field: "Derived.\(name)", oldValue: old.flatMap(Self.printed), newValue: cached.flatMap(Self.printed))
  }

  private static func printed(_ value: Value) -> String? {
    (value as? any CustomStringConvertible)?.description
  }

  // MARK: Bringing up to date

  /// Runs `body` under the compute lock once the cached value is the value of the current inputs.
  ///
  /// The thread that is computing the value is noted while it computes: the same thread asking
  /// again is a cycle of derived values, reported instead of deadlocking.
  private func withValueUpToDate<Result>(_ body: () -> Result) -> Result {
    let thread = UInt(bitPattern: ObjectIdentifier(TransactionContext.current))
    if busyThread.load(ordering: .acquiring) == thread {
      observantFatalError(
        "Observant: the derived value \"\(name)\" reads itself while it computes (a cycle of derived values)")
    }
    var disposes = false
    let result = computeLock.withLock { _ in
      if holdsState || freshness != .clean {
        busyThread.store(thread, ordering: .releasing)
        bringUpToDate()
        busyThread.store(0, ordering: .releasing)
        disposes = disposesAfterComputing
      }
      return body()
    }
    if disposes { dispose() }
    return result
  }

  private func bringUpToDate() {
    if isDisposed { return }  // a reader's check racing the release: nothing changes any more
    // A copy of state may be out of date while the inputs are not (see `holdsState`).
    if holdsState { return recompute() }
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
    if isDisposed { return }
    // Clean from the start: a write to an input while computing marks it out of date again.
    setFreshness(.clean)
    recorder.beginRun()
    let new = withRecorder(recorder, propagating: false, compute)
    let stale = recorder.endRun()
    if !stale.isEmpty { stale.unlinkAll() }
    computations.add(1, ordering: .relaxed)
    if hasCached && isEqual(values.pointee, new) {
      // The same value, as readers see it; a copy of state carries its fields' current content.
      if holdsState { values.pointee = new }
      return
    }
    if hasCached && hasPrevious && isEqual(values[1], new) {
      // A value that comes back (inputs set back, say, after the value was read midway): the
      // earlier value, and its version, are current again. Readers that saw it are up to date,
      // and those that saw the value in between see a change. (Versions are only ever compared
      // for equality, and each names one value, so this is exact.)
      swap(&values[0], &values[1])
      swap(&version, &previousVersion)
      swap(&cachedWasRecorded, &previousWasRecorded)
      if holdsState { values.pointee = new }
      return
    }
    if hasCached {
      // The current value becomes the previous one, unless no reader recorded it while a reader
      // did record the previous one: the previous one is the value readers hold then (a value
      // read midway, outside any tracking scope, is not kept).
      if !hasPrevious || cachedWasRecorded || !previousWasRecorded {
        if hasPrevious { (values + 1).deinitialize(count: 1) }
        (values + 1).moveInitialize(from: values, count: 1)
        hasPrevious = true
        previousVersion = version
        previousWasRecorded = cachedWasRecorded
      } else {
        values.deinitialize(count: 1)
      }
    }
    values.initialize(to: new)
    hasCached = true
    cachedWasRecorded = false
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
    // Released by its own computation on this thread (which holds the lock): disposed when the
    // computation ends (see `withValueUpToDate`).
    let busy = busyThread.load(ordering: .acquiring)
    if busy != 0 && busy == UInt(bitPattern: ObjectIdentifier(TransactionContext.current)) {
      disposesAfterComputing = true
      return
    }
    var released: () -> Value = compute
    computeLock.withLock { _ in
      disposesAfterComputing = false
      isDisposed = true
      (registrar.existingTable as? ComputedObserverTable)?.source = nil
      released = compute
      compute = { observantFatalError("Observant: a released derived value was computed") }
      recorder.removeAll().unlinkAll()
    }
    // Released here, outside the lock: its captures' deinits may do anything. (The cached values
    // go with the core.)
    withExtendedLifetime(released) {}
  }
}
