// The public entry points of tracking: what a closure reads, and hearing when it changes.

/// Runs `apply`, records the tracked fields it reads, and calls `onChange` once, on the first
/// change to any of them.
///
/// Each field is observed from the moment it is read, so no write that follows a read is missed:
/// not one from another thread while `apply` still runs, and not one `apply` itself makes after
/// reading the field (then `onChange` runs right away, during `apply`).
///
/// `onChange` runs on the thread that makes the change, before the new value is stored (the object
/// still shows the old value) — except for writes nested in an in-place mutation of a tracked
/// property (`holder.state.child.count += 1`, a store's `send`), where it runs as soon as that
/// mutation ends, after the value changed, so that it can read anything without overlapping the
/// mutation's exclusive access. It runs exactly once, also when several threads write at the same
/// time or `onChange` itself writes a tracked field. What `onChange` writes joins the transaction
/// of the write that called it: reactions run once, after that write stored its value too. If
/// `apply` reads nothing tracked, nothing is installed.
///
/// An object whose field `apply` read going away (`withTracking { [weak model] in model?.title }`)
/// is a change too: `onChange` runs once, on the thread that released the object, after the write
/// that released it has stored its new value (inside a transaction, when it ends). (Apple's tests
/// of `withObservationTracking` expect the same; its runtime in Swift 6.3.1 on Linux calls nothing
/// then.) The last copy of a value going away is not: the slots that held it changed, and told
/// their readers.
///
/// A `@Tracked` property's own `willSet` runs before `onChange`, and its `didSet` after: Swift
/// calls a property's observers around the wrapper's setter, which notifies. (Apple's `@Observable`
/// calls `onChange` before `willSet`.)
///
/// ```swift
/// let name = withTracking {
///   profile.name
/// } onChange: {
///   print("name will change")
/// }
/// ```
///
/// - Parameters:
///   - propagatingToOuterScope: also record the reads in the enclosing tracking scope, if any, as
///     Apple's `withObservationTracking` does. With no Observant scope around it and the
///     observation bridge on, the reads are reported to Apple's Observation when the scope ends,
///     as reads outside scopes are, so an enclosing `withObservationTracking` hears them. By
///     default a nested scope's reads are its own.
///   - apply: the closure whose reads are observed; it runs once, now.
///   - onChange: called once, on the first change to a field `apply` read.
/// - Returns: what `apply` returned.
@discardableResult
public func withTracking<Result>(
  propagatingToOuterScope: Bool = false,
  _ apply: () throws -> Result,
  onChange: @escaping @Sendable () -> Void
) rethrows -> Result {
  try _track(propagatingToOuterScope: propagatingToOuterScope, keepingDependencies: false, apply, onChange: onChange)
    .value
}

/// `withTracking(_:onChange:)`, returning a handle that can cancel the observation and tells which
/// fields were read.
///
/// ```swift
/// let (_, observation) = withCancellableTracking { render(profile) } onChange: { invalidate() }
/// print(observation.accesses)   // [Profile.name, Profile.followers]
/// observation.cancel()
/// ```
public func withCancellableTracking<Result>(
  propagatingToOuterScope: Bool = false,
  _ apply: () throws -> Result,
  onChange: @escaping @Sendable () -> Void
) rethrows -> (value: Result, observation: TrackingObservation) {
  let (value, observer, dependencies) = try _track(
    propagatingToOuterScope: propagatingToOuterScope, keepingDependencies: true, apply, onChange: onChange)
  return (value, TrackingObservation(observer: observer, dependencies: dependencies))
}

/// The one-shot scope behind `withTracking` and `withCancellableTracking`: runs `apply` with a
/// recorder whose new dependencies are linked to a one-shot observer as they are read, and hands
/// them to the observer. Returns the observer (`nil` when nothing was read) and, if asked, the
/// dependencies in the order of first read (also when the observer fired during `apply`).
///
/// Builds no access log and no handle: `withTracking` needs neither. The observer and its
/// dependencies change hands without a temporary retain (the thread's context and recorder are
/// used unretained: the thread keeps the one, the scope owns the other).
@inline(__always)
private func _track<Result>(
  propagatingToOuterScope: Bool,
  keepingDependencies: Bool,
  _ apply: () throws -> Result,
  onChange: @escaping @Sendable () -> Void
) rethrows -> (value: Result, observer: OneShotObserver?, dependencies: OneShotDependencies) {
  let context = Unmanaged.passUnretained(TransactionContext.current)
  let recorder = context._withUnsafeGuaranteedRef { $0.takeSpareRecorder() } ?? Recorder()
  let observer = OneShotObserver(onChange: onChange)
  recorder.owner = observer
  defer {
    recorder.reset()
    context._withUnsafeGuaranteedRef { $0.returnSpareRecorder(recorder) }
  }
  let value: Result
  do {
    value = try withScopeRecorder(recorder, propagating: propagatingToOuterScope, apply)
  } catch {
    observer.adopt(recorder.takeDependencies())
    throw error
  }
  // Copied out (none for one field): the recorder keeps its storage for the next scope.
  guard !recorder.isEmpty else {
    observer.cancel()
    return (value, nil, OneShotDependencies(first: nil, rest: []))
  }
  if keepingDependencies {
    let dependencies = recorder.takeDependencies()
    observer.adopt(dependencies)
    return (value, observer, dependencies)
  }
  observer.adoptDependencies(of: recorder)
  return (value, observer, OneShotDependencies(first: nil, rest: []))
}

/// A one-shot observation started by `withCancellableTracking(_:onChange:)`.
public final class TrackingObservation: Sendable {
  private let observer: OneShotObserver?
  /// What the closure read, kept to describe it (`accesses`); the log is built when asked for.
  private let dependencies: OneShotDependencies

  internal init(observer: OneShotObserver?, dependencies: OneShotDependencies) {
    self.observer = observer
    self.dependencies = dependencies
  }

  /// The fields the observed closure read.
  ///
  /// - Complexity: O(*n*) in the number of fields read (the log is built on each call).
  public var accesses: AccessLog { AccessLog(dependencies) }

  /// Whether `onChange` can still be called: the closure read something, and the observation has
  /// neither fired nor been cancelled.
  public var isActive: Bool { observer.map { !$0.isSpent } ?? false }

  /// Stops the observation: `onChange` will not be called, and every observer entry is removed
  /// (the closure is released). Calling it again, or after the observation fired, does nothing. A
  /// write on another thread that fired the observation before `cancel()` (exactly once, as ever)
  /// may still be running `onChange` when `cancel()` returns: `cancel()` does not wait for it.
  public func cancel() {
    observer?.cancel()
  }
}

/// Runs `body` in a new tracking scope and returns its result with the fields it read. Nothing is
/// observed: this only answers "which fields did this code touch?".
///
/// ```swift
/// let (_, accesses) = recordAccesses { render(list) }
/// print(accesses)   // [ListState.rows, Row.count]
/// ```
///
/// - Parameters:
///   - propagatingToOuterScope: also record the reads in the enclosing tracking scope, if any (by
///     default an inner scope's reads stay inside it); with no Observant scope around it and the
///     observation bridge on, report them to Apple's Observation when the scope ends.
///   - body: the code whose reads are recorded; it runs once, now.
public func recordAccesses<Result>(
  propagatingToOuterScope: Bool = false,
  _ body: () throws -> Result
) rethrows -> (value: Result, accesses: AccessLog) {
  let recorder = Recorder()
  let value = try withScopeRecorder(recorder, propagating: propagatingToOuterScope, body)
  return (value, AccessLog(recorder.currentDependencies))
}

/// Runs `body` with tracking suspended: its reads are recorded nowhere, not even in an enclosing
/// tracking scope or reaction (nor reported to Apple's Observation by the observation bridge).
public func withoutTracking<Result>(_ body: () throws -> Result) rethrows -> Result {
  try _withoutBridgeReports { try withRecorder(nil, propagating: false, body) }
}

/// Whether a tracking scope is recording reads on this thread right now, or the observation
/// bridge would report them: owners that would allocate something only for a recorded read (a
/// store's identity slot) ask first.
///
/// - Complexity: O(1): one thread-local load, and one load of the bridge's recorder.
@inlinable
package var isTrackingAccesses: Bool { ThreadLocal.isTracking || (_bridgeIsOn && _bridgeReportsReadsHere()) }
