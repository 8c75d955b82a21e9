import Synchronization

/// A persistent, synchronous observer: `track` records what a closure reads, and `onChange` runs on
/// the writing thread when any of it changes, until the next `track` replaces the dependencies or
/// `cancel()` stops it. A class field it read is heard on every write; a value-type field is heard
/// on the first write that replaces the state `track` read (later writes of that field replace a
/// state it never read), so an owner re-tracks once it has handled a change.
///
/// Where `withTracking` fires once and a `Reaction` re-runs after the transaction, a
/// `ChangeObserver` is the building block for owners that only need to *know* that something
/// changed, as it happens, and decide later what to do (a store marking a child scope for
/// examination at its next commit, say).
///
/// `onChange` runs before the value is stored, except for writes nested in an in-place mutation
/// of a tracked property (`holder.state.child.count += 1`, a store's `send`), where it runs when
/// that mutation ends. It must not block and should not write tracked fields. `track` must not be
/// called concurrently with itself (the owner serializes it); `cancel()` may be called from
/// anywhere.
package final class ChangeObserver: Sendable {
  private let core: ChangeObserverCore

  /// Creates an observer with no dependencies yet.
  package init(onChange: @escaping @Sendable () -> Void) {
    core = ChangeObserverCore(onChange: onChange)
  }

  deinit {
    core.cancel()
  }

  /// Runs `body`, and makes the fields it reads this observer's dependencies (replacing the
  /// previous ones; fields read again stay installed without being removed and added again).
  @discardableResult
  package func track<Result>(_ body: () throws -> Result) rethrows -> Result {
    try core.track(body)
  }

  /// The fields the last `track` read.
  package var accesses: AccessLog { core.accesses }

  /// Removes every observer entry and releases `onChange` (after its own lock is released: what
  /// the closure captured may use this observer as it goes); it is not called again. Idempotent.
  package func cancel() {
    core.cancel()
  }

  /// Whether `cancel()` was called.
  package var isCancelled: Bool { core.isCancelled }
}

internal final class ChangeObserverCore: Observer, @unchecked Sendable {
  private struct State {
    var isCancelled = false
    var isTracking = false
    var isUninstalled = false
    var onChange: (@Sendable () -> Void)?
    /// The dependencies of the last completed `track` (for `accesses`, read under the lock).
    var lastDependencies: ContiguousArray<Dependency> = []
  }

  /// Touched by `track` (serialized by the owner) and, when no `track` runs, by `cancel` (under
  /// the lock's protection of `isTracking`).
  @exclusivity(unchecked) private var recorder: Recorder!
  private let state: Mutex<State>

  init(onChange: @escaping @Sendable () -> Void) {
    state = Mutex(State(onChange: onChange))
    super.init()
    recorder = Recorder(owner: self)
  }

  override func dependencyChanged(_ dependency: Dependency, _ change: FieldChange) {
    // Copied out through an inout, not the lock's generic result (which would reabstract the
    // closure, allocating twice per call).
    var onChange: (@Sendable () -> Void)?
    state.withLock { if !$0.isCancelled { onChange = $0.onChange } }
    onChange?()
  }

  var isCancelled: Bool { state.withLock { $0.isCancelled } }

  var accesses: AccessLog { AccessLog(state.withLock { $0.lastDependencies }) }

  func track<Result>(_ body: () throws -> Result) rethrows -> Result {
    let proceed = state.withLock { state -> Bool in
      guard !state.isCancelled else { return false }
      state.isTracking = true
      return true
    }
    guard proceed else { return try withRecorder(nil, propagating: false, body) }
    recorder.beginRun()
    defer {
      let stale = recorder.endRun()
      if !stale.isEmpty { stale.unlinkAll() }
      let dependencies = recorder.dependencies
      let cancelled = state.withLock {
        $0.isTracking = false
        $0.lastDependencies = dependencies
        return $0.isCancelled
      }
      if cancelled { uninstallAll() }
    }
    return try withRecorder(recorder, propagating: false, body)
  }

  func cancel() {
    // Taken out under the lock and released after it (with whatever it captured, whose deinit
    // may ask this observer anything), as `Reaction.cancel()` does.
    var released: (@Sendable () -> Void)?
    let isTracking = state.withLock { state -> Bool in
      state.isCancelled = true
      swap(&released, &state.onChange)
      return state.isTracking
    }
    // A running `track` uninstalls when it ends.
    if !isTracking { uninstallAll() }
    withExtendedLifetime(released) {}
  }

  private func uninstallAll() {
    var released: ContiguousArray<Dependency> = []
    let proceed = state.withLock { state -> Bool in
      guard !state.isUninstalled, !state.isTracking else { return false }
      state.isUninstalled = true
      swap(&released, &state.lastDependencies)
      return true
    }
    if proceed { recorder.removeAll().unlinkAll() }
    withExtendedLifetime(released) {}
  }
}
